// The galaxygym page: play, watch and replay over /play/ws (docs/protocol.md,
// "The page's protocol"). Plain JavaScript, no framework, no build.

const $ = (id) => document.getElementById(id);
// The seats' colours: the renderers' own (Pilots of Gallaxia, Galaxy Fighters).
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
  msg.req = String(++st.reqs);
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
      keepLink(m.status);
      renderTable();
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
      renderFrame();
      break;
    case 'error':
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
  // On a phone the picture keeps at least its own pixels (the renderers'
  // text is small) and the stage scrolls sideways when it is wider.
  const f = phone ? Math.min(Math.max(fw, 1), 3) : Math.min(fw, fh, 3);
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
    if (mv || k === s.last_player) {
      const m = document.createElement('div');
      m.className = 'move small';
      m.textContent = mv ? `${k === s.last_player ? 'just played' : 'last'}: ${words(mv)}` : 'just moved';
      li.append(m);
    }
    list.append(li);
  }
  el.append(list);
  const extra = document.createElement('div');
  extra.className = 'muted small';
  let txt = `step ${s.steps}`;
  if (view) txt += ` · turn ${view.turn}`;
  if (s.last) txt += ` · last move, seat ${s.last_player}: ${words(s.last)}`;
  else if (s.last_player >= 0) txt += ` · last move by seat ${s.last_player}`;
  extra.textContent = txt;
  el.append(extra);
}

function fmt(x) { return Number.isInteger(x) ? String(x) : x.toFixed(2); }

function renderResult(result, seats, record) {
  const el = $('result');
  if (!result) { el.hidden = true; el.innerHTML = ''; return; }
  el.hidden = false;
  el.innerHTML = '';
  const h = document.createElement('h3');
  h.textContent = `Result: ${result.outcome}`;
  el.append(h);
  const scores = result.scores || [];
  el.dataset.scores = JSON.stringify(scores);
  el.dataset.outcome = result.outcome;
  const ul = document.createElement('ul');
  for (let k = 0; k < scores.length; k++) {
    const li = document.createElement('li');
    li.className = 'score';
    li.style.borderColor = SEAT_COLORS[k % SEAT_COLORS.length];
    li.textContent = `seat ${k} (${seats[k]}): score ${fmt(scores[k])}, ${result.outcomes[k]}, rank ${result.ranks[k]}`;
    ul.append(li);
  }
  if (!scores.length) {
    const li = document.createElement('li');
    li.textContent = `score ${fmt(result.score)}`;
    ul.append(li);
  }
  el.append(ul);
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
  renderResult(s.result, s.seats, s.record);
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
      $('hand').hidden = true; $('hand').innerHTML = '';
      $('handover').dataset.seat = v.seat;
      return;
    }
  }
  $('handover').hidden = true;
  $('board-wrap').hidden = false;
  if (mine) st.shownSeat = v.seat;
  if (v) {
    $('board').src = v.image;
    $('board').dataset.turn = v.turn;
    $('text').textContent = v.text;
  }
  $('hand').hidden = !(mine && v && v.hand);
  renderHand(mine ? v : null, s);
  requestAnimationFrame(fitBoard); // the hand below the board changes the board's room
  let title = '';
  if (s.over) title = '';
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
      b.title = a.name;
      b.addEventListener('click', () => send({ op: 'act', table: s.table, seat: v.seat, action: a.a, steps: s.steps }));
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

// ---- the hand, drawn as cards

function cardEl(c) {
  const d = document.createElement('div');
  d.className = `pcard ${c.class}`;
  d.dataset.code = c.code;
  d.title = `${c.name} (${c.code})`;
  const code = document.createElement('span');
  code.className = 'code'; code.textContent = c.code;
  const name = document.createElement('span');
  // Long words may break in the middle, with a hyphen (a soft hyphen).
  name.className = 'name'; name.textContent = c.name.replace(/[A-Za-z]{8,}/g, (w) => `${w.slice(0, Math.ceil(w.length / 2))}\u00ad${w.slice(Math.ceil(w.length / 2))}`);
  if (c.code.toLowerCase() !== c.name.toLowerCase()) d.append(code);
  d.append(name);
  if (c.value) {
    const val = document.createElement('span');
    val.className = 'value'; val.textContent = c.value;
    d.append(val);
  }
  return d;
}

