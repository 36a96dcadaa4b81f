package datasets

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"

	"github.com/galaxygym/galaxygym/agents"
	"github.com/galaxygym/galaxygym/env"
)

// Manifest is the dataset card, DIR/manifest.json. The field names up to
// code_permalink are Minari's (0.5) metadata names; the rest are
// galaxygym's. It holds nothing that depends on when or how fast the run
// went, so the same command writes the same bytes.
type Manifest struct {
	// DatasetID names the dataset, by default
	// "galaxygym/<env id>/<agent>-v<schema version>".
	DatasetID string `json:"dataset_id"`
	// TotalEpisodes is the number of episodes (rows of the episodes table).
	TotalEpisodes int64 `json:"total_episodes"`
	// TotalSteps is the number of steps (transitions); the steps table
	// holds TotalSteps + TotalEpisodes rows.
	TotalSteps int64 `json:"total_steps"`
	// EnvSpec is the environment's spec as the env package serializes it.
	EnvSpec *env.Spec `json:"env_spec"`
	// ObservationSpace is the Gymnasium space of obs: a Box of uint8.
	ObservationSpace Space `json:"observation_space"`
	// ActionSpace is the Gymnasium space of action: a Discrete.
	ActionSpace Space `json:"action_space"`
	// AlgorithmName is the agent's name.
	AlgorithmName string `json:"algorithm_name"`
	// Author is who generated the dataset (the --author flag).
	Author string `json:"author"`
	// CodePermalink is the code that generated the dataset.
	CodePermalink string `json:"code_permalink"`
	// DataFormat is "parquet".
	DataFormat string `json:"data_format"`

	// SchemaVersion is [SchemaVersion] when the dataset was written.
	SchemaVersion int `json:"schema_version"`
	// GalaxygymVersion is the release version of the generating binary
	// (version.Version, e.g. "0.1.0").
	GalaxygymVersion string `json:"galaxygym_version"`
	// EnvID is the environment id, e.g. "galaxy-express-v1".
	EnvID string `json:"env_id"`
	// EnvParams holds every environment parameter, resolved.
	EnvParams map[string]any `json:"env_params"`
	// ActionNames names every action (len NumActions).
	ActionNames []string `json:"action_names"`
	// NumPlayers is the number of seats.
	NumPlayers int `json:"num_players"`
	// Agent describes the agent that played every seat; for a dataset of
	// mixed seats (generate --seats) its name is the seats' agents joined
	// by commas and its version their versions likewise.
	Agent AgentInfo `json:"agent"`
	// Seats is the agent of every seat (index = player) of a dataset of
	// mixed seats; absent when one agent played every seat.
	Seats []string `json:"seats,omitempty"`
	// SeatOptions are the seats' agents' options, by agent name.
	SeatOptions map[string]agents.Options `json:"seat_options,omitempty"`
	// Seed is the run seed; SeedRule derives every episode's seeds from it.
	Seed     uint64 `json:"seed"`
	SeedRule string `json:"seed_rule"`
	// EpisodesPerPart is the number of consecutive episodes in every part
	// but the last.
	EpisodesPerPart int `json:"episodes_per_part"`
	// ObsEncoding is the Parquet encoding of obs: "BYTE_STREAM_SPLIT" or "PLAIN".
	ObsEncoding string `json:"obs_encoding"`
	// Compression is the Parquet codec of every column: "ZSTD".
	Compression string `json:"compression"`
	// ZstdLevel is the zstd effort: "better", "default" or "fastest".
	ZstdLevel string `json:"zstd_level"`
	// RowGroupRows bounds the rows of a steps row group.
	RowGroupRows int `json:"row_group_rows"`
	// CreatedBy is the canonical command line that reproduces the dataset
	// (flags that do not change the files, such as --workers, left out).
	CreatedBy string `json:"created_by"`
	// Stats summarizes the episodes.
	Stats Stats `json:"stats"`
	// Parts lists the parts in order; part i holds episodes
	// [i*EpisodesPerPart, min((i+1)*EpisodesPerPart, TotalEpisodes)).
	Parts []PartInfo `json:"parts"`
	// Observations is "none" for a compact dataset (no obs and action_mask
	// columns; generate --observations none), absent ("": stored) for a
	// full one, whose manifest is then the same bytes as before compact
	// datasets existed.
	Observations string `json:"observations,omitempty" manifest:"omitempty"`
	// Derive says, in a compact dataset, how the missing columns are
	// derived; absent in a full one.
	Derive *DeriveInfo `json:"derive,omitempty" manifest:"omitempty"`
	// Search is SearchVisits when the steps table has the search columns
	// (ColSearchPolicy, ColSearchValue; generate --record-search), absent
	// otherwise.
	Search string `json:"search,omitempty" manifest:"omitempty"`
}

