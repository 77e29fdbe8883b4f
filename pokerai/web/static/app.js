// The hand analyzer's page: builds a spot, asks the JSON API for each view and draws it.
// Plain browser JavaScript, no build step. Every action goes through /api/step, so the engine
// decides what is legal; the page changes its spot only when the API accepts the change.
"use strict";

const RANKS = "AKQJT98765432";
const SUITS = "shdc";
const PASSIVE = { fold: "#6b7280", check: "#22c55e", call: "#15803d" };
const AGGRESSIVE = ["#fbbf24", "#f97316", "#ef4444", "#b91c1c", "#7f1d1d", "#450a0a"];

const spot = { hole: [], board: [], history: "", stack: null };
const undo = [];
let pick = "hole";
let sequence = 0; // answers to an older spot are dropped
let replay = { hands: [], hand: null, step: 0 };

async function api(path, params, body) {  // $, query and fetchJson are common.js's
  const url = params ? `${path}?${query(params)}` : path;
  const options = body === undefined ? {} : {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  };
  return fetchJson(url, options);
}

function spotParams() {
  return { hole: spot.hole.join(""), board: spot.board.join(""), history: spot.history, stack: spot.stack };
}

function boardNeeded(history) {
  return [0, 3, 4, 5][Math.min(history.split("/").length - 1, 3)];
}

function label(action) {
  if (action.action === "fold" || action.action === "check") return action.action;
  if (action.action === "call") return `call ${action.amount}`;
  if (action.action === "allin") return `all-in ${action.amount}`;
  return `${action.action} ${action.amount}`;
}

function colours(actions) {
  const aggressive = actions.filter((a) => !(a.action in PASSIVE)).map((a) => a.amount);
  aggressive.sort((x, y) => x - y);
  return actions.map((a) => {
    if (a.action in PASSIVE) return PASSIVE[a.action];
    const rank = aggressive.indexOf(a.amount);
    return a.action === "allin" ? AGGRESSIVE[AGGRESSIVE.length - 1] : AGGRESSIVE[Math.min(rank, AGGRESSIVE.length - 2)];
  });
}

function percent(probability) {
  return `${(100 * probability).toFixed(1)}%`;
}

function setError(text) {
  $("error").textContent = text || "";
}

function setMessage(text) {
  $("message").textContent = text || "";
}

// ------------------------------------------------------------------ cards

function drawCardGrid() {
  const grid = $("card-grid");
  grid.innerHTML = "";
  for (const suit of SUITS) {
    for (const rank of RANKS) {
      const card = rank + suit;
      const button = document.createElement("button");
      button.type = "button";
      button.id = `card-${card}`;
      button.className = `card suit-${suit}`;
      button.textContent = rank + { s: "♠", h: "♥", d: "♦", c: "♣" }[suit];
      button.title = card;
      button.addEventListener("click", () => clickCard(card));
      grid.appendChild(button);
    }
  }
}

function showCards() {
  for (const button of document.querySelectorAll(".card")) {
    const card = button.title;
    button.classList.toggle("hole", spot.hole.includes(card));
    button.classList.toggle("board", spot.board.includes(card));
  }
  $("hole-cards").textContent = spot.hole.join(" ") || "–";
  $("board-cards").textContent = spot.board.join(" ") || "–";
  $("history").value = spot.history;
  $("pick-hole").checked = pick === "hole";
  $("pick-board").checked = pick === "board";
}

function clickCard(card) {
  if (spot.hole.includes(card)) {
    spot.hole = spot.hole.filter((c) => c !== card);
  } else if (spot.board.includes(card)) {
    spot.board = spot.board.filter((c) => c !== card);
  } else if (pick === "hole") {
    if (spot.hole.length >= 2) {
      setMessage("two hole cards are picked: click one to remove it, or pick the board");
      return;
    }
    spot.hole.push(card);
    if (spot.hole.length === 2 && spot.board.length < boardNeeded(spot.history)) pick = "board";
  } else {
    if (spot.board.length >= 5) {
      setMessage("the board is full: click a card to remove it");
      return;
    }
    spot.board.push(card);
  }
  analyze();
}

// ------------------------------------------------------------------ the spot's views

function spotKey(params) {
  return `${params.hole}|${params.board}|${params.history}`;
}

function drawFrequencies(table, actions, played, key) {
  table.innerHTML = "";
  table.dataset.spot = key || "";
  const palette = colours(actions);
  actions.forEach((action, index) => {
    const row = table.insertRow();
    row.className = "freq-row";
    row.dataset.action = action.action;
    row.dataset.amount = action.amount;
    row.dataset.probability = action.probability;
    if (played && played.action === action.action && played.amount === action.amount) row.classList.add("played");
    row.insertCell().textContent = label(action);
    const bar = row.insertCell();
    bar.className = "bar";
    const fill = document.createElement("div");
    fill.className = "fill";
    fill.style.width = `${100 * action.probability}%`;
    fill.style.background = palette[index];
    bar.appendChild(fill);
    const pct = row.insertCell();
    pct.className = "pct";
    pct.textContent = percent(action.probability);
  });
}

