// Command pilotscalibrate measures the seat fairness and the interaction
// of Pilots of Gallaxia in heuristic self-play: for each player count it
// plays seeded games of the heuristic in every seat and reports the win
// rate of each position in the order of play (the pilot who moves first,
// second, ...) and of each seat, the game length in pilot turns (median
// and mean), and how often raids, Durriken and BLOKKs are used. With
// --check it also writes every position reached in the notation and reads
// it back, counting the games with a position the notation refuses or
// reads back as another.
//
//	nice go run ./tools/pilotscalibrate --env pilots-of-gallaxia-v2 \
//	    --players 2,4,6 --games 10000
//
// --param key=value (repeatable) sets an environment parameter, so one run
// measures one setting of the calibration (docs/rules/pilots-of-gallaxia.md).
// Game g is played with env seed --seed+g and the heuristic of seat i
// seeded (--seed+g)*16+i, as the package's tests play them; the figures are
// reproducible.
package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/galaxygym/galaxygym/agents"
	_ "github.com/galaxygym/galaxygym/agents/all"
	"github.com/galaxygym/galaxygym/env"
	_ "github.com/galaxygym/galaxygym/env/all"
	pog "github.com/galaxygym/galaxygym/env/pilotsofgallaxia"
)

// params collects repeated --param key=value flags.
type params map[string]any

func (p params) String() string { return fmt.Sprint(map[string]any(p)) }

func (p params) Set(kv string) error {
	k, v, ok := strings.Cut(kv, "=")
	if !ok {
		return fmt.Errorf("want key=value, got %q", kv)
	}
	p[k] = v
	return nil
}

// tally is what a set of games measured.
type tally struct {
	games, truncated, refused       int
	byOrder, bySeat                 [pog.MaxPlayers]int
	turns                           []int
	raids, durRaids, durRaidsWon    int
	hires, durMoves, blokks, claims int
	gamesDurRaid, gamesBlokk        int
}

func (t *tally) add(u *tally) {
	t.games += u.games
	t.truncated += u.truncated
	t.refused += u.refused
	for i := range t.byOrder {
		t.byOrder[i] += u.byOrder[i]
		t.bySeat[i] += u.bySeat[i]
	}
	t.turns = append(t.turns, u.turns...)
	t.raids += u.raids
	t.durRaids += u.durRaids
	t.durRaidsWon += u.durRaidsWon
	t.hires += u.hires
	t.durMoves += u.durMoves
	t.blokks += u.blokks
	t.claims += u.claims
	t.gamesDurRaid += u.gamesDurRaid
	t.gamesBlokk += u.gamesBlokk
}

// play plays game g and adds it to t.
func play(id string, p map[string]any, seed uint64, check bool, t *tally) error {
	e, err := env.Make(id, p)
	if err != nil {
		return err
	}
	n := e.Spec().NumPlayers
	seats := make([]agents.Agent, n)
	for i := range seats {
		if seats[i], err = agents.New(agents.Heuristic, e.Spec(), nil); err != nil {
			return err
		}
		seats[i].Reset(seed*16 + uint64(i))
	}
	e.Reset(seed)
	first := e.CurrentPlayer()
	obs := make([]uint8, e.Spec().ObsSize())
	durRaid, blokk := false, false
	refused := false
	var cfg *pog.Config
	if check {
		cfg, err = pog.NewConfigOf(id, e.Params())
		if err != nil {
			return err
		}
	}
	for !e.Done() {
		pl := e.CurrentPlayer()
		e.Observe(pl, obs)
		a := seats[pl].Act(pl, obs, e.Mask())
		mover := obs[pog.OffMovingPiece] // k+1 of the piece moving
		switch {
		case a == pog.ActHire:
			t.hires++
		case a == pog.ActDurriken:
			t.durMoves++
		case a == pog.ActClaimBlokk:
			t.blokks++
			blokk = true
		case a == pog.ActClaim:
			t.claims++
		case a >= pog.ActRaid && a < pog.ActRaid+15 && mover == 3:
			t.durRaids++
			durRaid = true
		}
		if _, err := e.Step(a); err != nil {
			return fmt.Errorf("game %d: %w", seed, err)
		}
		if check && !refused && !e.Done() {
			s := e.State().(*pog.State)
			text := s.Position()
			if q, err := pog.ParsePosition(text, cfg); err != nil || q.Position() != text {
				refused = true
			}
		}
	}
	in := e.Info()
	for q, o := range in.Outcomes {
		if o == env.OutcomeWin {
			t.byOrder[(q-first+n)%n]++
			t.bySeat[q]++
		}
	}
	r, _ := in.Stat("raids")
	t.raids += int(r)
	t.games++
	t.turns = append(t.turns, e.State().Turn())
	if e.Truncated() {
		t.truncated++
	}
	if refused {
		t.refused++
	}
	if durRaid {
		t.gamesDurRaid++
	}
	if blokk {
		t.gamesBlokk++
	}
	return nil
}

