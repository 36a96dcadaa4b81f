package datasets

import (
	"crypto/sha256"
	"errors"
	"hash"
	"io"
	"io/fs"
	"os"
)

// fileSystem is what the writer needs from the operating system; tests
// substitute one that fails (a full disk) to check the error paths.
type fileSystem interface {
	// Create creates or truncates name for writing.
	Create(name string) (writableFile, error)
	Rename(oldname, newname string) error
	Remove(name string) error
	MkdirAll(name string) error
	// SyncDir flushes a directory's entries (after a rename) to disk.
	SyncDir(name string) error
	// Open opens name for reading.
	Open(name string) (readableFile, error)
	// ReadFile returns the contents of name.
	ReadFile(name string) ([]byte, error)
	// ReadDir returns the names of the entries of directory name.
	ReadDir(name string) ([]string, error)
	// RemoveAll removes name and everything under it.
	RemoveAll(name string) error
}

// readableFile is an open input file.
type readableFile interface {
	io.Reader
	io.ReaderAt
	io.Closer
	// Size returns the file's size in bytes.
	Size() (int64, error)
}

// writableFile is an open output file.
type writableFile interface {
	io.Writer
	Sync() error
	Close() error
}

// osFS is the real file system.
type osFS struct{}

func (osFS) Create(name string) (writableFile, error) {
	return os.OpenFile(name, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
}
func (osFS) Rename(oldname, newname string) error { return os.Rename(oldname, newname) }
func (osFS) Remove(name string) error             { return os.Remove(name) }
func (osFS) MkdirAll(name string) error           { return os.MkdirAll(name, 0o755) }

func (osFS) ReadFile(name string) ([]byte, error) { return os.ReadFile(name) }
func (osFS) RemoveAll(name string) error          { return os.RemoveAll(name) }

func (osFS) Open(name string) (readableFile, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	return osFile{f}, nil
}

func (osFS) ReadDir(name string) ([]string, error) {
	entries, err := os.ReadDir(name)
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name()
	}
	return names, err
}

// osFile is an *os.File with Size.
type osFile struct{ *os.File }

func (f osFile) Size() (int64, error) {
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	return st.Size(), nil
}

func (osFS) SyncDir(name string) error {
	d, err := os.Open(name)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	// Some file systems do not support syncing directories.
	if errors.Is(err, fs.ErrInvalid) || errors.Is(err, errors.ErrUnsupported) {
		err = nil
	}
	return err
}

// trackingFile counts and hashes what is written to f and keeps the first
// write error, so that an error surfacing later through the Parquet writer
// can still be reported with its cause and the file's name.
type trackingFile struct {
	f   writableFile
	h   hash.Hash
	n   int64
	err error
}

func newTrackingFile(f writableFile) *trackingFile {
	return &trackingFile{f: f, h: sha256.New()}
}

func (t *trackingFile) Write(p []byte) (int, error) {
	if t.err != nil {
		return 0, t.err
	}
	n, err := t.f.Write(p)
	t.h.Write(p[:n])
	t.n += int64(n)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the name is the temporary one; the caller names the file
		}
		t.err = err
	}
	return n, err
}
