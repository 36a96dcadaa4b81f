package play

import (
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"path/filepath"

	"github.com/galaxygym/galaxygym/datasets"
)

// WriteReplayHTML writes one self-contained HTML file that replays
// episode id of the dataset in dir, seen from view (FaceUp or a seat):
// every frame (picture, text board, the move made and the legal ones, the
// returns) is inside the file, with a scrubber and the arrow keys, and it
// opens with a double-click, with no server. Errors: the dataset's
// (datasets.ReadManifest) and *RequestError (not_replayable,
// unknown_episode, bad_seat).
func WriteReplayHTML(w io.Writer, dir string, id int64, view int) error {
	m, err := datasets.ReadManifest(dir)
	if err != nil {
		return err
	}
	ep, err := LoadEpisode(dir, m, id)
	if err != nil {
		return err
	}
	name := filepath.Base(filepath.Clean(dir))
	frames := make([]*Frame, 0, len(ep.actions)+1)
	for t := 0; t <= len(ep.actions); t++ {
		f, err := ep.Replay(name, id, t, view)
		if err != nil {
			return err
		}
		frames = append(frames, f)
	}
	data, err := json.Marshal(frames) // escapes <, > and & for a script element
	if err != nil {
		return err
	}
	title := fmt.Sprintf("%s, episode %d (%s)", name, id, m.EnvID)
	return replayTemplate.Execute(w, map[string]any{"Title": title, "Frames": template.JS(data)})
}

var replayTemplate = template.Must(template.New("replay").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
body { margin: 0; background: #11151c; color: #e8ecf1; font: 15px/1.4 system-ui, sans-serif; }
header { padding: 8px 14px; border-bottom: 1px solid #2c3542; display: flex; gap: 12px; align-items: center; flex-wrap: wrap; }
h1 { font-size: 17px; margin: 0; }
main { display: grid; grid-template-columns: minmax(0, 1fr) 340px; gap: 10px; padding: 10px; }
#board { max-width: 100%; image-rendering: pixelated; }
button { font: inherit; color: #e8ecf1; background: #0e1217; border: 1px solid #2c3542; border-radius: 5px; padding: 3px 9px; cursor: pointer; }
input[type=range] { width: 320px; }
.chip { font-size: 13px; padding: 2px 6px; margin: 2px 0; background: #1a2029; border-radius: 3px; }
.chip.chosen { outline: 2px solid #f2c14e; font-weight: 600; }
pre { font-size: 12.5px; background: #0e1217; padding: 6px; overflow: auto; max-height: 40vh; }
.muted { color: #95a1b2; }
@media (max-width: 900px) { main { grid-template-columns: 1fr; } }
</style></head>
<body>
<header><h1>{{.Title}}</h1>
<button id="first" title="Home">|◀</button><button id="prev" title="←">◀</button>
<button id="next" title="→">▶</button><button id="last" title="End">▶|</button>
<input id="scrub" type="range" min="0" value="0"><span id="step"></span></header>
<main><div><img id="board" alt="the board"></div>
<div><div id="move"></div><div id="returns" class="muted"></div><h3>Legal moves</h3><div id="legal"></div><pre id="text"></pre></div></main>
<script type="application/json" id="frames">{{.Frames}}</script>
<script>
const frames = JSON.parse(document.getElementById('frames').textContent);
const $ = (id) => document.getElementById(id);
const words = (a) => a.words || a.name.replace(/[-_]/g, ' ');
let at = 0;
function show(i) {
  at = Math.max(0, Math.min(frames.length - 1, i));
  const f = frames[at];
  $('board').src = f.view.image;
  $('text').textContent = f.view.text;
  $('scrub').max = frames.length - 1; $('scrub').value = at;
  $('step').textContent = 'step ' + at + ' / ' + (frames.length - 1);
  $('move').textContent = f.over ? 'End: ' + (f.result ? f.result.outcome + (f.result.scores ? ', scores ' + f.result.scores.join(' / ') : ', score ' + f.result.score) : '')
    : 'seat ' + f.player + ' (' + f.seats[f.player] + ') plays ' + words(f.action);
  $('returns').textContent = 'returns so far: ' + f.returns.join(' / ');
  const legal = $('legal'); legal.innerHTML = '';
  for (const a of f.legal || []) {
    const d = document.createElement('div');
    d.className = 'chip' + (f.action && a.a === f.action.a ? ' chosen' : '');
    d.textContent = words(a);
    legal.append(d);
  }
  history.replaceState(null, '', '#step=' + at);
}
$('first').onclick = () => show(0); $('last').onclick = () => show(frames.length - 1);
$('prev').onclick = () => show(at - 1); $('next').onclick = () => show(at + 1);
$('scrub').oninput = () => show(+$('scrub').value);
document.addEventListener('keydown', (e) => {
  const k = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: frames.length - 1 }[e.key];
  if (k !== undefined) { show(k); e.preventDefault(); }
});
show(+(new URLSearchParams(location.hash.slice(1)).get('step') || 0));
</script></body></html>
`))
