// The scoreboard page: listens to /api/stream (Server-Sent Events) and redraws.
// Every string from a table is untrusted: it is only ever set as textContent.
"use strict";

const tables = new Map(); // table_id -> latest table JSON
const received = new Map(); // table_id -> local time the state arrived (for the clock)

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

function num(v) {
  return typeof v === "number" && isFinite(v) ? v : 0;
}

function clockText(t) {
  const clock = t.clock || {};
  if (clock.time_up) return "time up";
  if (typeof clock.seconds_left !== "number") return "";
  const since = (Date.now() - (received.get(t.table_id) || Date.now())) / 1000;
  const left = Math.max(0, Math.round(clock.seconds_left - since));
  const m = Math.floor(left / 60);
  const s = String(left % 60).padStart(2, "0");
  return `${m}:${s} left`;
}

function warriorRow(w) {
  const row = el("div", "warrior" + (w.eliminated ? " out" : ""));
  row.append(el("span", "name", w.form ? `${w.name} (${w.form})` : w.name));
  const bar = el("div", "bar");
  const fill = el("span");
  const max = Math.max(1, num(w.max_endurance));
  const ratio = Math.min(1, Math.max(0, num(w.endurance) / max));
  fill.style.width = `${Math.round(ratio * 100)}%`;
  if (ratio <= 0.25) fill.classList.add("low");
  else if (ratio <= 0.5) fill.classList.add("mid");
  bar.append(fill);
  bar.title = `${num(w.endurance)} / ${num(w.max_endurance)}`;
  row.append(bar, el("span", "num", num(w.endurance)));
  return row;
}

function cardHead(t, kind) {
  const node = el("article", "card" + kind + (t.over ? " over" : ""));
  node.dataset.tableId = t.table_id;
  node.dataset.seq = String(num(t.seq));
  const h = el("h3");
  h.append(el("span", "title", t.table_id));
  const online = el("span", "online" + (t.online === false ? " off" : ""),
    t.online === false ? "offline" : t.online ? "online" : "");
  h.append(online);
  node.append(h);
  return node;
}

function winnerLine(t) {
  const w = Array.isArray(t.winners) && t.winners.length ? t.winners.join(" & ") : "nobody";
  return el("div", "winners", `Winner: ${w}`);
}

function delivery(t) {
  const ev = t.events;
  if (!ev) return null;
  const gap = ev.missing && ev.missing.length;
  return el("p", "delivery" + (gap ? " gap" : ""),
    gap ? `event ${num(ev.last_seq)}, waiting for ${ev.missing.length} missing` : `event ${num(ev.last_seq)}`);
}

// A companion game (another card game the table keeps the numbers of): the mode,
// whose turn and which step, each player's main number (life, fans...) and the winner.
function companionCard(t) {
  const node = cardHead(t, " companion");
  const meta = el("div", "meta");
  meta.append(el("span", "mode", t.mode));
  if (t.turn && !t.over) meta.append(el("span", "turn", `Turn: ${t.turn.player}`));
  if (t.step && !t.over) meta.append(el("span", "phase", t.step));
  node.append(meta);
  if (t.over) node.append(winnerLine(t));
  for (const p of t.players || []) {
    const row = el("div", "seat" + (p.eliminated ? " out" : "") +
      (t.turn && !t.over && t.turn.seat === p.seat ? " turn" : ""));
    row.append(el("span", "player", p.player));
    const main = typeof p.value === "number" ? `${p.main} ${p.value}` : "";
    row.append(el("span", "num", main));
    node.append(row);
  }
  const d = delivery(t);
  if (d) node.append(d);
  return node;
}

