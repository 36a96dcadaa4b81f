// Command lostmoves measures what Galaxy Express's Lost-in-Space moves cost
// a policy (docs/learning-baselines.md, item 11): it plays a weights file
// greedily over seeded games (episode i: the seeds of `galaxygym generate
// --seed`'s episode i) and counts its games lost, the moves it played that
// end the game Lost in Space at once (the game's "lost" action feature,
// env.ActionFeaturer), and those where another legal move was safe. With
// -filter, such a move is replaced by the policy's most probable safe move,
// which gives the mean return the policy would have if it never made one.
// With -takeover, each game not won is replayed with the heuristic taking
// over k decisions before its end (k = 1, 2, ... up to -takeover; the same
// seeds, so the same game until then): it prints the smallest k at which
// the heuristic wins and the two agents' moves there, which says how far
// before its end the policy lost the game.
//
//	go run ./tools/lostmoves -weights notebooks/weights/galaxy-express-v1-dagger.npz -episodes 2000 -seed 1
//	go run ./tools/lostmoves -weights ... -filter
//	go run ./tools/lostmoves -weights notebooks/weights/galaxy-express-v1-mcts-values.npz -takeover 15
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
	takeover := flag.Int("takeover", 0, "replay each game not won with the heuristic taking over 1..N decisions before its end")
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
	saved := map[int]int{}
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
				if best := safest(p, obs, mask, feat, probs); best >= 0 {
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
			if *takeover > 0 {
				k := takeOver(e, p, i, *seed, *takeover, *filter, obs)
				saved[k]++
			}
		}
	}
	fmt.Printf("%d games: mean return %.3f, %d not won; %d moves lost in space at once, %d of them with a safe move legal (filter %v)\n",
		*episodes, total/float64(*episodes), lost, played, avoidable, *filter)
	if *takeover > 0 {
		fmt.Printf("games not won, by the fewest decisions before the end at which the heuristic taking over wins (0: none up to %d): %v\n",
			*takeover, saved)
	}
}

// takeOver replays episode i of the run seed with the policy p until k
// decisions before the end it reached alone and the heuristic from there,
// for k = 1..most, and returns the first k at which the heuristic wins (0:
// none), printing both agents' moves at that decision. The policy plays
// greedily, so the game is the same as the policy's own until the switch;
// with filter its lost-at-once moves are replaced as in the main loop.
func takeOver(e *env.Env, p *agents.Policy, i int, seed uint64, most int, filter bool, obs []uint8) int {
	spec := e.Spec()
	h, err := agents.New(agents.Heuristic, spec, nil)
	if err != nil {
		log.Fatal(err)
	}
	featurer := env.ActionFeaturesOf(ge.ID)
	feat := make([]uint8, spec.NumActions()*ge.NumFeatures)
	probs := make([]float64, spec.NumActions())
	policyAct := func(obs, mask []uint8) int {
		act := p.Act(0, obs, mask)
		if !filter {
			return act
		}
		featurer.ActionFeatures(obs, feat)
		if feat[act*ge.NumFeatures+ge.FeatureLost] == 0 {
			return act
		}
		if best := safest(p, obs, mask, feat, probs); best >= 0 {
			return best
		}
		return act
	}
	// play runs the episode, the policy deciding the first n decisions (all
	// when n < 0); it returns whether it was won, its decisions and, at
	// decision n, both agents' moves.
	play := func(n int) (won bool, length int, moves string) {
		envSeed, agentSeed := rollout.EpisodeSeeds(seed, int64(i))
		e.Reset(envSeed)
		p.Reset(agentSeed)
		h.Reset(agentSeed)
		for d := 0; !e.Done(); d++ {
			if err := e.Observe(0, obs); err != nil {
				log.Fatal(err)
			}
			mask := e.Mask()
			act := policyAct(obs, mask)
			if n >= 0 && d >= n {
				ha := h.Act(0, obs, mask)
				if d == n {
					moves = fmt.Sprintf("policy %s, heuristic %s", spec.ActionNames[act], spec.ActionNames[ha])
				}
				act = ha
			}
			if _, err := e.Step(act); err != nil {
				log.Fatal(err)
			}
			length = d + 1
		}
		return e.Info().Outcome == env.OutcomeWin, length, moves
	}
	_, length, _ := play(-1)
	for k := 1; k <= most && k <= length; k++ {
		if won, _, moves := play(length - k); won {
			fmt.Printf("episode %d: %d decisions; the heuristic taking over %d before the end wins (%s)\n", i, length, k, moves)
			return k
		}
	}
	fmt.Printf("episode %d: %d decisions; the heuristic taking over up to %d before the end does not win\n", i, length, most)
	return 0
}

// safest returns the policy's most probable legal action that does not lose
// at once (feat: the decision's action features), or -1 when every legal
// action does; probs is scratch of the action count.
func safest(p *agents.Policy, obs, mask, feat []uint8, probs []float64) int {
	p.Probs(obs, mask, probs)
	best := -1
	for k, m := range mask {
		if m != 0 && feat[k*ge.NumFeatures+ge.FeatureLost] == 0 && (best < 0 || probs[k] > probs[best]) {
			best = k
		}
	}
	return best
}
