package server

import "github.com/prometheus/client_golang/prometheus"

// metrics are the server's Prometheus collectors, served on /metrics:
//
//	galaxygym_sessions                 gauge    open websocket sessions
//	galaxygym_sessions_total           counter  sessions accepted
//	galaxygym_requests_in_flight       gauge    messages being handled (a step, reset, make...), sessions whose client left included
//	galaxygym_env_steps_total{env}     counter  environment steps (N per batch step)
//	galaxygym_step_requests_total{env} counter  batch step requests served
//	galaxygym_resets_total{env}        counter  reset messages served
//	galaxygym_errors_total{code}       counter  error replies and refusals, by code
//	galaxygym_step_duration_seconds    histogram  time from a step request read to its reply written
type metrics struct {
	sessions      prometheus.Gauge
	sessionsTotal prometheus.Counter
	envSteps      *prometheus.CounterVec
	stepRequests  *prometheus.CounterVec
	resets        *prometheus.CounterVec
	errors        *prometheus.CounterVec
	stepDuration  prometheus.Histogram
}

func newMetrics(reg prometheus.Registerer) *metrics {
	m := &metrics{
		sessions: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "galaxygym_sessions", Help: "Open websocket sessions.",
		}),
		sessionsTotal: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "galaxygym_sessions_total", Help: "Websocket sessions accepted.",
		}),
		envSteps: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "galaxygym_env_steps_total", Help: "Environment steps (a batch step of N environments counts N).",
		}, []string{"env"}),
		stepRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "galaxygym_step_requests_total", Help: "Batch step requests served.",
		}, []string{"env"}),
		resets: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "galaxygym_resets_total", Help: "Reset messages served.",
		}, []string{"env"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "galaxygym_errors_total", Help: "Error replies, refused connections and protocol closes, by code.",
		}, []string{"code"}),
		stepDuration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "galaxygym_step_duration_seconds",
			Help:    "Time from a step request read to its reply written.",
			Buckets: prometheus.ExponentialBuckets(5e-6, 2, 18), // 5us .. 0.65s
		}),
	}
	reg.MustRegister(m.sessions, m.sessionsTotal, m.envSteps, m.stepRequests, m.resets, m.errors, m.stepDuration)
	return m
}
