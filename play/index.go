package play

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/galaxygym/galaxygym/datasets"
)

// datasetIndex is every served dataset, read once: the folders given with
// --datasets are read when the handler starts, the record folder too, and
// each game recorded afterwards is added as it is written. hello sends the
// list as it was last encoded; episodes and replay requests look the name
// up here and read only the dataset they name. A page names a dataset,
// never a path: only these folders are ever opened.
type datasetIndex struct {
	mu      sync.Mutex
	entries map[string]*indexed
	list    json.RawMessage // the encoded list, sorted by name; nil when it must be encoded again
}

// indexed is one served dataset.
type indexed struct {
	dir  string
	m    *datasets.Manifest // nil when unreadable (info.Reason says why)
	info datasetInfo
}

// buildIndex reads every served dataset: a folder given with --datasets
// (or the record folder) that holds manifest.json is named by its base
// name, and each of its subfolders that holds one by base/sub (hidden
// ones, such as recordings being written, are skipped). It also removes
// recordings left half-written under RecordDir and counts its bytes.
func (h *Handler) buildIndex() *datasetIndex {
	ix := &datasetIndex{entries: map[string]*indexed{}}
	roots := append([]string(nil), h.cfg.Datasets...)
	if rd := h.cfg.RecordDir; rd != "" {
		roots = append(roots, rd)
		if tmp, err := filepath.Glob(filepath.Join(rd, tmpPrefix+"*")); err == nil {
			for _, d := range tmp {
				os.RemoveAll(d)
			}
		}
		h.budget.recSize = dirSize(rd)
	}
	for _, root := range roots {
		base := filepath.Base(filepath.Clean(root))
		if isDataset(root) {
			ix.add(base, root)
			continue
		}
		entries, err := os.ReadDir(root)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if e.IsDir() && !strings.HasPrefix(e.Name(), ".") && isDataset(filepath.Join(root, e.Name())) {
				ix.add(base+"/"+e.Name(), filepath.Join(root, e.Name()))
			}
		}
	}
	return ix
}

// add reads the dataset in dir and serves it as name (name~2, ~3... when
// taken); it returns the name given.
func (ix *datasetIndex) add(name, dir string) string {
	in := datasetInfo{}
	m, err := datasets.ReadManifest(dir)
	if err != nil {
		in.Reason = err.Error()
		m = nil
	} else {
		in.Env, in.Episodes, in.Seats = m.EnvID, m.TotalEpisodes, seatsOf(m)
		if err := replayable(m); err != nil {
			in.Reason = err.Error()
		} else {
			in.Replayable = true
		}
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	base := name
	for i := 2; ; i++ {
		if _, dup := ix.entries[name]; !dup {
			break
		}
		name = fmt.Sprintf("%s~%d", base, i)
	}
	in.Name = name
	ix.entries[name] = &indexed{dir: dir, m: m, info: in}
	ix.list = nil
	return name
}

// encoded returns the list of served datasets as hello sends it.
func (ix *datasetIndex) encoded() json.RawMessage {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.list == nil {
		out := make([]datasetInfo, 0, len(ix.entries))
		for _, e := range ix.entries {
			out = append(out, e.info)
		}
		sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
		ix.list = mustJSON(out)
	}
	return ix.list
}

func isDataset(dir string) bool {
	fi, err := os.Stat(filepath.Join(dir, datasets.ManifestFile))
	return err == nil && fi.Mode().IsRegular()
}

// datasetList is the served datasets, encoded (hello's datasets).
func (h *Handler) datasetList() json.RawMessage { return h.index.encoded() }

// openDataset returns the manifest and folder of the dataset the page
// names; errors are *RequestError (unknown_dataset, bad_dataset).
func (h *Handler) openDataset(name string) (*datasets.Manifest, string, error) {
	h.index.mu.Lock()
	e, ok := h.index.entries[name]
	h.index.mu.Unlock()
	if !ok {
		return nil, "", &RequestError{Code: "unknown_dataset", Message: fmt.Sprintf("no dataset %q on this server (the served ones are listed by hello)", name)}
	}
	if e.m == nil {
		return nil, "", &RequestError{Code: "bad_dataset", Message: e.info.Reason}
	}
	return e.m, e.dir, nil
}

// dirSize is the bytes of the regular files under dir.
func dirSize(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}
