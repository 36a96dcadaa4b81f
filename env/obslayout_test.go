package env_test

import (
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/galaxygym/galaxygym/env"
)

func TestObsLayoutCheck(t *testing.T) {
	good := env.ObsLayout{
		env.Field("a", 0, []int{2, 3}, "six bytes"),
		env.Field("b", 6, []int{1}, "one byte"),
	}
	if err := good.Check(7); err != nil {
		t.Fatalf("Check(7) = %v", err)
	}
	for name, c := range map[string]struct {
		l    env.ObsLayout
		size int
	}{
		"short":       {good, 8},
		"past end":    {good, 6},
		"gap":         {env.ObsLayout{env.Field("a", 0, []int{2}, ""), env.Field("b", 3, []int{1}, "")}, 4},
		"overlap":     {env.ObsLayout{env.Field("a", 0, []int{2}, ""), env.Field("b", 1, []int{1}, "")}, 2},
		"same name":   {env.ObsLayout{env.Field("a", 0, []int{1}, ""), env.Field("a", 1, []int{1}, "")}, 2},
		"no name":     {env.ObsLayout{env.Field("", 0, []int{1}, "")}, 1},
		"empty":       {env.ObsLayout{env.Field("a", 0, []int{0}, "")}, 0},
		"dtype":       {env.ObsLayout{{Name: "a", Offset: 0, Shape: []int{1}, DType: "int16"}}, 1},
		"one class":   {env.ObsLayout{env.CodeField("a", 0, []int{1}, 1, "")}, 1},
		"257 classes": {env.ObsLayout{env.CodeField("a", 0, []int{1}, 257, "")}, 1},
	} {
		err := c.l.Check(c.size)
		var le *env.ObsLayoutError
		if !errors.As(err, &le) {
			t.Errorf("%s: Check = %v, want an *env.ObsLayoutError", name, err)
		}
	}
}

func TestObsLayoutJSON(t *testing.T) {
	l := env.ObsLayout{
		env.Field("zeta", 0, []int{2, 3}, "six bytes"),
		env.CodeField("alpha", 6, []int{1}, 5, "one byte, a code"),
	}
	b, err := json.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"zeta":{"offset":0,"shape":[2,3],"dtype":"uint8","meaning":"six bytes"},"alpha":{"offset":6,"shape":[1],"dtype":"uint8","meaning":"one byte, a code","classes":5}}`
	if string(b) != want {
		t.Fatalf("JSON %s, want %s (offset order)", b, want)
	}
	var back env.ObsLayout
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if len(back) != 2 || back[0].Name != "zeta" || back[1].Name != "alpha" || back[1].Classes != 5 || back[0].Classes != 0 || !slices.Equal(back[0].Shape, []int{2, 3}) {
		t.Fatalf("read back %+v", back)
	}
	c := l.Clone()
	c[0].Shape[0] = 9
	if l[0].Shape[0] != 2 {
		t.Fatal("Clone shares shapes")
	}
	if l.Offset("alpha") != 6 {
		t.Fatal("Offset(alpha)")
	}
}
