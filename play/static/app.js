// The galaxygym page: play, watch and replay over /play/ws (docs/protocol.md,
// "The page's protocol"). Plain JavaScript, no framework, no build.

const $ = (id) => document.getElementById(id);
// The seats' colours: the same as the games' pictures draw them.
const SEAT_COLORS = ['#50c8ff', '#78e66e', '#ff9646', '#e66ee6', '#f0f078', '#ff5a5a'];

const st = {
  ws: null, envs: [], datasets: [], tab: 'play', reqs: 0,
  table: null, view: null, shownSeat: null, handoverOK: null, version: 0, joins: {},
  replay: null, frame: null, presetDone: false,
};
window.galaxygym = st; // for the browser tests and the curious

function token() {
  const q = new URLSearchParams(location.search).get('token');
  if (q) { sessionStorage.setItem('galaxygym-token', q); return q; }
  return sessionStorage.getItem('galaxygym-token') || '';
}

function connect() {
  const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
  const t = token();
  const ws = new WebSocket(`${proto}//${location.host}/play/ws${t ? '?token=' + encodeURIComponent(t) : ''}`);
  st.ws = ws;
  let opened = false;
  ws.onopen = () => { opened = true; $('conn').textContent = 'connected'; $('token-box').hidden = true; send({ op: 'hello' }); };
  ws.onclose = (ev) => {
    $('conn').textContent = 'disconnected' + (ev.reason ? ': ' + ev.reason : '');
    if (!opened) { $('token-box').hidden = false; }
  };
  ws.onmessage = (ev) => onMessage(JSON.parse(ev.data));
}

function send(msg) {
  msg.req = msg.req || String(++st.reqs); // research.js names its own requests
  if (st.ws && st.ws.readyState === WebSocket.OPEN) st.ws.send(JSON.stringify(msg));
  return msg.req;
}

// ---- secrets: a seat belongs to the person who took it, known by the
// seat's secret, which this tab keeps in its sessionStorage (never in a
// link): a reload joins the seat again with it; another tab, without it,
// is a spectator.

function secretKey(table, seat) { return `galaxygym-secret:${table}:${seat}`; }

function storedSeats(table) {
  const out = [];
  for (let i = 0; i < sessionStorage.length; i++) {
    const k = sessionStorage.key(i);
    const pre = `galaxygym-secret:${table}:`;
    if (k.startsWith(pre) && k.slice(pre.length) !== 'creator') out.push(parseInt(k.slice(pre.length), 10));
  }
  return out.sort((a, b) => a - b);
}

// joinSeat takes seat k of a table, with the seat's secret when this tab
// holds it (the same person coming back).
function joinSeat(table, k) {
  const msg = { op: 'join', table, seat: k };
  const secret = sessionStorage.getItem(secretKey(table, k));
  if (secret) msg.secret = secret;
  st.joins[send(msg)] = { table, seat: k };
}

// watchTable opens a table as a spectator (as its creator with the
// creator's secret).
function watchTable(table, view) {
  const msg = { op: 'watch', table };
  if (view !== undefined && !Number.isNaN(view)) msg.view = view;
  const secret = sessionStorage.getItem(secretKey(table, 'creator'));
  if (secret) msg.secret = secret;
  send(msg);
}

// keepLink puts the table (and this tab's own seat) in the address bar,
// so that a reload comes back to it; the secret stays in sessionStorage.
function keepLink(s) {
  if (location.hash.startsWith('#replay')) return;
  const want = `#table=${s.table}` + (s.yours.length ? `&seat=${s.yours[0]}` : '');
  if (location.hash !== want) history.replaceState(null, '', want);
}

function toast(text) {
  const el = $('toast');
  el.textContent = text; el.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { el.hidden = true; }, 6000);
}

const COMPASS = { n: 'north', ne: 'north-east', e: 'east', se: 'south-east', s: 'south', sw: 'south-west', w: 'west', nw: 'north-west' };

// human turns an action name into words: dashes become spaces, compass
// points are spelled out ("move-ne" reads "move north-east").
function human(name) {
  return name.split(/[-_]/).map((w) => COMPASS[w] || w).join(' ');
}

// words is an action as a player says it: the server's words, else its name.
function words(a) { return a.words || human(a.name); }

function onMessage(m) {
  switch (m.op) {
    case 'hello':
      st.envs = m.envs; st.datasets = m.datasets; st.record = m.record;
      fillEnvs(); fillDatasets(); applyHash();
      break;
    case 'secret':
      sessionStorage.setItem(secretKey(m.table, m.creator ? 'creator' : m.seat), m.secret);
      break;
    case 'table':
      st.table = m.status; st.view = m.view; st.frame = null; st.version++;
      $('chooser').hidden = true;
      keepLink(m.status);
      renderTable();
      tellView(m.view, m.status);
      break;
    case 'hint':
      st.hint = m;
      showHint();
      break;
    case 'episodes':
      fillEpisodes(m.episodes);
      break;
    case 'replay':
      st.frame = m.frame; st.table = null; st.version++;
      $('chooser').hidden = true;
      renderFrame();
      tellView(m.frame.view, m.frame);
      break;
    case 'error':
      if (m.req && m.req === st.actReq) st.actedAt = null; // a refused move may be made again
      toast(`${m.code}: ${m.message}`);
      $('toast').dataset.code = m.code;
      if (st.joins[m.req]) {
        // A seat this tab cannot take: watch the game instead.
        const j = st.joins[m.req];
        delete st.joins[m.req];
        if (m.code === 'bad_secret') sessionStorage.removeItem(secretKey(j.table, j.seat));
        if (m.code !== 'unknown_table' && (!st.table || st.table.table !== j.table || !st.table.yours.length)) watchTable(j.table);
      }
      if (m.code === 'unknown_dataset' || m.code === 'not_replayable' || m.code === 'unknown_episode' || m.code === 'bad_dataset') {
        $('banner').textContent = `Cannot replay: ${m.message}`;
        $('banner').className = 'bad';
      }
      break;
  }
}

// ---- setup

function currentEnv() { return st.envs.find((e) => e.id === $('env').value); }

function fillEnvs() {
  const sel = $('env');
  sel.innerHTML = '';
  for (const e of st.envs) sel.add(new Option(e.id, e.id));
  fillParams();
}

function playersParam(e) { return e.params.find((p) => p.name === 'players'); }

function fillParams() {
  const e = currentEnv();
  if (!e) return;
  $('env-doc').textContent = e.description || '';
  const box = $('params');
  box.innerHTML = '';
  st.extraParams = {};
  const old = $('setup').querySelector('label.players');
  if (old) old.remove();
  for (const p of e.params) {
    if (p.name === 'max_turns' || p.name === 'shaping') continue; // training knobs
    const lab = document.createElement('label');
    lab.title = p.doc;
    if (p.name === 'players') lab.className = 'players';
    lab.append(human(p.name) + ' ');
    let input;
    if (p.choices && p.choices.length) {
      input = document.createElement('select');
      for (const c of p.choices) input.add(new Option(human(c), c));
      input.value = p.default;
    } else if (p.kind === 'bool') {
      input = document.createElement('input'); input.type = 'checkbox'; input.checked = !!p.default;
    } else {
      input = document.createElement('input'); input.type = 'number';
      if (p.kind === 'int') input.step = 1; else input.step = 'any';
      if (p.min !== undefined) input.min = p.min;
      if (p.max) input.max = p.max;
      input.value = p.default;
    }
    input.dataset.param = p.name; input.dataset.kind = p.kind;
    input.addEventListener('change', () => { if (p.name === 'players') fillLineup(); });
    lab.append(input);
    if (p.name === 'players') $('lineup').before(lab); else box.append(lab);
  }
  const hs = $('hint-agent');
  hs.innerHTML = '';
  hs.add(new Option('none', ''));
  for (const a of e.hints || []) hs.add(new Option(a, a));
  fillLineup();
}

