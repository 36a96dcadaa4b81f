package server

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"

	"github.com/galaxygym/galaxygym/env"
	"github.com/galaxygym/galaxygym/rollout"
)

// Version is the protocol version this server speaks. A client states the
// version it speaks in its hello message; any other value is refused with
// [CodeVersionMismatch] and close code 1002. See docs/protocol.md.
// Version 2 added every player's score, rank and outcome to the replies;
// version 3 added request ids: a u32 trailer on every step request and on
// every step and reset reply, and an optional "id" in control messages
// echoed by their replies.
const Version = 3

// Magic is the first two bytes of every binary frame, in both directions
// ("GG").
const Magic = "GG"

// Binary frame kinds: byte 3 of every binary frame (byte 2 is [Version]).
const (
	// KindStep is a step request, client to server.
	KindStep = 1
	// KindStepReply is the reply to a step request, server to client.
	KindStepReply = 2
	// KindResetReply is the reply to a reset control message, server to
	// client. It has the step reply's layout.
	KindResetReply = 3
)

// StepHeaderSize is the size in bytes of a step request's header; the N
// little-endian int32 actions follow it, then the u32 request id, so a
// step request has exactly StepHeaderSize + 4*N + RequestIDSize bytes.
const StepHeaderSize = 8

// RequestIDSize is the size in bytes of the request id trailer (a
// little-endian u32) that ends every step request and every step and reset
// reply. A reply's trailer echoes its request's id (a reset reply: the
// reset message's "id", or 0 when it had none).
const RequestIDSize = 4

// StepRequestSize is the size in bytes of a step request for n
// environments.
func StepRequestSize(n int) int { return StepHeaderSize + 4*n + RequestIDSize }

// ReplyHeaderSize is the size in bytes of the header of a step or reset
// reply; see [Layout] for the arrays that follow it.
const ReplyHeaderSize = 24

// OutcomeOther is the code, in the outcome, outcomes and final_outcome(s)
// arrays of a reply (u8), of an outcome outside the [env.Outcome] codes
// (env.OutcomeOngoing to env.OutcomeTruncated, named by the spec's
// outcome_names), which the arrays carry as they are.
const OutcomeOther = 255

func outcomeCode(o env.Outcome) uint8 {
	if o <= env.OutcomeTruncated {
		return uint8(o)
	}
	return OutcomeOther
}

// AutoresetMode says what happens to an environment of a batch whose
// episode ended; it follows Gymnasium 1.x's gymnasium.vector.AutoresetMode.
type AutoresetMode int

const (
	// NextStep (the default, "next_step"): the step that ends an episode
	// returns its final observation, reward and terminated/truncated; the
	// next step request resets that environment, ignoring its action, and
	// returns the first observation with reward 0 and terminated = truncated
	// = false.
	NextStep AutoresetMode = iota
	// SameStep ("same_step"): the step that ends an episode resets the
	// environment at once; the reply carries the first observation of the new
	// episode beside the final step's reward and terminated/truncated, and
	// the final observation and info in its final section.
	SameStep
	// Disabled ("disabled"): a finished environment stays finished until a
	// reset message resets it; stepping it is a [CodeEpisodeOver] error.
	Disabled
)

var modeNames = [...]string{"next_step", "same_step", "disabled"}

// String returns the mode's wire name: "next_step", "same_step" or
// "disabled".
func (m AutoresetMode) String() string {
	if m >= 0 && int(m) < len(modeNames) {
		return modeNames[m]
	}
	return fmt.Sprintf("AutoresetMode(%d)", int(m))
}

// ParseAutoresetMode parses a wire name; "" means [NextStep].
func ParseAutoresetMode(s string) (AutoresetMode, error) {
	if s == "" {
		return NextStep, nil
	}
	for i, n := range modeNames {
		if n == s {
			return AutoresetMode(i), nil
		}
	}
	return 0, fmt.Errorf("server: autoreset_mode %q is not one of %v", s, modeNames)
}

// EpisodeSeed returns the seed of episode k of an environment whose base
// seed is base. Episode 0 is seeded with base itself, so that a reset with
// seed s gives exactly env.Reset(s); every later episode (an autoreset, or a
// reset message with a null seed) with SplitMix64 of base + k*0x9E3779B97F4A7C15:
//
//	z := base + k*0x9E3779B97F4A7C15
//	z = (z ^ z>>30) * 0xBF58476D1CE4E5B9
//	z = (z ^ z>>27) * 0x94D049BB133111EB
//	seed = z ^ z>>31
//
// all arithmetic modulo 2^64. This is [rollout.SeatSeed]'s rule (seat k of
// agent seed base), the module's single SplitMix64 step, which it calls.
func EpisodeSeed(base, k uint64) uint64 {
	return rollout.SeatSeed(base, int(k)) // int(k) wraps back to k in uint64 arithmetic
}

