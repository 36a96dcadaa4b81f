// Package loadtest drives a running galaxygym server (docs/protocol.md) with
// many concurrent sessions and reports errors, step latency and the
// server's memory, as a tool (`galaxygym loadtest`) and a test.
//
// Each of [Config.Sessions] sessions makes [Config.Envs] environments
// (autoreset next_step), resets them and steps them with random legal
// actions until [Config.Duration] has passed. Some sessions misbehave on
// purpose, in a mix fixed by [Config.Seed]: a slow reader sleeps before
// reading some of its replies, and an abrupt disconnect drops its TCP
// connection mid-session (no close frame) and reconnects. Latency is the
// time from writing a step request to having read its reply; a slow
// reader's sleeps are not counted. Traffic goes only to loopback
// addresses.
package loadtest

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"github.com/galaxygym/galaxygym/server"
)

// Config is one load test.
type Config struct {
	// URL is the server's websocket address, e.g. ws://127.0.0.1:8765/.
	// Its host must resolve to loopback addresses only.
	URL string
	// Token is the server's bearer token, if it has one.
	Token string
	// Envs is the environment ids; session i makes EnvIDs[i % len].
	EnvIDs []string
	// Sessions is the number of concurrent sessions (N), Envs the
	// environments of each (M), Duration how long they step (T).
	Sessions, Envs int
	Duration       time.Duration
	// SlowFraction of the sessions (rounded) are slow readers: before reading one
	// reply in 16 they sleep SlowDelay.
	SlowFraction float64
	SlowDelay    time.Duration
	// DropFraction of the sessions (rounded) drop their connection abruptly once
	// every DropEvery step requests (a random point within the first
	// DropEvery) and reconnect.
	DropFraction float64
	DropEvery    int
	// Seed fixes the mix of behaviours and every action choice.
	Seed uint64
	// MetricsURL, when set, is polled (every 250 ms) for the server's
	// process_resident_memory_bytes; default: URL's host, path /metrics.
	MetricsURL string
	// Page, when it has tables, loads the server's browser page at the
	// same time (`galaxygym serve`'s /play/ws).
	Page PageLoad
}

// Report is what a load test measured.
type Report struct {
	Sessions, Envs int
	Duration       time.Duration // the time the sessions really ran
	StepRequests   int64         // step requests answered
	EnvSteps       int64         // StepRequests x Envs
	Errors         int64         // error replies, unexpected closes, bad replies
	ErrorSamples   []string      // the first few errors
	Drops          int64         // intentional abrupt disconnects
	Refusals       int64         // reconnections refused while the server still held the dropped session
	SlowReads      int64         // replies read late on purpose
	P50, P99, P999 time.Duration // step latency percentiles
	Max            time.Duration
	RSSStart       int64 // server resident memory (bytes) before, at the peak and after;
	RSSPeak        int64 // 0 when /metrics could not be read
	RSSEnd         int64
	// Page is what the page's side did (nil without Config.Page).
	Page *PageReport
}

// String formats the report as a few lines of text.
func (r *Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d sessions x %d envs for %.1fs: %d step requests (%d env steps, %.0f env steps/s)\n",
		r.Sessions, r.Envs, r.Duration.Seconds(), r.StepRequests, r.EnvSteps, float64(r.EnvSteps)/max(r.Duration.Seconds(), 1e-9))
	fmt.Fprintf(&b, "errors %d, abrupt disconnects %d (reconnections refused and retried: %d), slow reads %d\n",
		r.Errors, r.Drops, r.Refusals, r.SlowReads)
	fmt.Fprintf(&b, "step latency p50 %v, p99 %v, p99.9 %v, max %v\n", r.P50, r.P99, r.P999, r.Max)
	if r.RSSPeak > 0 {
		fmt.Fprintf(&b, "server RSS %.0f MiB before, %.0f MiB peak, %.0f MiB after\n",
			float64(r.RSSStart)/(1<<20), float64(r.RSSPeak)/(1<<20), float64(r.RSSEnd)/(1<<20))
	}
	for _, e := range r.ErrorSamples {
		fmt.Fprintf(&b, "error: %s\n", e)
	}
	if r.Page != nil {
		b.WriteString(r.Page.String())
	}
	return b.String()
}