function paramValues() {
  const out = { ...st.extraParams };
  for (const el of $('setup').querySelectorAll('[data-param]')) {
    const k = el.dataset.kind;
    if (k === 'bool') out[el.dataset.param] = el.checked;
    else if (k === 'int') out[el.dataset.param] = parseInt(el.value, 10);
    else if (k === 'float') out[el.dataset.param] = parseFloat(el.value);
    else out[el.dataset.param] = el.value;
  }
  return out;
}

function numPlayers() {
  const e = currentEnv();
  const el = $('setup').querySelector('[data-param="players"]');
  return el ? parseInt(el.value, 10) : e.min_players;
}

function fillLineup(preset) {
  const e = currentEnv();
  const n = numPlayers();
  const box = $('lineup');
  const old = preset || [...box.querySelectorAll('select.seat')].map((s) => s.value);
  box.innerHTML = '';
  for (let k = 0; k < n; k++) {
    const row = document.createElement('div');
    row.className = 'seat-row';
    const dot = document.createElement('span');
    dot.className = 'dot'; dot.style.background = SEAT_COLORS[k % SEAT_COLORS.length];
    const sel = document.createElement('select');
    sel.className = 'seat'; sel.dataset.seat = k;
    if (e.humans && st.tab !== 'watch') {
      sel.add(new Option('human (you)', 'human'));
      sel.add(new Option('human, invited by link', 'invite'));
    }
    for (const a of e.agents) sel.add(new Option(a, a));
    let want = old[k] || (k === 0 && st.tab !== 'watch' && e.humans ? 'human' : (e.agents.includes('heuristic') ? 'heuristic' : 'random'));
    if ([...sel.options].some((o) => o.value === want)) sel.value = want;
    sel.addEventListener('change', () => fillLineup());
    row.append(dot, ` seat ${k} `, sel);
    if (sel.value === 'mcts') {
      const sims = document.createElement('input');
      sims.type = 'number'; sims.min = 1; sims.max = 100000; sims.value = 200; sims.className = 'sims';
      sims.title = 'mcts simulations per move';
      row.append(' sims ', sims);
    }
    if (sel.value === 'policy') {
      const w = document.createElement('select');
      w.className = 'weights';
      for (const f of e.weights) w.add(new Option(f, f));
      row.append(' ', w);
    }
    box.append(row);
  }
}

function lineup() {
  const seats = [], opts = {};
  for (const row of $('lineup').querySelectorAll('.seat-row')) {
    const name = row.querySelector('select.seat').value;
    seats.push(name === 'invite' ? 'human' : name);
    const sims = row.querySelector('.sims');
    if (sims) opts.mcts = { sims: String(sims.value) };
    const w = row.querySelector('.weights');
    if (w) opts.policy = { weights: w.value };
  }
  return {
    env: $('env').value, params: paramValues(), seats, agent_opts: opts,
    delay_ms: parseInt($('delay').value, 10), paused: $('stepwise').checked,
    hint: seats.includes('human') ? $('hint-agent').value : '',
  };
}

// fitBoard scales the picture to the stage. Down: the browser's smooth
// scaling. Up: the picture is first enlarged by a whole factor without
// smoothing (the renderers' pixel text stays sharp), then shown at the
// exact size, which the browser reaches by smoothly shrinking the larger
// copy: crisp at any size.
function fitBoard() {
  const img = $('board'), box = $('board-wrap'), cv = $('board-canvas');
  if (!img.naturalWidth) return;
  const w = img.naturalWidth, h = img.naturalHeight;
  const phone = window.matchMedia('(max-width: 900px)').matches;
  const fw = box.clientWidth / w, fh = phone ? Infinity : (box.clientHeight || window.innerHeight - 120) / h;
  // On a phone the picture fits the column's width (nothing scrolls
  // sideways); the board drawn from the scene is the readable one.
  const f = phone ? Math.min(fw, 3) : Math.min(fw, fh, 3);
  if (f < 1) {
    img.hidden = false; cv.hidden = true;
    img.style.width = `${Math.floor(w * f)}px`;
    img.style.height = `${Math.floor(h * f)}px`;
    return;
  }
  const k = Math.ceil(f);
  cv.width = w * k; cv.height = h * k;
  const ctx = cv.getContext('2d');
  ctx.imageSmoothingEnabled = false;
  ctx.drawImage(img, 0, 0, w * k, h * k);
  cv.style.width = `${Math.floor(w * f)}px`;
  cv.style.height = `${Math.floor(h * f)}px`;
  img.hidden = true; cv.hidden = false;
}

function running(on) {
  document.querySelector('main').classList.toggle('running', on);
  $('show-setup').hidden = !on;
  requestAnimationFrame(fitBoard);
}

// take lists the seats this browser plays: those set to 'human (you)';
// those 'invited by link' stay free for the link.
function take() {
  return [...$('lineup').querySelectorAll('select.seat')].map((sel, k) => (sel.value === 'human' ? k : -1)).filter((k) => k >= 0);
}

function start() {
  running(true);
  st.shownSeat = null; st.handoverOK = null;
  send({ op: 'new', lineup: lineup(), take: take() });
}

// ---- live tables

function seatLabel(k, s) {
  if (s.heirs && s.heirs[k]) return `${s.heirs[k]} (its person left)`;
  let who = s.seats[k] === 'human' ? (s.yours.includes(k) ? 'you' : (s.held[k] ? 'a person' : 'free human seat')) : s.seats[k];
  if (s.away && s.away[k]) who += ` (away: the seat is kept for them up to ${s.grace_s} s)`;
  return who;
}

function renderStatus(el, s, view, returns) {
  el.innerHTML = '';
  const h = document.createElement('div');
  h.className = 'status-head';
  const over = s.over;
  h.textContent = over ? 'Game over' : (s.to_move >= 0 ? `Seat ${s.to_move} to act` : '');
  el.append(h);
  const list = document.createElement('ul');
  list.className = 'seats';
  for (let k = 0; k < s.seats.length; k++) {
    const li = document.createElement('li');
    li.style.borderColor = SEAT_COLORS[k % SEAT_COLORS.length];
    if (k === s.to_move && !over) li.classList.add('acting');
    if (k === s.last_player) li.classList.add('last');
    if (view && view.seat === k) li.classList.add('viewed');
    let t = `seat ${k}: ${seatLabel(k, s)}`;
    if (returns && returns.length) t += ` · return ${fmt(returns[k])}`;
    li.textContent = t;
    const mv = s.moves && s.moves[k];
    const pub = s.public && s.public[k];
    if (mv || pub || k === s.last_player) {
      const m = document.createElement('div');
      m.className = 'move small';
      const said = mv ? words(mv) : pub;
      m.textContent = said ? `${k === s.last_player ? 'just played' : 'last'}: ${said}` : 'just moved';
      li.append(m);
    }
    list.append(li);
  }
  el.append(list);
  const extra = document.createElement('div');
  extra.className = 'muted small';
  let txt = `step ${s.steps}`;
  if (view && view.turn !== undefined) txt += ` · turn ${view.turn}`;
  if (s.last) txt += ` · last move, seat ${s.last_player}: ${words(s.last)}`;
  else if (s.last_public) txt += ` · last move: ${s.last_public}`;
  else if (s.last_player >= 0) txt += ` · last move by seat ${s.last_player}`;
  extra.textContent = txt;
  el.append(extra);
}