// Layout gives the byte offsets of the arrays of a step or reset reply for
// a batch of N environments with O observation bytes, A actions and P
// players. Every array is contiguous, little-endian and row-major (env
// first); 4-byte arrays come first so that all of them are 4-byte aligned.
// The final section holds K entries (K is in the header, byte 20) and
// starts at FinalIndex, a multiple of 4 computed from the fixed part.
type Layout struct {
	N int `json:"num_envs"`    // environments
	O int `json:"obs_size"`    // observation bytes per environment
	A int `json:"num_actions"` // actions (mask bytes) per environment
	P int `json:"num_players"` // players (rewards) per environment
	// Offsets of the fixed arrays (bytes from the start of the frame).
	Rewards       int `json:"rewards"`        // f32[N*P], 24
	CurrentPlayer int `json:"current_player"` // i32[N], Rewards + 4NP
	Score         int `json:"score"`          // f32[N], CurrentPlayer + 4N
	Steps         int `json:"steps"`          // i32[N], Score + 4N
	Scores        int `json:"scores"`         // f32[N*P], Steps + 4N: every player's score once the episode is over, else 0
	Ranks         int `json:"ranks"`          // i32[N*P], Scores + 4NP: every player's rank (1 = best) once over, else 0
	Terminated    int `json:"terminated"`     // u8[N], Ranks + 4NP
	Truncated     int `json:"truncated"`      // u8[N], Terminated + N
	Outcome       int `json:"outcome"`        // u8[N], Truncated + N
	Outcomes      int `json:"outcomes"`       // u8[N*P], Outcome + N: every player's outcome code once over, else 0
	Obs           int `json:"obs"`            // u8[N*O], Outcomes + NP
	Mask          int `json:"mask"`           // u8[N*A], Obs + NO
	// F is the number of action features each action carries (0 unless
	// make asked for action_features); ActionFeatures, present only then,
	// is the offset of u8[N*A*F], Mask + NA: environment i's features of
	// action a are bytes (i*A+a)*F to +F, the game's env.ActionFeaturer of
	// the observation beside them (all 0 once the episode is over).
	F              int `json:"num_action_features,omitempty"`
	ActionFeatures int `json:"action_features,omitempty"`
	// FinalIndex is where the final section starts: align4(Mask + NA
	// + NAF).
	FinalIndex int `json:"final_index"`
	// FixedSize is the size of a reply with K = 0 (equal to FinalIndex).
	FixedSize int `json:"fixed_size"`
}

// NewLayout computes the layout for n environments of o observation bytes,
// a actions and p players.
func NewLayout(n, o, a, p int) Layout {
	var l Layout
	l.N, l.O, l.A, l.P = n, o, a, p
	l.Rewards = ReplyHeaderSize
	l.CurrentPlayer = l.Rewards + 4*n*p
	l.Score = l.CurrentPlayer + 4*n
	l.Steps = l.Score + 4*n
	l.Scores = l.Steps + 4*n
	l.Ranks = l.Scores + 4*n*p
	l.Terminated = l.Ranks + 4*n*p
	l.Truncated = l.Terminated + n
	l.Outcome = l.Truncated + n
	l.Outcomes = l.Outcome + n
	l.Obs = l.Outcomes + n*p
	l.Mask = l.Obs + n*o
	l.FinalIndex = align4(l.Mask + n*a)
	l.FixedSize = l.FinalIndex
	return l
}

// WithActionFeatures returns l with f action features per action after
// the masks (f 0: l unchanged); the final section moves past them.
func (l Layout) WithActionFeatures(f int) Layout {
	if f <= 0 {
		return l
	}
	l.F = f
	l.ActionFeatures = l.Mask + l.N*l.A
	l.FinalIndex = align4(l.ActionFeatures + l.N*l.A*f)
	l.FixedSize = l.FinalIndex
	return l
}

func align4(x int) int { return (x + 3) &^ 3 }

// FinalLayout gives the offsets of the final section's arrays of a reply
// with K entries, and the frame's total size.
type FinalLayout struct {
	Index    int // i32[K] at Layout.FinalIndex: the environments whose episode ended
	Score    int // f32[K], Index + 4K
	Steps    int // i32[K], Score + 4K
	Scores   int // f32[K*P], Steps + 4K
	Ranks    int // i32[K*P], Scores + 4KP
	Outcome  int // u8[K], Ranks + 4KP
	Outcomes int // u8[K*P], Outcome + K
	Obs      int // u8[K*O], Outcomes + KP
	Size     int // Obs + KO: the frame's size
}

