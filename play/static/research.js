// The researcher's panel of the galaxygym page (docs/play.md, "For
// researchers"): the move log, a history scrubber with reward markers,
// the agents' delay while a game runs, the agents' thoughts explained, and
// "play from here". It knows no game: everything it shows comes from the
// server's history replies (op history) and table/replay messages.
//
// It is self-contained: it uses the page's window.gg API when present
// ({ drawScene(view), onView(fn), send(msg) }) and otherwise finds the
// page's websocket itself (the first socket to /play/ws that sends), so it
// works whichever loads first. Its elements go into #research, or a
// panel it appends to the body.
(() => {
  'use strict';
  const R = {
    ws: null,          // the page's socket, once seen
    envs: {},          // env id -> its hello entry (agents)
    table: null,       // the last table status
    view: null,        // the view that came with it
    frame: null,       // the last replay frame
    hist: null,        // the last history reply
    at: null,          // the step the scrubber shows; null: live
    lastAsked: -1,     // the steps of the last log request
    timer: 0,
    reqs: 0,
  };
  const el = (tag, attrs = {}, ...kids) => {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) {
      if (k === 'class') e.className = v;
      else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
      else if (v !== undefined && v !== null && v !== false) e.setAttribute(k, v === true ? '' : String(v));
    }
    for (const k of kids.flat()) if (k !== null && k !== undefined) e.append(k.nodeType ? k : document.createTextNode(String(k)));
    return e;
  };
  const gg = () => (typeof window.gg === 'object' && window.gg) || null;

  // --- the socket: send through gg, listen to every message -------------
  function send(msg) {
    msg.req = msg.req || 'research-' + (++R.reqs);
    const g = gg();
    if (g && typeof g.send === 'function') { g.send(msg); return; }
    if (R.ws && R.ws.readyState === 1) R.ws.send(JSON.stringify(msg));
  }
  function adopt(ws) {
    if (R.ws === ws || !ws || !String(ws.url || '').includes('/play/ws')) return;
    R.ws = ws;
    ws.addEventListener('message', (ev) => {
      let m; try { m = JSON.parse(ev.data); } catch { return; }
      onMessage(m);
    });
  }
  const origSend = WebSocket.prototype.send;
  WebSocket.prototype.send = function (data) { adopt(this); return origSend.call(this, data); };

  function onMessage(m) {
    switch (m.op) {
      case 'hello':
        for (const e of m.envs || []) R.envs[e.id] = e;
        break;
      case 'table':
        if (!m.status) break;
        if (!R.table || R.table.table !== m.status.table) { R.at = null; R.hist = null; R.lastAsked = -1; }
        R.table = m.status; R.view = m.view; R.frame = null;
        askLog();
        render();
        break;
      case 'replay':
        if (!m.frame) break;
        if (!R.frame || R.frame.dataset !== m.frame.dataset || R.frame.episode !== m.frame.episode) {
          R.hist = null;
          send({ op: 'history', dataset: m.frame.dataset, episode: m.frame.episode });
        }
        R.frame = m.frame; R.table = null; R.at = m.frame.step;
        render();
        break;
      case 'history':
        if (!String(m.req || '').startsWith('research-')) break;
        R.hist = m;
        render();
        break;
      case 'error':
        if (String(m.req || '').startsWith('research-')) note(m.message || m.code);
        break;
    }
  }

  // askLog asks for the table's log when its steps changed (at most
  // twice a second), and for the scrubbed position's view.
  function askLog() {
    const s = R.table;
    if (!s || s.steps === R.lastAsked) return;
    if (R.timer) return;
    R.timer = setTimeout(() => {
      R.timer = 0;
      if (!R.table) return;
      R.lastAsked = R.table.steps;
      const msg = { op: 'history', table: R.table.table };
      if (R.at !== null) msg.step = R.at;
      send(msg);
    }, 500);
  }

  function goTo(step) {
    if (R.frame) {
      send({ op: 'replay', dataset: R.frame.dataset, episode: R.frame.episode, step, view: R.frame.view ? R.frame.view.seat : -1 });
      return;
    }
    if (!R.table) return;
    R.at = step === null ? null : Math.max(0, Math.min(step, R.table.steps));
    if (R.at === null) {
      note('');
      if (R.view) draw(R.view, true);
      render();
      return;
    }
    send({ op: 'history', table: R.table.table, step: R.at });
  }

  // draw shows a past position: on the page's board when it offers
  // drawScene, else in the panel (picture and text).
  function draw(view, live) {
    const g = gg();
    const box = document.getElementById('research-position');
    if (g && live && typeof g.live === 'function') {
      g.live(); // the page's own board, playable
      if (box) box.replaceChildren();
    } else if (g && typeof g.drawScene === 'function') {
      g.drawScene(view);
      if (box) box.replaceChildren();
    } else if (box) {
      box.replaceChildren(live ? '' : el('div', {},
        view.image ? el('img', { src: view.image, alt: 'the position', class: 'research-img' }) : null,
        el('pre', { class: 'research-text' }, view.text || '')));
    }
  }

  function note(text) {
    const n = document.getElementById('research-note');
    if (n) n.textContent = text;
  }

  // --- the panel -------------------------------------------------------
  let panel = null;
  function mount() {
    if (panel) return panel;
    panel = el('section', { id: 'research-panel', class: 'research', 'aria-label': 'researcher tools' });
    (document.getElementById('research') || document.body).append(panel);
    return panel;
  }

  function fmt(x) { return typeof x === 'number' ? (Math.abs(x) >= 100 ? x.toFixed(0) : x.toPrecision(3)) : ''; }

  function render() {
    const p = mount();
    const h = R.hist, s = R.table, f = R.frame;
    if (!s && !f) { p.hidden = true; return; }
    p.hidden = false;
    const length = f ? f.length : (s ? s.steps : 0);
    const at = f ? f.step : (R.at === null ? length : R.at);
    const kids = [el('h2', {}, 'Research')];
    if (h && h.from_words) kids.push(el('p', { class: 'muted small' }, 'Started from ' + h.from_words + '.'));

    // Speed while running.
    if (s && s.control && !s.over) {
      const out = el('output', {}, s.delay_ms + ' ms');
      const speed = el('input', { type: 'range', min: 0, max: 3000, step: 100, value: Math.min(3000, s.delay_ms), 'aria-label': 'agents\' delay',
        oninput: () => { out.textContent = speed.value + ' ms'; },
        onchange: () => send({ op: 'control', table: s.table, delay_ms: parseInt(speed.value, 10) }) });
      kids.push(el('label', { class: 'research-speed', title: 'the pause before each agent move, changed while the game runs' }, 'Agent delay ', speed, ' ', out));
    }

    // The scrubber, with a marker at every step whose rewards were earned.
    const scrub = el('input', { type: 'range', min: 0, max: length, value: at, 'aria-label': 'position in the history',
      onchange: () => goTo(parseInt(scrub.value, 10)) });
    const marks = el('div', { class: 'research-marks', 'aria-hidden': 'true' });
    const log = (h && h.log) || [];
    for (const e of log) {
      if (!e.rewards) continue;
      const parts = e.rewards.map((r, k) => (r ? `seat ${k} ${r > 0 ? '+' : ''}${fmt(r)}` : null)).filter(Boolean);
      const seat = e.rewards.findIndex((r) => r);
      marks.append(el('button', { class: 'research-mark seat' + seat, style: `left:${length ? (100 * (e.step + 1)) / length : 0}%`,
        title: `after move ${e.step + 1}: ${parts.join(', ')}`, onclick: () => goTo(e.step + 1) }));
    }
    kids.push(el('div', { class: 'research-scrub' },
      el('button', { onclick: () => goTo(Math.max(0, at - 1)), title: 'step back', 'aria-label': 'step back' }, '◀'),
      el('div', { class: 'research-track' }, marks, scrub),
      el('button', { onclick: () => goTo(Math.min(length, at + 1)), title: 'step forward', 'aria-label': 'step forward' }, '▶'),
      s ? el('button', { onclick: () => goTo(null), disabled: R.at === null, title: 'back to the game as it goes on' }, 'live') : null));
    kids.push(el('p', { class: 'small', id: 'research-where' }, `position ${at} of ${length}` + (R.at !== null && s ? ' (history)' : '')));
    kids.push(el('div', { id: 'research-position' }));
    kids.push(el('p', { id: 'research-note', class: 'research-note', role: 'status' }));

    // Play from here.
    kids.push(playFromHere(at, length));

    // The move log, newest last; the thoughts of each agent move.
    const list = el('ol', { class: 'research-log', start: 1 });
    for (const e of log) {
      const li = el('li', { class: (e.hidden ? 'hidden ' : '') + (e.step + 1 === at ? 'at ' : '') + 'seat' + e.player + (e.branch ? ' branch' : '') });
      li.append(el('button', { class: 'link', onclick: () => goTo(e.step), title: 'the position before this move' }, `seat ${e.player}`), ': ', e.words);
      if (e.rewards) li.append(' ', el('span', { class: 'research-reward' }, e.rewards.map((r, k) => (r ? `seat ${k} ${r > 0 ? '+' : ''}${fmt(r)}` : '')).filter(Boolean).join(', ')));
      if (e.thought) li.append(thoughts(e));
      list.append(li);
    }
    kids.push(el('details', { open: true }, el('summary', {}, `Moves (${log.length})`), log.length ? list : el('p', { class: 'muted small' }, 'no moves yet')));
    p.replaceChildren(...kids);
    // A past position stays drawn while the game goes on (after the page
    // has drawn the live one, for this same message).
    if (R.at !== null && h && h.view && s) setTimeout(() => { if (R.at !== null && R.hist === h) draw(h.view); }, 0);
    // The log scrolls to the position shown, within itself only: the
    // page around it (the moves a person is about to click) stays put.
    const cur = list.querySelector('li.at');
    if (cur) {
      const d = cur.getBoundingClientRect().top - list.getBoundingClientRect().top;
      if (d < 0 || d > list.clientHeight - cur.offsetHeight) list.scrollTop += d - list.clientHeight / 2;
    }
  }

  // thoughts is a move's agent thoughts: the sentence that explains the
  // choice, and each legal action's numbers (visits, mean, probability).
  function thoughts(e) {
    const hasN = e.thought.some((a) => a.n !== undefined), hasV = e.thought.some((a) => a.v !== undefined), hasP = e.thought.some((a) => a.p !== undefined);
    const rows = [...e.thought].sort((x, y) => (y.n ?? 0) - (x.n ?? 0) || (y.p ?? 0) - (x.p ?? 0) || (y.v ?? 0) - (x.v ?? 0));
    const table = el('table', { class: 'research-thoughts' },
      el('thead', {}, el('tr', {}, el('th', {}, 'move'), hasN ? el('th', {}, 'visits') : null, hasV ? el('th', {}, e.unit || 'value') : null, hasP ? el('th', {}, 'probability') : null)),
      el('tbody', {}, rows.map((a) => el('tr', { class: a.a === e.a ? 'chosen' : '' }, el('td', {}, a.words || a.name),
        hasN ? el('td', {}, a.n ?? '') : null, hasV ? el('td', {}, fmt(a.v)) : null, hasP ? el('td', {}, fmt(a.p)) : null))));
    return el('details', { class: 'research-why' }, el('summary', {}, 'why'), e.why ? el('p', {}, e.why) : null, table);
  }

  // playFromHere is the form that starts a new table at the position
  // shown, with a lineup of the researcher's choice.
  function playFromHere(at, length) {
    const s = R.table, f = R.frame;
    const envID = f ? f.env : s && s.env;
    const seats = f ? f.seats : s && s.seats;
    if (!envID || !seats || at >= length && !(s && !s.over)) return el('span');
    if (s && s.seats.includes('human')) {
      return el('p', { class: 'muted small' }, 'Play from here works at tables of agents and in replays (a person\'s game keeps its cards hidden).');
    }
    const agents = ['human', ...((R.envs[envID] && R.envs[envID].agents) || ['random', 'heuristic', 'mcts'])];
    const picks = seats.map((name, k) => el('label', {}, `seat ${k} `,
      el('select', { 'data-seat': k }, agents.map((a) => el('option', { value: a, selected: a === (name === 'human' ? 'human' : name) }, a)))));
    const go = () => {
      const lineup = { env: envID, seats: picks.map((l) => l.querySelector('select').value), delay_ms: s ? s.delay_ms : 600 };
      const from = f ? { dataset: f.dataset, episode: f.episode, step: at } : { table: s.table, step: at };
      send({ op: 'new', lineup, from });
      note('starting a new table from position ' + at + '…');
    };
    return el('details', { class: 'research-branch' }, el('summary', {}, 'Play from here'),
      el('p', { class: 'small muted' }, 'A new table starting at this position (the same deal, the moves so far), with this lineup:'),
      el('div', { class: 'research-seats' }, picks), el('button', { class: 'primary', onclick: go }, `Play from position ${at}`));
  }

  // Use the page's API when it comes: its view callback keeps the panel
  // current even where the socket was opened before this script ran.
  function hook() {
    const g = gg();
    if (g && typeof g.onView === 'function' && !hook.done) {
      hook.done = true;
      g.onView((m) => { if (m && m.op && !R.ws) onMessage(m); else if (m && m.status && !R.ws) onMessage({ op: 'table', status: m.status, view: m.view || m }); });
    }
  }
  hook();
  window.addEventListener('load', hook);
  window.ggResearch = { onMessage, render, state: R };
})();
