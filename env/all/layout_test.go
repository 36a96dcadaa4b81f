package all_test

import (
	"encoding/json"
	"testing"

	"github.com/galaxygym/galaxygym/env"
)

// withLayout lists the games whose spec must carry an observation layout.
var withLayout = []string{"galaxy-express-v1", "galaxy-fighters-v1", "galaxy-fighters-v2", "express-v1", "express-v2",
	"pilots-of-gallaxia-v1", "pilots-of-gallaxia-v2"}

// TestObservationLayouts: every layout a registered spec declares tiles its
// observation (fields in offset order, no gap, no overlap, within ObsSize),
// the games of withLayout declare one, and the spec's JSON carries it as
// observation_layout: name -> {offset, shape, dtype, meaning}.
func TestObservationLayouts(t *testing.T) {
	for _, id := range withLayout {
		g, err := env.Lookup(id)
		if err != nil {
			t.Fatal(err)
		}
		if g.Spec().ObservationLayout == nil {
			t.Errorf("%s: no observation layout", id)
		}
	}
	for _, id := range env.IDs() {
		g, _ := env.Lookup(id)
		s := g.Spec()
		if s.ObservationLayout == nil {
			continue
		}
		if err := s.ObservationLayout.Check(s.ObsSize()); err != nil {
			t.Errorf("%s: %v", id, err)
			continue
		}
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		var wire struct {
			Layout map[string]struct {
				Offset  int    `json:"offset"`
				Shape   []int  `json:"shape"`
				DType   string `json:"dtype"`
				Meaning string `json:"meaning"`
			} `json:"observation_layout"`
		}
		if err := json.Unmarshal(b, &wire); err != nil {
			t.Fatal(err)
		}
		if len(wire.Layout) != len(s.ObservationLayout) {
			t.Fatalf("%s: %d fields in JSON, %d in the spec", id, len(wire.Layout), len(s.ObservationLayout))
		}
		for _, f := range s.ObservationLayout {
			w, ok := wire.Layout[f.Name]
			if !ok || w.Offset != f.Offset || len(w.Shape) != len(f.Shape) || w.DType != "uint8" || w.Meaning == "" {
				t.Errorf("%s: field %q reads back from JSON as %+v", id, f.Name, w)
			}
		}
		if len(s.ObsHigh) != s.ObsSize() {
			t.Errorf("%s: ObsHigh has %d bytes, ObsSize %d", id, len(s.ObsHigh), s.ObsSize())
		}
	}
}
