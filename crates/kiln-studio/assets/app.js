// Kiln Studio's page: draws the graph the server sends, shows each node's preview and what
// the last cook did, and sends edits back over the WebSocket. Vanilla JS and SVG.
"use strict";

const W = 200, HEAD = 44, ROW = 18, PREVIEW = 150;
const SVGNS = "http://www.w3.org/2000/svg";
const $ = (id) => document.getElementById(id);
const TYPE_COLORS = {
  float: "#7fb0e0", int: "#5c8fd0", bool: "#d0a05c", vec2: "#9ed0a0", vec3: "#7cc08a",
  vec4: "#5ea070", color: "#e07cc0", string: "#d0d07c", list: "#c09070", image: "#e0a050",
  mesh: "#60c0c0", signal: "#f07070", audio: "#f07070", any: "#a0a0a0", number: "#90b0d0",
};

const state = {
  graph: null,          // the last `graph` message
  cooked: null,         // the last `cooked` message
  lastGood: {},         // node -> port -> last preview that was not an error
  ops: [],
  selected: null,       // node id
  selectedWire: null,   // {node, port}
  view: { x: 0, y: 0, k: 1 },
  body: [],             // the stack of opened call bodies (graph names)
  ws: null,
  cooking: null,
  fitted: false,
  timeline: { frame: 0, fps: 24, playing: false, sentAt: 0, want: null, shownAt: 0, shown: 0 },
};

function el(tag, attrs, parent) {
  const e = document.createElementNS(SVGNS, tag);
  for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
  if (parent) parent.appendChild(e);
  return e;
}
function html(tag, attrs, text) {
  const e = document.createElement(tag);
  for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
  if (text !== undefined) e.textContent = text;
  return e;
}
function typeColor(ty) { return TYPE_COLORS[ty] || "#a0a0a0"; }
function fmtMs(ms) { return ms < 1 ? (ms * 1000).toFixed(0) + " µs" : ms < 1000 ? ms.toFixed(1) + " ms" : (ms / 1000).toFixed(2) + " s"; }

// ---- the connection ---------------------------------------------------------------------
function connect() {
  const ws = new WebSocket(`ws://${location.host}/ws`);
  state.ws = ws;
  ws.onopen = () => setStatus("connected");
  ws.onclose = () => { setStatus("disconnected — retrying"); setTimeout(connect, 1000); };
  ws.onmessage = (ev) => onMessage(JSON.parse(ev.data));
}
function send(msg) {
  if (state.ws && state.ws.readyState === 1) state.ws.send(JSON.stringify(msg));
}
function setStatus(t) { $("status").textContent = t; }

function onMessage(m) {
  switch (m.type) {
    case "graph":
      state.graph = m;
      $("timeline").hidden = !m.animated;
      if (m.animated && !state.timeline.playing && m.timeline) {
        state.timeline.frame = m.timeline.frame; state.timeline.fps = m.timeline.fps; showTick();
      }
      if (m.broken) banner("The file on disk does not load: " + m.broken); else banner(null);
      render();
      break;
    case "cooking":
      state.cooking = { version: m.version, started: performance.now() };
      setStatus("cooking…");
      break;
    case "progress":
      showProgress(m);
      break;
    case "cancelled":
      setStatus(`cook of v${m.version} cancelled (${m.reason})`);
      break;
    case "cooked":
      state.cooking = null;
      $("progress").hidden = true;
      onCooked(m);
      onTick(m);
      break;
    case "file_error":
      banner("The file on disk does not load: " + m.message);
      break;
    case "error":
      banner(m.message);
      setTimeout(() => banner(null), 6000);
      break;
  }
}

function banner(text) {
  const b = $("banner");
  b.hidden = !text;
  b.textContent = text || "";
}

function showProgress(m) {
  const p = $("progress");
  p.hidden = false;
  $("progress-fill").style.width = (100 * m.completed / Math.max(1, m.total)).toFixed(0) + "%";
  const eta = m.eta_ms === null || m.eta_ms === undefined ? "estimating time left…" :
    `~${fmtMs(m.eta_ms)} left` + (m.estimate === "past" ? " (from past timings)" : " (from the count so far)");
  p.dataset.eta = m.eta_ms === null || m.eta_ms === undefined ? "" : String(m.eta_ms);
  setStatus(`cooking ${m.node || ""} ${m.completed}/${m.total} · ${eta}`);
}