function fmt(x) { return Number.isInteger(x) ? String(x) : x.toFixed(2); }

// renderResult is the game-over panel: the headline, every seat's return
// (the table's returns), the game's score, outcome and rank, how the game
// ended, and the rematch.
function renderResult(result, s, record, returns, ended) {
  const seats = s.seats;
  const el = $('result');
  if (!result) { el.hidden = true; el.innerHTML = ''; return; }
  el.hidden = false;
  el.innerHTML = '';
  const h = document.createElement('h3');
  h.id = 'headline';
  h.textContent = headline(s, result, returns || [], ended);
  el.append(h);
  const scores = result.scores || [];
  el.dataset.scores = JSON.stringify(scores);
  el.dataset.returns = JSON.stringify(returns || []);
  el.dataset.outcome = result.outcome;
  const ul = document.createElement('ul');
  for (let k = 0; k < seats.length; k++) {
    const li = document.createElement('li');
    li.className = 'score';
    li.dataset.seat = k;
    li.dataset.ret = returns && returns.length > k ? returns[k] : '';
    li.style.borderColor = seatColor(k);
    let t = `seat ${k} (${seats[k]}${s.yours && s.yours.includes(k) ? ', you' : ''})`;
    if (returns && returns.length > k) t += `: return ${fmt(returns[k])}`;
    if (scores.length > k && (!returns || scores[k] !== returns[k])) t += `, score ${fmt(scores[k])}`;
    if (result.outcomes && result.outcomes.length > k) t += `, ${result.outcomes[k]}`;
    if (seats.length > 1 && result.ranks && result.ranks.length > k) t += `, rank ${result.ranks[k]}`;
    li.textContent = t;
    ul.append(li);
  }
  el.append(ul);
  if (st.table && s.over && s.control) {
    const b = document.createElement('button');
    b.id = 'rematch'; b.className = 'primary';
    b.textContent = s.rematch ? 'Rematch started' : 'Rematch';
    b.disabled = !!s.rematch;
    b.title = 'the same lineup, the next seed, every seat moved one along';
    b.addEventListener('click', () => { b.disabled = true; send({ op: 'rematch', table: s.table }); });
    el.append(b);
  }
  if (!record && !st.record && seats.includes('human') && st.table) {
    const p = document.createElement('p');
    p.className = 'muted small';
    p.textContent = 'Not recorded: start the server with --record DIR to keep the games people play as datasets.';
    el.append(p);
  }
  if (record) {
    const p = document.createElement('p');
    p.id = 'record-name';
    p.dataset.name = record;
    const a = document.createElement('a');
    a.href = `#replay=${encodeURIComponent(record)}&episode=0&step=0&view=-1`;
    a.textContent = `Recorded as dataset ${record}: replay it`;
    p.append(a);
    el.append(p);
  }
}

function renderTable() {
  const s = st.table, v = st.view;
  $('banner').className = 'muted';
  $('replay-controls').hidden = true;
  $('controls').hidden = false;
  $('pause').textContent = s.paused ? 'Resume' : 'Pause';
  // Only the people seated (or the creator, while nobody is seated) control.
  $('pause').disabled = !s.control;
  $('pause').title = s.control ? '' : 'only the people seated at this game pause it';
  const wv = $('w-view');
  $('w-view-box').hidden = s.yours.length > 0;
  if (s.yours.length === 0) {
    wv.innerHTML = '';
    if (s.seats.includes('human') && !s.over) {
      // A person is seated: spectators see what everyone sees, no hand.
      wv.add(new Option('the public view', '-2'));
    } else {
      wv.add(new Option('every card face up', '-1'));
      s.seats.forEach((a, k) => wv.add(new Option(`seat ${k}'s view (${a})`, String(k))));
    }
    if (v) wv.value = String(v.seat);
  }
  $('advance').disabled = !s.paused || !s.control;
  renderStatus($('status'), s, v, s.returns);
  renderResult(s.result, s, s.record, s.returns, v && v.scene ? v.scene.ended : '');
  if (s.error) toast(s.error);
  if (v && v.error) { toast(v.error); return; }
  const mine = v && s.yours.includes(v.seat);
  // Hot seat: a device shared by several seats hides the next seat's view
  // until its player says they are ready.
  if (mine && st.shownSeat !== null && st.shownSeat !== v.seat && s.yours.length > 1 && !s.over) {
    if (st.handoverOK !== v.seat) {
      $('handover-text').textContent = `Pass the device to seat ${v.seat}. Seat ${st.shownSeat}: look away.`;
      $('handover').hidden = false;
      $('board-wrap').hidden = true; $('actions').innerHTML = ''; $('text').textContent = '';
      $('scene').hidden = true; $('scene').innerHTML = '';
      $('handover').dataset.seat = v.seat;
      return;
    }
  }
  $('handover').hidden = true;
  if (mine) st.shownSeat = v.seat;
  const myMove = !!(mine && !s.over && v.to_move === v.seat && v.actions && v.actions.length);
  // A move answers the position shown now (the board keeps a piece's
  // element, and its handler, from one position to the next for its
  // animation): it is sent only while it is still legal for this seat, once
  // per decision (a double click, or a click racing the forced move's
  // timer, would otherwise answer a position that is gone).
  const act = (a) => {
    const cur = st.table, cv = st.view;
    if (!cur || !cv || cur.table !== s.table || cur.over || cv.seat !== v.seat || cv.to_move !== v.seat) return;
    if (!(cv.actions || []).some((x) => x.a === a.a)) return;
    const key = `${cur.table}:${cv.seat}:${cur.steps}`;
    if (st.actedAt === key && Date.now() - st.actedTime < 3000) return;
    st.actedAt = key; st.actedTime = Date.now();
    st.actReq = send({ op: 'act', table: cur.table, seat: cv.seat, action: a.a, steps: cur.steps });
  };
  if (v) {
    $('board').src = v.image;
    $('board').dataset.turn = v.turn;
    $('text').textContent = v.text;
    $('hand').hidden = !(mine && v.hand && !v.scene);
    $('hand').textContent = mine && v.hand ? v.hand : '';
    drawScene(v, $('scene'), myMove ? act : null, s.last ? lastIds(s.last.a) : (mine && s.moves && s.moves[v.seat] && s.last_player === v.seat ? lastIds(s.moves[v.seat].a) : []));
    showBoard(v);
    st.prevMoves = new Map(((v.scene && v.scene.moves) || []).map((m) => [m.a, m]));
  }
  howToPlay(s.env);
  // No agent at the table: nothing to pause or step.
  const agentsSeated = s.seats.some((x, k) => x !== 'human' || (s.heirs && s.heirs[k]));
  $('pause').hidden = !agentsSeated; $('advance').hidden = !agentsSeated;
  if (myMove && v.actions.length === 1 && autoForced() && st.forcedAt !== `${s.table}:${s.steps}`) {
    st.forcedAt = `${s.table}:${s.steps}`;
    const only = v.actions[0];
    setTimeout(() => { if (st.table && st.table.steps === s.steps && st.table.table === s.table) act(only); }, 350);
  }
  let title = '';
  if (s.over) title = $('result').hidden ? 'Game over.' : $('headline').textContent;
  else if (mine && v.to_move === v.seat) title = `Your move, seat ${v.seat}`;
  else if (mine) title = `Waiting for seat ${s.to_move}`;
  else if (v) title = v.seat === -1 ? 'Watching, every card face up' : v.seat === -2 ? 'Watching: the public view (a person is seated, so no hand is shown)' : `Watching seat ${v.seat}'s view`;
  $('banner').textContent = title || (s.over ? 'Game over.' : '');
  $('actions-title').textContent = '';
  const acts = $('actions');
  acts.innerHTML = '';
  acts.dataset.version = st.version;
  if (!s.over && mine && v.actions && v.actions.length) {
    $('actions-title').textContent = `${v.actions.length} legal move${v.actions.length > 1 ? 's' : ''}`;
    for (const a of v.actions) {
      const b = document.createElement('button');
      b.className = 'act'; b.dataset.a = a.a;
      b.style.borderColor = SEAT_COLORS[v.seat % SEAT_COLORS.length];
      b.textContent = words(a);
      b.title = a.help ? `${a.help} (${a.name})` : a.name;
      b.addEventListener('click', () => act(a));
      acts.append(b);
    }
    if (s.hint) {
      const hb = document.createElement('button');
      hb.id = 'hint'; hb.className = 'hint';
      hb.textContent = `Hint (${s.hint})`;
      hb.title = `ask ${s.hint} what it thinks of your moves, from your own view only`;
      hb.addEventListener('click', () => { hb.disabled = true; send({ op: 'hint', table: s.table, seat: v.seat }); });
      $('actions-title').append(' ', hb);
      const note = document.createElement('span');
      note.id = 'hint-note'; note.className = 'muted small';
      $('actions-title').append(' ', note);
      showHint();
    }
  } else if (s.thought && s.thought.length && !s.over) {
    $('actions-title').textContent = `What seat ${s.last_player} (${s.seats[s.last_player]}) thought`;
    thoughts(acts, s.thought, s.last ? s.last.a : -1, s.thought_unit);
  } else if (v && v.actions && v.actions.length && !s.over) {
    $('actions-title').textContent = `Legal moves of seat ${v.to_move}`;
    for (const a of v.actions) acts.append(chip(a, false));
  }
  $('filter').hidden = acts.children.length < 16;
  applyFilter();
  const link = shareLinkFor(s);
  $('share').hidden = !link;
  $('share-link').value = link || '';
}

