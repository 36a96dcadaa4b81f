package env_test

import (
	"encoding/json"
	"testing"

	"github.com/galaxygym/galaxygym/env"
	_ "github.com/galaxygym/galaxygym/env/envtest" // the shared -update flag
)

func TestBoundsJSON(t *testing.T) {
	b := env.Bounds{1, 0, 255, 6}
	data, err := json.Marshal(b)
	if err != nil || string(data) != "[1,0,255,6]" {
		t.Fatalf("Marshal = %s, %v; want [1,0,255,6]", data, err)
	}
	var back env.Bounds
	if err := json.Unmarshal(data, &back); err != nil || string(back) != string(b) {
		t.Fatalf("round trip = %v, %v; want %v", back, err, b)
	}
	for _, bad := range []string{`[256]`, `[-1]`, `"AQID"`, `[1.5]`} {
		if err := json.Unmarshal([]byte(bad), &back); err == nil {
			t.Errorf("Unmarshal(%s) accepted", bad)
		}
	}
}
