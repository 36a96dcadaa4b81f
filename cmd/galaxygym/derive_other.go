//go:build !linux

package main

import (
	"errors"
	"fmt"
)

var errIntoRefused = errors.New("dataset derive: --into-pid: process_vm_writev refused")

type intoProcess struct{}

func (*intoProcess) Layout(int64, int, int) error          { return errIntoRefused }
func (*intoProcess) WriteRows(int64, []byte, []byte) error { return errIntoRefused }

// newIntoProcess: dataset derive --into-pid needs Linux's process_vm_writev.
func newIntoProcess(int, uintptr, int64, uintptr, int64) (*intoProcess, error) {
	return nil, fmt.Errorf("%w (not Linux): stream to stdout instead", errIntoRefused)
}