// score is the number an agent's thought ranks an action by: a policy's
// probability, an mcts's simulations, a heuristic's value; -Infinity for
// an action it did not weigh.
function score(a) {
  if (a.p !== undefined) return a.p;
  if (a.n !== undefined) return a.n;
  return a.v !== undefined ? a.v : -Infinity;
}

// thoughtText is an action's numbers as the page writes them.
function thoughtText(a) {
  if (a.p !== undefined) return `${(100 * a.p).toFixed(1)}%`;
  if (a.n !== undefined) return a.n ? `${a.n} sims · ${fmt(a.v)}` : '0 sims';
  return a.v !== undefined ? fmt(a.v) : '–';
}

// ---- the scene: the board the game presents (View.scene), drawn as SVG
// and clicked. The page knows no game: it draws spaces, pieces and zones
// of cards, and plays the moves whose Select and Target name what was
// clicked (docs/play.md, "Playing").

const SVGNS = 'http://www.w3.org/2000/svg';

function seatColor(k) { return k >= 0 ? SEAT_COLORS[k % SEAT_COLORS.length] : '#b8c2cf'; }

function svgEl(tag, attrs) {
  const el = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, v);
  return el;
}

// hashColor gives a card family without a colour of its own a steady one.
function hashColor(s) {
  let h = 0;
  for (const ch of s || '') h = (h * 31 + ch.charCodeAt(0)) % 360;
  return `hsl(${h}, 45%, 78%)`;
}

function shapeEl(shape, w, h, fill) {
  switch (shape) {
    case 'disc': return svgEl('ellipse', { cx: w / 2, cy: h / 2, rx: w / 2, ry: h / 2, fill });
    case 'hex': return svgEl('polygon', { fill, points: `${w / 4},0 ${3 * w / 4},0 ${w},${h / 2} ${3 * w / 4},${h} ${w / 4},${h} 0,${h / 2}` });
    case 'triangle': return svgEl('polygon', { fill, points: `${w / 2},0 ${w},${h} 0,${h}` });
    case 'diamond': return svgEl('polygon', { fill, points: `${w / 2},0 ${w},${h / 2} ${w / 2},${h} 0,${h / 2}` });
    default: return svgEl('rect', { width: w, height: h, rx: Math.min(w, h) / 8, fill });
  }
}

function titled(el, text) {
  if (!text) return;
  const t = svgEl('title');
  t.textContent = text;
  el.append(t);
}

// moveIndex says, for the moves of a decision, which ids may be clicked
// first (a Select, or the Target of a move without Select) and what each
// picked id lights up.
function moveIndex(moves) {
  const first = new Map(), then = new Map();
  const add = (m, k, v) => { if (!m.has(k)) m.set(k, []); m.get(k).push(v); };
  for (const mv of moves) {
    if (mv.select && mv.select.length) {
      for (const s of mv.select) {
        add(first, s, mv);
        for (const t of mv.target || []) add(then, `${s}\u0000${t}`, mv);
      }
    } else if (mv.target && mv.target.length) {
      for (const t of mv.target) add(first, t, mv);
    }
  }
  return { first, then };
}

// piecePlaces lays the pieces out: each on its space (several side by
// side), or at its own point.
function piecePlaces(sc) {
  const spaces = new Map(sc.spaces.map((s) => [s.id, s]));
  const on = new Map();
  for (const p of sc.pieces) if (p.at) { if (!on.has(p.at)) on.set(p.at, []); on.get(p.at).push(p); }
  const unit = Math.max(8, Math.min(sc.width, sc.height) / 14);
  const out = new Map();
  for (const p of sc.pieces) {
    if (!p.at || !spaces.has(p.at)) { out.set(p.id, { x: (p.x || 0) - unit / 2, y: (p.y || 0) - unit / 2, size: unit }); continue; }
    const sp = spaces.get(p.at), list = on.get(p.at), i = list.indexOf(p), n = list.length;
    const size = Math.max(4, Math.min(sp.h * 0.72, (sp.w * 0.92) / n));
    const x0 = sp.x + (sp.w - size * n) / 2;
    out.set(p.id, { x: x0 + i * size + size * 0.06, y: sp.y + (sp.h - size) / 2 + size * 0.06, size: size * 0.88 });
  }
  return out;
}

