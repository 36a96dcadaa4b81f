package evaluate

import (
	"math"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Level is the confidence level of every interval of a report.
const Level = 0.95

// Interval is a confidence interval.
type Interval struct {
	Low, High float64
}

// Estimate is a sample mean with its standard deviation and confidence
// interval.
type Estimate struct {
	N    int     // sample size
	Mean float64 // sample mean
	SD   float64 // sample standard deviation (n-1 denominator); NaN for n < 2
	CI   Interval
}

// MeanCI returns the mean of xs, its sample standard deviation and the
// two-sided Student's t confidence interval at level (0.95 for 95%):
// mean ± t(1-(1-level)/2, n-1)·sd/√n. The interval is NaN for fewer than
// two values, and has zero width when every value is the same.
func MeanCI(xs []float64, level float64) Estimate {
	n := len(xs)
	est := Estimate{N: n, Mean: math.NaN(), SD: math.NaN(), CI: Interval{math.NaN(), math.NaN()}}
	if n == 0 {
		return est
	}
	if n == 1 {
		est.Mean = xs[0]
		return est
	}
	if allEqual(xs) {
		// Exactly: the two-pass formulas could leave a rounding residue.
		est.Mean, est.SD = xs[0], 0
		est.CI = Interval{xs[0], xs[0]}
		return est
	}
	est.Mean, est.SD = stat.MeanStdDev(xs, nil)
	q := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Quantile(1 - (1-level)/2)
	half := q * est.SD / math.Sqrt(float64(n))
	est.CI = Interval{est.Mean - half, est.Mean + half}
	return est
}

func allEqual(xs []float64) bool {
	for _, x := range xs[1:] {
		if x != xs[0] {
			return false
		}
	}
	return true
}

// Wilson returns the share successes/n and its Wilson score interval at
// level (0.95 for 95%):
//
//	(p + z²/2n ± z·√(p(1-p)/n + z²/4n²)) / (1 + z²/n),  z = Φ⁻¹(1-(1-level)/2).
//
// Unlike the normal approximation it stays within [0, 1] and is not empty
// at p = 0 or 1. Everything is NaN for n = 0.
func Wilson(successes, n int64, level float64) (p float64, ci Interval) {
	if n <= 0 {
		return math.NaN(), Interval{math.NaN(), math.NaN()}
	}
	z := distuv.UnitNormal.Quantile(1 - (1-level)/2)
	nf := float64(n)
	p = float64(successes) / nf
	z2 := z * z
	den := 1 + z2/nf
	center := (p + z2/(2*nf)) / den
	half := z * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf)) / den
	return p, Interval{max(0, center-half), min(1, center+half)}
}