func main() {
	id := flag.String("env", pog.ID, "environment id (pilots-of-gallaxia-v2 or -v1)")
	players := flag.String("players", "2,4,6", "comma-separated player counts")
	games := flag.Int("games", 10000, "games per player count")
	seed := flag.Uint64("seed", 0, "seed of the first game")
	workers := flag.Int("workers", 2, "goroutines playing games")
	check := flag.Bool("check", false, "read every position back through the notation and count the games where one is refused or reads back as another")
	ps := params{}
	flag.Var(ps, "param", "environment parameter key=value (repeatable)")
	flag.Parse()
	if err := run(*id, *players, *games, *seed, *workers, *check, ps); err != nil {
		fmt.Fprintln(os.Stderr, "pilotscalibrate:", err)
		os.Exit(1)
	}
}

func run(id, players string, games int, seed uint64, workers int, check bool, ps params) error {
	fmt.Printf("%s %v, %d games per player count, seeds %d-%d\n", id, ps, games, seed, seed+uint64(games)-1)
	for _, f := range strings.Split(players, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return fmt.Errorf("players %q: %w", f, err)
		}
		p := map[string]any{env.PlayersParam: n}
		for k, v := range ps {
			p[k] = v
		}
		var mu sync.Mutex
		var total tally
		var firstErr error
		var wg sync.WaitGroup
		next := make(chan int)
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var local tally
				for g := range next {
					if err := play(id, p, seed+uint64(g), check, &local); err != nil {
						mu.Lock()
						firstErr = err
						mu.Unlock()
					}
				}
				mu.Lock()
				total.add(&local)
				mu.Unlock()
			}()
		}
		for g := 0; g < games; g++ {
			next <- g
		}
		close(next)
		wg.Wait()
		if firstErr != nil {
			return firstErr
		}
		report(n, &total)
	}
	return nil
}

// report prints one player count's figures; win rates carry their 95 %
// normal-approximation half-width.
func report(n int, t *tally) {
	g := float64(t.games)
	fair := 100 / float64(n)
	var order, seat []string
	worst := 0.0
	for i := 0; i < n; i++ {
		r := 100 * float64(t.byOrder[i]) / g
		order = append(order, fmt.Sprintf("%.1f", r))
		seat = append(seat, fmt.Sprintf("%.1f", 100*float64(t.bySeat[i])/g))
		worst = max(worst, math.Abs(r-fair))
	}
	half := 196 * math.Sqrt(fair/100*(1-fair/100)/g)
	slices.Sort(t.turns)
	sum := 0
	for _, x := range t.turns {
		sum += x
	}
	med := float64(t.turns[len(t.turns)/2])
	if len(t.turns)%2 == 0 {
		med = float64(t.turns[len(t.turns)/2-1]+t.turns[len(t.turns)/2]) / 2
	}
	fmt.Printf("players %d: %d games\n", n, t.games)
	fmt.Printf("  wins by position in the order of play (%%): %s (fair %.1f; worst gap %.1f points; 95%% +-%.1f)\n",
		strings.Join(order, ", "), fair, worst, half)
	fmt.Printf("  wins by seat (%%): %s\n", strings.Join(seat, ", "))
	fmt.Printf("  pilot turns a game: median %.0f, mean %.1f, 99th percentile %d, longest %d, rounds (median) %.1f; truncated %d\n",
		med, float64(sum)/g, t.turns[len(t.turns)*99/100], t.turns[len(t.turns)-1], med/float64(n), t.truncated)
	fmt.Printf("  a game: raids %.2f (by a Durriken %.2f), Durriken hires %.2f, Durriken moves %.2f, BLOKKs %.2f, caravans %.2f\n",
		float64(t.raids)/g, float64(t.durRaids)/g, float64(t.hires)/g, float64(t.durMoves)/g, float64(t.blokks)/g, float64(t.claims)/g)
	fmt.Printf("  games with a Durriken raid %.1f%%, with a BLOKK %.1f%%\n",
		100*float64(t.gamesDurRaid)/g, 100*float64(t.gamesBlokk)/g)
	if t.refused > 0 {
		fmt.Printf("  games reaching a position the notation refuses or reads back as another: %d\n", t.refused)
	}
}