function onCooked(m) {
  state.cooked = m;
  if (m.ok) {
    const r = m.report, g = r.graph;
    setStatus(`v${m.version} cooked`);
    $("report").textContent = `${g.cooked} cooked · ${g.reused} reused · ${g.cut_off} cut off` +
      (g.failed ? ` · ${g.failed} failed` : "") + ` of ${g.nodes} nodes · ${fmtMs(r.ms)}`;
    $("report").title = r.text;
  } else {
    setStatus(`v${m.version}: error`);
    $("report").textContent = m.error;
    $("report").title = m.error;
  }
  for (const id in m.nodes || {}) {
    const ports = m.nodes[id].ports || {};
    for (const p in ports) {
      if (!ports[p].error && ports[p].kind !== "none") {
        (state.lastGood[id] = state.lastGood[id] || {})[p] = ports[p];
      }
    }
  }
  render();
}

// ---- what is drawn ----------------------------------------------------------------------
function currentGraph() {
  const g = state.graph;
  if (!g) return null;
  if (state.body.length === 0) return { nodes: g.nodes, wires: g.wires, readOnly: false };
  const b = g.bodies[state.body[state.body.length - 1]];
  return b ? { nodes: b.nodes, wires: b.wires, readOnly: true } : { nodes: [], wires: [], readOnly: true };
}

function nodeHeight(n) {
  return HEAD + ROW * Math.max(n.inputs.length, n.outputs.length) + PREVIEW;
}
function inPortPos(n, i) { return [n.x, n.y + HEAD + ROW * i + ROW / 2]; }
function outPortPos(n, i) { return [n.x + W, n.y + HEAD + ROW * i + ROW / 2]; }

function wirePath(a, b) {
  const dx = Math.max(40, Math.abs(b[0] - a[0]) * 0.5);
  return `M ${a[0]} ${a[1]} C ${a[0] + dx} ${a[1]}, ${b[0] - dx} ${b[1]}, ${b[0]} ${b[1]}`;
}

function render() {
  const g = currentGraph();
  if (!g) return;
  $("file").textContent = state.graph.file || "";
  $("undo").disabled = !state.graph.can_undo;
  $("redo").disabled = !state.graph.can_redo;
  renderCrumbs();
  const nodesG = $("nodes"), wiresG = $("wires");
  nodesG.textContent = "";
  wiresG.textContent = "";
  const byId = {};
  for (const n of g.nodes) byId[n.id] = n;
  const cook = (!g.readOnly && state.cooked && state.cooked.nodes) || {};
  for (const w of g.wires) {
    const a = byId[w.from], b = byId[w.to];
    if (!a || !b) continue;
    const oi = Math.max(0, a.outputs.findIndex((o) => o.name === w.from_port));
    const ii = b.inputs.findIndex((p) => p.name === w.to_port);
    if (ii < 0) continue;
    const d = wirePath(outPortPos(a, oi), inPortPos(b, ii));
    const sel = state.selectedWire && state.selectedWire.node === w.to && state.selectedWire.port === w.to_port;
    const path = el("path", { d, class: "wire" + (sel ? " selected" : ""), "data-from": w.from, "data-to": w.to }, wiresG);
    const ty = (a.outputs[oi] || {}).ty;
    if (ty && ty !== "any" && !sel) path.style.stroke = typeColor(ty);
    if (!g.readOnly) {
      const hit = el("path", { d, class: "wire-hit" }, wiresG);
      hit.addEventListener("mousedown", (ev) => {
        ev.stopPropagation();
        state.selectedWire = { node: w.to, port: w.to_port };
        state.selected = null;
        render();
      });
    }
  }
  for (const n of g.nodes) drawNode(n, nodesG, cook[n.id], g.readOnly);
  renderInspector();
  if (!state.fitted && g.nodes.length) { fit(); state.fitted = true; }
}

function renderCrumbs() {
  const c = $("crumbs");
  c.textContent = "";
  if (!state.body.length) return;
  const top = html("a", {}, "top");
  top.onclick = () => { state.body = []; state.fitted = false; state.selected = null; render(); };
  c.appendChild(top);
  state.body.forEach((name, i) => {
    c.appendChild(document.createTextNode(" › "));
    const a = html("a", {}, name);
    a.onclick = () => { state.body = state.body.slice(0, i + 1); state.fitted = false; render(); };
    c.appendChild(a);
  });
  c.appendChild(document.createTextNode(" (read-only)"));
}

function shown(n, port, cook) {
  const now = cook && cook.ports && cook.ports[port];
  if (now && !now.error) return { p: now, stale: false };
  const last = (now && now.last) || (state.lastGood[n.id] && state.lastGood[n.id][port]);
  return { p: last, stale: !!last };
}

