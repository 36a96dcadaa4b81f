package env

import (
	"fmt"
	"image"
)

// Renderer is the optional interface of a game's [State] that draws its
// position as a picture: the "rgb_array" render mode of the server and of
// the Python client (Gymnasium's RecordVideo, HumanRendering). The picture
// is drawn in Go, so every client gets the same pixels.
//
// A game implements it on its State type, usually in render.go beside
// notation.go, with the helpers of package env/draw (rectangles, discs,
// polygons, arrows and 7x13 bitmap text over image/draw). Like String, a
// render shows only what is public at the table: it must never depend on
// hidden information (the game's hidden-information test compares renders
// of two states that differ only in hidden information).
type Renderer interface {
	// RenderSize returns the picture's width and height in pixels. It
	// depends only on the environment's parameters, never on the position,
	// so that every frame of an episode (and of a video) has one size.
	RenderSize() (width, height int)
	// Render draws the position into dst, whose bounds are
	// image.Rect(0, 0, width, height); it paints every pixel (the previous
	// frame's content does not show through).
	Render(dst *image.RGBA)
}

// RenderError is returned by [Env.Render] for an environment whose game
// does not implement [Renderer], or before the first reset.
type RenderError struct {
	EnvID  string
	Reason string
}

func (e *RenderError) Error() string { return fmt.Sprintf("env: render %s: %s", e.EnvID, e.Reason) }

// RenderSize returns the width and height in pixels of the picture
// [Env.Render] would draw, without drawing it, with Render's errors.
func (e *Env) RenderSize() (width, height int, err error) {
	if e.state == nil {
		return 0, 0, &RenderError{EnvID: e.spec.ID, Reason: "not reset"}
	}
	r, ok := e.state.(Renderer)
	if !ok {
		return 0, 0, &RenderError{EnvID: e.spec.ID, Reason: "the game has no rgb_array renderer"}
	}
	width, height = r.RenderSize()
	return width, height, nil
}

// Render draws the current position as an RGBA picture (see [Renderer]).
// dst is reused when it has the picture's size, else a new image is
// allocated; the picture is returned. Errors: *RenderError when the game
// has no renderer or the environment was never reset.
func (e *Env) Render(dst *image.RGBA) (*image.RGBA, error) {
	if e.state == nil {
		return nil, &RenderError{EnvID: e.spec.ID, Reason: "not reset"}
	}
	r, ok := e.state.(Renderer)
	if !ok {
		return nil, &RenderError{EnvID: e.spec.ID, Reason: "the game has no rgb_array renderer"}
	}
	w, h := r.RenderSize()
	if dst == nil || dst.Rect != image.Rect(0, 0, w, h) {
		dst = image.NewRGBA(image.Rect(0, 0, w, h))
	}
	r.Render(dst)
	return dst, nil
}
