// Command dagger records expert labels on the states a learned policy
// visits, for DAgger (Ross, Gordon and Bagnell, 2011): it plays episodes
// in which each decision is the expert's with probability -beta and the
// policy's otherwise, and writes every visited decision's observation,
// legal-action mask and the expert's action (the label) to an .npz that
// galaxygym.train.load_labels reads:
//
//	obs        uint8 (N, obs_size)
//	mask       uint8 (N, num_actions)
//	action     int64 (N,)  the expert's action in that state
//	episode_id int64 (N,)
//	q          float16 (N, num_actions), with -values only: the expert's
//	           value of each legal action (NaN for illegal ones, and for
//	           legal ones the expert does not value: Galaxy Fighters'
//	           weapon, bonus and engine choices), for soft targets
//	           (galaxygym.train --soft); the expert must have an
//	           ActionValues method (the heuristics of Galaxy Express,
//	           Galaxy Fighters and Pilots of Gallaxia have) or explain its
//	           choice (agents.Explainer: mcts's values are the mean return
//	           of the simulations that began with each action, NaN for an
//	           action it never simulated and at a decision it did not
//	           search)
//	afeat      uint8 (N, num_actions, F), with -features only: the game's
//	           action features of each decision (env.ActionFeaturer;
//	           galaxygym.train --action-features)
//	afeat_names uint8 (len,) with -features: the features' names, ASCII,
//	           comma-separated
//	obs_high   uint8 (obs_size,)  the observation's upper bounds
//	env_id     uint8 (len,)       the environment id, ASCII
//
// Usage (docs/learning-baselines.md):
//
//	go run ./tools/dagger -weights bc.npz -episodes 30000 -seed 1 -out labels.npz
//	go run ./tools/dagger -beta 1 -values -episodes 100000 -seed 0 -out expert.npz
//
//	go run ./tools/dagger -env pilots-of-gallaxia-v2 -param players=2 -expert mcts@sims=32 \
//	    -weights clone.npz -greedy -features -episodes 600 -seed 101 -out v1.npz
//
// With -beta 1 the expert plays every move (no -weights needed): its own
// trajectories, labelled. With -expert-seat rotate the expert plays every
// move of one seat, seat i mod players in episode i, and the policy (or
// the -beta mixture) the others: the states a policy reaches against the
// expert as its opponent, each labelled by the expert, its own seat's too.
// Episode i uses the seeds of episode i of `galaxygym generate --seed`, and
// -workers episodes are played at once, each worker with its own
// environment and agents: the archive is the same bytes for any -workers.
// The expert is an agent spec, name[@key=value]... as eval's lineups write
// it (default the environment's heuristic; mcts@sims=32, the search, gives
// its values with -values as well: agents.MCTS.ActExplained, the same
// labels as without); it plays from the observation only, so it can label
// states it did not reach itself.
//
// In a game of several seats every decision is the acting seat's: its
// observation, its mask, the policy (one policy for every seat: Galaxy
// Fighters' team policy) or the expert acting for it. -param key=value
// (repeatable) sets an environment parameter, as eval's --env-param does.
package main

import (
	"archive/zip"
	"bufio"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/galaxygym/galaxygym/agents"
	_ "github.com/galaxygym/galaxygym/agents/all"
	"github.com/galaxygym/galaxygym/env"
	_ "github.com/galaxygym/galaxygym/env/all"
	"github.com/galaxygym/galaxygym/rollout"
	f16 "github.com/x448/float16"
)

// options are the command's flags.
type options struct {
	envID, weights, expert, out string
	episodes, workers           int
	seed                        uint64
	beta                        float64
	greedy, values, features    bool
	params                      map[string]any
	// expertRotate: the expert plays every move of seat i mod players
	// in episode i (-expert-seat rotate).
	expertRotate bool
}

