package datasets

// SchemaVersion is the version of the Parquet layout described in
// docs/datasets.md: the columns of both tables, the footer keys and the
// manifest. It changes when any of them changes incompatibly.
const SchemaVersion = 2

// Layout of a dataset directory.
const (
	ManifestFile = "manifest.json" // the dataset card, written last
	StepsDir     = "steps"         // steps/part-NNNNN.parquet
	EpisodesDir  = "episodes"      // episodes/part-NNNNN.parquet
	// ChecksumsDir holds, while a run is unfinished, one record per
	// finished part (.checksums/part-NNNNN.json: its PartInfo, the files'
	// sizes and SHA-256 as written); a resumed run keeps a part only if
	// its files still match. Generate removes it once manifest.json, which
	// then holds the same checksums, is written.
	ChecksumsDir = ".checksums"
)

// Column names of the steps table, in file order. One row per step, and
// one more per episode holding the final observation (Minari's T+1
// observations for T steps): see docs/datasets.md.
const (
	ColEpisodeID  = "episode_id"  // int64: global episode index, 0..total_episodes-1
	ColStep       = "step"        // int32: 0..T within the episode; T marks the final row
	ColPlayer     = "player"      // int32: player to act, whose view obs is; on the final row the last to act
	ColObs        = "obs"         // FIXED_LEN_BYTE_ARRAY(ObsSize): the uint8 observation tensor, row-major
	ColActionMask = "action_mask" // FIXED_LEN_BYTE_ARRAY(NumActions): 1 per legal action; all 0 on the final row
	ColAction     = "action"      // int32: the action taken; -1 on the final row
	ColReward     = "reward"      // float (32-bit): the acting player's reward for the step; 0 on the final row
	ColRewards    = "rewards"     // list<float>: every player's reward for the step; zeros on the final row
	ColTerminated = "terminated"  // bool: the step ended the game by its rules (last step only)
	ColTruncated  = "truncated"   // bool: the step reached the turn limit (last step only)
)

// Columns of the steps table of a dataset generated with
// Config.RecordSearch (generate --record-search), after ColTruncated: the
// search's improved policy and root value at every decision.
const (
	// ColSearchPolicy is list<float> (32-bit), NumActions per row: the
	// fraction of the decision's simulations that began with each action
	// (the search's visit counts over their total; 0 off the legal mask).
	// A decision the acting seat's agent did not search (one legal action,
	// sims=0, an agent that is no search) holds 1 on the action played; the
	// final row holds zeros.
	ColSearchPolicy = "search_policy"
	// ColSearchValue is float (32-bit): the search's root value for the
	// acting seat, the mean over the decision's simulations of that seat's
	// own undiscounted return from the decision on (the visit-weighted mean
	// of the actions' means, in the environment's reward units); NaN when
	// the decision was not searched and on the final row.
	ColSearchValue = "search_value"
)

// Column indexes of the steps table.
const (
	colEpisodeID = iota
	colStep
	colPlayer
	colObs
	colActionMask
	colAction
	colReward
	colRewards
	colTerminated
	colTruncated
	numStepColumns // the columns of every steps table

	colSearchPolicy = numStepColumns     // RecordSearch only
	colSearchValue  = numStepColumns + 1 // RecordSearch only
	numAllColumns   = numStepColumns + 2
)

// stepsRowGroupRows bounds the rows of a steps row group: a reader decodes
// at most 64Ki observations (32 MiB for Galaxy Express) at once. A variable
// so that tests can cross row groups with small datasets.
var stepsRowGroupRows = 1 << 16

// ObsEncoding selects the Parquet encoding of the obs column.
type ObsEncoding string

const (
	// ObsPlain is PLAIN, the default: every reader decodes it (pyarrow,
	// pandas, DuckDB 2.0, polars 2.1, apache arrow-go, parquet-go).
	ObsPlain ObsEncoding = "plain"
	// ObsSplit is BYTE_STREAM_SPLIT (byte k of every observation in stream
	// k): files 1.5-1.8 times smaller than with ObsPlain (docs/datasets.md,
	// "The obs column's encoding"), but DuckDB (2.0) and polars (2.1)
	// decode BYTE_STREAM_SPLIT only on numeric columns, not on
	// FIXED_LEN_BYTE_ARRAY; pyarrow (16 and later), arrow-go v18 and
	// parquet-go read it.
	ObsSplit ObsEncoding = "split"
)

// Observations says whether a dataset stores its observations.
type Observations string

const (
	// ObsStored is the default: the steps table holds the obs and
	// action_mask columns.
	ObsStored Observations = "stored"
	// ObsNone writes a compact dataset: the steps table without the obs and
	// action_mask columns (every other column, and the episodes table, as
	// with ObsStored). The environments are deterministic, so the
	// observations and masks are derived by replaying each episode from its
	// seed and actions ([Materialize], [Derive]).
	ObsNone Observations = "none"
)

// SearchVisits is the manifest's search and the footers' KeySearch in a
// dataset with the search columns: search_policy holds visit fractions.
const SearchVisits = "visits"

