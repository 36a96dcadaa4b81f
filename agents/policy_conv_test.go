package agents

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPolicyConvParity checks the board policies of the fixture
// (conv_relu.npz: ship-centred; conv_tanh.npz: not translated) against
// torch's float32 forward pass of galaxygym.train.ConvPolicy within 1e-5
// and galaxygym.policy_probs (float64) within 1e-12, on real observations.
func TestPolicyConvParity(t *testing.T) {
	spec := geSpec(t)
	c := loadPolicyCases(t)
	for _, act := range []string{"relu", "tanh"} {
		name := "conv_" + act
		p := newTestPolicy(t, spec, filepath.Join(policyFixture, name+".npz"))
		if p.net.board == nil || len(p.net.conv) != 2 || p.net.in0 != 8*48+71 || p.net.relu != (act == "relu") {
			t.Fatalf("%s: board %+v, %d conv layers, layer 0 input %d", name, p.net.board, len(p.net.conv), p.net.in0)
		}
		if want := map[string]int{"relu": 0, "tanh": -1}[act]; p.net.board.CenterPlane != want {
			t.Fatalf("%s: center_plane %d, want %d", name, p.net.board.CenterPlane, want)
		}
		checkParity(t, name, p, c, c.probs[name+"_torch"], c.probs[name+"_numpy"])
	}
}

// TestPolicyConvCentring: translating the whole board on the torus leaves a
// ship-centred policy's probabilities unchanged.
func TestPolicyConvCentring(t *testing.T) {
	spec := geSpec(t)
	c := loadPolicyCases(t)
	p := newTestPolicy(t, spec, filepath.Join(policyFixture, "conv_relu.npz"))
	want := make([]float64, spec.NumActions())
	got := make([]float64, spec.NumActions())
	moved := make([]uint8, len(c.obs[0]))
	checked := 0
	for i, obs := range c.obs {
		shipOn := false
		for _, o := range obs[:48] {
			shipOn = shipOn || o != 0
		}
		if !shipOn {
			continue
		}
		p.Probs(obs, c.mask[i], want)
		dr, dc := 1+i%5, 2+i%7
		copy(moved, obs)
		for pl := range 9 {
			for r := range 6 {
				for col := range 8 {
					moved[pl*48+((r+dr)%6)*8+(col+dc)%8] = obs[pl*48+r*8+col]
				}
			}
		}
		p.Probs(moved, c.mask[i], got)
		for a := range got {
			if math.Abs(got[a]-want[a]) > 1e-12 {
				t.Fatalf("case %d moved by (%d, %d): p[%d] %v, want %v", i, dr, dc, a, got[a], want[a])
			}
		}
		checked++
	}
	if checked < 100 {
		t.Fatalf("only %d cases with the ship on the board", checked)
	}
}

// TestPolicyConvBadFiles: the board and conv layers are checked like the
// rest of the file.
func TestPolicyConvBadFiles(t *testing.T) {
	spec := geSpec(t)
	dir := t.TempDir()
	good := readTestNPZ(t, filepath.Join(policyFixture, "conv_relu.npz"))
	var meta map[string]any
	for _, a := range good {
		if a.name == "meta" {
			if err := json.Unmarshal(a.data, &meta); err != nil {
				t.Fatal(err)
			}
		}
	}
	edit := func(name string, f func(*npyArray) *npyArray) []*npyArray {
		var out []*npyArray
		for _, a := range good {
			b := *a
			b.data = append([]byte(nil), a.data...)
			b.shape = append([]int(nil), a.shape...)
			if a.name == name {
				if r := f(&b); r == nil {
					continue
				} else {
					b = *r
				}
			}
			out = append(out, &b)
		}
		return out
	}
	setMeta := func(change func(m map[string]any)) func(*npyArray) *npyArray {
		return func(a *npyArray) *npyArray {
			m := map[string]any{}
			for k, v := range meta {
				m[k] = v
			}
			b := map[string]any{}
			for k, v := range meta["board"].(map[string]any) {
				b[k] = v
			}
			m["board"] = b
			change(m)
			a.data, _ = json.Marshal(m)
			a.shape = []int{len(a.data)}
			return a
		}
	}
	for _, tc := range []struct {
		name   string
		arrays []*npyArray
		kind   error
		array  string
	}{
		{"no board", edit("meta", setMeta(func(m map[string]any) { delete(m, "board") })), ErrPolicyMeta, "conv0.weight"},
		{"board in version 1", edit("meta", setMeta(func(m map[string]any) { m["version"] = 1 })), ErrPolicyMeta, "meta"},
		{"board too large", edit("meta", setMeta(func(m map[string]any) { m["board"].(map[string]any)["planes"] = 11 })), ErrPolicyShape, "meta"},
		{"center plane", edit("meta", setMeta(func(m map[string]any) { m["board"].(map[string]any)["center_plane"] = 9 })), ErrPolicyMeta, "meta"},
		{"conv gap", edit("conv0.weight", func(*npyArray) *npyArray { return nil }), ErrPolicyMissing, "conv0.weight"},
		{"conv bias", edit("conv1.bias", func(*npyArray) *npyArray { return nil }), ErrPolicyMissing, "conv1.bias"},
		{"even kernel", edit("conv1.weight", func(a *npyArray) *npyArray {
			a.shape = []int{8, 8, 2, 4}
			a.data = a.data[:8*8*2*4*4]
			return a
		}), ErrPolicyShape, "conv1.weight"},
		{"conv channels", edit("conv1.weight", func(a *npyArray) *npyArray {
			a.shape = []int{8, 4, 3, 6}
			return a
		}), ErrPolicyShape, "conv1.weight"},
		{"layer0 width", edit("conv1.weight", func(a *npyArray) *npyArray {
			a.shape = []int{4, 8, 3, 3}
			a.data = a.data[:4*8*9*4]
			return a
		}), ErrPolicyShape, "conv1.bias"},
	} {
		path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".npz")
		writeTestNPZ(t, path, false, tc.arrays)
		_, err := NewPolicy(spec, Options{"weights": path})
		var pe *PolicyFileError
		if !errors.Is(err, tc.kind) || !errors.As(err, &pe) || pe.Array != tc.array {
			t.Errorf("%s: %v, want %v on %s", tc.name, err, tc.kind, tc.array)
		}
	}
}

// benchmarkPolicyFile times Act of the policy in path on the recorded
// decisions obsAll, maskAll.
func benchmarkPolicyFile(b *testing.B, path string, obsAll, maskAll [][]uint8) {
	if _, err := os.Stat(path); err != nil {
		b.Skip(err)
	}
	spec := geSpec(b)
	for _, greedy := range []bool{false, true} {
		b.Run(fmt.Sprintf("greedy=%v", greedy), func(b *testing.B) {
			p := newTestPolicy(b, spec, path, fmt.Sprint("greedy=", greedy))
			timeActs(b, p, obsAll, maskAll)
		})
	}
}
