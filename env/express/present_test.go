package express

import (
	"encoding/json"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/galaxygym/galaxygym/env"
	"github.com/galaxygym/galaxygym/env/envtest"
)

// sceneOf returns player's scene of s under express-v2 with params (the
// legal actions only when player is to act), checked by env.CheckScene.
func sceneOf(t *testing.T, s *State, player int, params map[string]any) *env.Scene {
	return envtest.PresentAs(t, IDv2, params, s, player)
}

// TestPresent reads scenes as a player sees the table: his own hand by
// name, the others' hands face down with their size, his locomotives face
// up and the others' face down, moves that click a hand card onto a train,
// and how the game ended.
func TestPresent(t *testing.T) {
	const table = `express hand=0 turns=4 hturns=4 cur=0 phase=meld
deck cards=...
discard cards=TK,CN
p0 played=1 hand=WD,TK,BR,LC
p0.t0 loco=BX cars=TK,TK
p1 played=1 known=AU hand=AU,BX,BX
p1.t2 loco=SL cars=CO,DM
p2 played=1 hand=OF
`
	s := posV2(t, 3, table)
	me := sceneOf(t, s, 0, map[string]any{"players": 3})
	other := sceneOf(t, s, 1, map[string]any{"players": 3})

	t.Run("the observer's hand: face up, by name, private", func(t *testing.T) {
		h := envtest.Zone(me, "hand-0")
		if got := envtest.CardNames(h); got != "Tank Car, Wild Car, Broken Car, Light Crane" || !h.Private {
			t.Fatalf("player 0's own hand: %q private %v", got, h.Private)
		}
	})
	t.Run("another's hand: face down with its size, the known card a public fact", func(t *testing.T) {
		h := envtest.Zone(me, "hand-1")
		if h == nil || h.Private || len(h.Cards) != 0 || h.Count != 3 {
			t.Fatalf("player 1's hand in player 0's scene: %+v", h)
		}
		if !slices.Contains(me.Seats[1].Facts, "known in hand: Auto Carrier") {
			t.Fatalf("player 1's facts: %v", me.Seats[1].Facts)
		}
		if h := envtest.Zone(other, "hand-0"); h == nil || h.Count != 4 || len(h.Cards) != 0 {
			t.Fatalf("player 0's hand in player 1's scene: %+v", h)
		}
	})
	t.Run("locomotives: the owner's face up, the others' face down; the same ids in every scene", func(t *testing.T) {
		mine, theirs := envtest.Zone(me, "train-0-0"), envtest.Zone(other, "train-0-0")
		if mine.Cards[0].Name != "locomotive: Box Car" || !mine.Cards[0].Private || theirs.Cards[0] != env.FaceDown(mine.Cards[0].ID) {
			t.Fatalf("train t0: own %+v, seen by player 1 %+v", mine.Cards[0], theirs.Cards[0])
		}
		if got := envtest.CardNames(envtest.Zone(me, "train-1-2")); got != ", Coach, Dome" {
			t.Fatalf("player 1's passenger train seen by player 0: %q", got)
		}
	})
	t.Run("the public part is the same in both scenes: no locomotive, no new train, no hand", func(t *testing.T) {
		a, _ := json.Marshal(env.PublicScene(me))
		b, _ := json.Marshal(env.PublicScene(other))
		if string(a) != string(b) {
			t.Fatalf("public parts differ:\n%s\n%s", a, b)
		}
		for _, leak := range []string{"Box Car", "new train", "Light Crane"} {
			if strings.Contains(string(a), leak) {
				t.Fatalf("the public part shows %q: %s", leak, a)
			}
		}
	})
	t.Run("the discard pile shows its top last", func(t *testing.T) {
		d := envtest.Zone(me, "discard-pile")
		if got := envtest.CardNames(d); got != "Tank Car, Container Car" || d.Cards[1].ID != "discard-1" {
			t.Fatalf("discard pile: %q %+v", got, d.Cards)
		}
	})
	t.Run("moves: click the hand card, then the train", func(t *testing.T) {
		add := envtest.Move(me, "add-t0-TK")
		if add == nil || add.Words != "add Tank Car to train t0" || !slices.Equal(add.Select, []string{"hand-0-TK-0"}) ||
			!slices.Equal(add.Target, []string{"train-0-0"}) {
			t.Fatalf("add-t0-TK: %+v", add)
		}
		start := envtest.Move(me, "start-BR")
		if start == nil || !slices.Equal(start.Target, []string{"train-0-1"}) || envtest.Zone(me, "train-0-1").Name != "player 0's new train" ||
			!envtest.Zone(me, "train-0-1").ObserverOnly {
			t.Fatalf("start-BR: %+v", start)
		}
		hit := envtest.Move(me, "broken-p1-t2")
		if hit == nil || hit.Words != "play Broken Car on player 1's train t2" || !slices.Equal(hit.Target, []string{"train-1-2"}) {
			t.Fatalf("broken-p1-t2: %+v", hit)
		}
		if len(other.Moves) != 0 {
			t.Fatalf("player 1 is not to act and has moves: %+v", other.Moves)
		}
	})
	t.Run("a draw has nothing to point at: a button", func(t *testing.T) {
		s := posV2(t, 3, "express hand=0 turns=4 hturns=4 cur=1 phase=draw\ndeck cards=...\ndiscard cards=CN\np0 played=1 hand=BX\np1 played=1 hand=TK\np2 played=1\n")
		sc := sceneOf(t, s, 1, map[string]any{"players": 3})
		draw, take := envtest.Move(sc, "draw"), envtest.Move(sc, "take-discard")
		if draw.Words != "draw two cards" || draw.Select != nil || draw.Target != nil {
			t.Fatalf("draw: %+v", draw)
		}
		if take.Words != "take the top discard (Container Car)" || !slices.Equal(take.Select, []string{"discard-0"}) {
			t.Fatalf("take-discard: %+v", take)
		}
		if !strings.Contains(sc.Status, "player 1 draws") || sc.Ended != "" {
			t.Fatalf("status %q ended %q", sc.Status, sc.Ended)
		}
	})
	t.Run("the end: who won with what, and why the game ended", func(t *testing.T) {
		s := posV2(t, 3, "express hand=3 turns=40 hturns=0 cur=0 phase=over\ndeck cards=...\np0 score=75\np1 score=159\np2 score=80\n")
		sc := sceneOf(t, s, 0, map[string]any{"players": 3})
		want := "the game is over after 3 hands (a total reached the target, 120): player 1 wins with 159 points"
		if sc.Ended != want || sc.Seats[0].Score != "75 points" || sc.Status != "" {
			t.Fatalf("ended %q (want %q), player 0's score %q", sc.Ended, want, sc.Seats[0].Score)
		}
	})
}

// TestPresentInformationSet: two positions that differ only in what a
// player cannot see (other hands, locomotives, the draw pile, the
// generator: perturb) give that player byte-identical scenes, at every
// position of random games.
func TestPresentInformationSet(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	positions, differ := 0, 0
	for _, players := range []int{2, 4} {
		params := map[string]any{"players": players}
		visitRandomCfg(t, DefaultConfigV2(players), 1, func(s *State) {
			p := positions % players
			c := perturb(s, p, rng)
			a, _ := json.Marshal(sceneOf(t, s, p, params))
			b, _ := json.Marshal(sceneOf(t, c, p, params))
			if string(a) != string(b) {
				t.Fatalf("player %d's scene changed with hidden information:\n%s\n%s", p, a, b)
			}
			positions++
			if s.Position() != c.Position() {
				differ++
			}
		})
	}
	if differ < positions/2 {
		t.Fatalf("only %d of %d twins differ", differ, positions)
	}
}