function drawNode(n, parent, cook, readOnly) {
  const h = nodeHeight(n);
  const status = cook ? cook.status : null;
  const g = el("g", {
    class: `node kind-${n.kind}` + (state.selected === n.id ? " selected" : "") + (status ? ` status-${status}` : ""),
    transform: `translate(${n.x},${n.y})`, "data-id": n.id,
  }, parent);
  el("rect", { class: "card", width: W, height: h, rx: 6 }, g);
  el("rect", { class: "head", width: W, height: HEAD - 6, rx: 6 }, g);
  const title = el("text", { class: "title", x: 10, y: 17 }, g);
  title.textContent = n.id;
  const op = el("text", { class: "op", x: 10, y: 31 }, g);
  op.textContent = n.kind === "call" ? `${n.op} · ${n.call.scope}` : n.op;
  // What the last cook did.
  if (cook && !readOnly) {
    const badge = el("text", { class: `badge ${status}`, x: W - 8, y: 17, "text-anchor": "end" }, g);
    badge.textContent = status === "cooked" ? `cooked ${fmtMs(cook.ms)}` :
      status === "rendered" ? `rendered ${fmtMs(cook.ms)}` :
      status === "cut_off" ? `cut off ${fmtMs(cook.ms)}` : status === "reused" ? "reused" :
      status === "invalid" ? "invalid" : status === "stale" ? "not cooked" :
      status === "blocked" ? "upstream failed" : "failed";
    badge.setAttribute("data-status", status);
  }
  n.inputs.forEach((p, i) => {
    const [x, y] = [0, HEAD + ROW * i + ROW / 2];
    const c = el("circle", { class: "port in", cx: x, cy: y, r: 5, fill: typeColor(p.ty) }, g);
    c.dataset.node = n.id; c.dataset.port = p.name; c.dataset.dir = "in";
    const t = el("text", { class: "port-label" + (p.source ? " wired" : ""), x: 10, y: y + 4 }, g);
    t.textContent = p.name + (p.source ? "" : p.value !== null && p.value !== undefined ? " = " + short(p.value) : "");
    const tip = el("title", {}, c); tip.textContent = `${p.name}: ${p.ty}${p.doc ? " — " + p.doc : ""}`;
  });
  n.outputs.forEach((p, i) => {
    const [x, y] = [W, HEAD + ROW * i + ROW / 2];
    const c = el("circle", { class: "port out", cx: x, cy: y, r: 5, fill: typeColor(p.ty) }, g);
    c.dataset.node = n.id; c.dataset.port = p.name; c.dataset.dir = "out";
    const t = el("text", { class: "port-label", x: W - 10, y: y + 4, "text-anchor": "end" }, g);
    t.textContent = p.name;
    const tip = el("title", {}, c); tip.textContent = `${p.name}: ${p.ty}`;
    if (!readOnly) c.addEventListener("mousedown", (ev) => startWire(ev, n, p.name));
  });
  // The preview.
  const top = HEAD + ROW * Math.max(n.inputs.length, n.outputs.length);
  el("rect", { class: "thumb-bg", x: 8, y: top + 4, width: W - 16, height: PREVIEW - 12, rx: 3 }, g);
  const port = n.kind === "output" ? "out" : (n.outputs[0] || {}).name;
  const { p, stale } = readOnly ? {} : shown(n, port, cook);
  const grp = el("g", { class: stale ? "stale" : "" }, g);
  if (p && p.kind === "image") {
    const s = Math.min((W - 20) / p.width, (PREVIEW - 16) / p.height);
    const iw = p.width * s, ih = p.height * s;
    el("image", { class: "preview", href: p.url, x: (W - iw) / 2, y: top + 6 + (PREVIEW - 16 - ih) / 2,
      width: iw, height: ih, preserveAspectRatio: "xMidYMid meet", "data-port": port }, grp);
  } else if (p && p.kind === "audio") {
    const x0 = 12, w = W - 24, mid = top + 4 + (PREVIEW - 12) / 2 - 8, amp = (PREVIEW - 40) / 2;
    const step = w / Math.max(1, p.peaks.length);
    let d = "";
    p.peaks.forEach(([lo, hi], i) => { const x = x0 + i * step; d += `M ${x} ${mid - hi * amp} L ${x} ${mid - lo * amp + 0.5} `; });
    el("path", { class: "preview waveform", d, "data-url": p.url }, grp);
    const play = el("text", { class: "play", x: 14, y: top + PREVIEW - 14 }, grp);
    play.textContent = `▶ play ${p.seconds} s`;
    play.addEventListener("mousedown", (ev) => { ev.stopPropagation(); new Audio(p.url).play(); });
  } else if (p && p.kind === "color") {
    el("rect", { class: "preview swatch", x: 30, y: top + 14, width: W - 60, height: PREVIEW - 54, rx: 4,
      fill: String(p.hex).slice(0, 7), stroke: "#000", "stroke-opacity": 0.4 }, grp);
    wrapText(grp, p.hex, 30, top + PREVIEW - 22, W - 60, 1, "value-text preview-text");
  } else if (p && p.kind === "text") {
    wrapText(grp, p.text, 14, top + 26, W - 28, 6, "value-text preview-text");
  } else if (n.signal) {
    wrapText(grp, "audio-rate signal: heard where it reaches a graph output", 14, top + 26, W - 28, 4, "op");
  } else if (readOnly) {
    wrapText(grp, n.doc || "", 14, top + 26, W - 28, 6, "op");
  }
  const err = cook && (cook.error || (cook.errors && cook.errors.join("; ")));
  if (err) {
    el("rect", { x: 8, y: top + PREVIEW - 58, width: W - 16, height: 50, rx: 3, fill: "#3a2221" }, g);
    wrapText(g, err, 14, top + PREVIEW - 44, W - 28, 3, "error-text");
  }
  if (!readOnly) {
    const grab = el("rect", { class: "grab", x: 0, y: 0, width: W, height: HEAD - 6, fill: "transparent", style: "cursor: move" }, g);
    grab.addEventListener("mousedown", (ev) => startMove(ev, n));
  }
  g.addEventListener("mousedown", (ev) => {
    if (ev.target.classList.contains("port")) return;
    ev.stopPropagation();
    select(n.id);
  });
  g.addEventListener("dblclick", () => { if (n.kind === "call") openBody(n.call.graph); });
}