// drawScene draws view.scene into box: the seats' facts, the board as
// SVG, the zones as rows of cards. With play (a function of a move) the
// things that some move involves are clickable; last are the ids the
// previous move involved, to highlight.
function drawScene(view, box, play, last) {
  const raw = view && view.scene;
  box = box || $('scene');
  if (!raw) { box.hidden = true; box.innerHTML = ''; return; }
  // A scene's lists may be null in JSON (an empty Go slice).
  const sc = { ...raw, spaces: raw.spaces || [], pieces: raw.pieces || [], zones: raw.zones || [], seats: raw.seats || [], moves: raw.moves || [] };
  box.hidden = false;
  const oldSvg = box.querySelector('svg.board');
  const oldPieces = new Map();
  if (oldSvg) for (const g of oldSvg.querySelectorAll('g.piece')) oldPieces.set(g.dataset.id, g);
  // Where each card stood, to slide it from there to its new place (a
  // card played from a hand to a train, a train's card discarded).
  const oldCards = new Map();
  for (const c of box.querySelectorAll('.pcard[data-id]')) oldCards.set(c.dataset.id, { rect: c.getBoundingClientRect(), code: c.dataset.code });
  box.innerHTML = '';
  // The seats' public facts.
  const bar = document.createElement('div');
  bar.className = 'seatbar';
  sc.seats.forEach((f, k) => {
    const d = document.createElement('div');
    d.className = 'seatfact' + (k === view.to_move ? ' acting' : '') + (k === view.seat ? ' viewer' : '');
    d.style.borderColor = seatColor(k);
    const name = document.createElement('b');
    name.textContent = f.name;
    d.append(name);
    if (f.score) d.append(` · ${f.score}`);
    if (f.facts && f.facts.length) {
      const fs = document.createElement('div');
      fs.className = 'small muted';
      fs.textContent = f.facts.join(' · ');
      d.append(fs);
    }
    bar.append(d);
  });
  box.append(bar);
  if (sc.status || sc.ended) {
    const stl = document.createElement('div');
    stl.className = 'scene-status small';
    stl.textContent = sc.ended ? `Game over: ${sc.ended}` : sc.status;
    box.append(stl);
  }
  const moves = play ? (sc.moves || []) : [];
  const idx = moveIndex(moves);
  // Moves that involve nothing on the board (refuel, pass, declare) are
  // buttons in the board's own prompt line, as on a game site's status
  // bar; the move list below stays for the keyboard and screen readers.
  const loose = moves.filter((m) => !(m.select && m.select.length) && !(m.target && m.target.length));
  if (loose.length) {
    const pr = document.createElement('div');
    pr.className = 'scene-prompt';
    pr.setAttribute('role', 'group');
    pr.setAttribute('aria-label', 'moves with nothing on the board to click');
    for (const m of loose) {
      const b = document.createElement('button');
      b.className = 'prompt-move'; b.dataset.a = m.a;
      b.textContent = m.words || human(m.name); b.title = m.help || m.name;
      b.addEventListener('click', (ev) => { ev.stopPropagation(); st.sel = null; play(m); });
      pr.append(b);
    }
    box.append(pr);
  }
  const picked = play && st.sel && st.sel.version === st.version ? st.sel.id : null;
  const lit = new Set();
  if (picked) for (const k of idx.then.keys()) if (k.startsWith(picked + '\u0000')) lit.add(k.slice(picked.length + 1));
  const lastSet = new Set(last || []);
  const mark = (el, id) => {
    el.dataset.id = id;
    if (idx.first.has(id)) el.classList.add('selectable');
    if (id === picked) el.classList.add('picked');
    if (lit.has(id)) el.classList.add('lit');
    if (lastSet.has(id)) el.classList.add('last');
  };
  if (sc.width > 0 && sc.height > 0) {
    // A scene may ask to be turned for its seat (a quarter turn, clockwise,
    // about the board's centre), with every label kept upright.
    const rot = ((sc.rotate || 0) % 360 + 360) % 360;
    const quarter = rot === 90 || rot === 270;
    const vw = quarter ? sc.height : sc.width, vh = quarter ? sc.width : sc.height;
    const svg = svgEl('svg', { viewBox: `0 0 ${vw} ${vh}`, class: 'board', role: 'img', 'aria-label': 'the board' });
    svg.append(svgEl('rect', { width: vw, height: vh, fill: '#0c1016', rx: 4 }));
    const layer = rot ? svgEl('g', { transform: { 90: `translate(${sc.height} 0) rotate(90)`, 180: `translate(${sc.width} ${sc.height}) rotate(180)`, 270: `translate(0 ${sc.width}) rotate(270)` }[rot] || '' }) : svg;
    if (rot) svg.append(layer);
    const upright = (tx) => { if (rot) tx.setAttribute('transform', `rotate(${-rot} ${tx.getAttribute('x')} ${tx.getAttribute('y')})`); return tx; };
    const font = Math.max(6, Math.min(sc.width, sc.height) / 40);
    for (const sp of sc.spaces) {
      const g = svgEl('g', { class: 'space', transform: `translate(${sp.x},${sp.y})` });
      const sh = shapeEl(sp.shape, sp.w, sp.h, sp.color || '#243042');
      sh.setAttribute('stroke', sp.owner >= 0 ? seatColor(sp.owner) : '#3a4656');
      sh.setAttribute('stroke-width', Math.max(1, Math.min(sp.w, sp.h) / 30));
      g.append(sh);
      if (sp.label) {
        const tx = svgEl('text', { x: sp.w / 2, y: Math.min(sp.h - 2, font + 1), 'text-anchor': 'middle', 'font-size': font, fill: '#e8ecf1' });
        tx.textContent = sp.label;
        g.append(upright(tx));
      }
      titled(g, sp.title || sp.label);
      mark(g, sp.id);
      layer.append(g);
    }
    const places = piecePlaces(sc);
    for (const p of sc.pieces) {
      const at = places.get(p.id);
      let g = oldPieces.get(p.id);
      const moved = g && g.dataset.at !== `${at.x},${at.y}`;
      g = svgEl('g', { class: 'piece' + (moved ? ' moved' : '') });
      g.style.transform = oldPieces.get(p.id) ? oldPieces.get(p.id).style.transform : `translate(${at.x}px, ${at.y}px)`;
      g.dataset.at = `${at.x},${at.y}`;
      const inner = svgEl('g', { transform: p.rotate ? `rotate(${p.rotate} ${at.size / 2} ${at.size / 2})` : '' });
      const sh = shapeEl(p.shape, at.size, at.size, p.color || seatColor(p.owner));
      sh.setAttribute('stroke', p.owner >= 0 ? seatColor(p.owner) : '#11151c');
      sh.setAttribute('stroke-width', Math.max(1, at.size / 12));
      inner.append(sh);
      g.append(inner);
      if (p.label) {
        const tx = svgEl('text', { x: at.size / 2, y: at.size / 2, 'text-anchor': 'middle', 'dominant-baseline': 'central',
          'font-size': Math.max(5, at.size * (p.label.length > 2 ? 0.32 : 0.5)), fill: '#11151c', 'font-weight': 700 });
        tx.textContent = p.label;
        g.append(upright(tx));
      }
      titled(g, p.title || p.label);
      mark(g, p.id);
      layer.append(g);
      // Move the piece from where it stood (a short CSS transition).
      requestAnimationFrame(() => { g.style.transform = `translate(${at.x}px, ${at.y}px)`; });
    }
    box.append(svg);
  }
  for (const z of sc.zones) {
    const zd = document.createElement('div');
    zd.className = 'zone' + (z.private ? ' private' : '');
    zd.style.borderColor = seatColor(z.owner);
    const head = document.createElement('div');
    head.className = 'zone-head';
    // Zones are named for everyone ("player 1's new train"); the viewer's
    // own say so, the others name their seat unless the name does.
    const owner = z.owner >= 0 && sc.seats[z.owner] ? sc.seats[z.owner].name : '';
    head.textContent = z.name + (z.owner >= 0 && z.owner === view.seat ? ' (yours)' : owner && !z.name.includes(owner) ? ` (${owner})` : '') +
      (z.count ? ` · ${z.count} card${z.count === 1 ? '' : 's'}` : '');
    zd.append(head);
    mark(zd, z.id);
    const row = document.createElement('div');
    row.className = 'cardrow';
    for (const c of z.cards || []) row.append(cardEl(c, mark));
    const backs = Math.min(Math.max(0, (z.count || 0) - (z.cards || []).length), 8);
    for (let i = 0; i < backs; i++) row.append(cardEl({ id: '', code: '', name: '', class: 'back' }));
    zd.append(row);
    box.append(zd);
  }
  slideCards(box, oldCards);
  if (play) {
    box.onclick = (ev) => {
      // Of the things under the pointer (a piece over its space), a lit
      // target first, then something to pick, then the topmost. The thing
      // the browser says was clicked comes first: elementsFromPoint can
      // miss a piece the click landed on (seen on a small phone: the
      // clicks fell through to the space beneath the piece).
      const own = ev.target && ev.target.closest ? ev.target.closest('[data-id]') : null;
      const hits = [own, ...document.elementsFromPoint(ev.clientX, ev.clientY).map((e) => e.closest('[data-id]'))].filter((e) => e && box.contains(e));
      const el = hits.find((e) => e.classList.contains('lit')) || hits.find((e) => e.classList.contains('selectable')) || hits[0];
      if (!el) return;
      ev.stopPropagation();
      clickThing(el.dataset.id, idx, moves, play);
    };
  } else box.onclick = null;
}