// Final returns the offsets of the final section's arrays for k entries
// (13 + 9P + O bytes each).
func (l *Layout) Final(k int) FinalLayout {
	var f FinalLayout
	f.Index = l.FinalIndex
	f.Score = f.Index + 4*k
	f.Steps = f.Score + 4*k
	f.Scores = f.Steps + 4*k
	f.Ranks = f.Scores + 4*k*l.P
	f.Outcome = f.Ranks + 4*k*l.P
	f.Outcomes = f.Outcome + k
	f.Obs = f.Outcomes + k*l.P
	f.Size = f.Obs + k*l.O
	return f
}

// MaxSize is the size of a reply whose final section is full (K = N).
func (l *Layout) MaxSize() int { return l.Final(l.N).Size }

// putPlayers writes the per-player results of info for environment (or
// final entry) i into the scores, ranks and outcomes arrays at the given
// offsets of a batch of p players: zeros while the episode runs.
func putPlayers(buf []byte, scores, ranks, outcomes, i, p int, info *env.Info) {
	le := binary.LittleEndian
	for q := range p {
		var s float32
		var r int32
		var o uint8
		if q < len(info.Scores) {
			s, r, o = float32(info.Scores[q]), int32(info.Ranks[q]), outcomeCode(info.Outcomes[q])
		}
		le.PutUint32(buf[scores+4*(p*i+q):], math.Float32bits(s))
		le.PutUint32(buf[ranks+4*(p*i+q):], uint32(r))
		buf[outcomes+p*i+q] = o
	}
}

// putHeader writes a reply header of kind with k final entries.
func (l *Layout) putHeader(b []byte, kind byte, k int) {
	b[0], b[1], b[2], b[3] = Magic[0], Magic[1], Version, kind
	le := binary.LittleEndian
	le.PutUint32(b[4:], uint32(l.N))
	le.PutUint32(b[8:], uint32(l.O))
	le.PutUint32(b[12:], uint32(l.A))
	le.PutUint32(b[16:], uint32(l.P))
	le.PutUint32(b[20:], uint32(k))
}

// AppendStepRequest appends a step request for actions to b: the header
// "GG", Version, KindStep, u32 N, then N int32 actions, then the u32
// request id.
func AppendStepRequest(b []byte, id uint32, actions []int32) []byte {
	b = append(b, Magic[0], Magic[1], Version, KindStep)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(actions)))
	for _, a := range actions {
		b = binary.LittleEndian.AppendUint32(b, uint32(a))
	}
	return binary.LittleEndian.AppendUint32(b, id)
}

// DecodeStepRequest checks that msg is a well-formed step request for a
// batch of len(actions) environments, decodes its actions into actions and
// returns its request id. It returns an [*Error] with [CodeUnsupportedFrame]
// when msg does not start with a step request's magic and kind,
// [CodeVersionMismatch] for another protocol version, and [CodeMalformed]
// when its N or its length is wrong. Action values are not checked here.
func DecodeStepRequest(msg []byte, actions []int32) (uint32, error) {
	if len(msg) < 4 || msg[0] != Magic[0] || msg[1] != Magic[1] || msg[3] != KindStep {
		return 0, errorf(CodeUnsupportedFrame, "binary frame is not a step request (want bytes 47 47 %02x %02x)", Version, KindStep)
	}
	if msg[2] != Version {
		return 0, errorf(CodeVersionMismatch, "step request of protocol version %d; this session speaks %d", msg[2], Version)
	}
	if len(msg) < StepHeaderSize {
		return 0, errorf(CodeMalformed, "step request of %d bytes is shorter than its %d-byte header", len(msg), StepHeaderSize)
	}
	n := binary.LittleEndian.Uint32(msg[4:])
	if uint64(n) != uint64(len(actions)) {
		return 0, errorf(CodeMalformed, "step request for %d environments; the session holds %d", n, len(actions))
	}
	if want := StepRequestSize(len(actions)); len(msg) != want {
		return 0, errorf(CodeMalformed, "step request of %d bytes; want %d (8 + 4*%d + 4)", len(msg), want, len(actions))
	}
	for i := range actions {
		actions[i] = int32(binary.LittleEndian.Uint32(msg[StepHeaderSize+4*i:]))
	}
	return binary.LittleEndian.Uint32(msg[len(msg)-RequestIDSize:]), nil
}