// DeriveInfo is the manifest's derive entry of a compact dataset: what a
// replay needs to derive the observations and masks, and the command that
// does it. Materialize and Derive refuse a build whose environment differs.
type DeriveInfo struct {
	// Method is "replay": env_id made with env_params, reset with each
	// episode's seed (the episodes table), stepped with the recorded actions.
	Method string `json:"method"`
	// EnvID and EnvVersion name the environment and its version; a build
	// without this exact id cannot derive the dataset.
	EnvID      string `json:"env_id"`
	EnvVersion string `json:"env_version"`
	// EnvParams holds every parameter, resolved, as the environment was made.
	EnvParams map[string]any `json:"env_params"`
	// Build is the galaxygym release that wrote the dataset.
	Build string `json:"build"`
	// Command writes the full dataset: "galaxygym dataset materialize IN OUT".
	Command string `json:"command"`
	// ObsEncoding is the obs encoding of the materialized dataset.
	ObsEncoding string `json:"obs_encoding"`
}

// Compact reports whether the manifest is a compact dataset's (no stored
// observations).
func (m *Manifest) Compact() bool { return m.Observations == string(ObsNone) }

// Space is a Gymnasium space in Minari's JSON form.
type Space struct {
	Type  string `json:"type"`            // "Box" or "Discrete"
	DType string `json:"dtype"`           // "uint8" (Box) or "int64" (Discrete)
	Shape []int  `json:"shape,omitempty"` // Box: the observation shape
	Low   []int  `json:"low,omitempty"`   // Box: inclusive lower bounds, flattened
	High  []int  `json:"high,omitempty"`  // Box: inclusive upper bounds, flattened
	N     int    `json:"n,omitempty"`     // Discrete: the number of actions
	Start int    `json:"start"`           // Discrete: the first action (0)
}

// agentOptionsJSON is the agent_options footer value the manifest stands
// for: the seats' options by agent name, or the one agent's.
func (m *Manifest) agentOptionsJSON() string {
	if len(m.Seats) > 0 {
		if m.SeatOptions == nil {
			return "{}"
		}
		return mustJSON(m.SeatOptions)
	}
	return mustJSON(nonNil(m.Agent.Options))
}

// AgentInfo describes the agent of a dataset.
type AgentInfo struct {
	Name    string            `json:"name"`
	Version string            `json:"version"` // "" when the agent declares none
	Options map[string]string `json:"options"` // the --agent-opt settings
}

// Stats summarizes a dataset's episodes. Per-player slices have
// NumPlayers entries.
type Stats struct {
	ReturnMean []float64        `json:"return_mean"`
	ReturnMin  []float64        `json:"return_min"`
	ReturnMax  []float64        `json:"return_max"`
	LengthMean float64          `json:"length_mean"`
	LengthMin  int64            `json:"length_min"`
	LengthMax  int64            `json:"length_max"`
	Outcomes   map[string]int64 `json:"outcomes"` // episodes per outcome
}

// PartInfo is one part of a dataset: a steps file and an episodes file
// covering the same consecutive episodes.
type PartInfo struct {
	Index        int      `json:"index"`
	EpisodeStart int64    `json:"episode_start"` // first episode_id
	EpisodeEnd   int64    `json:"episode_end"`   // one past the last episode_id
	NumSteps     int64    `json:"num_steps"`     // steps (transitions) in the part
	Steps        FileInfo `json:"steps"`
	Episodes     FileInfo `json:"episodes"`
}

// FileInfo describes one Parquet file of a part.
type FileInfo struct {
	Path   string `json:"path"`   // relative to the dataset directory, "/"-separated
	Rows   int64  `json:"rows"`   // rows in the file
	Bytes  int64  `json:"bytes"`  // file size
	SHA256 string `json:"sha256"` // hex SHA-256 of the file
}

