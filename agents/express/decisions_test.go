package express

import (
	"testing"

	"github.com/galaxygym/galaxygym/env"
	ex "github.com/galaxygym/galaxygym/env/express"
)

// decide parses a 4-player position and returns the heuristic's action
// name for the player to act.
func decide(t *testing.T, text string) string {
	t.Helper()
	s, err := ex.ParsePosition(text, ex.DefaultConfig(4))
	if err != nil {
		t.Fatal(err)
	}
	spec, _ := env.Make(ex.ID, nil)
	a, err := New(spec.Spec(), nil)
	if err != nil {
		t.Fatal(err)
	}
	a.Reset(1)
	p := s.CurrentPlayer()
	obs, mask := make([]uint8, ex.ObsSize), make([]uint8, ex.NumActions)
	s.Observe(p, obs)
	s.LegalMask(mask)
	act := a.Act(p, obs, mask)
	if mask[act] != 1 {
		t.Fatalf("illegal action %s", ex.ActionNames()[act])
	}
	return ex.ActionNames()[act]
}

const after = "express hand=0 turns=4 hturns=4 cur=0 phase=meld\ndeck cards=...\n"

// TestHeuristicDecisions: the heuristic's rules of thumb, one position
// each.
func TestHeuristicDecisions(t *testing.T) {
	cases := []struct{ name, pos, want string }{
		{"blocks a Disaster it can", "express cur=0 phase=block\ndeck cards=...\npending kind=BR by=0 on=1 train=0\n" +
			"p0 played=1\np1 played=1 hand=LC\np1.t0 loco=BX cars=AU,AU\np2 played=1\np3 played=1\n", "block"},
		{"wrecks the leader's longest unprotected train", after +
			"p0 played=1 hand=WR\np1 played=1 score=10\np1.t0 loco=BX cars=TK,TK,TK,TK\n" +
			"p2 played=1 score=80 way=HC\np2.t0 loco=BX cars=CN,CN,CN,CN,CN\np2.t1 loco=BX cars=RF,RF,RF\n" +
			"p3 played=1 score=60\np3.t2 loco=BX cars=AU,AU,AU,AU\np3.t3 loco=BX cars=TK,TK\n", "wreck-p3-t2"},
		{"extends a train with the most valuable car", after +
			"p0 played=1 hand=BX,AU,CB\np0.t0 loco=BX cars=BX,BX\np0.t1 loco=BX cars=AU,AU\np1 played=1\np2 played=1\np3 played=1\n",
			"add-t1-AU"},
		{"plays a Way Car", after + "p0 played=1 hand=BM,BX\np1 played=1\np2 played=1\np3 played=1\n", "way-BM"},
		{"never turns this turn's Wild into a transition", after +
			"p0 played=1 hand=TK,TK,DR\np0.t0 loco=BX flags=2 cars=BX,BX,WD?\np1 played=1\np2 played=1\np3 played=1\n",
			"start-DR"},
		{"takes a discard that extends a train", "express phase=draw\ndeck cards=...\ndiscard cards=RF\n" +
			"p0 played=1 hand=BX\np0.t0 loco=BX cars=RF,RF\np1 played=1\np2 played=1\np3 played=1\n", "take-discard"},
		{"draws when the discard is useless", "express phase=draw\ndeck cards=...\ndiscard cards=BX\n" +
			"p0 played=1 hand=BX\np0.t0 loco=BX cars=RF,RF\np1 played=1\np2 played=1\np3 played=1\n", "draw"},
		{"plays a Turntable for the extra turn", after + "p0 played=1 hand=TT,BX\np1 played=1\np2 played=1\np3 played=1\n", "turntable"},
	}
	for _, c := range cases {
		if got := decide(t, c.pos); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}

// TestHeuristicBlockV2: on express-v2 the attacked player is asked even
// without the Way Car (A29); the heuristic blocks when it holds the Light
// Crane and lets the Disaster happen when it does not.
func TestHeuristicBlockV2(t *testing.T) {
	e, _ := env.Make(ex.IDv2, nil)
	a, err := New(e.Spec(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for hand, want := range map[string]string{"LC,BX": "block", "BX,TK": "let-it-happen"} {
		s, err := ex.ParsePosition("express cur=0 phase=block\ndeck cards=...\npending kind=BR by=0 on=1 train=0\n"+
			"p0 played=1\np1 played=1 hand="+hand+"\np1.t0 loco=BX cars=AU,AU\np2 played=1\np3 played=1\n", ex.DefaultConfigV2(4))
		if err != nil {
			t.Fatal(err)
		}
		a.Reset(1)
		obs, mask := make([]uint8, ex.ObsSize), make([]uint8, ex.NumActions)
		s.Observe(1, obs)
		s.LegalMask(mask)
		act := a.Act(1, obs, mask)
		if mask[act] != 1 || ex.ActionNames()[act] != want {
			t.Errorf("hand %s: %s (legal %v), want %s", hand, ex.ActionNames()[act], mask[act] == 1, want)
		}
	}
}