function drawFacts(answer) {
  const equity = answer.equity;
  const odds = answer.pot_odds === null ? "nothing to call" : `${percent(answer.pot_odds)} to call ${answer.call_amount}`;
  const exact = equity.exact ? "exact" : `±${(100 * equity.standard_error).toFixed(1)}%`;
  $("facts").innerHTML = "";
  const lines = [
    ["street", `${answer.street}, bot is ${answer.position} (seat ${answer.player})`],
    ["pot", `${answer.pot}`],
    ["stacks", `bot ${answer.stacks.bot}, opponent ${answer.stacks.opponent}`],
    ["pot odds", odds],
    ["equity", `${percent(equity.equity)} against ${equity.against} (${exact}, ${equity.combos} combos)`],
  ];
  for (const [name, value] of lines) {
    const div = document.createElement("div");
    div.id = `fact-${name.replace(" ", "-")}`;
    div.innerHTML = `<b>${name}</b> `;
    div.appendChild(document.createTextNode(value));
    $("facts").appendChild(div);
  }
}

function drawActions(answer) {
  const box = $("actions");
  box.innerHTML = "";
  const seen = new Set();
  const buttons = [];
  for (const action of answer.actions) {
    buttons.push(action);
    seen.add(`${action.action}:${action.amount}`);
  }
  for (const name of answer.legal) {
    if (name === "bet" || name === "raise") continue;
    const amount = name === "allin" ? answer.max_raise_to : name === "call" ? answer.call_amount : 0;
    if (!seen.has(`${name}:${amount}`)) buttons.push({ action: name, amount });
  }
  for (const action of buttons) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "action";
    button.dataset.action = action.action;
    button.dataset.amount = action.amount;
    button.textContent = label(action);
    button.addEventListener("click", () => step(action.action, action.amount));
    box.appendChild(button);
  }
  const amount = $("amount");
  amount.min = answer.min_raise_to ?? 0;
  amount.max = answer.max_raise_to ?? 0;
  amount.placeholder = answer.min_raise_to === null ? "no raise" : `${answer.min_raise_to}–${answer.max_raise_to}`;
  amount.dataset.kind = answer.legal.includes("bet") ? "bet" : "raise";
}

function drawRange(answer) {
  const hero = $("hero-grid");
  const villain = $("villain-grid");
  hero.innerHTML = "";
  villain.innerHTML = "";
  $("legend").innerHTML = "";
  if (!answer.available) {
    $("range-note").textContent = answer.note;
    return;
  }
  $("range-note").textContent = `(seat ${answer.player}; cells shaded by weight)`;
  const palette = colours(answer.actions);
  const most = Math.max(...answer.cells.map((c) => c.weight), 1e-12);
  for (const cell of answer.cells) {
    const div = document.createElement("div");
    div.className = "cell";
    div.dataset.hand = cell.hand;
    div.dataset.weight = cell.weight;
    if (cell.hand === answer.hero_cell) div.classList.add("hero");
    const mix = document.createElement("div");
    mix.className = "mix";
    let start = 0;
    const stops = [];
    cell.mix.forEach((p, index) => {
      if (p <= 0) return;
      stops.push(`${palette[index]} ${100 * start}% ${100 * (start + p)}%`);
      start += p;
    });
    mix.style.background = stops.length ? `linear-gradient(to right, ${stops.join(", ")})` : "#fff";
    mix.style.opacity = cell.combos ? String(0.12 + 0.88 * Math.sqrt(cell.weight / most)) : "0";
    div.appendChild(mix);
    const text = document.createElement("span");
    text.textContent = cell.hand;
    div.appendChild(text);
    const shares = cell.mix.map((p, index) => `${label(answer.actions[index])} ${percent(p)}`).join(", ");
    div.title = `${cell.hand}: weight ${percent(cell.weight)} of the range; ${shares}`;
    hero.appendChild(div);
  }
  answer.actions.forEach((action, index) => {
    const item = document.createElement("span");
    item.innerHTML = `<i style="background:${palette[index]}"></i>`;
    item.appendChild(document.createTextNode(label(action)));
    $("legend").appendChild(item);
  });
  const top = Math.max(...answer.opponent.cells.map((c) => c.weight), 1e-12);
  for (const cell of answer.opponent.cells) {
    const div = document.createElement("div");
    div.className = "cell";
    div.dataset.hand = cell.hand;
    div.dataset.weight = cell.weight;
    div.style.background = `rgba(220, 38, 38, ${(cell.weight / top).toFixed(3)})`;
    div.textContent = cell.hand;
    div.title = `${cell.hand}: ${percent(cell.weight)} of the opponent's range`;
    villain.appendChild(div);
  }
}

