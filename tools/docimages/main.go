// Command docimages draws the pictures of the README's table of games:
// for each game, one seeded episode played by the game's heuristic for a
// few decisions, then the rgb_array renderer's picture of that position
// (the picture the server sends to Python's render_mode="rgb_array").
//
//	go run ./tools/docimages --out docs/img
//
// writes docs/img/<env id>.png for each environment in the list below. The
// pictures are deterministic (seeded environment and agent), so running it
// again changes nothing unless a renderer or a game changed.
package main

import (
	"flag"
	"fmt"
	"image/png"
	"log"
	"os"
	"path/filepath"

	"github.com/galaxygym/galaxygym/agents"
	_ "github.com/galaxygym/galaxygym/agents/all"
	"github.com/galaxygym/galaxygym/env"
	_ "github.com/galaxygym/galaxygym/env/all"
)

// picture is one README picture: the environment, its parameters, the
// episode's seed and how many decisions the heuristic plays before the
// picture is taken.
type picture struct {
	id     string
	params env.Params
	seed   uint64
	steps  int
}

var pictures = []picture{
	{id: "galaxy-express-v1", seed: 1, steps: 12},
	{id: "galaxy-fighters-v2", seed: 1, steps: 10},
	{id: "express-v2", params: env.Params{"players": 4}, seed: 1, steps: 40},
	{id: "pilots-of-gallaxia-v2", params: env.Params{"players": 4}, seed: 1, steps: 60},
}

func main() {
	out := flag.String("out", "docs/img", "directory for the <env id>.png pictures")
	flag.Parse()
	log.SetFlags(0)
	for _, p := range pictures {
		path := filepath.Join(*out, p.id+".png")
		if err := draw(p, path); err != nil {
			log.Fatalf("docimages: %s: %v", p.id, err)
		}
		fmt.Println(path)
	}
}

// draw plays p's episode and writes its picture to path.
func draw(p picture, path string) error {
	e, err := env.Make(p.id, p.params)
	if err != nil {
		return err
	}
	spec := e.Spec()
	a, err := agents.New("heuristic", spec, nil)
	if err != nil {
		return err
	}
	e.Reset(p.seed)
	a.Reset(p.seed)
	obs := make([]uint8, spec.ObsSize())
	mask := make([]uint8, spec.NumActions())
	for i := 0; i < p.steps && !e.Done(); i++ {
		pl := e.CurrentPlayer()
		if err := e.Observe(pl, obs); err != nil {
			return err
		}
		if err := e.LegalMask(mask); err != nil {
			return err
		}
		if _, err := e.Step(a.Act(pl, obs, mask)); err != nil {
			return err
		}
	}
	img, err := e.Render(nil)
	if err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
