package main

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	f16 "github.com/x448/float16"

	"github.com/galaxygym/galaxygym/agents"
	"github.com/galaxygym/galaxygym/env"
	_ "github.com/galaxygym/galaxygym/env/envtest" // go test ./... -update passes its flag to every package
	"github.com/galaxygym/galaxygym/rollout"
)

// TestDaggerLabels runs the command on the fixture's board policy and checks
// the archive: shapes agree, every label is legal in its state, episode ids
// run 0..n-1 in order.
func TestDaggerLabels(t *testing.T) {
	out := filepath.Join(t.TempDir(), "labels.npz")
	os.Args = []string{"dagger", "-weights", "../../agents/testdata/policy/conv_relu.npz", "-episodes", "5",
		"-seed", "3", "-out", out}
	main()
	arrays, shapes := readNpz(t, out)
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

func TestFloat16(t *testing.T) {
	for _, c := range []struct {
		v    float32
		want uint16
	}{
		{0, 0}, {1, 0x3c00}, {-2, 0xc000}, {65504, 0x7bff}, {1e5, 0x7c00}, {float32(math.Inf(-1)), 0xfc00},
		{0.1, 0x2e66}, {1.0 / 3, 0x3555}, {5.9604645e-08, 0x0001}, {6.1035156e-05, 0x0400}, {1e-9, 0},
		{2049, 0x6800}, {2051, 0x6802}, {-107.57, 0xd6b9},
	} {
		if got := float16(c.v); got != c.want {
			t.Errorf("float16(%v) = %#04x, want %#04x", c.v, got, c.want)
		}
	}
	if got := float16(float32(math.NaN())); got&0x7c00 != 0x7c00 || got&0x3ff == 0 {
		t.Errorf("float16(NaN) = %#04x, not a NaN", got)
	}
}

// TestDaggerValues runs the expert alone (-beta 1) with -values: q has a
// finite value for exactly the legal actions, the label is a best one, and
// the environment's metadata is in the archive.
func TestDaggerValues(t *testing.T) {
	out := filepath.Join(t.TempDir(), "expert.npz")
	os.Args = []string{"dagger", "-beta", "1", "-values", "-episodes", "4", "-seed", "5", "-out", out}
	main()
	arrays, _ := readNpz(t, out)
	act, mask, q := arrays["action.npy"], arrays["mask.npy"], arrays["q.npy"]
	n := len(act) / 8
	if n < 4 || len(q) != 2*56*n {
		t.Fatalf("%d decisions, q %d bytes", n, len(q))
	}
	if string(arrays["env_id.npy"]) != "galaxy-express-v1" || len(arrays["obs_high.npy"]) != 503 {
		t.Fatalf("env_id %q, obs_high %d bytes", arrays["env_id.npy"], len(arrays["obs_high.npy"]))
	}
	half := func(h uint16) float64 { return float64(f16.Frombits(h).Float32()) }
	for i := range n {
		label := int(binary.LittleEndian.Uint64(act[8*i:]))
		best := math.Inf(-1)
		for a := range 56 {
			v := half(binary.LittleEndian.Uint16(q[2*(i*56+a):]))
			if (mask[i*56+a] != 0) == math.IsNaN(v) {
				t.Fatalf("decision %d action %d: legal %v, value %v", i, a, mask[i*56+a] != 0, v)
			}
			if !math.IsNaN(v) {
				best = math.Max(best, v)
			}
		}
		if lv := half(binary.LittleEndian.Uint16(q[2*(i*56+label):])); lv != best {
			t.Fatalf("decision %d: label %d has value %v, best %v", i, label, lv, best)
		}
	}
}

// TestDaggerFeatures: with -features each decision's afeat row is the
// game's action features of its observation (uint8 (N, 56, F), all F the
// game declares), and the names are recorded; a game that declares none
// refuses -features.
func TestDaggerFeatures(t *testing.T) {
	out := filepath.Join(t.TempDir(), "expert.npz")
	os.Args = []string{"dagger", "-beta", "1", "-features", "-episodes", "3", "-seed", "5", "-out", out}
	main()
	arrays, shapes := readNpz(t, out)
	obs, afeat := arrays["obs.npy"], arrays["afeat.npy"]
	n := len(obs) / 503
	f := env.ActionFeaturesOf("galaxy-express-v1")
	nf := len(f.ActionFeatureNames())
	if string(arrays["afeat_names.npy"]) != strings.Join(f.ActionFeatureNames(), ",") ||
		!strings.Contains(shapes["afeat.npy"], fmt.Sprintf("(%d, 56, %d)", n, nf)) {
		t.Fatalf("afeat_names %q, afeat shape %s for %d decisions", arrays["afeat_names.npy"], shapes["afeat.npy"], n)
	}
	want := make([]uint8, 56*nf)
	set := 0
	for i := range n {
		f.ActionFeatures(obs[i*503:(i+1)*503], want)
		if !bytes.Equal(afeat[i*56*nf:(i+1)*56*nf], want) {
			t.Fatalf("decision %d: afeat differs from the game's features", i)
		}
		set += bytes.Count(want, []byte{1})
	}
	if set == 0 {
		t.Fatal("no feature set in any decision")
	}
}

// readNpz reads an uncompressed .npz: each array's data bytes and shape
// text by file name.
func readNpz(t *testing.T, path string) (arrays map[string][]byte, shapes map[string]string) {
	t.Helper()
	z, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	arrays = map[string][]byte{}
	shapes = map[string]string{}
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
	return arrays, shapes
}

// TestDaggerSeats labels a game of several seats (Galaxy Fighters, with
// -param players=2): replaying the labels (the expert played every move,
// -beta 1) from the episode's seed, every recorded observation and mask is
// the acting seat's, not seat 0's, and seat 1 acts in every episode.
func TestDaggerSeats(t *testing.T) {
	out := filepath.Join(t.TempDir(), "gf.npz")
	os.Args = []string{"dagger", "-env", "galaxy-fighters-v2", "-param", "players=2", "-beta", "1", "-values",
		"-episodes", "2", "-seed", "7", "-out", out}
	main()
	arrays, _ := readNpz(t, out)
	e, err := env.Make("galaxy-fighters-v2", map[string]any{"players": "2"})
	if err != nil {
		t.Fatal(err)
	}
	size, na := e.Spec().ObsSize(), e.Spec().NumActions()
	obsAll, maskAll, act, ep := arrays["obs.npy"], arrays["mask.npy"], arrays["action.npy"], arrays["episode_id.npy"]
	n := len(act) / 8
	if n < 2 || len(obsAll) != n*size || len(maskAll) != n*na {
		t.Fatalf("%d decisions: obs %d bytes (size %d), mask %d", n, len(obsAll), size, len(maskAll))
	}
	obs := make([]uint8, size)
	seat1 := map[int64]int{}
	i := 0
	for episode := int64(0); episode < 2; episode++ {
		envSeed, _ := rollout.EpisodeSeeds(7, episode)
		e.Reset(envSeed)
		for ; !e.Done(); i++ {
			if i >= n || int64(binary.LittleEndian.Uint64(ep[8*i:])) != episode {
				t.Fatalf("episode %d goes on after decision %d of %d", episode, i, n)
			}
			seat := e.CurrentPlayer()
			if seat == 1 {
				seat1[episode]++
			}
			if err := e.Observe(seat, obs); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(obs, obsAll[i*size:(i+1)*size]) || !bytes.Equal(e.Mask(), maskAll[i*na:(i+1)*na]) {
				t.Fatalf("episode %d decision %d: the recorded observation or mask is not seat %d's", episode, i, seat)
			}
			if _, err := e.Step(int(binary.LittleEndian.Uint64(act[8*i:]))); err != nil {
				t.Fatalf("decision %d: %v", i, err)
			}
		}
	}
	if i != n || seat1[0] == 0 || seat1[1] == 0 {
		t.Fatalf("replayed %d of %d decisions; seat 1 acted %v", i, n, seat1)
	}
}

// TestDaggerWorkers: the archive does not depend on how many workers play
// the episodes (each episode's seeds are its index's).
func TestDaggerWorkers(t *testing.T) {
	dir := t.TempDir()
	var files [2][]byte
	for k, workers := range []string{"1", "3"} {
		out := filepath.Join(dir, workers+".npz")
		os.Args = []string{"dagger", "-weights", "../../agents/testdata/policy/conv_relu.npz", "-beta", "0.5",
			"-values", "-episodes", "7", "-seed", "5", "-workers", workers, "-out", out}
		main()
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		files[k] = b
	}
	if !bytes.Equal(files[0], files[1]) {
		t.Fatalf("-workers 1 and -workers 3 wrote different archives (%d and %d bytes)", len(files[0]), len(files[1]))
	}
}

// TestDaggerSearchExpert: -expert takes an agent spec with options. With
// mcts@sims=8 labelling Pilots of Gallaxia (the expert plays every move),
// an mcts made with the same options and replayed over the recorded
// decisions from the episode's expert seed chooses every label; a spec
// with an option mcts does not take is refused before anything plays.
func TestDaggerSearchExpert(t *testing.T) {
	params := map[string]any{"players": "2"}
	o := options{envID: "pilots-of-gallaxia-v2", expert: "mcts@sims=8", episodes: 2, workers: 2, seed: 4, beta: 1,
		params: params, out: filepath.Join(t.TempDir(), "mcts.npz")}
	arrays, e := runAndReplayEnv(t, o)
	m, err := agents.New("mcts", e.Spec(), agents.Options{"sims": "8"})
	if err != nil {
		t.Fatal(err)
	}
	size, na := e.Spec().ObsSize(), e.Spec().NumActions()
	obsAll, maskAll, act, ep := arrays["obs.npy"], arrays["mask.npy"], arrays["action.npy"], arrays["episode_id.npy"]
	n := len(act) / 8
	if n < 20 {
		t.Fatalf("%d decisions in 2 games", n)
	}
	episode := int64(-1)
	for i := range n {
		if k := int64(binary.LittleEndian.Uint64(ep[8*i:])); k != episode {
			episode = k
			envSeed, agentSeed := rollout.EpisodeSeeds(o.seed, k)
			e.Reset(envSeed)
			m.Reset(agentSeed ^ 0x9e3779b97f4a7c15)
		}
		seat, label := e.CurrentPlayer(), int(binary.LittleEndian.Uint64(act[8*i:]))
		obs, mask := obsAll[i*size:(i+1)*size], maskAll[i*na:(i+1)*na]
		if got := m.Act(seat, obs, mask); got != label {
			t.Fatalf("decision %d (episode %d): mcts@sims=8 chooses %d, the label is %d", i, episode, got, label)
		}
		if _, err := e.Step(label); err != nil {
			t.Fatalf("decision %d: %v", i, err)
		}
	}
	o.expert = "mcts@simz=8"
	if err := run(o); err == nil || !strings.Contains(err.Error(), "simz") {
		t.Fatalf("expert mcts@simz=8: error %v, want one naming the option", err)
	}
}

// TestDaggerSearchValues: -values from a search (mcts explains its choice)
// leaves the labels as they are without it, and q holds the mean return of
// each simulated action: NaN at every illegal action, finite at the label
// of every searched decision, and the values of a decision's actions differ
// (the search weighed them).
func TestDaggerSearchValues(t *testing.T) {
	dir := t.TempDir()
	o := options{envID: "galaxy-express-v1", expert: "mcts@sims=16", episodes: 2, workers: 2, seed: 6, beta: 1,
		out: filepath.Join(dir, "plain.npz")}
	if err := run(o); err != nil {
		t.Fatal(err)
	}
	plain, _ := readNpz(t, o.out)
	o.values, o.out = true, filepath.Join(dir, "values.npz")
	if err := run(o); err != nil {
		t.Fatal(err)
	}
	arrays, _ := readNpz(t, o.out)
	act, mask, q := arrays["action.npy"], arrays["mask.npy"], arrays["q.npy"]
	if !bytes.Equal(act, plain["action.npy"]) || !bytes.Equal(arrays["obs.npy"], plain["obs.npy"]) {
		t.Fatal("-values changed the search's labels or the states")
	}
	n := len(act) / 8
	if n < 20 || len(q) != 2*56*n {
		t.Fatalf("%d decisions, q %d bytes", n, len(q))
	}
	half := func(h uint16) float64 { return float64(f16.Frombits(h).Float32()) }
	searched, differ := 0, 0
	for i := range n {
		legal, finite := 0, map[float64]bool{}
		for a := range 56 {
			v := half(binary.LittleEndian.Uint16(q[2*(i*56+a):]))
			if mask[i*56+a] == 0 && !math.IsNaN(v) {
				t.Fatalf("decision %d: illegal action %d valued %v", i, a, v)
			}
			if mask[i*56+a] != 0 {
				legal++
				if !math.IsNaN(v) {
					finite[v] = true
					if v < 0 || v > 200 {
						t.Fatalf("decision %d action %d: value %v is no Galaxy Express return", i, a, v)
					}
				}
			}
		}
		if legal < 2 {
			continue
		}
		searched++
		label := int(binary.LittleEndian.Uint64(act[8*i:]))
		if lv := half(binary.LittleEndian.Uint16(q[2*(i*56+label):])); math.IsNaN(lv) {
			t.Fatalf("decision %d: the label %d has no value", i, label)
		}
		if len(finite) >= 2 {
			differ++
		}
	}
	if searched == 0 || differ < searched/2 {
		t.Fatalf("%d searched decisions, %d with differing values", searched, differ)
	}
}

// TestDaggerExpertSeat: with -expert-seat rotate the expert plays every move
// of seat i mod 2 in episode i and the (greedy) policy the other seat's.
// Replaying the archive from each episode's seeds, with the expert's label
// played at its seat's decisions and the policy's own move at the others,
// reproduces every recorded observation, and a fresh expert chooses every
// label, the policy's seat included; the policy's moves differ from the
// labels somewhere (else the test would not tell the seats apart). A game
// of one seat is refused.
func TestDaggerExpertSeat(t *testing.T) {
	params := map[string]any{"players": "2"}
	weights := "../../notebooks/weights/pilots-of-gallaxia-v2-selfplay.npz"
	o := options{envID: "pilots-of-gallaxia-v2", expert: "mcts@sims=4", weights: weights, greedy: true,
		episodes: 2, workers: 2, seed: 9, expertRotate: true, params: params, out: filepath.Join(t.TempDir(), "seat.npz")}
	arrays, e := runAndReplayEnv(t, o)
	spec := e.Spec()
	m, err := agents.New("mcts", spec, agents.Options{"sims": "4"})
	if err != nil {
		t.Fatal(err)
	}
	pol, err := agents.New("policy", spec, agents.Options{"weights": weights, "greedy": "true"})
	if err != nil {
		t.Fatal(err)
	}
	size := spec.ObsSize()
	obsAll, act, ep := arrays["obs.npy"], arrays["action.npy"], arrays["episode_id.npy"]
	n := len(act) / 8
	obs := make([]uint8, size)
	differ, expertMoves := 0, [2]int{}
	i := 0
	for episode := int64(0); episode < 2; episode++ {
		envSeed, agentSeed := rollout.EpisodeSeeds(o.seed, episode)
		e.Reset(envSeed)
		pol.Reset(agentSeed)
		m.Reset(agentSeed ^ 0x9e3779b97f4a7c15)
		for ; !e.Done(); i++ {
			if i >= n || int64(binary.LittleEndian.Uint64(ep[8*i:])) != episode {
				t.Fatalf("episode %d goes on after decision %d of %d", episode, i, n)
			}
			seat := e.CurrentPlayer()
			if err := e.Observe(seat, obs); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(obs, obsAll[i*size:(i+1)*size]) {
				t.Fatalf("episode %d decision %d: the recorded observation is not the replay's", episode, i)
			}
			mask := e.Mask()
			label := int(binary.LittleEndian.Uint64(act[8*i:]))
			if got := m.Act(seat, obs, mask); got != label {
				t.Fatalf("decision %d: the expert chooses %d, the label is %d", i, got, label)
			}
			a := label
			if seat != int(episode)%2 {
				if a = pol.Act(seat, obs, mask); a != label {
					differ++
				}
			} else {
				expertMoves[episode]++
			}
			if _, err := e.Step(a); err != nil {
				t.Fatalf("decision %d: %v", i, err)
			}
		}
	}
	if i != n || differ == 0 || expertMoves[0] == 0 || expertMoves[1] == 0 {
		t.Fatalf("replayed %d of %d decisions; the policy departed from the labels %d times; the expert moved %v", i, n, differ, expertMoves)
	}
	o.envID, o.params = "galaxy-express-v1", nil
	if err := run(o); err == nil || !strings.Contains(err.Error(), "one seat") {
		t.Fatalf("-expert-seat on galaxy-express-v1: error %v, want one saying it has one seat", err)
	}
}

// runAndReplayEnv runs the command with o and returns the archive's arrays
// and a fresh environment of o's id and parameters to replay them in.
func runAndReplayEnv(t *testing.T, o options) (map[string][]byte, *env.Env) {
	t.Helper()
	if err := run(o); err != nil {
		t.Fatal(err)
	}
	arrays, _ := readNpz(t, o.out)
	e, err := env.Make(o.envID, o.params)
	if err != nil {
		t.Fatal(err)
	}
	return arrays, e
}