function card(t) {
  if (t.kind === "companion") return companionCard(t);
  const node = cardHead(t, "");

  const meta = el("div", "meta");
  if (t.round) meta.append(el("span", "round", t.rounds ? `Round ${t.round}/${t.rounds}` : `Round ${t.round}`));
  const clock = el("span", "clock", clockText(t));
  meta.append(clock);
  if (t.turn && !t.over) meta.append(el("span", "turn", `Turn: ${t.turn.player}`));
  if (t.phase && !t.over) meta.append(el("span", "phase", t.phase.replace(/_/g, " ")));
  node.append(meta);

  if (t.over) node.append(winnerLine(t));
  for (const team of t.teams || []) {
    const box = el("div", "team");
    const head = el("div", "team-head" + (t.turn && !t.over && t.turn.seat === team.seat ? " turn" : ""));
    head.append(el("span", "player", team.player));
    head.append(el("span", "left", `${num(team.warriors_left)} left · ${num(team.endurance_left)} end.`));
    box.append(head);
    for (const w of team.warriors || []) box.append(warriorRow(w));
    node.append(box);
  }
  const elims = (t.eliminated || []).map((e) => e.name);
  if (elims.length) node.append(el("p", "elims", `Eliminated: ${elims.join(", ")}`));
  const c = t.last_combat;
  if (c) {
    const dmg = c.damage || {};
    const parts = Object.keys(dmg).map((k) => `${k} −${num(dmg[k])}`).join(", ");
    const out = (c.eliminated || []).length ? `; out: ${c.eliminated.join(", ")}` : "";
    node.append(el("p", "combat", `Last combat: ${c.attacker} vs ${c.defender} (${parts})${out}`));
  }
  const d = delivery(t);
  if (d) node.append(d);
  return node;
}

const cards = new Map(); // table_id -> its card on the page

function drawTables(changed) {
  const box = document.getElementById("tables");
  const ids = [...tables.keys()].sort();
  if (!ids.length) return;
  const known = ids.every((id) => cards.has(id)) && cards.size === ids.length;
  for (const id of changed || ids) {
    const fresh = card(tables.get(id));
    const old = cards.get(id);
    cards.set(id, fresh);
    if (known && old) old.replaceWith(fresh);
  }
  if (!known) {
    for (const id of [...cards.keys()]) if (!tables.has(id)) cards.delete(id);
    for (const id of ids) if (!cards.has(id)) cards.set(id, card(tables.get(id)));
    box.replaceChildren(...ids.map((id) => cards.get(id)));
  }
}

function drawStandings(rows) {
  const body = document.querySelector("#standings tbody");
  body.replaceChildren(...rows.map((r) => {
    const tr = el("tr");
    tr.append(el("td", "n", r.rank), el("td", "", r.player), el("td", "n", num(r.won)),
      el("td", "n", num(r.warriors_left)), el("td", "n", num(r.endurance_left)),
      el("td", "", (r.tables || []).join(", ")));
    return tr;
  }));
}

function take(list) {
  const now = Date.now();
  const ids = [];
  for (const t of list || []) {
    if (!t || typeof t.table_id !== "string") continue;
    tables.set(t.table_id, t);
    received.set(t.table_id, now);
    ids.push(t.table_id);
  }
  return ids;
}

function connect() {
  const status = document.getElementById("status");
  const source = new EventSource("/api/stream");
  source.addEventListener("snapshot", (e) => {
    const data = JSON.parse(e.data);
    tables.clear();
    cards.clear();
    take(data.tables);
    drawTables(null);
    drawStandings(data.standings || []);
    status.textContent = "live";
    status.classList.add("live");
  });
  source.addEventListener("update", (e) => {
    const data = JSON.parse(e.data);
    drawTables(take(data.tables));
    drawStandings(data.standings || []);
    document.body.dataset.updates = String(num(Number(document.body.dataset.updates)) + 1);
  });
  source.onerror = () => {
    status.textContent = "reconnecting…";
    status.classList.remove("live");
  };
}

setInterval(() => {
  for (const node of document.querySelectorAll(".card")) {
    const t = tables.get(node.dataset.tableId);
    const clock = node.querySelector(".clock");
    if (t && clock) clock.textContent = clockText(t);
  }
}, 1000);

connect();
