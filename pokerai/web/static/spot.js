// The "solve a spot" page: sends a spot to POST /api/spot, polls the solve's progress, then walks
// the solution node by node (GET /api/spot/<id>/node) with a 13x13 grid per action. Locks set at a
// node are sent with the next solve. Plain browser JavaScript, no build step; common.js comes first.
"use strict";

const PASSIVE = { Fold: "#6b7280", Check: "#22c55e", Call: "#15803d" };
const AGGRESSIVE = ["#fbbf24", "#f97316", "#ef4444", "#b91c1c", "#7f1d1d", "#450a0a"];
const POLL_MS = 200;

const state = { job: null, path: [], locks: [], node: null, polling: null };
const api = fetchJson; // common.js, with $ and query

// A new element of ``tag`` with the given properties (and data-* from ``data``).
function make(tag, properties, data) {
  const element = Object.assign(document.createElement(tag), properties || {});
  Object.assign(element.dataset, data || {});
  return element;
}

function button(text, data, onClick, className) {
  const element = make("button", { type: "button", textContent: text, className: className || "" }, data);
  element.addEventListener("click", onClick);
  return element;
}

function percent(p) {
  return `${(100 * p).toFixed(1)}%`;
}

function colours(actions) {
  let aggressive = 0;
  return actions.map((label) => {
    if (label in PASSIVE) return PASSIVE[label];
    if (label.startsWith("All-in")) return AGGRESSIVE[AGGRESSIVE.length - 1];
    return AGGRESSIVE[Math.min(aggressive++, AGGRESSIVE.length - 2)];
  });
}

function setError(text) {
  $("spot-error").textContent = text || "";
}

function spotBody() {
  const number = (id) => Number($(id).value);
  const body = {
    board: $("board").value.trim(), oop: $("oop").value, ip: $("ip").value,
    pot: number("pot"), stack: number("stack"), bets: $("bets").value, raises: $("raises").value,
    target: number("target"), iterations: number("iterations"),
  };
  if (state.locks.length) body.locks = state.locks.map((lock) => ({ path: lock.path, strategies: lock.strategies }));
  return body;
}

// ------------------------------------------------------------------ solving

async function solve() {
  setError("");
  let started;
  try {
    started = await api("/api/spot", {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(spotBody()),
    });
  } catch (error) {
    setError(error.message);
    return;
  }
  const mb = (started.memory_bytes / 1e6).toFixed(1);
  $("tree-size").textContent = `${started.num_nodes} nodes, ${started.hands[0]} OOP and ${started.hands[1]} IP hands, ${mb} MB`;
  state.job = started.id;
  state.path = [];
  $("progress").dataset.job = started.id;
  $("progress").dataset.status = "running";
  $("progress").textContent = "solving...";
  clearTimeout(state.polling);
  poll(started.id);
}

async function poll(job) {
  if (job !== state.job) return;
  let status;
  try {
    status = await api(`/api/spot/${job}`);
  } catch (error) {
    setError(error.message);
    return;
  }
  const line = $("progress");
  const exploitability = status.exploitability_pct === null ? "" : `, exploitability ${status.exploitability_pct.toFixed(3)}% of the pot`;
  line.dataset.iterations = status.iterations;
  if (status.status === "running") {
    line.textContent = `solving: iteration ${status.iterations}${exploitability} (target ${status.target_pct}%)`;
    state.polling = setTimeout(() => poll(job), POLL_MS);
    return;
  }
  line.dataset.status = status.status;
  if (status.status === "failed") {
    line.textContent = "";
    setError(status.error);
    return;
  }
  const s = status.summary;
  line.textContent = `${status.status === "stopped" ? "stopped" : "solved"}: ${s.iterations} iterations in ${s.seconds.toFixed(2)} s${exploitability}`;
  $("summary").textContent = `(OOP EV ${s.oop_ev.toFixed(2)}, IP EV ${s.ip_ev.toFixed(2)} of pot ${s.pot})`;
  await showNode([]);
}

async function stop() {
  if (state.job) {
    try {
      await api(`/api/spot/${state.job}`, { method: "DELETE" });
    } catch (error) {
      setError(error.message);
    }
  }
}

// ------------------------------------------------------------------ browsing

