package server

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
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
