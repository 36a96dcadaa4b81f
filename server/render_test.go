package server

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"io"
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