func main() {
	fs := flag.NewFlagSet("dagger", flag.ExitOnError) // a fresh set each call, so tests can run main twice
	var o options
	fs.StringVar(&o.envID, "env", "galaxy-express-v1", "environment id")
	fs.StringVar(&o.weights, "weights", "", "the learned policy (.npz, docs/policy-format.md)")
	fs.StringVar(&o.expert, "expert", agents.Heuristic,
		"the expert agent that labels the states, an agent spec name[@key=value]... (e.g. mcts@sims=32)")
	fs.IntVar(&o.episodes, "episodes", 10000, "episodes to play")
	fs.IntVar(&o.workers, "workers", runtime.NumCPU(), "episodes played at once (the output does not depend on it)")
	fs.Uint64Var(&o.seed, "seed", 1, "run seed (episode i: the seeds of generate's episode i)")
	fs.Float64Var(&o.beta, "beta", 0, "probability that a decision is the expert's (0: the policy plays every move)")
	fs.BoolVar(&o.greedy, "greedy", false, "the policy plays its most probable action (else it samples)")
	fs.BoolVar(&o.values, "values", false, "also write the expert's value of every legal action (q, float16): a heuristic's ActionValues, a search's mean return per action")
	fs.BoolVar(&o.features, "features", false, "also write the game's action features of every decision (afeat)")
	fs.StringVar(&o.out, "out", "labels.npz", "output .npz")
	fs.Func("expert-seat", "rotate: the expert plays every move of seat i mod players in episode i (default: none)", func(s string) error {
		if s != "rotate" {
			return fmt.Errorf("dagger: -expert-seat %q: want rotate", s)
		}
		o.expertRotate = true
		return nil
	})
	o.params = map[string]any{}
	fs.Func("param", "environment parameter key=value (repeatable)", func(s string) error {
		k, v, ok := strings.Cut(s, "=")
		if !ok || k == "" {
			return fmt.Errorf("dagger: -param %q: want key=value", s)
		}
		o.params[k] = v
		return nil
	})
	if err := fs.Parse(os.Args[1:]); err != nil {
		log.Fatal(err)
	}
	if err := run(o); err != nil {
		log.Fatal(err)
	}
}

// record is one episode's labelled decisions, in the archive's layouts.
type record struct {
	obs, mask, afeat []uint8
	action           []int64
	q                []byte // little-endian float16 bits, as q.npy stores them
	ret              float64
}

// worker plays episodes with its own environment, policy and expert.
type worker struct {
	o        options
	e        *env.Env
	pol, exp agents.Agent
	valuer   actionValuer
	explain  agents.Explainer // -values from an expert with no ActionValues
	th       agents.Thoughts
	featurer env.ActionFeaturer
	obs, ft  []uint8
	q        []float32
}

// newWorker makes a worker's environment and agents; it returns the
// errors of env.Make and agents.New, and an error when -values or
// -features asks for what the expert or the game does not have.
func newWorker(o options) (*worker, error) {
	e, err := env.Make(o.envID, o.params)
	if err != nil {
		return nil, err
	}
	spec := e.Spec()
	w := &worker{o: o, e: e, obs: make([]uint8, spec.ObsSize()), q: make([]float32, spec.NumActions())}
	if o.expertRotate && spec.NumPlayers < 2 {
		return nil, fmt.Errorf("dagger: -expert-seat: %s has one seat, which the policy must play", o.envID)
	}
	if o.beta < 1 {
		if w.pol, err = agents.New("policy", spec, agents.Options{"weights": o.weights, "greedy": fmt.Sprint(o.greedy)}); err != nil {
			return nil, err
		}
	}
	expSpec, err := agents.ParseSpec(o.expert)
	if err != nil {
		return nil, err
	}
	if w.exp, err = agents.New(expSpec.Name, spec, expSpec.Options); err != nil {
		return nil, err
	}
	if o.values {
		if valuer, ok := w.exp.(actionValuer); ok {
			w.valuer = valuer
		} else if explain, ok := w.exp.(agents.Explainer); ok {
			w.explain = explain
		} else {
			return nil, fmt.Errorf("dagger: expert %s neither values nor explains its actions: -values is not available", o.expert)
		}
	}
	if o.features {
		if w.featurer = env.ActionFeaturesOf(o.envID); w.featurer == nil {
			return nil, fmt.Errorf("dagger: %s declares no action features: -features is not available", o.envID)
		}
		w.ft = make([]uint8, spec.NumActions()*len(w.featurer.ActionFeatureNames()))
	}
	return w, nil
}