// slideCards moves each card that changed place from where it stood
// (its old box, by id) to its new one, in a short animation; none where a
// person asked for reduced motion.
function slideCards(box, oldCards) {
  if (!oldCards.size || !box.animate || window.matchMedia('(prefers-reduced-motion: reduce)').matches) return;
  const cards = [...box.querySelectorAll('.pcard[data-id]')];
  // A card whose id is new comes from a face-up card of the same code whose
  // id is gone (a game may name cards by their place: a card played from a
  // hand to a train changes its id).
  const ids = new Set(cards.map((c) => c.dataset.id));
  const gone = new Map();
  for (const [id, o] of oldCards) if (!ids.has(id) && o.code) { if (!gone.has(o.code)) gone.set(o.code, []); gone.get(o.code).push(o); }
  for (const c of cards) {
    let was = oldCards.get(c.dataset.id);
    if (!was && c.dataset.code && gone.has(c.dataset.code)) was = gone.get(c.dataset.code).shift();
    if (!was) continue;
    was = was.rect;
    const now = c.getBoundingClientRect();
    const dx = was.left - now.left, dy = was.top - now.top;
    if (Math.abs(dx) < 2 && Math.abs(dy) < 2) continue;
    c.animate([{ transform: `translate(${dx}px, ${dy}px)`, zIndex: 5 }, { transform: 'none', zIndex: 5 }], { duration: 320, easing: 'ease-out' });
  }
}

function cardEl(c, mark) {
  const d = document.createElement('div');
  d.className = `pcard ${c.class === 'back' || (!c.code && !c.name) ? 'back' : ''}`;
  if (d.className.trim() === 'pcard') d.style.background = c.color || hashColor(c.class);
  d.dataset.code = c.code || '';
  d.title = c.name ? `${c.name}${c.code && c.code !== c.name ? ` (${c.code})` : ''}${c.class ? ` · ${c.class}` : ''}` : 'face down';
  if (c.code && c.name && c.code.toLowerCase() !== c.name.toLowerCase()) {
    const code = document.createElement('span');
    code.className = 'code'; code.textContent = c.code;
    d.append(code);
  }
  const name = document.createElement('span');
  // Long words may break in the middle, with a hyphen (a soft hyphen).
  name.className = 'name'; name.textContent = (c.name || c.code || '').replace(/[A-Za-z]{8,}/g, (w) => `${w.slice(0, Math.ceil(w.length / 2))}\u00ad${w.slice(Math.ceil(w.length / 2))}`);
  d.append(name);
  if (c.value) {
    const val = document.createElement('span');
    val.className = 'value'; val.textContent = c.value;
    d.append(val);
  }
  if (mark && c.id) mark(d, c.id);
  return d;
}

// clickThing: a click on id. With a piece or card picked, a lit target
// plays the moves of the pair; else a selectable id is picked (played at
// once when its moves need nothing more), or a target-only move is played.
function clickThing(id, idx, moves, play) {
  const picked = st.sel && st.sel.version === st.version ? st.sel.id : null;
  if (picked && idx.then.has(`${picked}\u0000${id}`)) { choose(idx.then.get(`${picked}\u0000${id}`), play); return; }
  const ms = idx.first.get(id);
  if (!ms) { st.sel = null; redraw(); return; }
  if (id === picked) { st.sel = null; redraw(); return; }
  const needTarget = ms.some((m) => m.select && m.select.includes(id) && m.target && m.target.length);
  const direct = ms.filter((m) => !(m.select && m.select.includes(id)) || !m.target || !m.target.length);
  if (!needTarget) { choose(direct, play); return; }
  st.sel = { id, version: st.version };
  redraw();
}

// choose plays the one move, or shows a small chooser of several.
function choose(ms, play) {
  if (ms.length === 1) { st.sel = null; play(ms[0]); return; }
  const box = $('chooser');
  box.innerHTML = '';
  const h = document.createElement('div');
  h.className = 'small muted';
  h.textContent = 'Which move?';
  box.append(h);
  for (const m of ms) {
    const b = document.createElement('button');
    b.className = 'act choice'; b.dataset.a = m.a;
    b.textContent = m.words; b.title = m.help || m.name;
    b.addEventListener('click', () => { box.hidden = true; st.sel = null; play(m); });
    box.append(b);
  }
  const no = document.createElement('button');
  no.textContent = 'cancel';
  no.addEventListener('click', () => { box.hidden = true; });
  box.append(no);
  box.hidden = false;
}

function redraw() { if (st.frame) renderFrame(); else if (st.table) renderTable(); }

// lastIds are the ids the previous move involved, read from the moves of
// the scene it was chosen in (when this page saw them).
function lastIds(a) {
  const mv = a !== undefined && a !== null && st.prevMoves ? st.prevMoves.get(a) : null;
  return mv ? [...(mv.select || []), ...(mv.target || [])] : [];
}

// The API of the page for its other scripts (research.js): draw a view
// read-only on the board, hear every view, send on the table's websocket.
const viewHooks = [];
window.gg = {
  drawScene: (view) => { drawScene(view, $('scene'), null, []); showBoard(view); },
  // live draws the table's current position again, playable (after a past
  // position was shown read-only).
  live: () => { if (st.table) renderTable(); else if (st.frame) renderFrame(); },
  onView: (fn) => { viewHooks.push(fn); },
  send: (msg) => send(msg),
};

function tellView(view, about) {
  for (const fn of viewHooks) { try { fn(view, about); } catch (e) { console.error(e); } }
}

// showBoard shows the scene, or the picture (the toggle, or a game that
// does not present itself).
function showBoard(v) {
  const scene = !!(v && v.scene) && !st.picture;
  $('scene').hidden = !scene;
  $('board-wrap').hidden = scene;
  $('picture-toggle').hidden = !(v && v.scene && v.image);
  $('picture-toggle').textContent = st.picture ? 'Show the board' : 'Show the picture';
  if (!scene) requestAnimationFrame(fitBoard);
}

// autoForced: play a decision's only move without a click (a setting).
function autoForced() { return localStorage.getItem('galaxygym-auto-forced') !== '0'; }

// howToPlay fills the rules panel of the table's game.
function howToPlay(envID) {
  const e = st.envs.find((x) => x.id === envID);
  const box = $('howto');
  box.hidden = !(e && e.how_to_play);
  if (!e || !e.how_to_play || box.dataset.env === envID) return;
  box.dataset.env = envID;
  const body = $('howto-body');
  body.innerHTML = '';
  for (const para of e.how_to_play.split(/\n\s*\n/)) {
    const p = document.createElement('p');
    p.textContent = para.trim();
    body.append(p);
  }
}

