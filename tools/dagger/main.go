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
//	           Galaxy Fighters and Pilots of Gallaxia have)
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
// With -beta 1 the expert plays every move (no -weights needed): its own
// trajectories, labelled.
// Episode i uses the seeds of episode i of `galaxygym generate --seed`.
// The expert is the environment's heuristic; it plays from the observation
// only, so it can label states it did not reach itself.
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
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"strings"

	"github.com/galaxygym/galaxygym/agents"
	_ "github.com/galaxygym/galaxygym/agents/all"
	"github.com/galaxygym/galaxygym/env"
	_ "github.com/galaxygym/galaxygym/env/all"
	"github.com/galaxygym/galaxygym/rollout"
	f16 "github.com/x448/float16"
)

func main() {
	fs := flag.NewFlagSet("dagger", flag.ExitOnError) // a fresh set each call, so tests can run main twice
	envID := fs.String("env", "galaxy-express-v1", "environment id")
	weights := fs.String("weights", "", "the learned policy (.npz, docs/policy-format.md)")
	expert := fs.String("expert", agents.Heuristic, "the expert agent that labels the states")
	episodes := fs.Int("episodes", 10000, "episodes to play")
	seed := fs.Uint64("seed", 1, "run seed (episode i: the seeds of generate's episode i)")
	beta := fs.Float64("beta", 0, "probability that a decision is the expert's (0: the policy plays every move)")
	greedy := fs.Bool("greedy", false, "the policy plays its most probable action (else it samples)")
	values := fs.Bool("values", false, "also write the expert's value of every legal action (q, float16)")
	features := fs.Bool("features", false, "also write the game's action features of every decision (afeat)")
	out := fs.String("out", "labels.npz", "output .npz")
	params := map[string]any{}
	fs.Func("param", "environment parameter key=value (repeatable)", func(s string) error {
		k, v, ok := strings.Cut(s, "=")
		if !ok || k == "" {
			return fmt.Errorf("dagger: -param %q: want key=value", s)
		}
		params[k] = v
		return nil
	})
	if err := fs.Parse(os.Args[1:]); err != nil {
		log.Fatal(err)
	}
	e, err := env.Make(*envID, params)
	if err != nil {
		log.Fatal(err)
	}
	spec := e.Spec()
	var pol agents.Agent
	if *beta < 1 {
		if pol, err = agents.New("policy", spec, agents.Options{"weights": *weights, "greedy": fmt.Sprint(*greedy)}); err != nil {
			log.Fatal(err)
		}
	}
	exp, err := agents.New(*expert, spec, nil)
	if err != nil {
		log.Fatal(err)
	}
	valuer, ok := exp.(actionValuer)
	if *values && !ok {
		log.Fatalf("dagger: expert %s has no ActionValues method: -values is not available", *expert)
	}
	obsSize, numActions := spec.ObsSize(), spec.NumActions()
	var featurer env.ActionFeaturer
	var feat, featAll []uint8
	if *features {
		if featurer = env.ActionFeaturesOf(*envID); featurer == nil {
			log.Fatalf("dagger: %s declares no action features: -features is not available", *envID)
		}
		feat = make([]uint8, numActions*len(featurer.ActionFeatureNames()))
	}
	var obsAll, maskAll []uint8
	var actAll, epAll []int64
	var qAll []byte // little-endian float16 bits, as q.npy stores them
	q := make([]float32, numActions)
	obs := make([]uint8, obsSize)
	total := 0.0
	for i := range *episodes {
		envSeed, agentSeed := rollout.EpisodeSeeds(*seed, int64(i))
		e.Reset(envSeed)
		if pol != nil {
			pol.Reset(agentSeed)
		}
		exp.Reset(agentSeed ^ 0x9e3779b97f4a7c15)
		mix := rand.New(rand.NewPCG(agentSeed, 0x646167676572))
		for !e.Done() {
			seat := e.CurrentPlayer()
			if err := e.Observe(seat, obs); err != nil {
				log.Fatal(err)
			}
			mask := e.Mask()
			var label int
			if *values {
				label = valuer.ActionValues(obs, mask, q)
				for _, v := range q {
					qAll = binary.LittleEndian.AppendUint16(qAll, float16(v))
				}
			} else {
				label = exp.Act(seat, obs, mask)
			}
			a := label
			if mix.Float64() >= *beta {
				a = pol.Act(seat, obs, mask)
			}
			obsAll = append(obsAll, obs...)
			if featurer != nil {
				featurer.ActionFeatures(obs, feat)
				featAll = append(featAll, feat...)
			}
			maskAll = append(maskAll, mask...)
			actAll = append(actAll, int64(label))
			epAll = append(epAll, int64(i))
			if _, err := e.Step(a); err != nil {
				log.Fatal(err)
			}
		}
		total += e.Returns()[0]
	}
	n := len(actAll)
	arrays := []npyArray{
		{"obs", "|u1", []int{n, obsSize}, obsAll},
		{"mask", "|u1", []int{n, numActions}, maskAll},
		{"action", "<i8", []int{n}, i64(actAll)},
		{"episode_id", "<i8", []int{n}, i64(epAll)},
	}
	if *values {
		arrays = append(arrays, npyArray{"q", "<f2", []int{n, numActions}, qAll})
	}
	if featurer != nil {
		names := strings.Join(featurer.ActionFeatureNames(), ",")
		arrays = append(arrays, npyArray{"afeat", "|u1", []int{n, numActions, len(featurer.ActionFeatureNames())}, featAll},
			npyArray{"afeat_names", "|u1", []int{len(names)}, []byte(names)})
	}
	arrays = append(arrays, npyArray{"obs_high", "|u1", []int{obsSize}, spec.ObsHigh},
		npyArray{"env_id", "|u1", []int{len(*envID)}, []byte(*envID)})
	if err := writeNPZ(*out, arrays); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d episodes, %d decisions labelled by %s; mean return of the rollouts %.2f (beta %.2f) -> %s\n",
		*episodes, n, *expert, total/float64(*episodes), *beta, *out)
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
