package agents

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/sbinet/npyio/npy"
	"github.com/sbinet/npyio/npz"
)

// npzFile is an .npz archive (a zip of .npy files, numpy.savez) held in
// memory. The archive and the .npy headers are read with npyio; the array
// data is read here and its length checked against the header, because
// npyio's element readers ignore io.EOF and the byte count of each read, so
// a truncated array (or a short read) would silently yield stale values.
type npzFile struct {
	r    *npz.Reader
	keys map[string]bool // array names, without ".npy"
}

// npyArray is one array of an npzFile: its dtype (an npy descr such as
// "<f4"), shape and raw data in C (row-major) order.
type npyArray struct {
	name  string
	dtype string
	shape []int
	data  []byte
}

// maxNPYElems bounds the elements of one array (1 GiB of float32).
const maxNPYElems = 1 << 28

func openNPZ(data []byte) (*npzFile, error) {
	r, err := npz.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, err
	}
	f := &npzFile{r: r, keys: map[string]bool{}}
	for _, k := range r.Keys() {
		if name, ok := strings.CutSuffix(k, ".npy"); ok {
			f.keys[name] = true
		}
	}
	return f, nil
}

// has reports whether the archive holds the named array.
func (f *npzFile) has(name string) bool { return f.keys[name] }

// dtypeSize returns the byte size of the element types the policy format
// uses, or 0.
func dtypeSize(dtype string) int {
	switch dtype {
	case "|u1", "<u1", "u1", "|b1", "|i1":
		return 1
	case "<f4", ">f4", "<i4", ">i4", "<u4", ">u4":
		return 4
	case "<f8", ">f8", "<i8", ">i8", "<u8", ">u8", "<c8", ">c8":
		return 8
	case "<f2", ">f2", "<i2", ">i2", "<u2", ">u2":
		return 2
	}
	return 0
}

// dtypeName returns numpy's name of an npy descr.
func dtypeName(dtype string) string {
	names := map[string]string{"u1": "uint8", "b1": "bool", "i1": "int8", "f2": "float16", "f4": "float32",
		"f8": "float64", "i2": "int16", "i4": "int32", "i8": "int64", "u2": "uint16", "u4": "uint32",
		"u8": "uint64", "c8": "complex64"}
	if n, ok := names[strings.TrimLeft(dtype, "<>|=")]; ok {
		return n
	}
	return dtype
}

// readNPYHeader reads an .npy header, leaving rc at the data.
// npyio's header parser panics on some malformed headers; that is an error
// here.
func readNPYHeader(rc io.Reader) (h *npy.Header, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("malformed npy header (%v)", p)
		}
	}()
	// npyio allocates the header length the file states, up to 4 GiB for
	// a version 2 header: check it first (numpy itself refuses headers
	// over 10,000 bytes by default).
	var pre [12]byte
	if _, err := io.ReadFull(rc, pre[:10]); err != nil {
		return nil, fmt.Errorf("npy header: %w", err)
	}
	n, size := int64(binary.LittleEndian.Uint16(pre[8:])), 10
	if pre[6] >= 2 {
		if _, err := io.ReadFull(rc, pre[10:12]); err != nil {
			return nil, fmt.Errorf("npy header: %w", err)
		}
		n, size = int64(binary.LittleEndian.Uint32(pre[8:])), 12
	}
	if n > maxNPYHeader {
		return nil, fmt.Errorf("npy header of %d bytes is over %d", n, maxNPYHeader)
	}
	nr, err := npy.NewReader(io.MultiReader(bytes.NewReader(pre[:size]), rc))
	if err != nil {
		return nil, err
	}
	return &nr.Header, nil
}

// maxNPYHeader bounds an .npy header's length in bytes.
const maxNPYHeader = 1 << 16

// read returns the named array. Its data length is checked against the
// header's shape; a Fortran-order 2-D array is transposed to C order.
func (f *npzFile) read(name string) (*npyArray, error) {
	rc, err := f.r.Open(name + ".npy")
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	h, err := readNPYHeader(rc)
	if err != nil {
		return nil, err
	}
	a := &npyArray{name: name, dtype: h.Descr.Type, shape: h.Descr.Shape}
	size := dtypeSize(a.dtype)
	if size == 0 {
		return a, nil // an unsupported dtype: the caller reports it, data unread
	}
	n := 1
	for _, d := range a.shape {
		if d < 0 || (d > 0 && n > maxNPYElems/d) {
			return nil, fmt.Errorf("shape %v too large", a.shape)
		}
		n *= d
	}
	want := int64(n * size)
	// ReadAll through a limit: a header cannot make us allocate more than
	// the member really holds.
	a.data, err = io.ReadAll(io.LimitReader(rc, want+1))
	if err != nil {
		return nil, err
	}
	switch {
	case int64(len(a.data)) < want:
		return nil, fmt.Errorf("%d data bytes, want %d for %s %s", len(a.data), want, dtypeName(a.dtype), shapeString(a.shape))
	case int64(len(a.data)) > want:
		return nil, fmt.Errorf("more data than %s %s holds", dtypeName(a.dtype), shapeString(a.shape))
	}
	if h.Descr.Fortran && len(a.shape) > 1 {
		if len(a.shape) != 2 {
			return nil, errors.New("fortran-order arrays of more than 2 dimensions are not supported")
		}
		rows, cols := a.shape[0], a.shape[1]
		c := make([]byte, len(a.data))
		for i := 0; i < rows; i++ {
			for j := 0; j < cols; j++ {
				copy(c[(i*cols+j)*size:(i*cols+j+1)*size], a.data[(j*rows+i)*size:(j*rows+i+1)*size])
			}
		}
		a.data = c
	}
	return a, nil
}

// float64s decodes a float32 ("<f4" or ">f4") or float64 array.
func (a *npyArray) float64s() []float64 {
	var order binary.ByteOrder = binary.LittleEndian
	if strings.HasPrefix(a.dtype, ">") {
		order = binary.BigEndian
	}
	switch dtypeName(a.dtype) {
	case "float32":
		out := make([]float64, len(a.data)/4)
		for i := range out {
			out[i] = float64(math.Float32frombits(order.Uint32(a.data[4*i:])))
		}
		return out
	case "float64":
		out := make([]float64, len(a.data)/8)
		for i := range out {
			out[i] = math.Float64frombits(order.Uint64(a.data[8*i:]))
		}
		return out
	}
	return nil
}