// play plays episode i: its seeds are those of generate's episode i, so
// the record does not depend on which worker plays it.
func (w *worker) play(i int) (record, error) {
	var r record
	envSeed, agentSeed := rollout.EpisodeSeeds(w.o.seed, int64(i))
	e := w.e
	e.Reset(envSeed)
	if w.pol != nil {
		w.pol.Reset(agentSeed)
	}
	w.exp.Reset(agentSeed ^ 0x9e3779b97f4a7c15)
	mix := rand.New(rand.NewPCG(agentSeed, 0x646167676572))
	expertSeat := -1
	if w.o.expertRotate {
		expertSeat = i % e.Spec().NumPlayers
	}
	for !e.Done() {
		seat := e.CurrentPlayer()
		if err := e.Observe(seat, w.obs); err != nil {
			return r, err
		}
		mask := e.Mask()
		var label int
		switch {
		case w.valuer != nil:
			label = w.valuer.ActionValues(w.obs, mask, w.q)
		case w.explain != nil:
			label = w.explain.ActExplained(seat, w.obs, mask, &w.th)
			for a := range w.q { // NaN where it simulated nothing or gives no values (a policy)
				w.q[a] = float32(math.NaN())
				if a < len(w.th.Values) {
					w.q[a] = float32(w.th.Values[a])
				}
			}
		default:
			label = w.exp.Act(seat, w.obs, mask)
		}
		if w.o.values {
			for _, v := range w.q {
				r.q = binary.LittleEndian.AppendUint16(r.q, float16(v))
			}
		}
		a := label
		if mix.Float64() >= w.o.beta && seat != expertSeat {
			a = w.pol.Act(seat, w.obs, mask)
		}
		r.obs = append(r.obs, w.obs...)
		if w.featurer != nil {
			w.featurer.ActionFeatures(w.obs, w.ft)
			r.afeat = append(r.afeat, w.ft...)
		}
		r.mask = append(r.mask, mask...)
		r.action = append(r.action, int64(label))
		if _, err := e.Step(a); err != nil {
			return r, err
		}
	}
	r.ret = e.Returns()[0]
	if expertSeat >= 0 { // the policy's return: the seat after the expert's
		r.ret = e.Returns()[(expertSeat+1)%e.Spec().NumPlayers]
	}
	return r, nil
}

