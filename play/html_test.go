package play

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/galaxygym/galaxygym/datasets"
)

// TestWriteReplayHTML checks the self-contained replay file: one frame per
// position, each frame's text the position replayed from the dataset.
func TestWriteReplayHTML(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "fighters")
	generate(t, dir, "galaxy-fighters-v1", []string{"heuristic"}, 2)
	var b bytes.Buffer
	if err := WriteReplayHTML(&b, dir, 0, FaceUp); err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?s)<script type="application/json" id="frames">(.*?)</script>`).FindSubmatch(b.Bytes())
	if m == nil {
		t.Fatal("no frames in the file")
	}
	var frames []Frame
	if err := json.Unmarshal(m[1], &frames); err != nil {
		t.Fatal(err)
	}
	d, err := datasets.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	var length int
	for ep, err := range d.Episodes() {
		if err != nil {
			t.Fatal(err)
		}
		if ep.ID == 0 {
			length = ep.Length
		}
	}
	if len(frames) != length+1 {
		t.Fatalf("%d frames for %d steps", len(frames), length)
	}
	for _, k := range []int{0, length / 2, length} {
		if want := positionText(t, d, k); frames[k].View.Text != want {
			t.Fatalf("frame %d shows\n%s\nwant\n%s", k, frames[k].View.Text, want)
		}
	}
	if bytes.Contains(b.Bytes(), []byte("http://")) || bytes.Contains(b.Bytes(), []byte("src=\"/")) {
		t.Fatal("the file refers to something outside itself")
	}
	if err := WriteReplayHTML(&b, dir, 9, FaceUp); err == nil {
		t.Fatal("episode 9 of 2 written")
	}
}
