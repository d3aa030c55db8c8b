// The scoreboard page: listens to /api/stream (Server-Sent Events) and redraws.
// Every string from a table is untrusted: it is only ever set as textContent.
// /?view=room is the room display (a TV or a projector): large type, at most
// PER_PAGE tables at once (pages cycle every ?cycle= seconds), standings beside,
// nothing to scroll.
"use strict";

const params = new URLSearchParams(window.location.search);
const ROOM = params.get("view") === "room";
const PER_PAGE = 12;
const CYCLE_S = Math.min(600, Math.max(2, Number(params.get("cycle")) || 15));
const STALE_S = 60; // a state older than this says how old it is
const RETRY_MS = 5000; // a page refused a stream asks again this much later

const tables = new Map(); // table_id -> latest table JSON
// table_id -> when the JSON arrived, on the page's monotonic clock: a Pi's wall clock
// (Date.now) is stepped by NTP after boot, by days or back.
const received = new Map();
const cards = new Map(); // table_id -> its card on the page
let pageIndex = 0;

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

function num(v) {
  return typeof v === "number" && isFinite(v) ? v : 0;
}

function since(t) {
  const now = performance.now();
  return (now - (received.get(t.table_id) ?? now)) / 1000;
}

function clockText(t) {
  const clock = t.clock || {};
  if (clock.time_up) return "time up";
  if (typeof clock.seconds_left !== "number") return "";
  const left = Math.max(0, Math.round(clock.seconds_left - since(t)));
  return `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")} left`;
}

function ageText(t) {
  if (typeof t.age_s !== "number") return "";
  const age = t.age_s + since(t);
  if (age < STALE_S) return "";
  if (age < 3600) return `last state ${Math.floor(age / 60)} min ago`;
  return `last state ${Math.floor(age / 3600)} h ${Math.floor((age % 3600) / 60)} min ago`;
}

function words(key) {
  return String(key).replace(/_/g, " ");
}

// The round a dice game plays: "Round 3/5", a 45-minute game's "Round 12", or the extra
// round a tie of three or more plays past the last, as the table says (extra_round).
function roundText(t) {
  const extra = t.extra_round;
  if (extra) return `Extra round ${num(extra.number)} of ${num(extra.of)}`;
  return t.rounds ? `Round ${t.round}/${t.rounds}` : `Round ${t.round}`;
}

// ---------------------------------------------------------------- pieces of a card
function warriorRow(w) {
  const row = el("div", "warrior" + (w.eliminated ? " out" : "") + (w.fighting ? " fighting" : ""));
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
  const node = el("article", "card" + kind + (t.over ? " over" : "") + (t.duplicate ? " duplicate" : ""));
  node.dataset.tableId = t.table_id;
  node.dataset.seq = String(num(t.seq));
  if (typeof t.sent_at === "number") node.dataset.sentAt = String(t.sent_at);
  const h = el("h3");
  h.append(el("span", "title", t.table_id));
  h.append(el("span", "online" + (t.online === false ? " off" : ""),
    t.online === false ? "offline" : t.online ? "online" : ""));
  node.append(h);
  return node;
}

// What the scoreboard doubts about a table: two processes behind one id, messages not
// believed, a state gone old.
function warnings(t) {
  const out = [];
  if (t.duplicate) {
    out.push(el("p", "warning duplicate",
      `Two tables publish as ${t.table_id}: give each its own table_id`));
  }
  if (num(t.flagged)) out.push(el("p", "warning flagged", `${num(t.flagged)} message(s) not believed`));
  out.push(el("p", "age", ageText(t)));
  return out;
}

function winnerLine(t) {
  const w = Array.isArray(t.winners) && t.winners.length ? t.winners.join(" & ") : "nobody";
  return el("div", "winners", `Winner: ${w}`);
}

function delivery(t) {
  const ev = t.events;
  if (!ev) return null;
  const gap = num(ev.missing_count);
  return el("p", "delivery" + (gap ? " gap" : ""),
    gap ? `event ${num(ev.last_seq)}, waiting for ${gap} missing` : `event ${num(ev.last_seq)}`);
}

function turnOf(t, seat) {
  return t.turn && !t.over && t.turn.seat === seat;
}