// headline says how the game ended for whoever reads it: a seated
// person's own outcome and rank among the players, the team's result in
// a game played together, or the winners for a spectator.
function headline(s, result, returns, ended) {
  const n = s.seats.length;
  const outs = result && result.outcomes ? result.outcomes : [];
  const ranks = result && result.ranks ? result.ranks : [];
  const why = ended ? ` ${ended.charAt(0).toUpperCase()}${ended.slice(1)}.` : '';
  if (!outs.length) return `Game over.${why}`;
  // Every seat with one outcome: a draw (everyone shares the first
  // place), or a game played together (all won or all lost).
  const same = outs.every((o) => o === outs[0]);
  if (same && n > 1 && outs[0] === 'draw') {
    return `A draw: every seat shares the first place${s.yours && s.yours.length ? `, your return ${fmt(returns[s.yours[0]])}` : ''}.${why}`;
  }
  const team = n === 1 || same;
  const said = { win: 'won', loss: 'lost', draw: 'drew' };
  if (team) {
    const who = n === 1 ? (s.yours && s.yours.length ? 'You' : 'The player') : (s.yours && s.yours.length ? 'Your team' : 'The team');
    return `${who} ${said[outs[0]] || outs[0]}: score ${fmt(result.score)}.${why}`;
  }
  if (s.yours && s.yours.length === 1) {
    const k = s.yours[0];
    const tied = ranks.filter((r) => r === ranks[k]).length > 1;
    return `You ${said[outs[k]] || outs[k]}: ${tied ? 'shared ' : ''}place ${ranks[k]} of ${n}, return ${fmt(returns[k])}.${why}`;
  }
  const best = outs.map((o, k) => (o === 'win' ? k : -1)).filter((k) => k >= 0);
  if (best.length) return `Seat${best.length > 1 ? 's' : ''} ${best.join(', ')} won.${why}`;
  const top = ranks.map((r, k) => (r === 1 ? k : -1)).filter((k) => k >= 0);
  return `Seats ${top.join(', ')} share the first place.${why}`;
}

function thoughts(box, list, chosen, unit) {
  const vals = list.map(score).filter((x) => x > -Infinity);
  const lo = Math.min(0, ...vals), hi = Math.max(...vals);
  const sorted = [...list].sort((x, y) => score(y) - score(x));
  if (unit) {
    const u = document.createElement('div');
    u.className = 'muted small unit';
    u.textContent = list.some((a) => a.n !== undefined) ? `simulations · ${unit}` : unit;
    box.append(u);
  }
  for (const a of sorted.slice(0, 40)) {
    const row = chip(a, a.a === chosen);
    const x = score(a);
    const bar = document.createElement('span');
    bar.className = 'bar';
    bar.style.width = `${x === -Infinity ? 0 : hi > lo ? Math.max(2, 100 * (x - lo) / (hi - lo)) : 100}%`;
    row.append(bar);
    const num = document.createElement('span');
    num.className = 'num';
    num.textContent = thoughtText(a);
    row.append(num);
    box.append(row);
  }
}

// showHint writes a hint's numbers into the action buttons and outlines
// the move the hint agent would play.
function showHint() {
  const s = st.table, h = st.hint;
  if (!s || !h || h.table !== s.table || h.steps !== s.steps) return;
  const by = new Map((h.thought || []).map((a) => [a.a, a]));
  for (const b of $('actions').querySelectorAll('button.act')) {
    const a = by.get(parseInt(b.dataset.a, 10));
    b.classList.toggle('hinted', parseInt(b.dataset.a, 10) === h.choice);
    let num = b.querySelector('.num');
    if (!a) { if (num) num.remove(); continue; }
    if (!num) { num = document.createElement('span'); num.className = 'num'; b.append(num); }
    num.textContent = ` ${thoughtText(a)}`;
  }
  const choice = (st.view && st.view.actions || []).find((a) => a.a === h.choice);
  $('hint-note').textContent = `${h.agent} would play ${choice ? words(choice) : '?'}` +
    (h.thought && h.thought.length && h.unit ? ` (numbers: ${h.thought.some((a) => a.n !== undefined) ? 'simulations · ' : ''}${h.unit})` : '');
}

function chip(a, chosen) {
  const d = document.createElement('div');
  d.className = 'chip' + (chosen ? ' chosen' : '');
  d.dataset.a = a.a;
  const n = document.createElement('span');
  n.textContent = words(a);
  d.title = a.name;
  d.append(n);
  return d;
}

function applyFilter() {
  const q = $('filter').value.trim().toLowerCase();
  const pick = st.pickVersion === st.version && st.pickActs ? st.pickActs : null;
  for (const el of $('actions').children) {
    el.hidden = (q !== '' && !el.textContent.toLowerCase().includes(q)) ||
      (pick !== null && el.dataset.a !== undefined && !pick.has(parseInt(el.dataset.a, 10)));
  }
  const note = $('pick-note');
  note.hidden = pick === null;
  if (pick !== null) note.firstChild.textContent = `Moves with ${$('actions-title').dataset.pick}: `;
}

function shareLinkFor(s) {
  if (!s) return '';
  const free = s.seats.findIndex((x, k) => x === 'human' && !s.held[k] && !(s.heirs && s.heirs[k]));
  const base = location.origin + location.pathname;
  if (free >= 0) return `${base}#table=${s.table}&seat=${free}`;
  return `${base}#table=${s.table}`;
}

// ---- replays

function fillDatasets() {
  const sel = $('dataset');
  sel.innerHTML = '';
  for (const d of st.datasets) {
    const o = new Option(`${d.name} (${d.env}, ${d.episodes} episodes)${d.replayable ? '' : ' — cannot replay'}`, d.name);
    sel.add(o);
  }
  if (!st.datasets.length) sel.add(new Option('no datasets served (galaxygym serve --datasets DIR)', ''));
  datasetChanged();
}

function datasetChanged() {
  const d = st.datasets.find((x) => x.name === $('dataset').value);
  $('dataset-doc').textContent = d ? (d.replayable ? `seats: ${d.seats.join(', ')}` : `Cannot be replayed: ${d.reason}`) : '';
  $('dataset-doc').className = d && !d.replayable ? 'bad small' : 'muted small';
  $('episode').innerHTML = '';
  if (d && d.replayable) send({ op: 'episodes', dataset: d.name });
}

function fillEpisodes(list) {
  const sel = $('episode');
  sel.innerHTML = '';
  for (const e of list) {
    sel.add(new Option(`#${e.id}: ${e.length} steps, ${e.outcome}, returns ${e.returns.map(fmt).join('/')}`, e.id));
  }
}

function openReplay(dataset, episode, step, view) {
  running(true);
  st.replay = { dataset, episode, step: step || 0, view: view ?? -1 };
  st.table = null;
  askFrame();
}

function askFrame() {
  const r = st.replay;
  send({ op: 'replay', dataset: r.dataset, episode: r.episode, step: r.step, view: r.view });
}