function short(v) {
  const s = typeof v === "string" ? v : JSON.stringify(v);
  return s.length > 14 ? s.slice(0, 13) + "…" : s;
}

function wrapText(parent, text, x, y, width, maxLines, cls) {
  const chars = Math.max(8, Math.floor(width / 6.6));
  const words = String(text).split(/\s+/);
  const lines = [];
  let line = "";
  for (const w of words) {
    if ((line + " " + w).trim().length > chars) { lines.push(line.trim()); line = w; } else line += " " + w;
  }
  if (line.trim()) lines.push(line.trim());
  const t = el("text", { class: cls, x, y }, parent);
  lines.slice(0, maxLines).forEach((l, i) => {
    const s = el("tspan", { x, dy: i ? 14 : 0 }, t);
    s.textContent = i === maxLines - 1 && lines.length > maxLines ? l + " …" : l;
  });
  const tip = el("title", {}, t); tip.textContent = text;
}

function openBody(name) {
  if (!state.graph.bodies[name]) return;
  state.body.push(name);
  state.selected = null;
  state.fitted = false;
  render();
}

// ---- pan, zoom, drag --------------------------------------------------------------------
function applyView() {
  const v = state.view;
  $("world").setAttribute("transform", `translate(${v.x},${v.y}) scale(${v.k})`);
}
function toWorld(ev) {
  const r = $("canvas").getBoundingClientRect();
  const v = state.view;
  return [(ev.clientX - r.left - v.x) / v.k, (ev.clientY - r.top - v.y) / v.k];
}
function fit() {
  const g = currentGraph();
  if (!g || !g.nodes.length) return;
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  for (const n of g.nodes) {
    x0 = Math.min(x0, n.x); y0 = Math.min(y0, n.y);
    x1 = Math.max(x1, n.x + W); y1 = Math.max(y1, n.y + nodeHeight(n));
  }
  const r = $("canvas").getBoundingClientRect();
  const k = Math.min(1.2, Math.min((r.width - 60) / (x1 - x0), (r.height - 60) / (y1 - y0)));
  state.view = { k, x: (r.width - (x1 - x0) * k) / 2 - x0 * k, y: (r.height - (y1 - y0) * k) / 2 - y0 * k };
  applyView();
}

function startMove(ev, n) {
  ev.stopPropagation();
  select(n.id);
  const [sx, sy] = toWorld(ev);
  const ox = n.x, oy = n.y;
  let moved = false;
  const g = document.querySelector(`.node[data-id="${CSS.escape(n.id)}"]`);
  const move = (e) => {
    const [x, y] = toWorld(e);
    n.x = Math.round(ox + x - sx); n.y = Math.round(oy + y - sy);
    moved = true;
    if (g) g.setAttribute("transform", `translate(${n.x},${n.y})`);
    redrawWires();
  };
  const up = () => {
    window.removeEventListener("mousemove", move);
    window.removeEventListener("mouseup", up);
    if (moved) send({ type: "move", node: n.id, at: [n.x, n.y] });
  };
  window.addEventListener("mousemove", move);
  window.addEventListener("mouseup", up);
}