// ---------------------------------------------------------------- a companion game's card
// Another card game the table keeps the numbers of: the mode, whose turn and which step,
// each player's main number (life, fans...) and the mode's other numbers.
function otherNumbers(p) {
  const numbers = p.numbers && typeof p.numbers === "object" ? p.numbers : {};
  return Object.keys(numbers).filter((k) => k !== p.main)
    .map((k) => `${words(k)} ${num(numbers[k])}`).join(" · ");
}

function companionCard(t) {
  const node = cardHead(t, " companion");
  const meta = el("div", "meta");
  meta.append(el("span", "mode", t.mode));
  if (t.turn && !t.over) meta.append(el("span", "turn", `Turn: ${t.turn.player}`));
  if (t.step && !t.over) meta.append(el("span", "phase", t.step));
  node.append(meta, ...warnings(t));
  if (t.over) node.append(winnerLine(t));
  for (const p of t.players || []) {
    const seat = el("div", "seat-box" + (p.eliminated ? " out" : "") + (turnOf(t, p.seat) ? " turn" : ""));
    const row = el("div", "seat");
    row.append(el("span", "player", p.player));
    row.append(el("span", "main", typeof p.value === "number" ? `${words(p.main)} ${p.value}` : ""));
    seat.append(row);
    const others = otherNumbers(p);
    if (others) seat.append(el("div", "numbers", others));
    node.append(seat);
  }
  const d = delivery(t);
  if (d) node.append(d);
  return node;
}