// Error is a load-test setup error (a bad Config, a non-loopback target).
type Error struct{ Reason string }

// Error returns "loadtest: REASON".
func (e *Error) Error() string { return "loadtest: " + e.Reason }

// checkLoopback refuses a target whose host is not loopback.
func checkLoopback(ctx context.Context, raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return &Error{fmt.Sprintf("bad URL %q: %v", raw, err)}
	}
	if u.Scheme != "ws" && u.Scheme != "wss" {
		return &Error{fmt.Sprintf("URL %q: want ws:// or wss://", raw)}
	}
	host := u.Hostname()
	ips, err := net.DefaultResolver.LookupIPAddr(ctx, host)
	if err != nil || len(ips) == 0 {
		return &Error{fmt.Sprintf("cannot resolve %q: %v", host, err)}
	}
	for _, ip := range ips {
		if !ip.IP.IsLoopback() {
			return &Error{fmt.Sprintf("%s resolves to %s, which is not a loopback address: the load test only targets this machine", host, ip.IP)}
		}
	}
	return nil
}

func (c *Config) check() error {
	switch {
	case c.Sessions < 1 || c.Envs < 1:
		return &Error{"sessions and envs must be at least 1"}
	case c.Duration <= 0:
		return &Error{"duration must be positive"}
	case len(c.EnvIDs) == 0:
		return &Error{"no environment ids"}
	case c.SlowFraction < 0 || c.SlowFraction > 1 || c.DropFraction < 0 || c.DropFraction > 1:
		return &Error{"fractions must lie in [0, 1]"}
	case c.Page.Tables < 0 || c.Page.Watchers < 0 || c.Page.Watchers > 0 && c.Page.Tables == 0:
		return &Error{"page watchers need page tables (and neither may be negative)"}
	}
	if c.DropEvery < 1 {
		c.DropEvery = 200
	}
	if c.SlowDelay <= 0 {
		c.SlowDelay = 20 * time.Millisecond
	}
	return nil
}

// Run runs the load test and returns its report. It returns an [*Error]
// for a bad config or a non-loopback target; failures of the server are
// counted in the report, not returned.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	if err := checkLoopback(ctx, cfg.URL); err != nil {
		return nil, err
	}
	metrics := cfg.MetricsURL
	if metrics == "" {
		u, _ := url.Parse(cfg.URL)
		u.Scheme = strings.Replace(u.Scheme, "ws", "http", 1)
		u.Path, u.RawQuery = "/metrics", ""
		metrics = u.String()
	} else if err := checkLoopback(ctx, strings.Replace(metrics, "http", "ws", 1)); err != nil {
		return nil, err
	}
	rep := &Report{Sessions: cfg.Sessions, Envs: cfg.Envs}
	rss := newRSSPoller(metrics, cfg.Token)
	rep.RSSStart = rss.read()

	rng := rand.New(rand.NewPCG(cfg.Seed, 0x6c6f6164))
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		total hist
	)
	stop := make(chan struct{})
	go rss.poll(stop)
	start := time.Now()
	deadline := start.Add(cfg.Duration)
	// Exactly round(fraction x Sessions) slow readers and droppers, picked
	// by a seeded permutation (a session may be both).
	perm := rng.Perm(cfg.Sessions)
	nSlow := int(math.Round(cfg.SlowFraction * float64(cfg.Sessions)))
	nDrop := int(math.Round(cfg.DropFraction * float64(cfg.Sessions)))
	var page *PageReport
	if cfg.Page.Tables > 0 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			page = runPage(ctx, cfg.Page, cfg.URL, cfg.Token, deadline)
		}()
	}
	for i := range cfg.Sessions {
		w := &worker{cfg: &cfg, id: cfg.EnvIDs[i%len(cfg.EnvIDs)],
			rng:  rand.New(rand.NewPCG(rng.Uint64(), uint64(i))),
			slow: perm[i] < nSlow, drop: perm[i] >= cfg.Sessions-nDrop}
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.run(ctx, deadline)
			mu.Lock()
			defer mu.Unlock()
			total.merge(&w.lat)
			rep.StepRequests += w.requests
			rep.Errors += int64(len(w.errs)) + w.moreErrs
			rep.Drops += w.drops
			rep.Refusals += w.refusals
			rep.SlowReads += w.slowReads
			for _, e := range w.errs {
				if len(rep.ErrorSamples) < 10 {
					rep.ErrorSamples = append(rep.ErrorSamples, e)
				}
			}
		}()
	}
	wg.Wait()
	rep.Duration = time.Since(start)
	rep.Page = page
	close(stop)
	rep.RSSPeak = rss.peak()
	rep.RSSEnd = rss.read()
	rep.RSSPeak = max(rep.RSSPeak, rep.RSSStart, rep.RSSEnd)
	if rep.RSSStart == 0 || rep.RSSEnd == 0 {
		rep.RSSPeak = 0
	}
	rep.EnvSteps = rep.StepRequests * int64(cfg.Envs)
	rep.P50, rep.P99, rep.P999 = total.quantile(0.5), total.quantile(0.99), total.quantile(0.999)
	rep.Max = time.Duration(total.max)
	return rep, nil
}