// Control message types (the "type" field of a JSON text frame).
const (
	MsgHello    = "hello"       // both ways: version handshake
	MsgList     = "list"        // client: list environments; reply "envs"
	MsgEnvs     = "envs"        // server: the registered specs
	MsgMake     = "make"        // client: build the batch; reply "made"
	MsgMade     = "made"        // server: the session's spec and layout
	MsgReset    = "reset"       // client: reset (all or masked); binary reply
	MsgRender   = "render"      // client: text boards; reply "render"
	MsgGetState = "get_state"   // client: an environment's snapshot; reply "state"
	MsgState    = "state"       // server: the snapshot
	MsgInfo     = "info"        // client: full episode infos; reply "info"
	MsgObserve  = "observe"     // client: one player's observation of one env; reply "observation"
	MsgObs      = "observation" // server: the observation
	MsgClose    = "close"       // client: end the session; reply "closed"
	MsgClosed   = "closed"      // server: acknowledges close, then closes 1000
	MsgError    = "error"       // server: a typed error
)

// Control is a decoded client control message. Fields not used by a
// message's type must be absent.
type Control struct {
	Type string `json:"type"`
	// ID, optional in every control message, is the client's request id
	// (0 to 2^32-1): the reply, error replies and a reset's binary reply
	// included, echoes it (see docs/protocol.md, "Request ids").
	ID *uint32 `json:"id,omitempty"`
	// hello
	Version *int   `json:"version,omitempty"`
	Client  string `json:"client,omitempty"`
	// make
	Env           string         `json:"env,omitempty"`
	NumEnvs       *int           `json:"num_envs,omitempty"`
	Params        map[string]any `json:"params,omitempty"`
	AutoresetMode string         `json:"autoreset_mode,omitempty"`
	// ActionFeatures (make, optional): every step and reset reply also
	// carries each legal action's features (Layout.ActionFeatures), for a
	// game that declares them (env.ActionFeaturer); bad_request for
	// another.
	ActionFeatures bool `json:"action_features,omitempty"`
	// Opponents (make, optional): built-in agents in the seats the client
	// does not play; see [Opponents].
	Opponents
	// reset: Seeds has N entries (null keeps the env's seed chain going),
	// Mask N booleans (absent: reset all), Options the reset options.
	Seeds   []*uint64     `json:"seeds,omitempty"`
	Mask    []bool        `json:"mask,omitempty"`
	Options *ResetOptions `json:"options,omitempty"`
	// render, info: the environments (absent: all); get_state: one.
	Indices []int `json:"indices,omitempty"`
	// render: "ansi" (default, the text boards) or "rgb_array" (pictures,
	// see [RenderRGB]).
	Mode  string `json:"mode,omitempty"`
	Index *int   `json:"index,omitempty"`
	// observe: the player whose view of environment Index is wanted.
	Player *int `json:"player,omitempty"`
}

// ResetOptions are the options of a reset message.
type ResetOptions struct {
	// State, when set, is loaded into every environment the reset resets
	// instead of dealing a new episode: an environment snapshot (the JSON
	// of env.Env.MarshalJSON, as get_state returns it) or the game's own
	// state JSON (env.State.MarshalJSON).
	State json.RawMessage `json:"state,omitempty"`
	// States, when set, has N entries: a snapshot or game state for each
	// environment, or null to reset that one from its seed.
	States []json.RawMessage `json:"states,omitempty"`
}

// DecodeControl decodes a JSON text frame into a [Control]. Unknown fields,
// trailing data and a missing or unknown type are [CodeMalformed] or
// [CodeUnknownMessage] errors; for a missing or unknown type the decoded
// Control comes back beside the error (its ID is echoed in the error
// reply), otherwise nil.
func DecodeControl(data []byte) (*Control, error) {
	var c Control
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return nil, errorf(CodeMalformed, "malformed control message: %v", err)
	}
	if dec.More() {
		return nil, errorf(CodeMalformed, "malformed control message: data after the JSON object")
	}
	if _, err := dec.Token(); err == nil {
		return nil, errorf(CodeMalformed, "malformed control message: data after the JSON object")
	}
	switch c.Type {
	case MsgHello, MsgList, MsgMake, MsgReset, MsgRender, MsgGetState, MsgInfo, MsgObserve, MsgWatchKey, MsgClose:
	case "":
		return &c, errorf(CodeMalformed, `control message has no "type"`)
	default:
		return &c, errorf(CodeUnknownMessage, "unknown control message type %q", c.Type)
	}
	return &c, nil
}