function redrawWires() {
  const g = currentGraph();
  const byId = {};
  for (const n of g.nodes) byId[n.id] = n;
  const paths = $("wires").querySelectorAll("path");
  let i = 0;
  for (const w of g.wires) {
    const a = byId[w.from], b = byId[w.to];
    if (!a || !b) continue;
    const oi = Math.max(0, a.outputs.findIndex((o) => o.name === w.from_port));
    const ii = b.inputs.findIndex((p) => p.name === w.to_port);
    if (ii < 0) continue;
    const d = wirePath(outPortPos(a, oi), inPortPos(b, ii));
    const step = g.readOnly ? 1 : 2;
    for (let j = 0; j < step && paths[i]; j++, i++) paths[i].setAttribute("d", d);
  }
}

function startWire(ev, n, port) {
  ev.stopPropagation();
  const oi = n.outputs.findIndex((o) => o.name === port);
  const a = outPortPos(n, oi);
  const dw = $("drag-wire");
  const move = (e) => dw.setAttribute("d", wirePath(a, toWorld(e)));
  const up = (e) => {
    window.removeEventListener("mousemove", move);
    window.removeEventListener("mouseup", up);
    dw.setAttribute("d", "");
    const t = document.elementFromPoint(e.clientX, e.clientY);
    if (t && t.classList.contains("port") && t.dataset.dir === "in" && t.dataset.node !== n.id) {
      send({ type: "connect", from: port === "out" ? n.id : `${n.id}.${port}`, node: t.dataset.node, port: t.dataset.port });
    }
  };
  window.addEventListener("mousemove", move);
  window.addEventListener("mouseup", up);
}

function setupCanvas() {
  const svg = $("canvas");
  svg.addEventListener("mousedown", (ev) => {
    if (ev.target.closest(".node")) return;
    state.selected = null; state.selectedWire = null; render();
    const sx = ev.clientX, sy = ev.clientY, ox = state.view.x, oy = state.view.y;
    const move = (e) => { state.view.x = ox + e.clientX - sx; state.view.y = oy + e.clientY - sy; applyView(); };
    const up = () => { window.removeEventListener("mousemove", move); window.removeEventListener("mouseup", up); };
    window.addEventListener("mousemove", move);
    window.addEventListener("mouseup", up);
  });
  svg.addEventListener("wheel", (ev) => {
    ev.preventDefault();
    const r = svg.getBoundingClientRect();
    const mx = ev.clientX - r.left, my = ev.clientY - r.top;
    const v = state.view;
    const k = Math.min(3, Math.max(0.15, v.k * Math.exp(-ev.deltaY * 0.0015)));
    v.x = mx - (mx - v.x) * k / v.k; v.y = my - (my - v.y) * k / v.k; v.k = k;
    applyView();
  }, { passive: false });
  window.addEventListener("keydown", (ev) => {
    if (ev.target.matches("input, textarea, select")) return;
    if ((ev.key === "Delete" || ev.key === "Backspace") && state.body.length === 0) {
      if (state.selectedWire) { send({ type: "disconnect", ...state.selectedWire }); state.selectedWire = null; }
      else if (state.selected) { send({ type: "delete", node: state.selected }); state.selected = null; }
    } else if ((ev.ctrlKey || ev.metaKey) && ev.key.toLowerCase() === "z") {
      send({ type: ev.shiftKey ? "redo" : "undo" }); ev.preventDefault();
    } else if ((ev.ctrlKey || ev.metaKey) && ev.key.toLowerCase() === "y") {
      send({ type: "redo" }); ev.preventDefault();
    } else if (ev.key === "f") fit();
    else if (ev.key === "Escape" && state.body.length) { state.body.pop(); state.fitted = false; render(); }
  });
  $("undo").onclick = () => send({ type: "undo" });
  $("redo").onclick = () => send({ type: "redo" });
  $("fit").onclick = fit;
  window.addEventListener("resize", () => applyView());
}

function select(id) {
  state.selected = id;
  state.selectedWire = null;
  render();
}

