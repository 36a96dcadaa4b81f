package datasets

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

// FuzzWriterReader writes a few episodes of arbitrary rows (shapes, player
// counts, row-group and page sizes, both obs encodings) through the part
// writer and reads them back with the package's parquet-go reader.
func FuzzWriterReader(f *testing.F) {
	f.Add([]byte{0, 2, 5, 3, 7, 3, 0, 1, 9, 0, 40})
	f.Add([]byte{1, 39, 19, 4, 63, 15, 1, 2, 3, 4, 5, 6})
	f.Add([]byte{2, 8, 56, 2, 1, 1, 0, 200, 0, 0})
	f.Add(bytes.Repeat([]byte{255}, 32))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 8 {
			return
		}
		numPlayers := 1 + int(data[0]%3)
		obsSize := 1 + int(data[1]%64)
		numActions := 1 + int(data[2]%80) // wider than any game so far
		episodes := 1 + int(data[3]%4)
		groupRows := 1 + int(data[4]%64)
		pageRows := 1 + int(data[5]%16)
		enc := ObsSplit
		if data[6]&1 == 1 {
			enc = ObsPlain
		}
		rng := rand.New(rand.NewPCG(uint64(data[7]), uint64(len(data))))
		lengths := data[8:]

		dir := t.TempDir()
		for _, sub := range []string{StepsDir, EpisodesDir} {
			os.MkdirAll(filepath.Join(dir, sub), 0o755)
		}
		meta := &runMeta{datasetID: "fuzz", envID: "fuzz-v1", envVersion: "1", envParams: "{}",
			numPlayers: numPlayers, obsShape: "[" + strconv.Itoa(obsSize) + "]", obsSize: obsSize,
			numActions: numActions, actionNames: "[]", agent: "fuzz", agentOptions: "{}",
			seed: 1, episodesPerPart: episodes, obsEncoding: enc}
		pw, err := newPartWriter(osFS{}, dir, 0, 0, int64(episodes), meta, newZstdEncoder(ZstdDefault), nil)
		if err != nil {
			t.Fatal(err)
		}
		pw.steps.groupRows = groupRows
		pw.steps.obsPageRows = min(pageRows, pw.steps.obsPageRows)

		rewardValues := []float64{0, 1, -1, 20, -10, 0.5, 1e30, -1e-30}
		var want []Step
		var wantEps []episodeRow
		obs := make([]byte, obsSize)
		for ep := range episodes {
			n := 0
			if ep < len(lengths) {
				n = int(lengths[ep] % 50)
			}
			returns := make([]float64, numPlayers)
			for step := 0; step <= n; step++ {
				final := step == n
				// Mostly small changes from the previous observation.
				for k := range 1 + rng.IntN(3) {
					obs[(k*7+rng.IntN(obsSize))%obsSize] = byte(rng.IntN(4))
				}
				mask := make([]byte, numActions)
				for i := range mask {
					mask[i] = byte(rng.IntN(2))
				}
				if rng.IntN(16) == 0 {
					mask[rng.IntN(numActions)] = byte(rng.IntN(256)) // any byte survives the dictionary
				}
				s := Step{EpisodeID: int64(ep), Step: step, Player: rng.IntN(numPlayers), Obs: bytes.Clone(obs),
					ActionMask: mask, Action: rng.IntN(numActions+1) - 1,
					Terminated: rng.IntN(8) == 0, Truncated: rng.IntN(8) == 0}
				var rewards []float64
				if final {
					s.ActionMask = make([]byte, numActions)
					s.Action, s.Terminated, s.Truncated = -1, false, false
					s.Rewards = make([]float32, numPlayers)
				} else {
					for p := range numPlayers {
						r := rewardValues[rng.IntN(len(rewardValues))]
						rewards = append(rewards, r)
						returns[p] += float64(float32(r))
						s.Rewards = append(s.Rewards, float32(r))
					}
					s.Reward = s.Rewards[s.Player]
				}
				copy(pw.steps.obsSlot(), s.Obs)
				copy(pw.steps.maskSlot(), s.ActionMask)
				if err := pw.steps.commit(s.EpisodeID, int32(s.Step), int32(s.Player), int32(s.Action),
					rewards, s.Terminated, s.Truncated); err != nil {
					t.Fatal(err)
				}
				want = append(want, s)
			}
			row := episodeRow{EpisodeID: int64(ep), Seed: int64(rng.Uint64()), Agent: "fuzz", Length: int32(n),
				Returns: returns, Outcome: []string{"win", "loss", "truncated"}[rng.IntN(3)], Info: `{"x":1}`}
			wantEps = append(wantEps, row)
			if err := pw.endEpisode(row); err != nil {
				t.Fatal(err)
			}
		}
		pr, err := pw.finish()
		if err != nil {
			t.Fatal(err)
		}
		if pr.info.Steps.Rows != int64(len(want)) {
			t.Fatalf("finish: %d rows, wrote %d", pr.info.Steps.Rows, len(want))
		}

		path := filepath.Join(dir, StepsDir, partName(0))
		i := 0
		for s, err := range ReadStepsFile(path) {
			if err != nil {
				t.Fatal(err)
			}
			if i >= len(want) || !equalStep(s, &want[i]) {
				t.Fatalf("row %d: read %+v, wrote %+v", i, s, want[min(i, len(want)-1)])
			}
			i++
		}
		if i != len(want) {
			t.Fatalf("read %d rows, wrote %d", i, len(want))
		}
		kv, n, err := ReadFooter(path)
		if err != nil || n != int64(len(want)) || kv[KeyNumRows] != strconv.Itoa(len(want)) || kv[KeyObsShape] != meta.obsShape {
			t.Fatalf("footer: %v rows %d err %v", kv, n, err)
		}
		j := 0
		err = readEpisodesFile(osFS{}, filepath.Join(dir, EpisodesDir, partName(0)), func(r *episodeRow) error {
			w := wantEps[j]
			if r.EpisodeID != w.EpisodeID || r.Seed != w.Seed || r.Length != w.Length || r.Outcome != w.Outcome ||
				r.Info != w.Info || r.Agent != w.Agent || !slices.Equal(r.Returns, w.Returns) {
				t.Fatalf("episode %d: read %+v, wrote %+v", j, r, w)
			}
			j++
			return nil
		})
		if err != nil || j != len(wantEps) {
			t.Fatalf("episodes: read %d of %d: %v", j, len(wantEps), err)
		}
	})
}
