package evaluate_test

import (
	"math"
	"testing"

	"github.com/galaxygym/galaxygym/evaluate"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestMeanCI(t *testing.T) {
	// {1,2,3,4,5}: mean 3, sd √2.5, t(0.975, 4) = 2.7764451051977987,
	// half-width 2.7764451051977987·√2.5/√5 = 1.9632431614775605.
	e := evaluate.MeanCI([]float64{4, 2, 5, 1, 3}, 0.95)
	if e.N != 5 || !near(e.Mean, 3) || !near(e.SD, math.Sqrt(2.5)) ||
		!near(e.CI.Low, 1.0367568385224393) || !near(e.CI.High, 4.9632431614775605) {
		t.Errorf("MeanCI(1..5) = %+v", e)
	}
	// Two values: t(0.975, 1) = 12.706204736174707, sd = √2/2·|a-b|.
	e = evaluate.MeanCI([]float64{0, 2}, 0.95)
	if half := 12.706204736174707 * math.Sqrt(2) / math.Sqrt(2); !near(e.CI.Low, 1-half) || !near(e.CI.High, 1+half) {
		t.Errorf("MeanCI(0, 2) = %+v, want 1 ± %v", e, half)
	}
	// 90%: t(0.95, 4) = 2.1318467863266499.
	e = evaluate.MeanCI([]float64{1, 2, 3, 4, 5}, 0.90)
	if h := 2.1318467863266499 * math.Sqrt(2.5) / math.Sqrt(5); !near(e.CI.High-e.Mean, h) {
		t.Errorf("MeanCI 90%% half-width %v, want %v", e.CI.High-e.Mean, h)
	}
	// Identical values: exact mean, zero sd, zero-width interval.
	e = evaluate.MeanCI([]float64{0.1, 0.1, 0.1}, 0.95)
	if e.Mean != 0.1 || e.SD != 0 || e.CI != (evaluate.Interval{Low: 0.1, High: 0.1}) {
		t.Errorf("MeanCI(constant) = %+v", e)
	}
	// One value: a mean, no interval; none: nothing.
	if e = evaluate.MeanCI([]float64{7}, 0.95); e.Mean != 7 || !math.IsNaN(e.SD) || !math.IsNaN(e.CI.Low) {
		t.Errorf("MeanCI(7) = %+v", e)
	}
	if e = evaluate.MeanCI(nil, 0.95); !math.IsNaN(e.Mean) || e.N != 0 {
		t.Errorf("MeanCI() = %+v", e)
	}
}

func TestWilson(t *testing.T) {
	// z = 1.959963984540054; (p + z²/2n ± z√(p(1-p)/n + z²/4n²)) / (1 + z²/n).
	for _, c := range []struct {
		k, n      int64
		p, lo, hi float64
	}{
		{8, 10, 0.8, 0.49016247153664183, 0.9433178485456247},
		{0, 10, 0, 0, 0.2775327998628892},
		{10, 10, 1, 0.7224672001371107, 1},
		{50, 100, 0.5, 0.4038315303659956, 0.5961684696340044},
	} {
		p, ci := evaluate.Wilson(c.k, c.n, 0.95)
		if !near(p, c.p) || !near(ci.Low, c.lo) || !near(ci.High, c.hi) {
			t.Errorf("Wilson(%d, %d) = %v %+v, want %v [%v, %v]", c.k, c.n, p, ci, c.p, c.lo, c.hi)
		}
		if ci.Low < 0 || ci.High > 1 {
			t.Errorf("Wilson(%d, %d) = %+v outside [0, 1]", c.k, c.n, ci)
		}
	}
	if p, ci := evaluate.Wilson(0, 0, 0.95); !math.IsNaN(p) || !math.IsNaN(ci.Low) {
		t.Errorf("Wilson(0, 0) = %v %+v", p, ci)
	}
}

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{
		"Employee of the Year!!":                            "employee_of_the_year",
		"Nice going, kid!":                                  "nice_going_kid",
		"Not bad ... for a rookie!":                         "not_bad_for_a_rookie",
		"Maybe you need to spend more time at the Academy!": "maybe_you_need_to_spend_more_time_at_the_academy",
		"unspent_coins":                                     "unspent_coins",
		"  A-1  ":                                           "a_1",
		"!!":                                                "x",
	} {
		if got := evaluate.Slug(in); got != want {
			t.Errorf("Slug(%q) = %q, want %q", in, got, want)
		}
	}
}