// ---- the inspector ----------------------------------------------------------------------
function renderInspector() {
  const box = $("inspector");
  const g = currentGraph();
  const n = g && g.nodes.find((x) => x.id === state.selected);
  if (document.activeElement && box.contains(document.activeElement) && box.dataset.node === (n && n.id)) {
    // The user is typing in a field: keep the widgets, refresh what the last cook said.
    const old = box.querySelector(".insp-cook");
    if (old) old.replaceWith(cookInfo(n, g));
    const shownBox = box.querySelector(".insp-shown");
    if (shownBox) shownBox.replaceWith(previewInfo(n, g));
    return;
  }
  box.textContent = "";
  box.dataset.node = n ? n.id : "";
  if (!n) {
    box.appendChild(html("p", { class: "muted" }, state.graph && state.graph.description || "Select a node to inspect it."));
    return;
  }
  box.appendChild(html("h2", {}, n.id));
  box.appendChild(html("div", { class: "op-id" }, n.op));
  box.appendChild(html("div", { class: "doc" }, n.doc || ""));
  box.appendChild(cookInfo(n, g));
  if (n.kind === "call") {
    const b = html("button", {}, `Open ${n.call.graph}`);
    b.onclick = () => openBody(n.call.graph);
    box.appendChild(b);
  }
  const ro = g.readOnly;
  if (n.params.length) {
    box.appendChild(html("h3", {}, "Params"));
    for (const p of n.params) box.appendChild(field(n, p, "param", ro));
  }
  if (n.inputs.length) {
    box.appendChild(html("h3", {}, "Inputs"));
    for (const p of n.inputs) box.appendChild(field(n, p, "input", ro));
  }
  box.appendChild(previewInfo(n, g));
  if (!ro) {
    box.appendChild(html("h3", {}, "Node"));
    const del = html("button", { class: "danger" }, "Delete node");
    del.onclick = () => { send({ type: "delete", node: n.id }); state.selected = null; };
    box.appendChild(del);
  }
}

// The preview of node `n`'s first output, as the inspector shows it.
function previewInfo(n, g) {
  const box = html("div", { class: "insp-shown" });
  const ro = g.readOnly;
  const cook = !ro && state.cooked && state.cooked.nodes && state.cooked.nodes[n.id];
  const port = n.kind === "output" ? "out" : (n.outputs[0] || {}).name;
  const { p } = ro ? {} : shown(n, port, cook);
  if (p) {
    box.appendChild(html("h3", {}, "Preview"));
    const d = html("div", { class: "insp-preview" });
    if (p.kind === "image") { const img = html("img", { src: p.url, alt: `${n.id} preview` }); d.appendChild(img); d.appendChild(html("div", { class: "stat" }, `${p.type} · thumbnail ${p.width}×${p.height}`)); }
    else if (p.kind === "audio") { const a = html("audio", { controls: "", src: p.url, preload: "none" }); a.style.width = "100%"; d.appendChild(a); d.appendChild(html("div", { class: "stat" }, `the first ${p.seconds} s at ${p.rate} Hz`)); }
    else if (p.kind === "color") { const sw = html("div", { style: `height:40px;border-radius:4px;border:1px solid #000;background:${String(p.hex).slice(0, 7)}` }); d.appendChild(sw); d.appendChild(html("code", {}, `${p.hex} · ${p.text}`)); }
    else d.appendChild(html("code", {}, p.text));
    box.appendChild(d);
  }
  return box;
}

// What the last cook did to node `n`, and its error.
function cookInfo(n, g) {
  const d = html("div", { class: "insp-cook" });
  const cook = !g.readOnly && state.cooked && state.cooked.nodes && state.cooked.nodes[n.id];
  if (!cook) return d;
  d.appendChild(html("div", { class: "stat" },
    `last edit: ${cook.status.replace("_", " ")}` + (cook.cooked ? ` · ${cook.cooked} node(s) in ${fmtMs(cook.ms)}` : "")));
  const err = cook.error || (cook.errors && cook.errors.join("\n"));
  if (err) d.appendChild(html("div", { class: "insp-error" }, err));
  return d;
}

function field(n, p, what, readOnly) {
  const f = html("div", { class: "field", "data-field": p.name, "data-what": what });
  const label = html("label", {});
  label.appendChild(html("span", {}, p.name));
  label.appendChild(html("span", { class: "ty" }, p.ty));
  label.title = p.doc || "";
  f.appendChild(label);
  if (p.source) {
    const row = html("div", { class: "row" });
    row.appendChild(html("span", { class: "wired" }, "← " + p.source));
    if (!readOnly && n.kind !== "output") {
      const b = html("button", { class: "small-btn" }, "unwire");
      b.onclick = () => send({ type: "disconnect", node: n.id, port: p.name });
      row.appendChild(b);
    }
    f.appendChild(row);
    return f;
  }
  if (n.kind === "output" && what === "input") { f.appendChild(html("span", { class: "muted" }, "not wired")); return f; }
  const value = p.value !== null && p.value !== undefined ? p.value : p.default;
  const commit = (v) => {
    if (readOnly) return;
    if (what === "param") send({ type: "set_param", node: n.id, param: p.name, value: v });
    else send({ type: "set_input", node: n.id, port: p.name, value: p.ty === "string" ? { const: v } : v });
  };
  f.appendChild(widget(p, value, commit, readOnly));
  if (p.doc) f.appendChild(html("div", { class: "hint-doc" }, p.doc));
  return f;
}

