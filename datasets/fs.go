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
