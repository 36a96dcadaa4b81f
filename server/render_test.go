package server

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"fmt"
	"image"
	"io"
	"strings"
	"testing"

	"github.com/galaxygym/galaxygym/env"
)

func TestRenderRGB(t *testing.T) {
	_, url := startServer(t, Config{})
	c, _ := openSession(t, url, 2, "")
	sendJSON(t, c, map[string]any{"type": "render", "mode": "rgb_array"})
	expectError(t, c, CodeNotReset)
	resetSeeds(t, c, 3, 4)
	sendJSON(t, c, map[string]any{"type": "render", "mode": "rgb_array", "indices": []int{1, 0}})
	m := recvJSON(t, c)
	w, h := int(m["width"].(float64)), int(m["height"].(float64))
	if m["encoding"] != RGBEncoding || w < 100 || h < 100 {
		t.Fatalf("render reply %v", m)
	}
	frames := m["frames"].([]any)
	var pix [2][]byte
	for k, f := range frames {
		z, err := base64.StdEncoding.DecodeString(f.(string))
		if err != nil {
			t.Fatal(err)
		}
		zr, err := zlib.NewReader(bytes.NewReader(z))
		if err != nil {
			t.Fatal(err)
		}
		pix[k], _ = io.ReadAll(zr)
		if len(pix[k]) != w*h*3 {
			t.Fatalf("frame %d: %d bytes, want %d", k, len(pix[k]), w*h*3)
		}
	}
	// The same picture as env.Render of the same position (env 1, seed 4).
	e, _ := env.Make("galaxy-express-v1", nil)
	e.Reset(4)
	img, err := e.Render(nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < w*h; i++ {
		if !bytes.Equal(pix[0][3*i:3*i+3], img.Pix[4*i:4*i+3]) {
			t.Fatalf("pixel %d differs from env.Render", i)
		}
	}
	if bytes.Equal(pix[0], pix[1]) {
		t.Error("two seeds, one picture")
	}
	sendJSON(t, c, map[string]any{"type": "render", "mode": "human"})
	expectError(t, c, CodeBadRequest)
	sendJSON(t, c, map[string]any{"type": "render", "mode": "ansi"})
	if fr := recvJSON(t, c)["frames"].([]any); len(fr) != 2 {
		t.Fatalf("ansi render %v", fr)
	}
}

// TestRenderRGBLimitBeforeDrawing: a rgb_array render over the limit is
// refused with limit_exceeded before any frame is drawn or compressed. Every
// picture's size is known before drawing, and no frame encodes below
// minFrameBytes: a request that cannot fit even so is refused at once,
// and the message names the limit and that floor (so no frame was drawn:
// the count is the floor of all 4,096, not a sum of drawn frames).
func TestRenderRGBLimitBeforeDrawing(t *testing.T) {
	const n, limit = 4096, 1 << 20
	_, url := startServer(t, Config{MaxReplyBytes: limit})
	c, _ := openSession(t, url, n, "")
	seeds := make([]uint64, n)
	for i := range seeds {
		seeds[i] = uint64(i)
	}
	resetSeeds(t, c, seeds...)
	e, _ := env.Make(testEnv, nil)
	e.Reset(1)
	w, h, err := e.RenderSize()
	if err != nil {
		t.Fatal(err)
	}
	floor := n * minFrameBytes(w, h)
	if floor <= limit {
		t.Fatalf("setup: %d frames of %dx%d fit in %d bytes at their smallest (%d)", n, w, h, limit, floor)
	}
	sendJSON(t, c, map[string]any{"type": "render", "mode": "rgb_array"})
	m := expectError(t, c, CodeLimitExceeded)
	msg, _ := m["message"].(string)
	for _, want := range []string{fmt.Sprintf("take at least %d bytes", floor), fmt.Sprint(limit), "max_reply_bytes"} {
		if !strings.Contains(msg, want) {
			t.Fatalf("render error %q lacks %q", msg, want)
		}
	}
	// Fewer environments, whose frames fit at their smallest but not as
	// drawn: refused while drawing, with the limit; and a render that
	// fits is answered on the same session.
	sendJSON(t, c, map[string]any{"type": "render", "mode": "rgb_array", "indices": seq(100)})
	m = expectError(t, c, CodeLimitExceeded)
	if msg, _ := m["message"].(string); !strings.Contains(msg, fmt.Sprint(limit)) || !strings.Contains(msg, "drawn") {
		t.Fatalf("render error %q lacks the limit or the frames drawn", msg)
	}
	sendJSON(t, c, map[string]any{"type": "render", "mode": "rgb_array", "indices": seq(8)})
	if fr, _ := recvJSON(t, c)["frames"].([]any); len(fr) != 8 {
		t.Fatalf("a render of 8 frames within the limit gave %d frames", len(fr))
	}
}

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// TestMinFrameBytes: minFrameBytes is below what the most compressible
// frame (one colour) of each size takes, so the check before drawing
// never refuses a reply that would fit.
func TestMinFrameBytes(t *testing.T) {
	for _, sz := range [][2]int{{1, 1}, {17, 3}, {472, 456}, {600, 628}, {660, 792}, {2000, 2000}} {
		img := image.NewRGBA(image.Rect(0, 0, sz[0], sz[1]))
		if got, floor := len(encodeRGBA(img))+3, minFrameBytes(sz[0], sz[1]); got < floor {
			t.Errorf("%dx%d: a one-colour frame takes %d bytes, under the floor %d", sz[0], sz[1], got, floor)
		}
	}
}