function widget(p, value, commit, readOnly) {
  const w = p.widget || { kind: "json" };
  const row = html("div", { class: "row" });
  const dis = (e) => { if (readOnly) e.disabled = true; return e; };
  if (w.kind === "slider") {
    const isInt = p.ty === "int";
    const v = typeof value === "number" ? value : 0;
    let lo = w.min, hi = w.max;
    if (lo === null || hi === null) {
      const span = Math.max(1, Math.abs(v) * 2);
      if (lo === null) lo = hi !== null ? Math.min(v, hi) - span : (v >= 0 ? 0 : v - span);
      if (hi === null) hi = Math.max(v, lo) + span;
    }
    if (isInt && hi - lo > 4096) hi = lo + Math.max(4096, v - lo);
    const range = dis(html("input", { type: "range", min: lo, max: hi, step: isInt ? 1 : (hi - lo) / 500 }));
    range.value = v;
    const num = dis(html("input", { type: "number", step: isInt ? 1 : "any" }));
    num.value = v;
    const out = (x) => isInt ? Math.round(x) : x;
    let timer = null;
    range.oninput = () => {
      num.value = range.value;
      clearTimeout(timer);
      timer = setTimeout(() => commit(out(Number(range.value))), 60);
    };
    num.onchange = () => { if (num.value !== "" && isFinite(Number(num.value))) commit(out(Number(num.value))); };
    row.appendChild(range); row.appendChild(num);
  } else if (w.kind === "bool") {
    const c = dis(html("input", { type: "checkbox" }));
    c.checked = !!value;
    c.onchange = () => commit(c.checked);
    row.appendChild(c);
  } else if (w.kind === "color") {
    const hex = typeof value === "string" && value.startsWith("#") ? value.slice(0, 7) : "#808080";
    const c = dis(html("input", { type: "color" }));
    c.value = hex.length === 4 ? "#" + [...hex.slice(1)].map((x) => x + x).join("") : hex;
    const t = dis(html("input", { type: "text" }));
    t.value = typeof value === "string" ? value : JSON.stringify(value);
    c.oninput = () => { t.value = c.value; };
    c.onchange = () => commit(c.value);
    t.onchange = () => commit(t.value);
    row.appendChild(c); row.appendChild(t);
  } else if (w.kind === "vector") {
    const v = Array.isArray(value) ? value.slice() : new Array(w.size).fill(0);
    for (let i = 0; i < w.size; i++) {
      const num = dis(html("input", { type: "number", step: "any" }));
      num.value = v[i] !== undefined ? v[i] : 0;
      num.onchange = () => { v[i] = Number(num.value); commit(v.map(Number)); };
      row.appendChild(num);
    }
  } else if (w.kind === "enum") {
    const s = dis(html("select", {}));
    for (const o of w.options) { const opt = html("option", { value: o }, o); s.appendChild(opt); }
    s.value = value;
    s.onchange = () => commit(s.value);
    row.appendChild(s);
  } else if (w.kind === "text") {
    const t = dis(html("input", { type: "text" }));
    t.value = value === null || value === undefined ? "" : (typeof value === "object" && value.const !== undefined ? value.const : value);
    t.onchange = () => commit(t.value);
    row.appendChild(t);
  } else {
    const t = dis(html("textarea", { rows: 2 }));
    t.value = value === null || value === undefined ? "" : JSON.stringify(value);
    t.onchange = () => { try { commit(JSON.parse(t.value)); } catch (e) { banner("not JSON: " + e.message); } };
    row.appendChild(t);
  }
  return row;
}

