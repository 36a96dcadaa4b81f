package evaluate

import (
	"fmt"
	"strconv"
)

// ConfigError reports an invalid [Config] field, or an environment or agent
// that cannot be made; Err, when set, is the cause (an
// *[agents.UnknownAgentError], an *[env.UnknownEnvError], ...), which
// [errors.As] finds through it.
type ConfigError struct {
	Field  string // the Config field: "Env", "Agents", "AgentOptions", "Episodes", "Workers"
	Reason string
	Err    error
}

func (e *ConfigError) Error() string {
	s := "evaluate: " + e.Field + ": " + e.Reason
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the cause.
func (e *ConfigError) Unwrap() error { return e.Err }

// InterruptedError reports a run stopped by its context; Err is the
// context's error, so errors.Is(err, context.Canceled) holds after a
// cancellation.
type InterruptedError struct {
	Agent        string // the agent that was playing
	EpisodesDone int64  // episodes that agent had finished
	Episodes     int64  // episodes per agent
	Err          error
}

func (e *InterruptedError) Error() string {
	return fmt.Sprintf("evaluate: interrupted while %s played (%d of %d episodes): %v",
		e.Agent, e.EpisodesDone, e.Episodes, e.Err)
}

// Unwrap returns the context's error.
func (e *InterruptedError) Unwrap() error { return e.Err }

// FormatError reports an unknown output format.
type FormatError struct {
	Format string
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("evaluate: unknown format %s (want table, markdown, csv or json)", strconv.Quote(e.Format))
}

// PlotPathError reports a plot file name whose extension names no format
// [Report.Plot] writes.
type PlotPathError struct {
	Path string
}

func (e *PlotPathError) Error() string {
	return fmt.Sprintf("evaluate: plot file %s: unknown extension (want .png, .svg or .pdf)", strconv.Quote(e.Path))
}

// MarkerError reports a document in which [Splice] cannot find a
// section's markers.
type MarkerError struct {
	Section string
	Reason  string
}

func (e *MarkerError) Error() string {
	start, end := Markers(e.Section)
	return "evaluate: " + e.Reason + " (want a line " + start + " before a line " + end + ")"
}
