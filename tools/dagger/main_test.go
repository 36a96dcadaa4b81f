package main

import (
	"archive/zip"
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/galaxygym/galaxygym/env/envtest" // go test ./... -update passes its flag to every package
)

// TestDaggerLabels runs the command on the fixture's board policy and checks
// the archive: shapes agree, every label is legal in its state, episode ids
// run 0..n-1 in order.
func TestDaggerLabels(t *testing.T) {
	out := filepath.Join(t.TempDir(), "labels.npz")
	os.Args = []string{"dagger", "-weights", "../../agents/testdata/policy/conv_relu.npz", "-episodes", "5",
		"-seed", "3", "-out", out}
	main()
	z, err := zip.OpenReader(out)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	arrays := map[string][]byte{}
	shapes := map[string]string{}
	for _, f := range z.File {
		r, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(r)
		if err != nil {
			t.Fatal(err)
		}
		if string(b[:6]) != "\x93NUMPY" {
			t.Fatalf("%s: not an .npy", f.Name)
		}
		hl := int(binary.LittleEndian.Uint16(b[8:10]))
		if (10+hl)%64 != 0 {
			t.Fatalf("%s: header of %d bytes not aligned to 64", f.Name, 10+hl)
		}
		header := string(b[10 : 10+hl])
		shapes[f.Name] = header[strings.Index(header, "'shape': ")+9 : strings.LastIndex(header, ")")+1]
		arrays[f.Name] = b[10+hl:]
	}
	act, mask, ep := arrays["action.npy"], arrays["mask.npy"], arrays["episode_id.npy"]
	n := len(act) / 8
	if n < 5 || len(arrays["obs.npy"]) != n*503 || len(mask) != n*56 || len(ep) != n*8 {
		t.Fatalf("%d decisions: obs %d, mask %d, episode_id %d bytes; shapes %v", n, len(arrays["obs.npy"]), len(mask), len(ep), shapes)
	}
	prev := int64(0)
	for i := range n {
		a := int64(binary.LittleEndian.Uint64(act[8*i:]))
		e := int64(binary.LittleEndian.Uint64(ep[8*i:]))
		if a < 0 || a >= 56 || mask[i*56+int(a)] == 0 {
			t.Fatalf("decision %d: label %d is not legal", i, a)
		}
		if e < prev || e > prev+1 {
			t.Fatalf("decision %d: episode %d after %d", i, e, prev)
		}
		prev = e
	}
	if prev != 4 {
		t.Fatalf("last episode id %d, want 4", prev)
	}
}
