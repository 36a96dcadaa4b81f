// The page's view of a training session (render_mode="human" in Python):
// opened by the URL the training client prints,
// /play/#training=ID&env=K&key=KEY, it shows environment K of that
// session read-only, every card face up, as the server sends its latest
// position (at most ten a second), with a banner and no seats. Its own
// websocket (op watch_training, docs/play.md) closes when the tab leaves.
// It draws through the page's window.gg (app.js).

const $ = (id) => document.getElementById(id);

const W = { session: '', env: 0, views: 0, view: null, ended: false, error: '', ws: null };
window.galaxygymWatch = W; // for the browser tests and the curious

function banner(text, cls) {
  $('banner').className = cls;
  $('banner').textContent = text;
}

function show(m) {
  const v = m.view;
  W.view = v; W.views++;
  banner(`${m.banner} · ${v.env} · turn ${v.turn}${v.over ? ' · over' : ''}`, 'muted');
  $('board').src = v.image;
  $('board').dataset.turn = v.turn;
  $('text').textContent = v.text;
  $('hand').hidden = true;
  $('controls').hidden = true;
  $('replay-controls').hidden = true;
  $('actions').innerHTML = '';
  $('actions-title').textContent = 'Read-only, every card face up: the training client plays';
  $('status').textContent = v.over ? 'The episode is over.' : `Player ${v.to_move} to move.`;
  if (window.gg) window.gg.drawScene(v);
}

function start(h) {
  W.session = h.get('training');
  W.env = parseInt(h.get('env') || '0', 10);
  document.querySelector('main').classList.add('running');
  $('show-setup').hidden = true;
  $('auto-forced').closest('label').hidden = true; // nothing is played here
  banner(`watching training session ${W.session.slice(0, 8)}…, env ${W.env}: waiting for its position`, 'muted');
  connect(h);
  // A server with a token: the page's token box (app.js) stores it; then
  // this connection tries again with it.
  $('token-form').addEventListener('submit', () => setTimeout(() => connect(h), 0));
  window.addEventListener('pagehide', () => { if (W.ws) W.ws.close(); });
}

function connect(h) {
  if (W.ws && W.ws.readyState <= WebSocket.OPEN) return;
  const q = new URLSearchParams(location.search).get('token') || sessionStorage.getItem('galaxygym-token') || '';
  const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
  const ws = new WebSocket(`${proto}//${location.host}/play/ws${q ? '?token=' + encodeURIComponent(q) : ''}`);
  ws.onopen = () => ws.send(JSON.stringify({ op: 'watch_training', req: 'watch', session: W.session, key: h.get('key') || '', index: W.env }));
  ws.onmessage = (ev) => {
    const m = JSON.parse(ev.data);
    if (m.op === 'training') show(m);
    else if (m.op === 'training_ended') {
      W.ended = true;
      banner(`training session ${W.session.slice(0, 8)}… ended; the last position it showed stays below`, 'muted');
    } else if (m.op === 'error') {
      W.error = m.code;
      banner(`Cannot watch training session ${W.session.slice(0, 8)}…: ${m.code}: ${m.message}`, 'bad');
    }
  };
  ws.onclose = () => { if (!W.ended && !W.error) banner(`watching training session ${W.session.slice(0, 8)}…: disconnected`, 'bad'); };
  W.ws = ws;
}

const h = new URLSearchParams(location.hash.slice(1));
if (h.has('training')) start(h);
