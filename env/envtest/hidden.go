package envtest

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/galaxygym/galaxygym/env"
)

// checkHiddenSpec checks the declaration of a game that is an
// [env.HiddenObserver]: the layout tiles a non-empty hidden part, the
// bounds cover it and respect the codes' classes, and the Env refuses
// wrong buffers and seats.
func checkHiddenSpec(t *testing.T, e *env.Env) {
	t.Helper()
	layout, high := e.HiddenLayout()
	if layout == nil {
		if err := e.ObserveHidden(0, nil); !errors.Is(err, env.ErrNoHidden) {
			t.Errorf("ObserveHidden of a game without a hidden part: err = %v, want env.ErrNoHidden", err)
		}
		return
	}
	n := e.HiddenSize()
	if n < 1 {
		t.Fatalf("the hidden layout holds no bytes")
	}
	if err := layout.Check(n); err != nil {
		t.Errorf("hidden layout: %v", err)
	}
	if len(high) != n {
		t.Fatalf("len(HiddenHigh) = %d, want the layout's %d bytes", len(high), n)
	}
	for _, f := range layout {
		for i := f.Offset; f.Classes != 0 && i < f.End(); i++ {
			if int(high[i]) >= f.Classes {
				t.Errorf("hidden field %q holds codes of %d classes, but HiddenHigh[%d] = %d", f.Name, f.Classes, i, high[i])
			}
		}
	}
	var se *env.ShapeError
	if err := e.ObserveHidden(0, make([]uint8, n+1)); !errors.As(err, &se) {
		t.Errorf("ObserveHidden with a wrong-sized buffer: err = %v, want *env.ShapeError", err)
	}
	var pe *env.PlayerError
	if err := e.ObserveHidden(e.Spec().NumPlayers, make([]uint8, n)); !errors.As(err, &pe) {
		t.Errorf("ObserveHidden(player %d): err = %v, want *env.PlayerError", e.Spec().NumPlayers, err)
	}
}

// hiddenAll returns every player's hidden part, concatenated ("" for a
// game without one), after checking that ObserveHidden writes every byte,
// is deterministic and respects HiddenHigh.
func (p *playout) hiddenAll(e *env.Env) string {
	p.t.Helper()
	if p.hiddenN == 0 {
		return ""
	}
	buf := make([]byte, p.hiddenN)
	out := make([]byte, 0, p.hiddenN*p.spec.NumPlayers)
	for pl := 0; pl < p.spec.NumPlayers; pl++ {
		for i := range buf {
			buf[i] = 0xA5
		}
		if err := e.ObserveHidden(pl, buf); err != nil {
			p.t.Fatalf("ObserveHidden(%d): %v", pl, err)
		}
		first := bytes.Clone(buf)
		for i := range buf {
			buf[i] = 0x5A
		}
		if err := e.ObserveHidden(pl, buf); err != nil {
			p.t.Fatalf("ObserveHidden(%d): %v", pl, err)
		}
		if !bytes.Equal(first, buf) {
			p.t.Fatalf("ObserveHidden(%d) leaves bytes of the buffer unwritten (or is not deterministic)", pl)
		}
		for i, v := range buf {
			if v > p.hiddenHigh[i] {
				p.t.Fatalf("hidden part of player %d: byte %d (%s) = %d > HiddenHigh %d", pl, i,
					fieldAt(p.hiddenLayout, i), v, p.hiddenHigh[i])
			}
		}
		out = append(out, buf...)
	}
	return string(out)
}

// fieldAt names the layout field holding byte i.
func fieldAt(l env.ObsLayout, i int) string {
	for _, f := range l {
		if i >= f.Offset && i < f.End() {
			return fmt.Sprintf("field %q", f.Name)
		}
	}
	return "no field"
}

// checkHiddenTwin is the information-set test's check of the hidden part
// (a game that is an env.HiddenObserver): when the true position a and
// the twin b drawn from observer o's observation give o the same hidden
// part, o's observation and hidden part together are the whole position
// as far as anyone sees it, so every seat must observe the same bytes in
// both. It reports whether the hidden parts differed.
func (it *infoSet) checkHiddenTwin(a, b env.State, o int, where func() string) bool {
	ha, ok := a.(env.HiddenState)
	if !ok {
		return false
	}
	hb := b.(env.HiddenState)
	ba, bb := make([]byte, it.hiddenN), make([]byte, it.hiddenN)
	ha.ObserveHidden(o, ba)
	hb.ObserveHidden(o, bb)
	if !bytes.Equal(ba, bb) {
		return true
	}
	oa, ob := make([]byte, it.spec.ObsSize()), make([]byte, it.spec.ObsSize())
	for q := 0; q < it.spec.NumPlayers; q++ {
		a.Observe(q, oa)
		b.Observe(q, ob)
		if !bytes.Equal(oa, ob) {
			it.t.Fatalf("player %d's hidden part is the same for the position and its twin, but player %d observes "+
				"them differently: the hidden part leaves out something player %d sees (%s)\n%s", o, q, q,
				firstDiff(oa, ob), where())
		}
	}
	return false
}