// run plays o.episodes episodes on o.workers workers and writes the
// archive, its decisions in episode order.
func run(o options) error {
	workers := max(1, min(o.workers, o.episodes))
	ws := make([]*worker, workers)
	for k := range ws {
		w, err := newWorker(o)
		if err != nil {
			return err
		}
		ws[k] = w
	}
	recs := make([]record, o.episodes)
	errs := make([]error, workers)
	var next atomic.Int64
	var wg sync.WaitGroup
	for k, w := range ws {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < o.episodes && errs[k] == nil; i = int(next.Add(1) - 1) {
				recs[i], errs[k] = w.play(i)
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	return write(o, ws[0], recs)
}

// write concatenates the episodes' records and writes the archive. Each
// record is dropped once copied, so the peak is about one archive's bytes
// beyond the records, not two.
func write(o options, w *worker, recs []record) error {
	spec := w.e.Spec()
	n, nFeat, nQ := 0, 0, 0
	for _, r := range recs {
		n, nFeat, nQ = n+len(r.action), nFeat+len(r.afeat), nQ+len(r.q)
	}
	obsAll, maskAll := make([]uint8, 0, n*spec.ObsSize()), make([]uint8, 0, n*spec.NumActions())
	featAll, qAll := make([]uint8, 0, nFeat), make([]uint8, 0, nQ)
	actAll, epAll := make([]int64, 0, n), make([]int64, 0, n)
	total := 0.0
	for i := range recs {
		r := recs[i]
		recs[i] = record{}
		obsAll, maskAll = append(obsAll, r.obs...), append(maskAll, r.mask...)
		featAll, qAll = append(featAll, r.afeat...), append(qAll, r.q...)
		actAll = append(actAll, r.action...)
		for range r.action {
			epAll = append(epAll, int64(i))
		}
		total += r.ret
	}
	arrays := []npyArray{
		{"obs", "|u1", []int{n, spec.ObsSize()}, obsAll},
		{"mask", "|u1", []int{n, spec.NumActions()}, maskAll},
		{"action", "<i8", []int{n}, i64(actAll)},
		{"episode_id", "<i8", []int{n}, i64(epAll)},
	}
	if o.values {
		arrays = append(arrays, npyArray{"q", "<f2", []int{n, spec.NumActions()}, qAll})
	}
	if w.featurer != nil {
		names := w.featurer.ActionFeatureNames()
		joined := strings.Join(names, ",")
		arrays = append(arrays, npyArray{"afeat", "|u1", []int{n, spec.NumActions(), len(names)}, featAll},
			npyArray{"afeat_names", "|u1", []int{len(joined)}, []byte(joined)})
	}
	arrays = append(arrays, npyArray{"obs_high", "|u1", []int{spec.ObsSize()}, spec.ObsHigh},
		npyArray{"env_id", "|u1", []int{len(o.envID)}, []byte(o.envID)})
	if err := writeNPZ(o.out, arrays); err != nil {
		return err
	}
	who := "seat 0's"
	if o.expertRotate {
		who = "the policy's, the expert playing seat i mod players in episode i"
	}
	fmt.Printf("%d episodes, %d decisions labelled by %s; mean return of the rollouts (%s) %.2f (beta %.2f) -> %s\n",
		o.episodes, n, o.expert, who, total/float64(o.episodes), o.beta, o.out)
	return nil
}

// npyArray is one array of the output archive: its name, numpy dtype
// descr, shape and little-endian bytes.
type npyArray struct {
	name, descr string
	shape       []int
	data        []byte
}

// writeNPZ writes arrays to path as an uncompressed .npz (format 1.0 .npy
// members).
func writeNPZ(path string, arrays []npyArray) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	z := zip.NewWriter(w)
	for _, a := range arrays {
		dims := make([]string, len(a.shape))
		for k, d := range a.shape {
			dims[k] = fmt.Sprint(d)
		}
		tuple := strings.Join(dims, ", ")
		if len(a.shape) == 1 {
			tuple += ","
		}
		header := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", a.descr, tuple)
		pad := 64 - (10+len(header)+1)%64
		header += strings.Repeat(" ", pad%64) + "\n"
		zw, err := z.CreateHeader(&zip.FileHeader{Name: a.name + ".npy", Method: zip.Store})
		if err != nil {
			f.Close()
			return err
		}
		hdr := []byte("\x93NUMPY\x01\x00")
		hdr = binary.LittleEndian.AppendUint16(hdr, uint16(len(header)))
		if _, err := zw.Write(append(hdr, header...)); err != nil {
			f.Close()
			return err
		}
		if _, err := zw.Write(a.data); err != nil {
			f.Close()
			return err
		}
	}
	if err := z.Close(); err != nil {
		f.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// i64 encodes v little-endian.
func i64(v []int64) []byte {
	b := make([]byte, 0, 8*len(v))
	for _, x := range v {
		b = binary.LittleEndian.AppendUint64(b, uint64(x))
	}
	return b
}

// actionValuer is an expert that can say what each legal action is worth
// (agents/galaxyexpress.Heuristic.ActionValues).
type actionValuer interface {
	ActionValues(obs, mask []uint8, q []float32) int
}

// float16 converts v to IEEE 754 binary16 bits (x448/float16: rounding to
// nearest even, subnormals kept, overflow to an infinity, NaN stays NaN).
func float16(v float32) uint16 { return f16.Fromfloat32(v).Bits() }
