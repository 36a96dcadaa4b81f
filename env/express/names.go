package express

import "fmt"

// ActionName implements env.ActionNamer: the name of action in this
// position for a person reading the game. express-v1 returns
// actionNames[action] (its seat-relative name, unchanged). express-v2
// (A31) adds, in parentheses, what the action does with the players named
// by absolute seat, as the renders name them: "broken-p1-t0 (Broken Car on
// player 2's train t0)" when player 1 is to act. The action space stays
// seat-relative (offset r is the r-th seat clockwise from the player to
// act). Out of range actions give "".
func (s *State) ActionName(action int) string {
	if action < 0 || action >= NumActions {
		return ""
	}
	name := actionNames[action]
	if !s.cfg.v2 || s.phase == PhaseOver {
		return name
	}
	a := s.CurrentPlayer()
	if what := s.describe(a, action); what != "" {
		return name + " (" + what + ")"
	}
	return name
}

// describe says what action does when player a plays it, with absolute
// seats; "" for an action that involves no other player.
func (s *State) describe(a, action int) string {
	player := func(r int) string {
		q := s.seat(a, r)
		if q == a {
			return fmt.Sprintf("player %d's own", q)
		}
		return fmt.Sprintf("player %d's", q)
	}
	switch {
	case action >= ActHit && action < ActDerail:
		h, r, t := (action-ActHit)/36, (action-ActHit)%36/6, (action-ActHit)%6
		switch hitKinds[h] {
		case BrokenCar:
			return fmt.Sprintf("Broken Car on %s train t%d", player(r), t)
		case StealCar:
			return fmt.Sprintf("Steal Car from %s train t%d", player(r), t)
		}
		return fmt.Sprintf("Wreck on %s train t%d", player(r), t)
	case action >= ActDerail && action < ActSwitch:
		q := s.seat(a, action-ActDerail)
		if q == a {
			return fmt.Sprintf("Derailment on player %d (self)", q)
		}
		return fmt.Sprintf("Derailment on player %d", q)
	case action >= ActSwitch && action < ActTurntable:
		x := action - ActSwitch
		return fmt.Sprintf("Switch Engines: %s train t%d with player %d's own train t%d", player(x/36), x%36/6, a, x%6)
	case action == ActBlock || action == ActLet:
		if s.pend.kind < 0 {
			return ""
		}
		d := int(s.pend.kind)
		if action == ActBlock {
			return fmt.Sprintf("player %d blocks player %d's %s with a %s", a, s.pend.by,
				kinds[BrokenCar+d].Name, kinds[LightCrane+d].Name)
		}
		return fmt.Sprintf("player %d lets player %d's %s happen", a, s.pend.by, kinds[BrokenCar+d].Name)
	}
	return ""
}

// pendTarget names the trains of the pending Disaster for the renders on
// express-v2 (A31): "'s train t1", "'s train t1 and player 0's train t2"
// for Switch Engines; "" for a Derailment and on express-v1 (whose renders
// are unchanged).
func (s *State) pendTarget() string {
	if !s.cfg.v2 || s.pend.train < 0 {
		return ""
	}
	t := fmt.Sprintf("'s train t%d", s.pend.train)
	if s.pend.own >= 0 {
		t += fmt.Sprintf(" for player %d's train t%d", s.pend.by, s.pend.own)
	}
	return t
}