// ---------------------------------------------------------------- a dice game's card
function diceCard(t) {
  const node = cardHead(t, "");
  const meta = el("div", "meta");
  if (t.round) meta.append(el("span", "round", roundText(t)));
  meta.append(el("span", "clock", clockText(t)));
  if (t.turn && !t.over) meta.append(el("span", "turn", `Turn: ${t.turn.player}`));
  if (t.phase && !t.over) meta.append(el("span", "phase", words(t.phase)));
  node.append(meta, ...warnings(t));
  if (t.over) node.append(winnerLine(t));
  for (const team of t.teams || []) {
    const box = el("div", "team");
    const head = el("div", "team-head" + (turnOf(t, team.seat) ? " turn" : ""));
    head.append(el("span", "player", team.player));
    head.append(el("span", "left", `${num(team.warriors_left)} left · ${num(team.endurance_left)} end.`));
    box.append(head);
    for (const w of team.warriors || []) box.append(warriorRow(w));
    node.append(box);
  }
  const green = t.green || [];
  if (green.length) {
    const box = el("div", "team green");
    box.append(el("div", "team-head", "Green space"));
    for (const w of green) box.append(warriorRow(w));
    node.append(box);
  }
  const elims = (t.eliminated || []).map((e) => (e.player ? e.name : `${e.name} (green)`));
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

// ---------------------------------------------------------------- the room display's card
// A title line (the table, then its round or mode, or what is wrong with it) and one line
// per player, large: the figures a room follows from across the hall. The winners are
// starred, whose turn it is is marked.
function roomInfo(t, companion) {
  if (t.duplicate) return ["bad", "two tables!"];
  if (t.online === false) return ["bad", "offline"];
  const age = ageText(t);
  if (age) return ["stale", age.replace("last state ", "")];
  if (t.over) return ["final", companion ? `${t.mode}: final` : "final"];
  if (companion) return ["mode", t.mode];
  if (t.round) return ["", roundText(t)];
  return ["", ""];
}

function roomCard(t) {
  const companion = t.kind === "companion";
  const node = el("article", "card room-card" + (companion ? " companion" : "") +
    (t.over ? " over" : "") + (t.duplicate ? " duplicate" : ""));
  node.dataset.tableId = t.table_id;
  node.dataset.seq = String(num(t.seq));
  if (typeof t.sent_at === "number") node.dataset.sentAt = String(t.sent_at);
  const h = el("h3");
  const [kind, info] = roomInfo(t, companion);
  h.append(el("span", "title", t.table_id), el("span", "info " + kind, info));
  node.append(h);
  const seats = companion ? t.players || [] : t.teams || [];
  const winners = new Set(t.over && Array.isArray(t.winners) ? t.winners : []);
  if (seats.length > 4) {
    // a companion game seats up to 8, the dice game 6: the card's type shrinks so that its
    // title and every seat's line fit in the height of a four-seat card's (style.css)
    node.classList.add("many");
    node.style.setProperty("--lines", String(seats.length + 1));
  }
  for (const s of seats) {
    const row = el("div", "seat" + (turnOf(t, s.seat) ? " turn" : "") +
      (winners.has(s.player) ? " won" : "") + (s.eliminated ? " out" : ""));
    row.append(el("span", "player", s.player));
    if (companion) row.append(el("span", "main", typeof s.value === "number" ? `${words(s.main)} ${s.value}` : ""));
    else row.append(el("span", "main", `${num(s.warriors_left)} · ${num(s.endurance_left)}`));
    node.append(row);
    const others = companion && seats.length <= 3 ? otherNumbers(s) : "";
    if (others) node.append(el("div", "numbers", others));
  }
  const fighting = (t.green || []).find((w) => w.fighting);
  if (fighting && seats.length <= 3) {
    node.append(el("p", "green-line", `Green space: ${fighting.name} ${num(fighting.endurance)}`));
  }
  return node;
}

function card(t) {
  if (ROOM) return roomCard(t);
  return t.kind === "companion" ? companionCard(t) : diceCard(t);
}

// ---------------------------------------------------------------- drawing
function byNumber(a, b) {
  return a.localeCompare(b, undefined, { numeric: true });
}

function shownIds() {
  const ids = [...tables.keys()].sort(byNumber);
  if (!ROOM) return ids;
  const pages = Math.max(1, Math.ceil(ids.length / PER_PAGE));
  pageIndex %= pages;
  const label = document.getElementById("page");
  label.textContent = pages > 1 ? `page ${pageIndex + 1}/${pages}` : "";
  return ids.slice(pageIndex * PER_PAGE, (pageIndex + 1) * PER_PAGE);
}

function layout(count) {
  // columns x rows of the room display for `count` cards (at most PER_PAGE)
  const grid = count <= 1 ? [1, 1] : count <= 2 ? [2, 1] : count <= 4 ? [2, 2]
    : count <= 6 ? [3, 2] : count <= 9 ? [3, 3] : [3, 4];
  document.body.style.setProperty("--cols", String(grid[0]));
  document.body.style.setProperty("--rows", String(grid[1]));
}

function drawTables(changed) {
  const box = document.getElementById("tables");
  const ids = shownIds();
  if (!ids.length) {
    cards.clear();
    box.replaceChildren(el("p", "empty", emptyText()));
    return;
  }
  const same = ids.length === cards.size && ids.every((id) => cards.has(id));
  if (same) {
    for (const id of changed || ids) {
      const old = cards.get(id);
      if (!old) continue;
      const fresh = card(tables.get(id));
      cards.set(id, fresh);
      old.replaceWith(fresh);
    }
    return;
  }
  cards.clear();
  for (const id of ids) cards.set(id, card(tables.get(id)));
  if (ROOM) layout(ids.length);
  box.replaceChildren(...ids.map((id) => cards.get(id)));
}

function emptyText() {
  const link = window.scoreboardLink;
  if (link && link.state !== "connected") return "No table yet: the scoreboard is not connected to its broker.";
  return "No table has reported yet.";
}

function standingsTable(group) {
  const table = el("table", "ranking");
  table.append(el("caption", "", group.title));
  const head = el("tr");
  const cols = ["#", "Player", "Won"];
  if (group.dice) cols.push(...(ROOM ? ["Left"] : ["Warriors", "Endurance"]));
  if (!ROOM) cols.push("Tables");
  for (const c of cols) head.append(el("th", "", c));
  const thead = el("thead");
  thead.append(head);
  const body = el("tbody");
  for (const r of group.rows || []) {
    const tr = el("tr");
    tr.dataset.playerId = String(r.player_id);
    tr.append(el("td", "n", r.rank), el("td", "", r.player), el("td", "n", num(r.won)));
    if (group.dice) tr.append(el("td", "n", num(r.warriors_left)));
    if (group.dice && !ROOM) tr.append(el("td", "n", num(r.endurance_left)));
    if (!ROOM) tr.append(el("td", "", (r.tables || []).join(", ")));
    body.append(tr);
  }
  table.append(thead, body);
  return table;
}

function drawStandings(groups) {
  const box = document.getElementById("standings");
  box.replaceChildren(...(Array.isArray(groups) ? groups : []).map(standingsTable));
  if (ROOM) fitStandings(box);
}

// The room display never scrolls: the rankings' last rows that do not fit are left
// out (the longest ranking's first), and each says how many.
function fitStandings(box) {
  for (const more of box.querySelectorAll(".more")) more.remove();
  const cut = new Map();
  while (box.scrollHeight > box.clientHeight + 1) {
    // the longest ranking gives up a row first (the last one of equals)
    const bodies = [...box.querySelectorAll("tbody")].filter((b) => b.rows.length > 1);
    if (!bodies.length) break;
    const body = bodies.reduce((a, b) => (b.rows.length >= a.rows.length ? b : a));
    body.deleteRow(-1);
    const table = body.parentElement;
    cut.set(table, (cut.get(table) || 0) + 1);
    let more = table.nextElementSibling;
    if (!more || !more.classList.contains("more")) {
      more = el("p", "more");
      table.after(more);
    }
    more.textContent = `+${cut.get(table)} more`;
  }
}

function drawLink(link) {
  window.scoreboardLink = link;
  const node = document.getElementById("link");
  if (!link) return;
  const state = link.state;
  let text = "broker: connected";
  if (state === "connecting") text = "broker: connecting…";
  else if (state === "refused") text = `broker refused: ${link.problem || ""}`;
  else if (state === "unreachable") text = `broker unreachable: ${link.problem || ""}`;
  node.textContent = text;
  node.className = "link " + state;
}

function take(list) {
  const now = performance.now();
  const ids = [];
  for (const t of list || []) {
    if (!t || typeof t.table_id !== "string") continue;
    tables.set(t.table_id, t);
    received.set(t.table_id, now);
    ids.push(t.table_id);
  }
  return ids;
}

function keepOnly(ids) {
  if (!Array.isArray(ids)) return;
  const keep = new Set(ids);
  for (const id of [...tables.keys()]) {
    if (!keep.has(id)) {
      tables.delete(id);
      received.delete(id);
    }
  }
}

function connect() {
  const status = document.getElementById("status");
  const source = new EventSource("/api/stream");
  source.addEventListener("snapshot", (e) => {
    const data = JSON.parse(e.data);
    tables.clear();
    cards.clear();
    take(data.tables);
    drawLink(data.link);
    drawTables(null);
    drawStandings(data.standings || []);
    status.textContent = "page: live";
    status.classList.add("live");
  });
  source.addEventListener("update", (e) => {
    const data = JSON.parse(e.data);
    const changed = take(data.tables);
    keepOnly(data.ids);
    drawLink(data.link);
    drawTables(changed);
    if (data.standings) drawStandings(data.standings);
    document.body.dataset.updates = String(num(Number(document.body.dataset.updates)) + 1);
  });
  source.onerror = () => {
    status.textContent = "page: reconnecting…";
    status.classList.remove("live");
    // An EventSource retries by itself after a dropped connection, but gives up for good
    // after an answer that is not a stream (the server's 503 when its live pages are
    // full, a proxy's error page): the page then asks again itself.
    if (source.readyState === EventSource.CLOSED) setTimeout(connect, RETRY_MS);
  };
}

setInterval(() => {
  for (const node of document.querySelectorAll(".card")) {
    const t = tables.get(node.dataset.tableId);
    if (!t) continue;
    const clock = node.querySelector(".clock");
    if (clock) clock.textContent = clockText(t);
    const age = node.querySelector(".age");
    if (age) age.textContent = ageText(t);
  }
}, 1000);

if (ROOM) {
  document.body.classList.add("room");
  setInterval(() => {
    if (tables.size <= PER_PAGE) return;
    pageIndex += 1;
    cards.clear();
    drawTables(null);
  }, CYCLE_S * 1000);
  window.addEventListener("resize", () => fitStandings(document.getElementById("standings")));
}

connect();