// ZstdLevel is the zstd effort spent on the dataset's files
// (klauspost/compress encoder levels).
type ZstdLevel string

const (
	// ZstdFastest is about zstd level 1: 6-8% larger than ZstdDefault and
	// barely faster on these pages.
	ZstdFastest ZstdLevel = "fastest"
	// ZstdDefault is about zstd level 3: 10% larger than ZstdBetter and
	// 1.2-1.5 times faster to generate.
	ZstdDefault ZstdLevel = "default"
	// ZstdBetter is about zstd level 7, the default: the only level at which
	// both the random and the heuristic agent's datasets stay under 16
	// bytes per row, while the heuristic's still generates at 0.75-0.8
	// million steps/s on 2 cores (docs/datasets.md, "Measured sizes and
	// speeds").
	ZstdBetter ZstdLevel = "better"
)

// parquetName returns the Parquet name of the encoding.
func (o ObsEncoding) parquetName() string {
	if o == ObsPlain {
		return "PLAIN"
	}
	return "BYTE_STREAM_SPLIT"
}

// episodeRow is one row of the episodes table.
type episodeRow struct {
	// EpisodeID is the global episode index (the steps table's episode_id).
	EpisodeID int64 `parquet:"episode_id,delta"`
	// Seed is the environment seed (a uint64 stored as its int64 bits).
	Seed int64 `parquet:"seed"`
	// Agent is the agent's name, or the seats' agents joined by commas for
	// a dataset of mixed seats (generate --seats).
	Agent string `parquet:"agent,dict"`
	// SeatAgents holds the agent of every seat, index = player.
	SeatAgents []string `parquet:"seat_agents,list"`
	// Length is the number of steps T (the steps table holds T+1 rows).
	Length int32 `parquet:"length"`
	// Returns holds every player's undiscounted return.
	Returns []float64 `parquet:"returns,list"`
	// Outcome is the env.Info outcome: win, loss, draw or truncated.
	Outcome string `parquet:"outcome,dict"`
	// Scores, Ranks and Outcomes are every player's result (env.Info
	// Scores, Ranks, Outcomes), index = player: the game's score, the rank
	// (1 = best, ties share), and win, loss or draw.
	Scores   []float64 `parquet:"scores,list"`
	Ranks    []int32   `parquet:"ranks,list"`
	Outcomes []string  `parquet:"outcomes,list"`
	// Info is the env.Info JSON at the end of the episode.
	Info string `parquet:"info"`
}

// Footer key/value metadata of both tables ("galaxygym." prefix). Values
// are strings; JSON where noted.
const (
	KeySchemaVersion   = "galaxygym.schema_version"    // "1"
	KeyTable           = "galaxygym.table"             // "steps" or "episodes"
	KeyDatasetID       = "galaxygym.dataset_id"        // the manifest's dataset_id
	KeyEnvID           = "galaxygym.env_id"            // e.g. "galaxy-express-v1"
	KeyEnvVersion      = "galaxygym.env_version"       // the id's version number, e.g. "1"
	KeyEnvParams       = "galaxygym.env_params"        // JSON object: every parameter, resolved
	KeyNumPlayers      = "galaxygym.num_players"       // decimal
	KeyObsShape        = "galaxygym.obs_shape"         // JSON array, e.g. [503]
	KeyObsDType        = "galaxygym.obs_dtype"         // "uint8"
	KeyObsEncoding     = "galaxygym.obs_encoding"      // "BYTE_STREAM_SPLIT" or "PLAIN"
	KeyZstdLevel       = "galaxygym.zstd_level"        // "better", "default" or "fastest"
	KeyNumActions      = "galaxygym.num_actions"       // decimal
	KeyActionNames     = "galaxygym.action_names"      // JSON array of strings
	KeyAgent           = "galaxygym.agent"             // agent name
	KeyAgentVersion    = "galaxygym.agent_version"     // "" when the agent declares none
	KeyAgentOptions    = "galaxygym.agent_options"     // JSON object
	KeySeed            = "galaxygym.seed"              // the run seed, decimal uint64
	KeySeedRule        = "galaxygym.seed_rule"         // SeedRule
	KeyEpisodesPerPart = "galaxygym.episodes_per_part" // decimal
	KeyPart            = "galaxygym.part"              // part index, decimal
	KeyEpisodeStart    = "galaxygym.episode_start"     // first episode_id of the part
	KeyEpisodeEnd      = "galaxygym.episode_end"       // one past the last episode_id
	KeyNumSteps        = "galaxygym.num_steps"         // steps (transitions) in the part
	KeyNumRows         = "galaxygym.num_rows"          // rows of the steps table: num_steps + episodes
	// KeyObservations is "none" in the footers of a compact dataset
	// (Observations ObsNone), absent otherwise.
	KeyObservations = "galaxygym.observations"
	// KeySearch is SearchVisits in the footers of a dataset generated with
	// Config.RecordSearch (the search_policy and search_value columns),
	// absent otherwise.
	KeySearch = "galaxygym.search"
)