// cardActions returns the legal actions that play card c: Express's
// start/add/swap/discard/way moves naming its code, a Wild Car's wild
// moves, a disaster's attack; Pilots' card moves.
const DISASTER_OPS = { BR: 'broken', DR: 'derail', ST: 'steal', SW: 'switch', WR: 'wreck' };
function cardActions(env, c, actions) {
  return (actions || []).filter((a) => {
    const tok = a.name.split('-');
    if (env.startsWith('express-')) {
      if (c.code === 'WD') return tok[0] === 'wild' || (tok[0] !== 'swap' && tok.includes('WD'));
      if (DISASTER_OPS[c.code]) return tok[0] === DISASTER_OPS[c.code] || tok.includes(c.code);
      return tok.includes(c.code) && tok[0] !== 'wild';
    }
    if (env.startsWith('pilots-of-gallaxia-')) {
      if (tok[0] !== 'card') return false;
      if (c.class === 'planet') return tok[tok.length - 1] === c.code.split('.')[1];
      return tok[tok.length - 1] === c.code;
    }
    return false;
  });
}

function renderHand(v, s) {
  const box = $('hand');
  box.innerHTML = '';
  if (!v || !v.hand) return;
  if (!v.cards) { box.classList.remove('cards'); box.textContent = v.hand; return; }
  box.classList.add('cards');
  const myMove = !s.over && v.to_move === v.seat && v.actions;
  const head = document.createElement('div');
  head.className = 'hand-head';
  const canPlay = myMove && v.cards.some((c) => cardActions(v.env, c, v.actions).length > 0);
  head.textContent = `Your hand: ${v.cards.length} card${v.cards.length === 1 ? '' : 's'}` + (canPlay ? ' (click a card to play it)' : '');
  const row = document.createElement('div');
  row.className = 'cardrow';
  for (const c of v.cards) {
    const el = cardEl(c);
    if (myMove) {
      const acts = cardActions(v.env, c, v.actions);
      el.classList.toggle('playable', acts.length > 0);
      el.classList.toggle('picked', st.pick === c.code && st.pickVersion === st.version);
      el.addEventListener('click', () => pickCard(c, acts, v, s));
    }
    row.append(el);
  }
  box.append(head, row);
  if (v.trains && v.trains.length) {
    const th = document.createElement('div');
    th.className = 'hand-head';
    th.textContent = 'Your trains (the locomotive is hidden from the others)';
    box.append(th);
    for (const tr of v.trains) {
      const r = document.createElement('div');
      r.className = 'cardrow train';
      const lab = document.createElement('span');
      lab.className = 'train-no'; lab.textContent = `train ${tr.n}`;
      const loco = cardEl(tr.loco);
      loco.classList.add('loco');
      r.append(lab, loco);
      for (const c of tr.cars) r.append(cardEl(c));
      box.append(r);
    }
  }
  const more = document.createElement('details');
  more.className = 'small muted';
  const sum = document.createElement('summary');
  sum.textContent = 'as text';
  const pre = document.createElement('pre');
  pre.textContent = v.hand;
  more.append(sum, pre);
  box.append(more);
}

// pickCard plays the card's move when it has one, or shows only its
// moves among the buttons when it has several.
function pickCard(c, acts, v, s) {
  if (acts.length === 0) { toast(`no move plays ${c.name} now`); return; }
  if (acts.length === 1) {
    send({ op: 'act', table: s.table, seat: v.seat, action: acts[0].a, steps: s.steps });
    return;
  }
  st.pick = c.code; st.pickVersion = st.version;
  st.pickActs = new Set(acts.map((a) => a.a));
  for (const el of $('hand').querySelectorAll('.pcard')) el.classList.toggle('picked', el.dataset.code === c.code && !el.classList.contains('loco'));
  $('actions-title').dataset.pick = c.name;
  applyFilter();
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
  renderResult(f.result, f.seats, '');
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
