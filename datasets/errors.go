package datasets

import (
	"errors"
	"fmt"
)

// ErrMismatch is wrapped by [*MismatchError]; test with errors.Is.
var ErrMismatch = errors.New("datasets: output directory holds another dataset")

// ErrInterrupted is wrapped by [*InterruptedError]; test with errors.Is.
var ErrInterrupted = errors.New("datasets: interrupted")

// ErrNoManifest is returned by [Open] and [ReadManifest] for a directory
// without manifest.json (not a dataset, or a run that has not finished).
var ErrNoManifest = errors.New("datasets: no manifest.json (not a finished dataset)")

// ConfigError reports an invalid [Config] field (episodes, workers, parts,
// unknown environment or agent, bad parameters).
type ConfigError struct {
	Field  string // the Config field, e.g. "Episodes"
	Reason string
	Err    error // the underlying error, e.g. an *env.ParamError; may be nil
}

func (e *ConfigError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("datasets: %s: %s: %v", e.Field, e.Reason, e.Err)
	}
	return fmt.Sprintf("datasets: %s: %s", e.Field, e.Reason)
}

// Unwrap returns the underlying error.
func (e *ConfigError) Unwrap() error { return e.Err }

// MismatchError reports a resume refused because the output directory
// already holds parts or a manifest written with other parameters (another
// environment, parameters, agent, agent options, seed, parts size or schema).
type MismatchError struct {
	Dir   string // the output directory
	File  string // the manifest or part that disagrees
	Field string // the parameter that differs, e.g. "seed"
	Have  string // its value in Dir
	Want  string // its value in this run
}

func (e *MismatchError) Error() string {
	return fmt.Sprintf("datasets: %s holds a dataset with %s=%s (in %s) but this run has %s=%s; "+
		"resume only with the same parameters, or write to another directory",
		e.Dir, e.Field, e.Have, e.File, e.Field, e.Want)
}

// Unwrap returns [ErrMismatch].
func (e *MismatchError) Unwrap() error { return ErrMismatch }

// WriteError reports a failed write, sync, rename or create of an output
// file (for example a full disk). Path is the file's final name; nothing
// is left under that name unless the file is complete.
type WriteError struct {
	Op   string // "write", "sync", "create", "rename", ...
	Path string
	Err  error // the cause, e.g. syscall.ENOSPC
}

func (e *WriteError) Error() string {
	return fmt.Sprintf("datasets: %s %s: %v", e.Op, e.Path, e.Err)
}

// Unwrap returns the cause.
func (e *WriteError) Unwrap() error { return e.Err }

// InterruptedError reports a run stopped by its context (Ctrl-C). The parts
// finished so far are complete and kept; running the same command again
// resumes.
type InterruptedError struct {
	Dir        string // the output directory ("" for a benchmark)
	PartsDone  int    // parts complete in Dir, resumed ones included
	PartsTotal int
	Err        error // the context's error
}

func (e *InterruptedError) Error() string {
	if e.Dir == "" {
		return fmt.Sprintf("datasets: interrupted: %v", e.Err)
	}
	return fmt.Sprintf("datasets: interrupted: %d of %d parts complete in %s (run the same command again to resume): %v",
		e.PartsDone, e.PartsTotal, e.Dir, e.Err)
}

// Unwrap returns ErrInterrupted and the context's error, so that both
// errors.Is(err, ErrInterrupted) and errors.Is(err, context.Canceled) hold.
func (e *InterruptedError) Unwrap() []error { return []error{ErrInterrupted, e.Err} }

// FormatError reports a dataset file that cannot be read or does not match
// its manifest (bad footer, missing key, wrong row count, bad checksum).
type FormatError struct {
	Path   string
	Reason string
	Err    error
}

func (e *FormatError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("datasets: %s: %s: %v", e.Path, e.Reason, e.Err)
	}
	return fmt.Sprintf("datasets: %s: %s", e.Path, e.Reason)
}

// Unwrap returns the cause.
func (e *FormatError) Unwrap() error { return e.Err }