// worker is one session (reconnecting after each intentional drop).
type worker struct {
	cfg        *Config
	id         string
	rng        *rand.Rand
	slow, drop bool

	lat       hist
	requests  int64
	drops     int64
	refusals  int64
	refused   int // consecutive refusals of the current reconnection
	slowReads int64
	errs      []string // at most 5 kept
	moreErrs  int64
}

func (w *worker) fail(format string, args ...any) {
	if len(w.errs) < 5 {
		w.errs = append(w.errs, fmt.Sprintf(w.id+": "+format, args...))
	} else {
		w.moreErrs++
	}
}

func (w *worker) run(ctx context.Context, deadline time.Time) {
	for time.Now().Before(deadline) && ctx.Err() == nil {
		if !w.session(ctx, deadline) {
			return
		}
	}
}

// session runs one connection; it returns true when the caller should
// connect again: it dropped the connection on purpose, or its
// reconnection was refused while the server still held the dropped one.
func (w *worker) session(ctx context.Context, deadline time.Time) bool {
	h := http.Header{}
	if w.cfg.Token != "" {
		h.Set("Authorization", "Bearer "+w.cfg.Token)
	}
	d := websocket.Dialer{HandshakeTimeout: 10 * time.Second, ReadBufferSize: 64 << 10, WriteBufferSize: 16 << 10}
	conn, resp, err := d.DialContext(ctx, w.cfg.URL, h)
	if err != nil {
		status := 0
		if resp != nil {
			status = resp.StatusCode
		}
		w.fail("dial: %v (status %d)", err, status)
		return false
	}
	defer conn.Close()
	call := func(msg any) (map[string]any, []byte, bool) {
		conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
		if err := conn.WriteJSON(msg); err != nil {
			w.fail("write: %v", err)
			return nil, nil, false
		}
		conn.SetReadDeadline(time.Now().Add(30 * time.Second))
		mt, data, err := conn.ReadMessage()
		if err != nil {
			w.fail("read: %v", err)
			return nil, nil, false
		}
		if mt == websocket.BinaryMessage {
			return nil, data, true
		}
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil || m["type"] == server.MsgError {
			if m["code"] == string(server.CodeTooManySessions) && w.drops > 0 && w.refused < maxRefused {
				// A reconnection after a drop can beat the server to
				// noticing the drop: its slot is still held. Retry.
				return m, nil, false
			}
			w.fail("reply %.200s", data)
			return nil, nil, false
		}
		return m, data, true
	}
	if m, _, ok := call(map[string]any{"type": "hello", "version": server.Version, "client": "galaxygym-loadtest"}); !ok {
		if m != nil {
			w.refused++
			w.refusals++
			time.Sleep(20 * time.Millisecond)
			return true
		}
		return false
	}
	w.refused = 0
	_, data, ok := call(map[string]any{"type": "make", "env": w.id, "num_envs": w.cfg.Envs})
	if !ok {
		return false
	}
	var made struct {
		Layout server.Layout `json:"layout"`
	}
	if err := json.Unmarshal(data, &made); err != nil {
		w.fail("made reply: %v", err)
		return false
	}
	l := made.Layout
	seeds := make([]uint64, l.N)
	for i := range seeds {
		seeds[i] = w.rng.Uint64() >> 11 // JSON numbers: exact below 2^53
	}
	_, reply, ok := call(map[string]any{"type": "reset", "seeds": seeds})
	if !ok || reply == nil {
		if ok {
			w.fail("reset answered with text")
		}
		return false
	}
	dropAt := -1
	if w.drop {
		dropAt = w.rng.IntN(w.cfg.DropEvery)
	}
	actions := make([]int32, l.N)
	req := make([]byte, 0, server.StepRequestSize(l.N))
	for k := 0; time.Now().Before(deadline) && ctx.Err() == nil; k++ {
		if err := checkReply(reply, &l); err != nil {
			w.fail("%v", err)
			return false
		}
		pickActions(reply, &l, w.rng, actions)
		req = server.AppendStepRequest(req[:0], uint32(k), actions)
		t0 := time.Now()
		conn.SetWriteDeadline(t0.Add(10 * time.Second))
		if err := conn.WriteMessage(websocket.BinaryMessage, req); err != nil {
			w.fail("write step: %v", err)
			return false
		}
		if k == dropAt {
			// Abrupt disconnect: the request is in flight, the reply is
			// never read, no close frame.
			conn.NetConn().Close()
			w.drops++
			return true
		}
		var slept time.Duration
		if w.slow && k%16 == 15 {
			time.Sleep(w.cfg.SlowDelay)
			slept = w.cfg.SlowDelay
			w.slowReads++
		}
		conn.SetReadDeadline(time.Now().Add(30 * time.Second))
		mt, data, err := conn.ReadMessage()
		if err != nil {
			w.fail("read step reply: %v", err)
			return false
		}
		if mt != websocket.BinaryMessage {
			w.fail("step answered with %.200s", data)
			return false
		}
		if len(data) < 4 || binary.LittleEndian.Uint32(data[len(data)-server.RequestIDSize:]) != uint32(k) {
			w.fail("step reply does not echo request id %d", k)
			return false
		}
		w.lat.add(time.Since(t0) - slept)
		w.requests++
		reply = data
	}
	conn.SetWriteDeadline(time.Now().Add(5 * time.Second))
	conn.WriteJSON(map[string]any{"type": "close"})
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	for {
		if _, _, err := conn.ReadMessage(); err != nil {
			var ce *websocket.CloseError
			if !errors.As(err, &ce) || ce.Code != websocket.CloseNormalClosure {
				if !errors.Is(err, io.EOF) {
					w.fail("close: %v", err)
				}
			}
			return false
		}
	}
}