function renderFrame() {
  const f = st.frame, r = st.replay;
  r.step = f.step;
  $('handover').hidden = true;
  $('controls').hidden = true;
  $('replay-controls').hidden = false;
  $('board-wrap').hidden = false;
  $('board').src = f.view.image;
  $('board').dataset.turn = f.view.turn;
  $('board').dataset.step = f.step;
  $('text').textContent = f.view.text;
  $('hand').hidden = true;
  drawScene(f.view, $('scene'), null, []);
  showBoard(f.view);
  howToPlay(f.env);
  $('scrub').max = f.length;
  $('scrub').value = f.step;
  $('replay-step').textContent = `step ${f.step} / ${f.length}`;
  $('replay-step').dataset.step = f.step;
  const vs = $('r-view');
  if (vs.options.length !== f.seats.length + 1) {
    vs.innerHTML = '';
    vs.add(new Option('every card face up', '-1'));
    f.seats.forEach((a, k) => vs.add(new Option(`seat ${k} (${a})`, String(k))));
  }
  vs.value = String(f.view.seat);
  $('banner').className = 'muted';
  $('banner').textContent = `Replay: ${f.dataset}, episode ${f.episode} (${f.env})`;
  const s = { seats: f.seats, held: f.seats.map(() => false), yours: [], over: f.over, to_move: f.over ? -1 : f.player,
    last_player: -1, steps: f.step };
  renderStatus($('status'), s, f.view, f.returns);
  renderResult(f.result, s, '', f.returns, f.view.scene ? f.view.scene.ended : '');
  const acts = $('actions');
  acts.innerHTML = '';
  if (!f.over) {
    $('actions-title').textContent = `Seat ${f.player} played ${words(f.action)}` +
      (f.rewards && f.rewards.some((x) => x !== 0) ? ` (rewards ${f.rewards.map(fmt).join('/')})` : '');
    for (const a of f.legal) acts.append(chip(a, a.a === f.action.a));
  } else {
    $('actions-title').textContent = 'End of the episode';
  }
  $('filter').hidden = acts.children.length < 16;
  applyFilter();
  const link = `${location.origin}${location.pathname}#replay=${encodeURIComponent(f.dataset)}&episode=${f.episode}&step=${f.step}&view=${f.view.seat}`;
  $('share').hidden = false;
  $('share-link').value = link;
  history.replaceState(null, '', link);
}

function stepReplay(to) {
  if (!st.frame) return;
  st.replay.step = Math.max(0, Math.min(st.frame.length, to));
  askFrame();
}

// ---- tabs, links, keys

function setTab(tab) {
  st.tab = tab;
  for (const b of $('tabs').children) b.classList.toggle('on', b.dataset.tab === tab);
  $('setup').hidden = tab === 'replay';
  $('replay-setup').hidden = tab !== 'replay';
  $('setup-title').textContent = tab === 'watch' ? 'Watch agents play' : 'New game';
  $('hint-box').hidden = tab === 'watch';
  if (st.envs.length) fillLineup(tab === 'watch' ? [] : undefined);
}

function applyHash() {
  const h = new URLSearchParams(location.hash.slice(1));
  if (h.has('replay')) {
    setTab('replay');
    $('dataset').value = h.get('replay');
    datasetChanged();
    openReplay(h.get('replay'), parseInt(h.get('episode') || '0', 10), parseInt(h.get('step') || '0', 10), parseInt(h.get('view') || '-1', 10));
  } else if (h.has('table')) {
    // The seats this tab holds (their secrets) and the one the link names.
    running(true);
    const id = h.get('table');
    const seats = storedSeats(id);
    if (h.has('seat') && !seats.includes(parseInt(h.get('seat'), 10))) seats.push(parseInt(h.get('seat'), 10));
    if (seats.length) for (const k of seats) joinSeat(id, k);
    else watchTable(id, h.has('view') ? parseInt(h.get('view'), 10) : undefined);
  } else if (h.has('play') || h.has('watch')) {
    // A game set up by its link: #play=ENV&seats=human,heuristic&delay=0&p.players=2
    setTab(h.has('watch') ? 'watch' : 'play');
    $('env').value = h.get('play') || h.get('watch');
    fillParams();
    for (const [k, v] of h) {
      if (!k.startsWith('p.')) continue;
      const el = $('setup').querySelector(`[data-param="${k.slice(2)}"]`);
      if (!el) {
        const spec = currentEnv().params.find((p) => p.name === k.slice(2));
        if (spec) st.extraParams[spec.name] = spec.kind === 'int' ? parseInt(v, 10) : spec.kind === 'float' ? parseFloat(v) : spec.kind === 'bool' ? v === 'true' : v;
        continue;
      }
      if (el.type === 'checkbox') el.checked = v === 'true' || v === '1'; else el.value = v;
    }
    fillLineup(h.has('seats') ? h.get('seats').split(',') : undefined);
    if (h.has('delay')) { $('delay').value = h.get('delay'); $('delay-out').textContent = `${h.get('delay')} ms`; }
    if (h.has('stepwise')) $('stepwise').checked = h.get('stepwise') === '1';
    if (h.has('hint')) $('hint-agent').value = h.get('hint');
    if (h.get('start') === '1') start();
  }
}

function init() {
  for (const b of $('tabs').children) b.addEventListener('click', () => setTab(b.dataset.tab));
  $('env').addEventListener('change', fillParams);
  $('delay').addEventListener('input', () => {
    $('delay-out').textContent = `${$('delay').value} ms`;
    if (st.table && st.table.control) send({ op: 'control', table: st.table.table, delay_ms: parseInt($('delay').value, 10) });
  });
  $('start').addEventListener('click', start);
  $('show-setup').addEventListener('click', () => running(false));
  $('board').addEventListener('load', fitBoard);
  window.addEventListener('resize', fitBoard);
  $('pause').addEventListener('click', () => st.table && send({ op: 'control', table: st.table.table, paused: !st.table.paused }));
  $('advance').addEventListener('click', () => st.table && send({ op: 'control', table: st.table.table, advance: 1 }));
  $('dataset').addEventListener('change', datasetChanged);
  $('open-replay').addEventListener('click', () => {
    const no = $('episode').value !== '' && document.activeElement !== $('episode-no') ? $('episode').value : $('episode-no').value;
    openReplay($('dataset').value, parseInt(no, 10), 0, -1);
  });
  $('episode').addEventListener('change', () => { $('episode-no').value = $('episode').value; });
  $('r-first').addEventListener('click', () => stepReplay(0));
  $('r-prev').addEventListener('click', () => stepReplay(st.replay.step - 1));
  $('r-next').addEventListener('click', () => stepReplay(st.replay.step + 1));
  $('r-last').addEventListener('click', () => stepReplay(st.frame ? st.frame.length : 0));
  $('scrub').addEventListener('input', () => stepReplay(parseInt($('scrub').value, 10)));
  $('r-view').addEventListener('change', () => { st.replay.view = parseInt($('r-view').value, 10); askFrame(); });
  $('filter').addEventListener('input', applyFilter);
  $('picture-toggle').addEventListener('click', () => { st.picture = !st.picture; redraw(); });
  $('auto-forced').checked = autoForced();
  $('auto-forced').addEventListener('change', () => localStorage.setItem('galaxygym-auto-forced', $('auto-forced').checked ? '1' : '0'));
  document.addEventListener('click', (ev) => {
    // A click off the board drops the piece or card picked.
    if (st.sel && !ev.target.closest('#scene') && !ev.target.closest('#chooser')) { st.sel = null; redraw(); }
  });
  $('pick-clear').addEventListener('click', () => { st.pickActs = null; renderTable(); });
  $('w-view').addEventListener('change', () => st.table && send({ op: 'watch', table: st.table.table, view: parseInt($('w-view').value, 10) }));
  $('handover-go').addEventListener('click', () => {
    st.handoverOK = parseInt($('handover').dataset.seat, 10);
    st.shownSeat = st.handoverOK;
    renderTable();
  });
  $('token-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    sessionStorage.setItem('galaxygym-token', $('token').value);
    connect();
  });
  window.addEventListener('hashchange', applyHash);
  document.addEventListener('keydown', (ev) => {
    if (!st.frame || ev.target.tagName === 'INPUT' || ev.target.tagName === 'SELECT') return;
    if (ev.key === 'ArrowRight') stepReplay(st.replay.step + 1);
    else if (ev.key === 'ArrowLeft') stepReplay(st.replay.step - 1);
    else if (ev.key === 'Home') stepReplay(0);
    else if (ev.key === 'End') stepReplay(st.frame.length);
    else return;
    ev.preventDefault();
  });
  connect();
}

init();
