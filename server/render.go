package server

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"errors"
	"image"

	"github.com/galaxygym/galaxygym/env"
)

// Render modes of the render message.
const (
	// RenderANSI is the text board (env.Env.String), the default.
	RenderANSI = "ansi"
	// RenderRGB is the picture of games implementing env.Renderer.
	RenderRGB = "rgb_array"
	// RGBEncoding names how a rgb_array frame travels in the JSON reply:
	// base64 of the zlib stream (RFC 1950) of the height x width x 3 bytes
	// (rows top to bottom, R G B per pixel), which a Python client decodes
	// with the standard library (zlib, base64) and numpy.
	RGBEncoding = "zlib-rgb24-base64"
)

// encodeRGB renders e and returns the frame in RGBEncoding with its width
// and height. Errors: *env.RenderError.
func encodeRGB(e *env.Env) (string, int, int, error) {
	img, err := e.Render(nil)
	if err != nil {
		return "", 0, 0, err
	}
	return encodeRGBA(img), img.Rect.Dx(), img.Rect.Dy(), nil
}

// encodeRGBA drops the alpha channel and compresses.
func encodeRGBA(img *image.RGBA) string {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	rgb := make([]byte, 0, w*h*3)
	for y := 0; y < h; y++ {
		row := img.Pix[y*img.Stride : y*img.Stride+4*w]
		for x := 0; x < w; x++ {
			rgb = append(rgb, row[4*x], row[4*x+1], row[4*x+2])
		}
	}
	var b bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&b, zlib.BestSpeed)
	_, _ = zw.Write(rgb)
	_ = zw.Close()
	return base64.StdEncoding.EncodeToString(b.Bytes())
}

// minFrameBytes returns the fewest bytes a frame of width x height pixels
// can take in RGBEncoding, with the 3 bytes of JSON around it in a render
// reply (quotes and comma): deflate codes at most 258 bytes with one
// length and one distance code, at least 2 bits, so n raw bytes never
// compress below n/1032 bytes; zlib adds 6 bytes (header and checksum),
// and base64 writes 4 bytes per 3.
func minFrameBytes(width, height int) int {
	z := 6 + (width*height*3+1031)/1032
	return 4*((z+2)/3) + 3
}

// renderRGB answers a rgb_array render of the environments idx (checked
// by indices). The reply's size is bounded before anything is drawn:
// every environment's picture size is known (env.Env.RenderSize), and no
// frame encodes below minFrameBytes, so a request whose frames cannot fit
// in MaxReplyBytes even at their smallest is refused at once with
// CodeLimitExceeded, the limit in the message. While drawing, it stops as
// soon as the frames drawn and the smallest encoding of the rest pass the
// limit. Nothing is refused that would have fit.
func (ss *session) renderRGB(idx []int) bool {
	limit := ss.srv.cfg.MaxReplyBytes
	floor := make([]int, len(idx))
	rest := 0
	var w, h int
	for k, i := range idx {
		fw, fh, err := ss.b.envs[i].RenderSize()
		if err != nil {
			return ss.sendError(renderError(i, err))
		}
		floor[k] = minFrameBytes(fw, fh)
		rest += floor[k]
		w, h = fw, fh
	}
	if rest > limit {
		return ss.sendError(errorf(CodeLimitExceeded,
			"render: %d rgb_array frames of %dx%d pixels take at least %d bytes encoded, over this server's limit of %d bytes a reply (max_reply_bytes); ask for fewer environments",
			len(idx), w, h, rest, limit))
	}
	frames := make([]string, len(idx))
	total := 0
	for k, i := range idx {
		if renderHook != nil {
			renderHook(ss.ctx, k)
		}
		if ss.ctx.Err() != nil { // the client went away, or the session is closing
			return ss.sendError(errorf(CodeCancelled, "render stopped after %d of %d frames: the session is closing", k, len(idx)))
		}
		f, fw, fh, err := encodeRGB(ss.b.envs[i])
		if err != nil {
			return ss.sendError(renderError(i, err))
		}
		total += len(f) + 3
		rest -= floor[k]
		if total+rest > limit {
			return ss.sendError(errorf(CodeLimitExceeded,
				"render: the %d rgb_array frames take at least %d bytes encoded (%d drawn, the other %d at their smallest), over this server's limit of %d bytes a reply (max_reply_bytes); ask for fewer environments",
				len(idx), total+rest, k+1, len(idx)-k-1, limit))
		}
		frames[k], w, h = f, fw, fh
	}
	return ss.writeJSONLimit(map[string]any{"type": MsgRender, "mode": RenderRGB, "width": w, "height": h,
		"encoding": RGBEncoding, "frames": frames}, limit)
}

// renderError maps an error of env.Env.Render or RenderSize for
// environment i to the reply.
func renderError(i int, err error) *Error {
	var re *env.RenderError
	if errors.As(err, &re) && re.Reason == "not reset" {
		return errorf(CodeNotReset, "render: environment %d was never reset", i)
	}
	return errorf(CodeBadRequest, "render: %v", err)
}
