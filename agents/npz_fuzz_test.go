package agents

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// tinyNPZ returns an uncompressed .npz archive of the named arrays, each
// given as its .npy header dict and raw data.
func tinyNPZ(arrays ...[3]string) []byte {
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	for _, a := range arrays {
		w, _ := z.CreateHeader(&zip.FileHeader{Name: a[0] + ".npy", Method: zip.Store})
		hdr := a[1]
		pad := 64 - (10+len(hdr)+1)%64
		hdr += strings.Repeat(" ", pad) + "\n"
		w.Write([]byte("\x93NUMPY\x01\x00"))
		binary.Write(w, binary.LittleEndian, uint16(len(hdr)))
		w.Write([]byte(hdr))
		w.Write([]byte(a[2]))
	}
	z.Close()
	return buf.Bytes()
}

// f4 returns n little-endian float32 values 0.5, 1, 1.5, ...
func f4(n int) string {
	b := make([]byte, 4*n)
	for i := range n {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(float32(i+1)/2))
	}
	return string(b)
}

// FuzzReadPolicyFile feeds arbitrary bytes to the .npz policy reader (parsePolicy, what readPolicyFile runs on a file's bytes): it
// must return a *PolicyFileError or a network whose layer sizes chain,
// never panic or allocate past its bounds. The seeds are small archives of
// the policy format and the policy files of testdata/policy.
func FuzzReadPolicyFile(f *testing.F) {
	arr := func(name, descr, shape, data string) [3]string {
		return [3]string{name, "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }", data}
	}
	meta := `{"format":"galaxygym-policy","version":1,"env_id":"galaxy-express-v1","obs_shape":[4],"num_actions":2,"activation":"relu"}`
	f.Add(tinyNPZ(arr("obs_scale", "<f4", "(4,)", f4(4)), arr("layer0.weight", "<f4", "(2, 4)", f4(8)), arr("layer0.bias", "<f4", "(2,)", f4(2))))
	f.Add(tinyNPZ(arr("obs_scale", "<f4", "(4,)", f4(4)), arr("layer0.weight", "<f4", "(3, 4)", f4(12)), arr("layer0.bias", "<f4", "(3,)", f4(3)),
		arr("layer1.weight", "<f4", "(2, 3)", f4(6)), arr("layer1.bias", "<f4", "(2,)", f4(2)), arr("meta", "|u1", fmt.Sprintf("(%d,)", len(meta)), meta)))
	f.Add(tinyNPZ(arr("obs_scale", "<f4", "(4,)", f4(4)), [3]string{"layer0.weight", "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 4), }", f4(8)}, arr("layer0.bias", "<f4", "(2,)", f4(2))))
	f.Add([]byte("PK\x03\x04"))
	// And the real policies of testdata/policy (80 KB each: mutated more
	// slowly, but in the format the notebook writes).
	seeds, _ := filepath.Glob(filepath.Join("testdata", "policy", "*.npz"))
	for _, p := range seeds {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		n, err := parsePolicy("fuzz.npz", data)
		if err != nil {
			var pe *PolicyFileError
			if !errors.As(err, &pe) {
				t.Fatalf("error %T %v is not a *PolicyFileError", err, err)
			}
			return
		}
		if len(n.sizes) < 2 || len(n.w) != len(n.sizes)-1 || len(n.b) != len(n.w) {
			t.Fatalf("accepted a network of sizes %v with %d weights and %d biases", n.sizes, len(n.w), len(n.b))
		}
		if r, c := n.w0t.Dims(); r != n.in0 || c != n.sizes[1] {
			t.Fatalf("layer 0 (transposed) is %dx%d, sizes %v, layer 0 input %d", r, c, n.sizes, n.in0)
		}
		for i, w := range n.w[1:] {
			i++
			r, c := w.Dims()
			if r != n.sizes[i+1] || c != n.sizes[i] {
				t.Fatalf("layer %d is %dx%d, sizes %v", i, r, c, n.sizes)
			}
		}
	})
}

// TestNPYHeaderLengthBounded: a 300-byte file whose .npy header says
// version 2 and a header of 4 GiB (found by FuzzReadPolicyFile) is refused
// at once, without allocating what the header claims.
func TestNPYHeaderLengthBounded(t *testing.T) {
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	w, _ := z.CreateHeader(&zip.FileHeader{Name: "obs_scale.npy", Method: zip.Store})
	w.Write([]byte("\x93NUMPY\x02\x00\xf0\xff\xff\xff{'descr': '<f4'}"))
	z.Close()
	path := filepath.Join(t.TempDir(), "p.npz")
	os.WriteFile(path, buf.Bytes(), 0o644)
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	_, err := readPolicyFile(path)
	runtime.ReadMemStats(&ms1)
	var pe *PolicyFileError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "npy header of 4294967280 bytes") {
		t.Fatalf("readPolicyFile = %v, want a *PolicyFileError about the header length", err)
	}
	if alloc := ms1.TotalAlloc - ms0.TotalAlloc; alloc > 1<<20 {
		t.Fatalf("reading a 200-byte file allocated %d bytes", alloc)
	}
}