async function showNode(path) {
  let node;
  try {
    node = await api(`/api/spot/${state.job}/node?path=${encodeURIComponent(path.join("/"))}`);
  } catch (error) {
    setError(error.message);
    return;
  }
  setError("");
  state.path = path;
  state.node = node;
  drawPath(path);
  drawNodeInfo(node);
  drawChoices(node);
  drawGrids(node);
  drawClassTable(node);
  drawLockForm(node);
  $("solution").dataset.path = path.join("/");
  $("solution").dataset.kind = node.kind;
  $("solution").dataset.job = state.job;
}

function drawPath(path) {
  const bar = $("path");
  bar.innerHTML = "";
  const steps = ["root", ...path];
  steps.forEach((step, index) => {
    bar.appendChild(button(step, { depth: index }, () => showNode(path.slice(0, index))));
  });
}

function drawNodeInfo(node) {
  const who = node.kind === "player" ? `${node.player.toUpperCase()} to act` : node.kind === "chance" ? "a card comes" : node.kind;
  $("node-info").innerHTML = "";
  const text = `${node.street}, board ${node.board}, pot ${node.pot}: ${who}`;
  $("node-info").textContent = node.kind === "player" ? text : `${text} (${node.range_of.toUpperCase()}'s range shown)`;
}

function drawChoices(node) {
  const actions = $("node-actions");
  const cards = $("node-cards");
  actions.innerHTML = "";
  cards.innerHTML = "";
  const palette = colours(node.actions);
  node.actions.forEach((label, index) => {
    const choice = button(label, { label }, () => showNode([...state.path, label]), "action");
    choice.style.borderColor = palette[index];
    actions.appendChild(choice);
  });
  for (const card of node.cards) {
    cards.appendChild(button(card, { card }, () => showNode([...state.path, card]), `card suit-${card[1]}`));
  }
}

function cellTitle(node, cell) {
  if (!cell.weight) return `${cell.hand}: not in the range here`;
  const shares = cell.strategy.map((p, i) => `${node.actions[i]} ${percent(p)}`).join(", ");
  return `${cell.hand}: weight ${cell.weight.toFixed(2)} combos; EV ${cell.ev.toFixed(2)}, equity ${percent(cell.equity)}${shares ? "; " + shares : ""}`;
}

function grid(node, id, title, paint) {
  const box = make("div");
  box.appendChild(make("h3", { textContent: title }));
  const div = make("div", { className: "grid", id });
  for (const cell of node.classes) {
    const item = make("div", { className: "cell", title: cellTitle(node, cell) }, { hand: cell.hand, weight: cell.weight });
    const fill = make("div", { className: "mix" });
    paint(cell, fill, item);
    item.appendChild(fill);
    item.appendChild(make("span", { textContent: cell.hand }));
    item.addEventListener("click", () => { if ($("lock-class")) $("lock-class").value = cell.hand; });
    div.appendChild(item);
  }
  box.appendChild(div);
  return box;
}

function drawGrids(node) {
  const grids = $("grids");
  const legend = $("legend");
  grids.innerHTML = "";
  legend.innerHTML = "";
  const palette = colours(node.actions);
  const most = Math.max(...node.classes.map((c) => c.weight), 1e-12);
  const shade = (cell) => (cell.weight ? String(0.15 + 0.85 * Math.sqrt(cell.weight / most)) : "0");
  if (node.kind !== "player") {
    grids.appendChild(grid(node, "grid-range", `${node.range_of.toUpperCase()}'s range`, (cell, fill) => {
      fill.style.background = "#2563eb";
      fill.style.opacity = shade(cell);
    }));
    return;
  }
  grids.appendChild(grid(node, "grid-strategy", "strategy", (cell, fill) => {
    let start = 0;
    const stops = [];
    cell.strategy.forEach((p, index) => {
      if (p > 0) stops.push(`${palette[index]} ${100 * start}% ${100 * (start + p)}%`);
      start += p;
    });
    fill.style.background = stops.length ? `linear-gradient(to right, ${stops.join(", ")})` : "#fff";
    fill.style.opacity = shade(cell);
  }));
  node.actions.forEach((label, index) => {
    grids.appendChild(grid(node, `grid-action-${index}`, label, (cell, fill, item) => {
      const p = cell.weight ? cell.strategy[index] : 0;
      item.dataset.frequency = p;
      fill.style.background = palette[index];
      fill.style.opacity = String(p);
    }));
    const item = make("span", { innerHTML: `<i style="background:${palette[index]}"></i>` });
    item.appendChild(document.createTextNode(label));
    legend.appendChild(item);
  });
}