// ReadManifest reads DIR/manifest.json. It returns an error wrapping
// [ErrNoManifest] when there is none, and a [*FormatError] when it cannot
// be parsed.
func ReadManifest(dir string) (*Manifest, error) { return readManifest(osFS{}, dir) }

func readManifest(fsys fileSystem, dir string) (*Manifest, error) {
	path := filepath.Join(dir, ManifestFile)
	data, err := fsys.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &FormatError{Path: path, Reason: "missing", Err: ErrNoManifest}
	}
	if err != nil {
		return nil, &FormatError{Path: path, Reason: "cannot read", Err: err}
	}
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, &FormatError{Path: path, Reason: "malformed manifest", Err: err}
	}
	if m.SchemaVersion != SchemaVersion {
		return nil, &FormatError{Path: path, Reason: "unsupported schema_version " + strconv.Itoa(m.SchemaVersion)}
	}
	return &m, nil
}

// marshalManifest writes one top-level field per line (each value compact
// JSON) and one part per line: readable, and short despite the long spec
// and space arrays.
func marshalManifest(m *Manifest) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("{\n")
	v := reflect.ValueOf(m).Elem()
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if t.Field(i).Tag.Get("manifest") == "omitempty" && v.Field(i).IsZero() {
			continue
		}
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, "  %q: ", name)
		if parts, ok := v.Field(i).Interface().([]PartInfo); ok && len(parts) > 0 {
			b.WriteString("[\n")
			for j := range parts {
				data, err := compactJSON(&parts[j])
				if err != nil {
					return nil, err
				}
				b.WriteString("    ")
				b.Write(data)
				if j < len(parts)-1 {
					b.WriteByte(',')
				}
				b.WriteByte('\n')
			}
			b.WriteString("  ]")
		} else {
			data, err := compactJSON(v.Field(i).Interface())
			if err != nil {
				return nil, err
			}
			b.Write(data)
		}
	}
	b.WriteString("\n}\n")
	return b.Bytes(), nil
}

// compactJSON is json.Marshal without HTML escaping.
func compactJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// writeManifest writes m atomically: a temporary file, synced, renamed.
func writeManifest(fsys fileSystem, dir string, m *Manifest) error {
	data, err := marshalManifest(m)
	if err != nil {
		return err
	}
	return writeAtomic(fsys, filepath.Join(dir, ManifestFile), data)
}

// writeAtomic writes data to final through a temporary file in the same
// directory ("."+base+".tmp"), synced, renamed, with the directory synced.
func writeAtomic(fsys fileSystem, final string, data []byte) error {
	dir := filepath.Dir(final)
	tmp := filepath.Join(dir, "."+filepath.Base(final)+".tmp")
	f, err := fsys.Create(tmp)
	if err != nil {
		return &WriteError{"create", final, unwrapPath(err)}
	}
	t := newTrackingFile(f)
	_, err = t.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		fsys.Remove(tmp)
		return &WriteError{"write", final, unwrapPath(err)}
	}
	if err := fsys.Rename(tmp, final); err != nil {
		fsys.Remove(tmp)
		return &WriteError{"rename", final, unwrapPath(err)}
	}
	if err := fsys.SyncDir(dir); err != nil {
		return &WriteError{"sync", dir, unwrapPath(err)}
	}
	return nil
}

// checksumPath is the checksum record of part index (see [ChecksumsDir]).
func checksumPath(dir string, index int) string {
	return filepath.Join(dir, ChecksumsDir, fmt.Sprintf("part-%05d.json", index))
}

// writeChecksum records a finished part's files as written.
func writeChecksum(fsys fileSystem, dir string, info *PartInfo) error {
	data, err := compactJSON(info)
	if err != nil {
		return err
	}
	path := checksumPath(dir, info.Index)
	if err := fsys.MkdirAll(filepath.Dir(path)); err != nil {
		return &WriteError{"mkdir", filepath.Dir(path), unwrapPath(err)}
	}
	return writeAtomic(fsys, path, data)
}

// readChecksum returns the recorded PartInfo of part index, or nil when
// there is no readable record.
func readChecksum(fsys fileSystem, dir string, index int) *PartInfo {
	data, err := fsys.ReadFile(checksumPath(dir, index))
	if err != nil {
		return nil
	}
	var info PartInfo
	if json.Unmarshal(data, &info) != nil || info.Index != index {
		return nil
	}
	return &info
}
