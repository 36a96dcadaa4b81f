// Command lostmoves measures what Galaxy Express's Lost-in-Space moves cost
// a policy (docs/learning-baselines.md, item 11): it plays a weights file
// greedily over seeded games (episode i: the seeds of `galaxygym generate
// --seed`'s episode i) and counts its games lost, the moves it played that
// end the game Lost in Space at once (the game's "lost" action feature,
// env.ActionFeaturer), and those where another legal move was safe. With
// -filter, such a move is replaced by the policy's most probable safe move,
// which gives the mean return the policy would have if it never made one.
//
//	go run ./tools/lostmoves -weights notebooks/weights/galaxy-express-v1-dagger.npz -episodes 2000 -seed 1
//	go run ./tools/lostmoves -weights ... -filter
package main

import (
	"flag"
	"fmt"
	"log"

	"github.com/galaxygym/galaxygym/agents"
	_ "github.com/galaxygym/galaxygym/agents/all"
	"github.com/galaxygym/galaxygym/env"
	_ "github.com/galaxygym/galaxygym/env/all"
	ge "github.com/galaxygym/galaxygym/env/galaxyexpress"
	"github.com/galaxygym/galaxygym/rollout"
)

func main() {
	weights := flag.String("weights", "notebooks/weights/galaxy-express-v1-dagger.npz", "the policy (.npz)")
	episodes := flag.Int("episodes", 2000, "games to play")
	seed := flag.Uint64("seed", 1, "run seed, as eval's --seed")
	filter := flag.Bool("filter", false, "replace a move that loses at once by the most probable safe one")
	flag.Parse()
	e, err := env.Make(ge.ID, nil)
	if err != nil {
		log.Fatal(err)
	}
	spec := e.Spec()
	a, err := agents.New("policy", spec, agents.Options{"weights": *weights, "greedy": "true"})
	if err != nil {
		log.Fatal(err)
	}
	p := a.(*agents.Policy)
	featurer := env.ActionFeaturesOf(ge.ID)
	obs := make([]uint8, spec.ObsSize())
	feat := make([]uint8, spec.NumActions()*ge.NumFeatures)
	probs := make([]float64, spec.NumActions())
	lostMove := func(a int) bool { return feat[a*ge.NumFeatures+ge.FeatureLost] != 0 }
	total, lost, played, avoidable := 0.0, 0, 0, 0
	for i := range *episodes {
		envSeed, agentSeed := rollout.EpisodeSeeds(*seed, int64(i))
		e.Reset(envSeed)
		p.Reset(agentSeed)
		for !e.Done() {
			if err := e.Observe(0, obs); err != nil {
				log.Fatal(err)
			}
			mask := e.Mask()
			act := p.Act(0, obs, mask)
			featurer.ActionFeatures(obs, feat)
			if lostMove(act) {
				played++
				p.Probs(obs, mask, probs)
				best := -1
				for k, m := range mask {
					if m != 0 && !lostMove(k) && (best < 0 || probs[k] > probs[best]) {
						best = k
					}
				}
				if best >= 0 {
					avoidable++
					if *filter {
						act = best
					}
				}
			}
			if _, err := e.Step(act); err != nil {
				log.Fatal(err)
			}
		}
		total += e.Returns()[0]
		if info := e.Info(); info.Outcome != env.OutcomeWin {
			lost++
		}
	}
	fmt.Printf("%d games: mean return %.3f, %d not won; %d moves lost in space at once, %d of them with a safe move legal (filter %v)\n",
		*episodes, total/float64(*episodes), lost, played, avoidable, *filter)
}
