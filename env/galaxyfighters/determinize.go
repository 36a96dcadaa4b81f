package galaxyfighters

import (
	"fmt"
	"math/bits"
	"math/rand/v2"

	"github.com/galaxygym/galaxygym/env"
)

// DeterminizeError reports an observation that is not one of a valid
// position of the environment's parameters (Game.Determinize).
type DeterminizeError struct{ Reason string }

func (e *DeterminizeError) Error() string { return "galaxyfighters: determinize: " + e.Reason }

func obsErr(format string, a ...any) error {
	return &DeterminizeError{fmt.Sprintf(format, a...)}
}

// Determinize implements env.Determinizer: it returns a complete state
// consistent with obs, the observation of player under params, drawing
// what the player cannot see from seed:
//
//   - the spawn deck: as many cards as the observation counts, drawn
//     uniformly without replacement from the 25 pool cards, in random
//     order (the board carries evidence of the cards drawn before, which
//     this ignores: the prior, not the exact posterior);
//   - the shipyard: as many models as the observation counts, drawn
//     uniformly from the ship deck less the four ships in play (the models
//     of destroyed ships are not shown, so every such draw is possible);
//   - the order of the aliens under the top of each stack: a uniform
//     permutation of the types and facings the observation counts;
//   - the chance generator (later dice rolls and v2's reinforcement
//     cards): a fresh PCG seeded from seed;
//   - during a spill-over decision, every alien still waiting is put on the
//     district being decided (the observation shows their total only).
//
// The turn counters follow from the observation's turn count (to 255;
// beyond, the three-player rotation is matched to the seat bytes), the
// statistics of Info start at zero, and the last spawn card is unknown.
// Observe(player) of the result writes obs again, and its legal mask is
// that of the true position. reuse, a state an earlier call returned, is
// overwritten and returned. Errors are *DeterminizeError.
func (g Game) Determinize(params env.Params, player int, obs []uint8, seed uint64, reuse env.State) (env.State, error) {
	cfg := newConfig(params)
	if player < 0 || player >= cfg.players {
		return nil, obsErr("player %d of %d", player, cfg.players)
	}
	if len(obs) != ObsSize {
		return nil, obsErr("%d bytes, want %d", len(obs), ObsSize)
	}
	if int(obs[OffToLose]) != cfg.districtsToLose || int(obs[OffInvaderCap]) != cfg.invaderCap || (obs[OffWinOnClear] == 1) != cfg.winOnClear {
		return nil, obsErr("counters (districts to lose %d, invader spaces %d, win_on %d) are not those of the parameters",
			obs[OffToLose], obs[OffInvaderCap], obs[OffWinOnClear])
	}
	s, _ := reuse.(*State)
	if s == nil || s.cfg == nil || *s.cfg != cfg {
		c := new(config)
		*c = cfg
		s = &State{cfg: c}
	}
	*s = State{cfg: s.cfg, spillSrc: -1, card: -1, started: true}
	s.rng = *rand.NewPCG(seed, 0x64657465726d696e) // "determin"
	if err := s.decodeObs(player, obs, &s.rng); err != nil {
		return nil, err
	}
	if err := s.determinizeHidden(player, obs); err != nil {
		return nil, err
	}
	if err := s.validate(); err != nil {
		return nil, obsErr("%v", err)
	}
	return s, nil
}

// decodeObs fills the board, ships, commands, phase and the deck and
// shipyard counts from the observation of the player sitting at seat o
// (relative seat i is seat (o+i) mod 4, local cells and facings turn
// back to the global frame). The aliens under a stack's top are ordered
// by a permutation drawn from rng, or by type and facing when rng is nil.
func (s *State) decodeObs(o int, obs []uint8, rng *rand.PCG) error {
	for l := 0; l < Cells; l++ {
		g := Global(o, l)
		if (obs[OffBoard+l] == 1) != onBoard[g] {
			return obsErr("the board plane at %d", l)
		}
		if err := s.decodeStack(o, g, l, obs, rng); err != nil {
			return err
		}
	}
	s.decodeSeatsAndCounters(o, (*[ObsSize]uint8)(obs))
	for i := 0; i < NumSeats; i++ {
		k := (o + i) % NumSeats
		sh := &s.ships[k]
		for l := 0; l < Cells; l++ {
			g := Global(o, l)
			if obs[OffShips+i*plane+l] != 0 {
				sh.cell = int8(g)
			}
			if !InAtmosphere(k, g) {
				continue
			}
			if obs[OffDrones+l] != 0 && sh.model == Gladius {
				sh.drone = int8(g)
			}
			if obs[OffSDS+l] != 0 && sh.model == Phalanx {
				if sh.sds[0] < 0 {
					sh.sds[0] = int8(g)
				} else {
					sh.sds[1] = int8(g)
				}
			}
		}
	}
	return nil
}