// ---- the timeline (graphs with latches) -------------------------------------------------
function showTick() {
  const t = state.timeline;
  $("tl-frame").value = t.frame;
  $("tl-slider").value = t.frame;
  $("tl-fps").value = t.fps;
  $("tl-play").textContent = t.playing ? "❚❚" : "▶";
}
function seek(frame) {
  const t = state.timeline;
  t.frame = Math.max(0, Math.floor(frame));
  if (t.frame > Number($("tl-max").value)) $("tl-max").value = t.frame;
  $("tl-slider").max = $("tl-max").value;
  t.want = t.frame;
  t.sentAt = performance.now();
  send({ type: "seek", frame: t.frame, fps: t.fps });
  showTick();
}
function onTick(m) {
  const t = state.timeline;
  if (!m.animated || m.frame !== t.want) return;
  const now = performance.now();
  if (t.shownAt) $("tl-rate").textContent = `${(1000 / Math.max(1, now - t.shownAt)).toFixed(1)} ticks/s`;
  t.shownAt = now;
  if (!m.ok) { t.playing = false; showTick(); return; }
  if (t.playing) {
    const wait = Math.max(0, 1000 / t.fps - (now - t.sentAt));
    setTimeout(() => { if (t.playing) seek(t.frame + 1); }, wait);
  }
}
function setupTimeline() {
  const t = state.timeline;
  $("tl-start").onclick = () => { t.playing = false; seek(0); };
  $("tl-step").onclick = () => { t.playing = false; seek(t.frame + 1); };
  $("tl-play").onclick = () => { t.playing = !t.playing; showTick(); if (t.playing) seek(t.frame + 1); };
  let timer = null;
  $("tl-slider").oninput = () => { t.playing = false; clearTimeout(timer); timer = setTimeout(() => seek(Number($("tl-slider").value)), 60); };
  $("tl-frame").onchange = () => { t.playing = false; seek(Number($("tl-frame").value)); };
  $("tl-max").onchange = () => { $("tl-slider").max = $("tl-max").value; };
  $("tl-fps").onchange = () => { const f = Number($("tl-fps").value); if (f > 0) { t.fps = f; seek(t.frame); } };
  window.addEventListener("keydown", (ev) => {
    if (ev.target.matches("input, textarea, select") || $("timeline").hidden) return;
    if (ev.key === " ") { ev.preventDefault(); $("tl-play").onclick(); }
    else if (ev.key === ".") $("tl-step").onclick();
  });
}

// ---- the op library ---------------------------------------------------------------------
async function loadOps() {
  const r = await fetch("/api/ops");
  state.ops = await r.json();
  renderOps();
}
function renderOps() {
  const q = $("search").value.trim().toLowerCase();
  const ul = $("ops");
  ul.textContent = "";
  let group = null;
  const groupOf = (o) => o.id.includes(".") ? o.id.split(".")[0] : "core";
  const hits = state.ops
    .filter((o) => !q || o.id.toLowerCase().includes(q) || o.doc.toLowerCase().includes(q))
    .sort((a, b) => groupOf(a).localeCompare(groupOf(b)) || a.id.localeCompare(b.id));
  for (const o of hits) {
    const g = groupOf(o);
    if (g !== group) { ul.appendChild(html("li", { class: "group" }, g)); group = g; }
    const li = html("li", { title: "click: docs · double-click: add" }, o.id);
    li.onclick = () => showOp(o, li);
    li.ondblclick = () => addOp(o.id);
    ul.appendChild(li);
  }
}
function showOp(o, li) {
  for (const x of $("ops").querySelectorAll("li.active")) x.classList.remove("active");
  if (li) li.classList.add("active");
  const d = $("op-doc");
  d.textContent = "";
  d.appendChild(html("b", {}, o.id));
  d.appendChild(html("p", {}, o.doc));
  const list = (title, items) => {
    if (!items.length) return;
    d.appendChild(html("div", {}, title + ": " + items.map((i) => `${i.name} (${i.ty})`).join(", ")));
  };
  list("inputs", o.inputs); list("params", o.params); list("outputs", o.outputs);
  const b = html("button", {}, "Add to graph");
  b.onclick = () => addOp(o.id);
  d.appendChild(b);
}
function addOp(id) {
  if (state.body.length) { banner("Bodies of calls are read-only: go back to the top graph to add nodes."); return; }
  const r = $("canvas").getBoundingClientRect();
  const v = state.view;
  const at = [Math.round((r.width / 2 - v.x) / v.k - W / 2), Math.round((r.height / 2 - v.y) / v.k - 80)];
  send({ type: "add", op: id, at });
}

// ---- start ------------------------------------------------------------------------------
async function start() {
  setupCanvas();
  setupTimeline();
  $("search").addEventListener("input", renderOps);
  try {
    const r = await fetch("/api/state");
    const s = await r.json();
    onMessage(s.graph);
    if (s.cooked) onMessage(s.cooked);
  } catch (e) { setStatus("cannot reach the studio"); }
  loadOps();
  connect();
  // `#node=ID` selects a node, `#open=GRAPH` opens a called graph's body (links, tests).
  const h = new URLSearchParams(location.hash.slice(1));
  if (h.get("open")) openBody(h.get("open"));
  if (h.get("node")) select(h.get("node"));
  if (h.get("tick")) setTimeout(() => seek(Number(h.get("tick"))), 300);
}
start();