function clearViews() {
  for (const id of ["facts", "freq-blueprint", "freq-search", "hero-grid", "villain-grid", "legend", "actions"]) {
    $(id).innerHTML = "";
    delete $(id).dataset.spot;
  }
  $("search-status").textContent = "";
  $("search-status").className = "muted";
}

async function analyze() {
  showCards();
  $("solve-link").href = `/spot?${query(spotParams())}`; // the spot page fills in the bot's ranges here
  const mine = ++sequence;
  setError("");
  setMessage("");
  if (spot.hole.length !== 2) {
    clearViews();
    setMessage("pick the two hole cards of the player to act");
    return;
  }
  const needed = boardNeeded(spot.history);
  if (spot.board.length < needed) {
    clearViews();
    setMessage(`pick ${needed - spot.board.length} more board card(s) for the betting so far`);
    pick = "board";
    showCards();
    return;
  }
  const params = spotParams();
  let answer;
  try {
    answer = await api("/api/spot", params);
  } catch (error) {
    if (mine !== sequence) return;
    clearViews();
    setError(error.message);
    return;
  }
  if (mine !== sequence) return;
  drawFacts(answer);
  drawActions(answer);
  drawFrequencies($("freq-blueprint"), answer.actions, null, spotKey(params));
  $("freq-blueprint").dataset.source = answer.source;
  $("freq-search").innerHTML = "";
  delete $("freq-search").dataset.spot;
  try {
    const range = await api("/api/range", params);
    if (mine !== sequence) return;
    drawRange(range);
  } catch (error) {
    if (mine === sequence) setError(error.message);
  }
  await runSearch(params, mine);
}

async function runSearch(params, mine) {
  const status = $("search-status");
  const started = performance.now();
  status.className = "thinking";
  status.textContent = "thinking… 0.0 s";
  const timer = setInterval(() => {
    if (mine === sequence) status.textContent = `thinking… ${((performance.now() - started) / 1000).toFixed(1)} s`;
  }, 100);
  try {
    const answer = await api("/api/search", params);
    if (mine !== sequence) return;
    status.className = "muted";
    if (!answer.available) {
      status.textContent = answer.note;
      return;
    }
    drawFrequencies($("freq-search"), answer.actions, null, spotKey(params));
    const cached = answer.cached ? " (cached solve)" : "";
    status.textContent = `${answer.iterations} iterations in ${answer.seconds.toFixed(2)} s${cached}` +
      (answer.note ? `; ${answer.note}` : "");
    status.dataset.iterations = answer.iterations;
  } catch (error) {
    if (mine === sequence) {
      status.className = "error";
      status.textContent = error.message;
    }
  } finally {
    clearInterval(timer);
  }
}

async function step(action, amount) {
  setError("");
  let answer;
  try {
    answer = await api("/api/step", { ...spotParams(), action, amount });
  } catch (error) {
    setError(error.message);
    return;
  }
  if (answer.over) {
    setError(`after ${label({ action, amount })} the hand is over: nobody would be to act, so it is not applied`);
    return;
  }
  undo.push(spot.history);
  spot.history = answer.history;
  analyze();
}

// ------------------------------------------------------------------ replayer

async function loadLog(text) {
  $("log-error").textContent = "";
  try {
    const answer = await api("/api/log", null, { text, stack: spot.stack });
    replay.hands = answer.hands;
  } catch (error) {
    $("log-error").textContent = error.message;
    return;
  }
  const select = $("hand-select");
  select.innerHTML = "";
  replay.hands.forEach((hand, index) => {
    const option = document.createElement("option");
    option.value = index;
    const names = hand.names ? hand.names.join(" v ") : "";
    const results = hand.results ? ` (${hand.results.map((r) => (r > 0 ? `+${r}` : r)).join(" / ")})` : "";
    option.textContent = `hand ${hand.hand_number} ${names}${results}`;
    select.appendChild(option);
  });
  await loadHand(0);
}

async function loadHand(index) {
  const hand = replay.hands[index];
  if (!hand) return;
  try {
    replay.hand = await api("/api/hand", { line: hand.line, stack: hand.stack });
    replay.hand.stack = hand.stack;
  } catch (error) {
    $("log-error").textContent = error.message;
    return;
  }
  replay.step = 0;
  const h = replay.hand;
  const holes = h.names.map((name, seat) => `${name} (seat ${seat}) ${h.holes[seat] || "?? ??"}`).join(", ");
  const results = h.results ? `; results ${h.results.join(" / ")}` : "";
  $("replay-hand").textContent = `hand ${h.hand_number}: ${holes}; board ${h.board || "–"}; betting ${h.betting}${results}`;
  drawDecision();
}