// decodeSeatsAndCounters reads what the observation of the player
// sitting at seat o shows besides its planes: each seat's bytes (relative
// seat i is seat (o+i) mod 4: its ship's model, weapon, engine, bonus tile
// and shield, the invaders beside its district, s.cur when it is acting;
// the ship's cell, drone and Shielded Defense System tiles are left at -1
// for the caller, which reads them from the planes), the command symbols
// left and used, the phase (over when none is shown), the district whose
// spill-over is being decided, and the spawn deck and shipyard counts.
func (s *State) decodeSeatsAndCounters(o int, obs *[ObsSize]uint8) {
	for i := 0; i < NumSeats; i++ {
		k := int(uint(o+i) % NumSeats)
		b := (*[seatBytes]uint8)(obs[OffSeats+i*seatBytes:])
		sh := &s.ships[k]
		*sh = ship{weapon: -1, engine: -1, bonus: -1, cell: -1, drone: -1, sds: [2]int8{-1, -1}}
		sh.model = oneHot(b[SeatModel:SeatModel+numModels], 0)
		sh.weapon = oneHot(b[SeatWeapon:SeatWeapon+numWeapons], -1)
		sh.engine = oneHot(b[SeatEngine:SeatEngine+numEngines], -1)
		sh.bonus = oneHot(b[SeatBonus:SeatBonus+numBonusTiles], -1)
		sh.shielded = b[SeatShielded] != 0
		if b[SeatActing] != 0 {
			s.cur = int8(k)
		}
		s.invaders[k] = int8(b[SeatInvaders])
	}
	for f := 0; f < numFaces; f++ {
		s.pool[f] = int8(obs[OffPool+f])
	}
	s.used = int8(obs[OffUsed])
	s.phase = PhaseOver
	for p := PhaseWeapon; p < numPhases; p++ {
		if obs[OffPhase+int(p)] != 0 {
			s.phase = p
		}
	}
	for i := 0; i < NumSeats; i++ {
		if obs[OffSpillSeat+i] != 0 {
			s.spillSrc = int8(uint(o+i) % NumSeats)
		}
	}
	s.deckN, s.yardN = int8(min(obs[OffDeckLeft], maxDeckSize)), int8(min(obs[OffYardLeft], maxBackup))
}

// oneHot returns the index of the first set byte of b, or none.
func oneHot(b []uint8, none int8) int8 {
	for i, v := range b {
		if v != 0 {
			return int8(i)
		}
	}
	return none
}

// decodeStack rebuilds the stack on global cell g (observer's local cell
// l): the top alien where the observation shows it, the others from the
// per-kind counts (a count saturated at 15 absorbs what the height says is
// missing), ordered by rng or, when rng is nil, by kind.
func (s *State) decodeStack(o, g, l int, obs []uint8, rng *rand.PCG) error {
	h := int(obs[OffHeight+l])
	if h == 0 {
		return nil
	}
	if h > maxStack {
		return obsErr("stack of %d at %d", h, l)
	}
	top := -1
	for k := 0; k < 12; k++ {
		if obs[OffTop+k*plane+l] != 0 {
			top = k
			break
		}
	}
	if top < 0 {
		return obsErr("a stack without a top at %d", l)
	}
	var kinds [maxStack]uint8
	n := 0
	for pass := 0; pass < 2 && n < h-1; pass++ {
		for k := 0; k < 12 && n < h-1; k++ {
			cnt := int(obs[OffCount+k*plane+l])
			if k == top {
				cnt--
			}
			if pass == 1 { // saturated counts take the rest
				if cnt+boolInt(k == top) < obsMaxCount {
					continue
				}
				cnt = h - 1
			}
			for ; cnt > 0 && n < h-1; cnt-- {
				kinds[n] = uint8(k)
				n++
			}
		}
	}
	if n != h-1 {
		return obsErr("stack of %d at %d, but the counts show %d", h, l, n+1)
	}
	if rng != nil {
		for i := n - 1; i > 0; i-- {
			hi, _ := bits.Mul64(rng.Uint64(), uint64(i+1))
			kinds[i], kinds[hi] = kinds[hi], kinds[i]
		}
	}
	kinds[n] = uint8(top)
	for i := 0; i <= n; i++ {
		k := int(kinds[i])
		s.st[g][i] = makeAlien(k/4, GlobalDir(o, k%4))
	}
	s.h[g] = uint8(h)
	s.aliens += int16(h)
	return nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// determinizeHidden draws what the observation hides (see Determinize) and
// sets the counters that follow from it.
func (s *State) determinizeHidden(player int, obs []uint8) error {
	var pool [poolCards]int8
	for i := range pool {
		pool[i] = int8(i + 1)
	}
	shuffle(s, pool[:])
	copy(s.deck[:], pool[:s.deckN])
	left := shipDeck
	nLeft := len(left)
	for k := range s.ships {
		i := 0
		for i < nLeft && left[i] != s.ships[k].model {
			i++
		}
		if i == nLeft {
			return obsErr("more %s ships in play than the ship deck holds", modelNames[s.ships[k].model])
		}
		left[i] = left[nLeft-1]
		nLeft--
	}
	if int(s.yardN) > nLeft {
		return obsErr("shipyard of %d, only %d ship cards left", s.yardN, nLeft)
	}
	shuffle(s, left[:nLeft])
	copy(s.yard[:], left[:s.yardN])
	if s.phase <= PhaseEngine && obs[OffSeats+((int(s.cur)-player+NumSeats)%NumSeats)*seatBytes+SeatRefit] == 0 {
		s.started = false // the initial setup, not a refit
	}
	s.turns = int16(obs[OffTurns])
	s.turns3 = s.turns / NumSeats
	if s.cfg.players == 3 {
		// The fourth ship's controller shows in its "played by me" byte.
		mine := obs[OffSeats+((3-player+NumSeats)%NumSeats)*seatBytes+SeatPlayedByMe] != 0
		for i := 0; i < 3 && (int(s.turns3)%3 == player) != mine; i++ {
			s.turns3++
		}
	}
	if s.phase == PhaseSpill {
		if s.spillSrc < 0 {
			return obsErr("a spill-over decision without its district")
		}
		s.spill[s.spillSrc] = obs[OffSpillWaiting]
	}
	if s.phase == PhaseOver {
		switch {
		case s.DistrictsInvaded() < s.cfg.districtsToLose && s.deckN == 0 && (!s.cfg.winOnClear || s.aliens == 0):
			s.outcome = won
		default:
			s.outcome = lost
			s.noShip = s.DistrictsInvaded() < s.cfg.districtsToLose
		}
	}
	return nil
}