function drawClassTable(node) {
  const table = $("class-table");
  table.innerHTML = "";
  const head = make("tr");
  for (const name of ["class", "combos", ...node.actions, "EV", "equity"]) {
    head.appendChild(make("th", { textContent: name }));
  }
  table.appendChild(head);
  for (const cell of node.classes) {
    if (!cell.weight) continue;
    const row = make("tr", {}, { hand: cell.hand });
    const values = [cell.hand, cell.weight.toFixed(2), ...cell.strategy.map(percent), cell.ev.toFixed(2), percent(cell.equity)];
    for (const value of values) row.appendChild(make("td", { textContent: value }));
    table.appendChild(row);
  }
}

// ------------------------------------------------------------------ locks

function drawLockForm(node) {
  const form = $("lock-form");
  form.innerHTML = "";
  if (node.kind !== "player") return;
  const label = make("label", { textContent: `lock ${node.player.toUpperCase()}'s class ` });
  label.appendChild(make("input", { id: "lock-class", className: "short", placeholder: "AKs (click a cell)" }));
  form.appendChild(label);
  node.actions.forEach((action, index) => {
    const share = make("label", { textContent: `${action} ` });
    share.appendChild(make("input", {
      type: "number", min: "0", step: "any", className: "share", id: `lock-share-${index}`, value: index === 0 ? "1" : "0",
    }));
    form.appendChild(share);
  });
  form.appendChild(Object.assign(button("add lock", {}, addLock), { id: "lock-add" }));
}

function addLock() {
  const name = $("lock-class").value.trim();
  const shares = state.node.actions.map((_, index) => Number($(`lock-share-${index}`).value));
  if (!name) {
    setError("name the hand class to lock, e.g. AKs (click a cell)");
    return;
  }
  setError("");
  let lock = state.locks.find((l) => l.path.join("/") === state.path.join("/"));
  if (!lock) {
    lock = { path: [...state.path], actions: [...state.node.actions], strategies: {} };
    state.locks.push(lock);
  }
  lock.strategies[name] = shares;
  drawLocks();
}

function drawLocks() {
  const list = $("locks");
  list.innerHTML = "";
  state.locks.forEach((lock) => {
    for (const [name, shares] of Object.entries(lock.strategies)) {
      const mix = shares.map((p, i) => `${lock.actions[i]} ${p}`).join(", ");
      const item = make("li", { textContent: `${lock.path.join("/") || "root"}: ${name} plays ${mix} ` });
      item.appendChild(button("remove", {}, () => {
        delete lock.strategies[name];
        if (!Object.keys(lock.strategies).length) state.locks.splice(state.locks.indexOf(lock), 1);
        drawLocks();
      }));
      list.appendChild(item);
    }
  });
}

// ------------------------------------------------------------------ the bot's ranges

async function fillFromBot() {
  setError("");
  const params = new URLSearchParams({
    hole: $("bot-hole").value.trim(), board: $("bot-board").value.trim(), history: $("bot-history").value.trim(),
  });
  const stack = new URLSearchParams(window.location.search).get("stack");
  if (stack) params.set("stack", stack);
  try {
    const ranges = await api(`/api/spot/ranges?${params}`);
    $("board").value = ranges.board;
    $("oop").value = ranges.oop;
    $("ip").value = ranges.ip;
    $("pot").value = ranges.pot;
    $("stack").value = ranges.stack;
  } catch (error) {
    setError(error.message);
  }
}

function start() {
  $("solve").addEventListener("click", solve);
  $("stop").addEventListener("click", stop);
  $("bot-fill").addEventListener("click", fillFromBot);
  $("lock-solve").addEventListener("click", solve);
  $("lock-clear").addEventListener("click", () => { state.locks = []; drawLocks(); });
  const query = new URLSearchParams(window.location.search);
  if (query.get("hole")) {  // opened from the analyzer: its spot
    $("bot-hole").value = query.get("hole");
    $("bot-board").value = query.get("board") || "";
    $("bot-history").value = query.get("history") || "";
    fillFromBot();
  }
  document.body.dataset.ready = "1";
}

start();