// maxRefused bounds the retries of one reconnection (about 5 s).
const maxRefused = 250

// checkReply checks a step or reset reply's header against the layout.
func checkReply(b []byte, l *server.Layout) error {
	le := binary.LittleEndian
	if len(b) < server.ReplyHeaderSize || string(b[:2]) != server.Magic || b[2] != server.Version {
		return fmt.Errorf("bad reply header % x", b[:min(len(b), 8)])
	}
	if int(le.Uint32(b[4:])) != l.N || int(le.Uint32(b[8:])) != l.O || int(le.Uint32(b[12:])) != l.A || int(le.Uint32(b[16:])) != l.P {
		return fmt.Errorf("reply header % x does not match the layout", b[:24])
	}
	if len(b) < l.FixedSize {
		return fmt.Errorf("reply of %d bytes, want at least %d", len(b), l.FixedSize)
	}
	for i := range l.N {
		cp := int32(le.Uint32(b[l.CurrentPlayer+4*i:]))
		if cp < -1 || int(cp) >= l.P {
			return fmt.Errorf("environment %d: current player %d of %d", i, cp, l.P)
		}
	}
	return nil
}

// pickActions picks a uniformly random legal action of every environment
// (0 where none is legal: a finished episode, whose action is ignored).
func pickActions(b []byte, l *server.Layout, rng *rand.Rand, actions []int32) {
	for i := range actions {
		mask := b[l.Mask+l.A*i : l.Mask+l.A*(i+1)]
		n := 0
		for _, v := range mask {
			n += int(v)
		}
		actions[i] = 0
		if n == 0 {
			continue
		}
		k := rng.IntN(n)
		for a, v := range mask {
			if v != 0 {
				if k == 0 {
					actions[i] = int32(a)
					break
				}
				k--
			}
		}
	}
}