function drawDecision() {
  const h = replay.hand;
  const box = $("replay-decision");
  const table = $("replay-freq");
  table.innerHTML = "";
  if (!h || h.decisions.length === 0) {
    box.textContent = "this hand has no decision";
    return;
  }
  const d = h.decisions[replay.step];
  const played = label(d.played);
  const chance = d.played.probability === undefined ? "" : ` (the bot plays it ${percent(d.played.probability)})`;
  box.innerHTML = "";
  const lines = [
    `decision ${replay.step + 1} of ${h.decisions.length}: ${d.street}, ${d.name} (seat ${d.player}) holds ${d.hole || "unknown cards"}`,
    `board ${d.board || "–"}, betting ${d.history || "(none)"}, pot ${d.pot}`,
    `played: ${played}${chance}`,
  ];
  for (const [index, text] of lines.entries()) {
    const div = document.createElement("div");
    div.id = `replay-line-${index}`;
    div.textContent = text;
    box.appendChild(div);
  }
  if (d.bot) {
    drawFrequencies(table, d.bot, d.played);
  } else {
    const div = document.createElement("div");
    div.textContent = "the log does not show this player's cards, so the bot's answer is unknown";
    box.appendChild(div);
  }
}

function stepReplay(delta) {
  if (!replay.hand) return;
  replay.step = Math.max(0, Math.min(replay.hand.decisions.length - 1, replay.step + delta));
  drawDecision();
}

function analyzeReplayed() {
  const h = replay.hand;
  if (!h) return;
  const d = h.decisions[replay.step];
  if (!d.hole) {
    setError("the log does not show this player's cards");
    return;
  }
  openSpot(d.hole, d.board, d.history, h.stack);
  window.scrollTo(0, 0);
}

// Analyze the spot of these cards (ACPC text, e.g. "AhKh"), betting and stack, with a fresh undo list.
function openSpot(hole, board, history, stack) {
  spot.hole = hole.match(/../g);
  spot.board = board ? board.match(/../g) : [];
  spot.history = history;
  spot.stack = stack;
  undo.length = 0;
  analyze();
}

// ------------------------------------------------------------------ wiring

async function loadLine(text) {
  setError("");
  try {
    const answer = await api("/api/line", { line: text, stack: spot.stack });
    openSpot(answer.hole, answer.board, answer.history, answer.stack);
  } catch (error) {
    if (error.message.startsWith("the hand in this line is over")) {
      $("log-text").value = text;
      setMessage("the hand in this line is over: it is loaded in the hand replayer below");
      await loadLog(text);
    } else {
      setError(error.message);
    }
  }
}

function wire() {
  for (const input of document.querySelectorAll("input[name=pick]")) {
    input.addEventListener("change", () => { pick = input.value; });
  }
  $("history-apply").addEventListener("click", () => {
    undo.push(spot.history);
    spot.history = $("history").value.trim();
    analyze();
  });
  $("undo").addEventListener("click", () => {
    if (undo.length) spot.history = undo.pop();
    analyze();
  });
  $("clear").addEventListener("click", () => {
    Object.assign(spot, { hole: [], board: [], history: "", stack: null });
    undo.length = 0;
    pick = "hole";
    analyze();
  });
  $("amount-apply").addEventListener("click", () => {
    const amount = $("amount");
    step(amount.dataset.kind || "raise", amount.value.trim() === "" ? "" : amount.value.trim());
  });
  $("paste-load").addEventListener("click", () => loadLine($("paste").value.trim()));
  $("log-file").addEventListener("change", async () => {
    const file = $("log-file").files[0];
    if (file) {
      $("log-text").value = await file.text();
      await loadLog($("log-text").value);
    }
  });
  $("log-load").addEventListener("click", () => loadLog($("log-text").value));
  $("hand-select").addEventListener("change", () => loadHand(Number($("hand-select").value)));
  $("step-prev").addEventListener("click", () => stepReplay(-1));
  $("step-next").addEventListener("click", () => stepReplay(1));
  $("replay-analyze").addEventListener("click", analyzeReplayed);
}

async function start() {
  drawCardGrid();
  wire();
  try {
    const bot = await api("/api/bot");
    $("bot-name").textContent = `bot: ${bot.bot}`;
    if (bot.example) {  // open on an example spot; "clear spot" empties it
      spot.hole = bot.example.hole.match(/../g);
      spot.board = bot.example.board.match(/../g) || [];
      spot.history = bot.example.history;
      pick = "board";
    }
  } catch (error) {
    setError(error.message);
  }
  analyze();
  document.body.dataset.ready = "1";
}

start();
