//go:build linux

package main

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// intoProcess is dataset derive --into-pid: a datasets.RowWriter that
// writes every range of rows straight into the arrays of the process pid
// (galaxygym.datasets.load, which started derive: a uint8 (rows, obsSize)
// array at obs and a uint8 (rows, numActions) array at masks) with
// process_vm_writev(2), from every worker at once: one copy, no pipe.
type intoProcess struct {
	pid              int
	obs, masks       uintptr
	obsLen, masksLen int64 // the arrays' bytes
	obsSize, masksW  int
	rows             int64
}

// errIntoRefused is the error of a system that does not let derive write
// into the reader (ptrace rules, seccomp); the reader then reads the
// stream instead. Its text is what galaxygym.datasets looks for.
var errIntoRefused = errors.New("dataset derive: --into-pid: process_vm_writev refused")

// newIntoProcess returns the writer of the arrays obs and masks, of
// obsLen and masksLen bytes, of process pid.
func newIntoProcess(pid int, obs uintptr, obsLen int64, masks uintptr, masksLen int64) (*intoProcess, error) {
	return &intoProcess{pid: pid, obs: obs, masks: masks, obsLen: obsLen, masksLen: masksLen}, nil
}

// Layout refuses arrays of another size than the steps table's, then
// checks that pid's memory can be written (one byte of the masks array,
// which derive overwrites): errIntoRefused where the system forbids it.
func (w *intoProcess) Layout(rows int64, obsSize, numActions int) error {
	if rows*int64(obsSize) != w.obsLen || rows*int64(numActions) != w.masksLen {
		return fmt.Errorf("dataset derive: the reader's arrays hold %d and %d bytes, the dataset's %d rows %d and %d",
			w.obsLen, w.masksLen, rows, rows*int64(obsSize), rows*int64(numActions))
	}
	w.rows, w.obsSize, w.masksW = rows, obsSize, numActions
	if w.masksLen == 0 {
		return nil
	}
	b := []byte{0}
	_, err := unix.ProcessVMWritev(w.pid, []unix.Iovec{{Base: &b[0], Len: 1}}, []unix.RemoteIovec{{Base: w.masks, Len: 1}}, 0)
	if errors.Is(err, unix.EPERM) || errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EACCES) {
		return fmt.Errorf("%w (%v): stream to stdout instead", errIntoRefused, err)
	}
	if err != nil {
		return fmt.Errorf("dataset derive: --into-pid %d: %w", w.pid, err)
	}
	return nil
}

// WriteRows writes rows row.. of obs and masks at their offsets in the
// reader's arrays.
func (w *intoProcess) WriteRows(row int64, obs, masks []byte) error {
	n := int64(len(masks) / max(1, w.masksW))
	if row < 0 || row+n > w.rows || len(obs) != int(n)*w.obsSize || len(masks) != int(n)*w.masksW {
		return fmt.Errorf("dataset derive: rows %d..%d outside the reader's %d rows", row, row+n, w.rows)
	}
	local := make([]unix.Iovec, 0, 2)
	remote := make([]unix.RemoteIovec, 0, 2)
	if len(obs) > 0 {
		local = append(local, unix.Iovec{Base: &obs[0]})
		local[len(local)-1].SetLen(len(obs))
		remote = append(remote, unix.RemoteIovec{Base: w.obs + uintptr(row)*uintptr(w.obsSize), Len: len(obs)})
	}
	if len(masks) > 0 {
		local = append(local, unix.Iovec{Base: &masks[0]})
		local[len(local)-1].SetLen(len(masks))
		remote = append(remote, unix.RemoteIovec{Base: w.masks + uintptr(row)*uintptr(w.masksW), Len: len(masks)})
	}
	if len(local) == 0 {
		return nil
	}
	got, err := unix.ProcessVMWritev(w.pid, local, remote, 0)
	if err != nil {
		return fmt.Errorf("dataset derive: writing rows %d..%d into process %d: %w", row, row+n, w.pid, err)
	}
	if got != len(obs)+len(masks) {
		return fmt.Errorf("dataset derive: wrote %d of the %d bytes of rows %d..%d into process %d", got, len(obs)+len(masks), row, row+n, w.pid)
	}
	return nil
}