// hist is a log-linear latency histogram: 32 buckets per power of two of
// nanoseconds (quantiles within about 2%).
type hist struct {
	counts [64 * 32]uint64
	n      uint64
	max    int64
}

func bucket(ns int64) int {
	if ns < 32 {
		return int(max(ns, 0))
	}
	e := bits.Len64(uint64(ns)) - 1 // 2^e <= ns < 2^(e+1)
	sub := int((uint64(ns) >> (e - 5)) & 31)
	return (e-4)*32 + sub
}

// lower returns the smallest latency of bucket k.
func lower(k int) int64 {
	if k < 32 {
		return int64(k)
	}
	e := k/32 + 4
	return int64(1)<<e | int64(k%32)<<(e-5)
}

func (h *hist) add(d time.Duration) {
	ns := int64(d)
	h.counts[bucket(ns)]++
	h.n++
	h.max = max(h.max, ns)
}

func (h *hist) merge(o *hist) {
	for i, c := range o.counts {
		h.counts[i] += c
	}
	h.n += o.n
	h.max = max(h.max, o.max)
}

// quantile returns the q-quantile (the midpoint of its bucket).
func (h *hist) quantile(q float64) time.Duration {
	if h.n == 0 {
		return 0
	}
	rank := uint64(math.Ceil(q * float64(h.n)))
	var seen uint64
	for k, c := range h.counts {
		seen += c
		if seen >= max(rank, 1) {
			lo, hi := lower(k), lower(k+1)
			return time.Duration(min((lo+hi)/2, h.max))
		}
	}
	return time.Duration(h.max)
}

// rssPoller samples the server's process_resident_memory_bytes.
type rssPoller struct {
	url, token string
	client     http.Client
	mu         sync.Mutex
	max        int64
}

func newRSSPoller(url, token string) *rssPoller {
	return &rssPoller{url: url, token: token, client: http.Client{Timeout: 5 * time.Second}}
}

// read returns the current value, or 0 when it cannot be read.
func (p *rssPoller) read() int64 {
	req, err := http.NewRequest("GET", p.url, nil)
	if err != nil {
		return 0
	}
	if p.token != "" {
		req.Header.Set("Authorization", "Bearer "+p.token)
	}
	resp, err := p.client.Do(req)
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil || resp.StatusCode != http.StatusOK {
		return 0
	}
	for _, line := range strings.Split(string(body), "\n") {
		if v, ok := strings.CutPrefix(line, "process_resident_memory_bytes "); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err == nil {
				p.mu.Lock()
				p.max = max(p.max, int64(f))
				p.mu.Unlock()
				return int64(f)
			}
		}
	}
	return 0
}

func (p *rssPoller) poll(stop chan struct{}) {
	t := time.NewTicker(250 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			p.read()
		}
	}
}

func (p *rssPoller) peak() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.max
}
