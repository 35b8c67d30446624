// The page of gin-rummy serve: lobby, play, replay. Plain JavaScript, SVG cards, no build.
// The server is the authority: this page only shows the state it is sent and offers the
// legal moves listed in it. Text from the server goes in with textContent, never as HTML.
"use strict";

const $ = (id) => document.getElementById(id);
const SUITS = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };
const SVG = "http://www.w3.org/2000/svg";
// The phases in words (the view may bring its own: phase_words).
const PHASE_WORDS = {
  upcard_nondealer: "upcard offer to the non-dealer", upcard_dealer: "upcard offer to the dealer",
  draw: "draw", discard: "discard", play: "meld, lay off, discard", over: "hand over",
};
const RANKS = "A23456789TJQK";
const SUIT_ORDER = "SHDC";

function phaseWords(hand) {
  return hand.phase_words || PHASE_WORDS[hand.phase] || String(hand.phase).replace(/_/g, " ");
}

function el(tag, attrs = {}, text = "") {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text) e.textContent = text;
  return e;
}

// -- cards ------------------------------------------------------------------------------
function cardSvg(code, small = false) {
  const w = small ? 30 : 54, h = small ? 42 : 76;
  const s = document.createElementNS(SVG, "svg");
  s.setAttribute("width", w); s.setAttribute("height", h);
  s.setAttribute("viewBox", "0 0 54 76");
  s.setAttribute("role", "img");
  const r = document.createElementNS(SVG, "rect");
  r.setAttribute("x", 1); r.setAttribute("y", 1); r.setAttribute("width", 52);
  r.setAttribute("height", 74); r.setAttribute("rx", 6);
  if (!code) {
    r.setAttribute("fill", "#26458c"); r.setAttribute("stroke", "#fff");
    s.appendChild(r);
    s.setAttribute("aria-label", "card face down");
    return s;
  }
  r.setAttribute("fill", "#fff"); r.setAttribute("stroke", "#333");
  s.appendChild(r);
  const rank = code[0] === "T" ? "10" : code[0];
  const suit = code[1];
  const color = suit === "H" || suit === "D" ? "#c21807" : "#111";
  const t1 = document.createElementNS(SVG, "text");
  t1.setAttribute("x", 5); t1.setAttribute("y", 19); t1.setAttribute("fill", color);
  t1.setAttribute("font-size", 17); t1.setAttribute("font-weight", "bold");
  t1.textContent = rank;
  const t2 = document.createElementNS(SVG, "text");
  t2.setAttribute("x", 27); t2.setAttribute("y", 56); t2.setAttribute("fill", color);
  t2.setAttribute("font-size", 30); t2.setAttribute("text-anchor", "middle");
  t2.textContent = SUITS[suit];
  s.appendChild(t1); s.appendChild(t2);
  s.setAttribute("aria-label", code);
  return s;
}

function miniCards(codes) {
  const span = el("span", { class: "mini" });
  for (const c of codes) span.appendChild(cardSvg(c, true));
  if (!codes.length) span.textContent = "-";
  return span;
}

function cardButton(code, move, knock, suggested) {
  const b = el("button", { type: "button", class: "card", "data-card": code || "", draggable: "true" });
  b.appendChild(cardSvg(code));
  if (suggested) b.classList.add("suggested");
  b.addEventListener("dragstart", (ev) => { ev.dataTransfer.setData("text/plain", code); });
  b.addEventListener("dragover", (ev) => ev.preventDefault());
  b.addEventListener("drop", (ev) => {
    ev.preventDefault();
    moveCard(ev.dataTransfer.getData("text/plain"), code);
  });
  if (move) {
    b.classList.add("playable");
    b.dataset.action = move.id;
    b.title = move.label + (knock ? " (k: " + knock.label + ")" : "");
    if (knock) b.dataset.knock = knock.id;
    b.addEventListener("click", () => sendMove(move.id));
  } else {
    b.tabIndex = -1;
  }
  return b;
}

// -- drawing a table (play and replay) ---------------------------------------------------
function seatLabel(view, p) {
  const info = view.players[p];
  let who = info.name + (info.role ? " (" + info.role + ")" : "");
  if (info.kind !== "human") who += " [" + info.kind + "]";
  if (!info.present) who += info.kind === "human" ? " - away" : "";
  if (info.stand_in) who += " - an agent stands in";
  return who;
}

// The order a person keeps his hand in (dragging a card onto another, or a sort): the
// cards' codes; null: as the server arranges it (melds first).
let handOrder = null;

function orderedHand(cards) {
  const all = cards.melds.flat().concat(cards.deadwood_cards);
  if (!handOrder) return null;
  const kept = handOrder.filter((c) => all.includes(c));
  for (const c of all) if (!kept.includes(c)) kept.push(c);
  return kept;
}

function sortHand(how) {
  if (!current) return;
  const mine = current.hand.seats.find((s) => s.cards && s.player === current.you);
  if (!mine) return;
  if (how === "melds") { handOrder = null; render(current); return; }
  const all = mine.cards.melds.flat().concat(mine.cards.deadwood_cards);
  const key = (c) => how === "suit" ? SUIT_ORDER.indexOf(c[1]) * 13 + RANKS.indexOf(c[0])
    : RANKS.indexOf(c[0]) * 4 + SUIT_ORDER.indexOf(c[1]);
  handOrder = all.slice().sort((a, b) => key(a) - key(b));
  render(current);
}

function moveCard(from, to) {
  if (!current || !from || from === to) return;
  const mine = current.hand.seats.find((s) => s.cards && s.player === current.you);
  if (!mine) return;
  const order = orderedHand(mine.cards) || mine.cards.melds.flat().concat(mine.cards.deadwood_cards);
  const rest = order.filter((c) => c !== from);
  const at = rest.indexOf(to);
  if (at < 0 || !order.includes(from)) return;
  rest.splice(at, 0, from);
  handOrder = rest;
  render(current);
}

function drawHand(entry, view, interactive) {
  const box = el("div", { class: "cards" });
  const legal = interactive ? view.legal : [];
  const byCard = {}, knockBy = {};
  for (const m of legal) {
    if (!m.card) continue;
    if (m.kind === "knock") knockBy[m.card] = m;
    else if (m.kind === "discard") byCard[m.card] = m;
  }
  const sugg = view.suggestion && view.suggestion.card && !view.hand.advising ? view.suggestion.card : null;
  const order = interactive && entry.cards ? orderedHand(entry.cards) : null;
  if (order) {
    const g = el("div", { class: "group own-order" });
    for (const c of order) g.appendChild(cardButton(c, byCard[c], knockBy[c], c === sugg));
    box.appendChild(g);
  } else if (entry.cards) {
    for (const meld of entry.cards.melds) {
      const g = el("div", { class: "group meld" });
      for (const c of meld) g.appendChild(cardButton(c, byCard[c], knockBy[c], c === sugg));
      box.appendChild(g);
    }
    if (entry.cards.deadwood_cards.length) {
      const g = el("div", { class: "group deadwood" });
      for (const c of entry.cards.deadwood_cards) g.appendChild(cardButton(c, byCard[c], knockBy[c], c === sugg));
      box.appendChild(g);
    }
  } else {
    const g = el("div", { class: "group" });
    for (let i = 0; i < entry.count; i++) g.appendChild(cardSvg(null, true));
    box.appendChild(g);
  }
  return box;
}

function drawTable(view, root, interactive) {
  root.textContent = "";
  const hand = view.hand;
  const seats = hand.seats;
  // Others on top, the seat whose cards this page shows at the bottom.
  const mine = seats.filter((s) => s.cards && !view.open);
  const others = view.open ? seats : seats.filter((s) => !s.cards);
  const addSeat = (s, isMe) => {
    const own = s.player === view.you;
    const d = el("div", { class: "seat" + (own ? " me" : "") + (isMe ? " shown" : ""), "data-player": s.player });
    const dealer = s.dealer && view.players[s.player].role !== "dealer" ? ", dealer" : "";
    let label = seatLabel(view, s.player) + dealer + ": " + s.count + " cards";
    if (s.cards) label += ", deadwood " + s.cards.deadwood;
    if (isMe && !own) label += " (your captain's hand)";
    const who = el("div", { class: "who" }, label);
    d.appendChild(who);
    d.appendChild(drawHand(s, view, interactive && isMe));
    if (s.took && s.took.length) {
      const t = el("div", { class: "took" }, "took from the pile: ");
      t.appendChild(miniCards(s.took));
      d.appendChild(t);
    }
    if (isMe && s.cards) {
      root.dataset.deadwood = s.cards.deadwood;
    }
    return d;
  };
  for (const s of others) root.appendChild(addSeat(s, false));
  if (hand.sitting_out && hand.sitting_out.length) {
    const names = hand.sitting_out.map((p) => seatLabel(view, p)).join(", ");
    root.appendChild(el("div", { class: "seat" }, "Sitting out: " + names));
  }
  const mid = el("div", { class: "middle" });
  const stock = el("div", { id: root.id + "-stock" }, "Stock: " + hand.stock);
  mid.appendChild(stock);
  const pile = el("div", { id: root.id + "-pile" });
  const upcard = String(hand.phase).startsWith("upcard");
  pile.appendChild(el("span", {}, (upcard ? "Upcard" : "Last discard") + ": "));
  const top = hand.pile.length ? hand.pile[hand.pile.length - 1] : null;
  if (top) {
    const t = el("span", { class: "last-discard", "data-card": top });
    t.appendChild(cardSvg(top));
    pile.appendChild(t);
  } else pile.appendChild(el("span", {}, "-"));
  mid.appendChild(pile);
  if (hand.knock_limit !== undefined && hand.knock_limit !== null) {
    mid.appendChild(el("div", { id: root.id + "-knock-limit" }, "Knock limit this hand: " +
      (hand.knock_limit === 0 ? "gin only" : hand.knock_limit) + (hand.multiplier > 1 ? " (spade upcard: points double)" : "")));
  }
  if (hand.melds && hand.melds.length) {
    const m = el("div", { id: root.id + "-melds" }, "Melds on the table: ");
    for (const meld of hand.melds) {
      m.appendChild(el("span", {}, " " + view.players[meld.owner].name + ": "));
      m.appendChild(miniCards(meld.cards));
    }
    mid.appendChild(m);
  }
  root.appendChild(mid);
  for (const s of mine) root.appendChild(addSeat(s, true));
}

function drawSheet(view, root) {
  root.textContent = "";
  const t = el("table", { class: "sheet" });
  const head = el("tr");
  head.appendChild(el("th", {}, "hand"));
  for (const p of view.players) head.appendChild(el("th", {}, p.name));
  head.appendChild(el("th", {}, "result"));
  t.appendChild(head);
  for (const row of view.sheet) {
    const tr = el("tr", { class: "sheet-row" });
    tr.appendChild(el("td", {}, String(row.hand + 1)));
    view.players.forEach((p, i) => {
      const role = row.roles && row.roles.length ? row.roles[i] + " " : "";
      let score;
      if (row.scored) score = (row.scored[i] > 0 ? "+" : "") + row.scored[i] + (row.scores ? " = " + row.scores[i] : "");
      else score = row.scores ? row.scores[i] : (row.payments[i] > 0 ? "+" : "") + row.payments[i];
      tr.appendChild(el("td", {}, role + score));
    });
    let what;
    if (view.game !== "rummy_v0") {
      what = row.kind === "draw" ? "draw" :
        row.kind.replace("_", " ") + ": " + view.players[row.winner].name + " +" + row.points;
      if (row.parts && row.parts.length) what += " = " + explain(row);
    } else {
      what = row.winner === null ? "no winner" :
        view.players[row.winner].name + (row.rummy ? " rummy" : " out");
    }
    tr.appendChild(el("td", {}, what));
    t.appendChild(tr);
  }
  const total = el("tr", { class: "total" });
  total.appendChild(el("th", {}, "total"));
  for (const s of view.scores) total.appendChild(el("th", {}, String(s)));
  total.appendChild(el("th", {}, view.target ? "to " + view.target : ""));
  t.appendChild(total);
  if (view.games) { // Hollywood: three games at once
    view.games.forEach((g, i) => {
      const tr = el("tr", { class: "hollywood" });
      tr.appendChild(el("th", {}, "game " + (i + 1)));
      g.forEach((x) => tr.appendChild(el("td", {}, String(x))));
      const w = view.game_winners[i];
      tr.appendChild(el("td", {}, w === null ? "open" : "won by " + view.players[w].name));
      t.appendChild(tr);
    });
  }
  root.appendChild(t);
}

function drawShowdown(view, root) {
  root.textContent = "";
  const sd = view.showdown;
  if (!sd) return;
  const p = el("div", { class: "panel", id: root.id + "-panel", "data-hand": sd.hand });
  const name = (i) => (i === null || i === undefined ? "nobody" : view.players[i].name);
  if (view.game === "rummy_v0") { // basic rummy
    p.appendChild(el("div", {}, "Hand " + (sd.hand + 1) + ": " +
      (sd.winner === null ? "no winner" : name(sd.winner) + (sd.rummy ? " goes out rummy (double)" : " goes out"))));
    if (sd.explained) p.appendChild(el("div", { class: "points-explained" }, "Points: " + sd.explained));
    // The cards left in each hand: the showdown's hands (by player), else its "left" lists.
    const left = sd.hands ? sd.hands.map((h) => h.cards) : sd.left;
    left.forEach((cards, i) => {
      const line = el("div", {}, name(i) + " " + (sd.payments[i] >= 0 ? "+" : "") + sd.payments[i] + ", left: ");
      line.appendChild(miniCards(cards));
      p.appendChild(line);
    });
    root.appendChild(p);
    return;
  }
  const title = sd.kind === "draw" ? "Hand " + (sd.hand + 1) + ": a draw (" + sd.reason + ")" :
    "Hand " + (sd.hand + 1) + ": " + sd.kind.replace("_", " ") + " - " + name(sd.winner) + " scores " + sd.points;
  p.appendChild(el("div", { class: "who" }, title));
  if (sd.kind !== "draw" && (sd.explained || (sd.parts && sd.parts.length))) {
    p.appendChild(el("div", { class: "points-explained" }, "Points: " + (sd.explained || explain(sd))));
  }
  if (sd.knocker_melds) {
    const k = el("div", {}, name(sd.knocker) + " (knocker): ");
    for (const m of sd.knocker_melds) k.appendChild(miniCards(m));
    k.appendChild(el("span", {}, " deadwood " + sd.knocker_deadwood + " "));
    k.appendChild(miniCards(sd.knocker_deadwood_cards));
    p.appendChild(k);
    const defender = sd.hands.map((h) => h.player).find((x) => x !== sd.knocker);
    const d = el("div", {}, name(defender) + " (defender): ");
    for (const m of sd.defender_melds) d.appendChild(miniCards(m));
    d.appendChild(el("span", {}, " lays off "));
    d.appendChild(miniCards(sd.layoffs));
    d.appendChild(el("span", {}, " deadwood " + sd.defender_deadwood + " "));
    d.appendChild(miniCards(sd.defender_deadwood_cards));
    p.appendChild(d);
  } else {
    for (const h of sd.hands) {
      const line = el("div", {}, name(h.player) + ": ");
      line.appendChild(miniCards(h.cards));
      p.appendChild(line);
    }
  }
  p.appendChild(el("div", {}, "Scores: " + sd.scores.join(" / ")));
  root.appendChild(p);
}

// A hand's points by their named parts, as the view gives them (never computed here).
function explain(row) {
  const sum = row.parts.map(([name, n]) => name + " " + n).join(" + ");
  return row.multiplier && row.multiplier !== 1 ? "(" + sum + ") x " + row.multiplier + " (spade double)" : sum;
}

function drawLog(lines, root) {
  root.textContent = "";
  for (const line of lines) root.appendChild(el("li", {}, line));
  root.scrollTop = root.scrollHeight;
}

function statusText(view) {
  if (view.over) return "Match over: " + view.players[view.winner].name + " wins (" + view.scores.join(" / ") + ")";
  const who = view.to_act === null ? "nobody" : view.players[view.to_act].name;
  const hand = "Hand " + (view.hand.index + 1) + ", " + phaseWords(view.hand);
  if (view.you === null) return hand + ": " + who + " to act (you are watching)";
  const me = view.players[view.you];
  let s = hand + ": you are " + me.name + (view.role ? ", " + view.role : "");
  s += view.to_act === view.you ? (view.hand.advising ? " - your suggestion" : " - your move") : " - " + who + " to act";
  return s;
}

// -- play --------------------------------------------------------------------------------
let socket = null, current = null, selected = -1, token = null, retry = 0;

function sendMove(id) {
  if (!socket || !current) return;
  $("error").textContent = "";
  send({ type: "move", action: id, seq: current.seq });
}

function render(view) {
  current = view;
  $("status").textContent = statusText(view);
  $("status").dataset.seq = view.seq;
  $("status").dataset.hands = view.sheet.length;
  $("status").dataset.over = view.over;
  $("status").dataset.mine = view.to_act !== null && view.to_act === view.you;
  drawTable(view, $("table-area"), true);
  const players = $("players");
  players.textContent = "";
  view.players.forEach((p, i) => players.appendChild(el("span", { class: "player" },
    seatLabel(view, i) + ": " + view.scores[i])));
  let sugg = "";
  if (view.suggestion) {
    const mine = view.you !== null && view.players[view.you];
    if (view.you === null) sugg = "The adviser suggests: ";
    else if (mine && mine.role === "adviser") sugg = "You suggested: ";
    else sugg = "Your adviser suggests: ";
    sugg += view.suggestion.label;
  }
  $("suggestion").textContent = sugg;
  const moves = $("moves");
  moves.textContent = "";
  const advising = view.hand.advising;
  let n = 0;
  for (const m of view.legal) {
    if (m.kind === "discard") continue; // click the card
    n += 1;
    const b = el("button", { type: "button", class: "move", "data-action": m.id, "data-kind": m.kind },
      (advising ? "suggest: " : "") + moveLabel(m) + (n <= 9 ? "  [" + n + "]" : ""));
    if (view.suggestion && view.suggestion.id === m.id && !advising) b.classList.add("suggested");
    b.addEventListener("click", () => sendMove(m.id));
    moves.appendChild(b);
  }
  const discards = view.legal.filter((m) => m.kind === "discard");
  if (discards.length) moves.appendChild(el("span", { class: "hint" },
    advising ? " or click a card to suggest its discard" : " or click a card to discard it"));
  $("hint").disabled = !(view.to_act === view.you && view.you !== null && !view.over);
  // A spectator has no hand to sort and no hint to ask for.
  $("hint").hidden = view.you === null;
  const ownHand = view.hand.seats.some((x) => x.cards && x.player === view.you);
  for (const e of document.querySelectorAll(".sorts")) e.hidden = !ownHand || view.open;
  const hist = $("pile-history");
  hist.textContent = "Discard pile, bottom first: ";
  hist.appendChild(miniCards(view.hand.pile));
  drawShowdown(view, $("showdown"));
  drawSheet(view, $("sheet"));
  drawLog(view.log, $("log"));
  // The team message box: for a captain and an adviser who are both people.
  const partner = { captain: "adviser", adviser: "captain" }[view.role];
  const mate = view.players.find((p, i) => i !== view.you && p.role === partner);
  $("chat").hidden = view.game !== "three_handed_gin_v0" || !mate || mate.kind !== "human";
  selected = -1;
  drawAfterMatch(view);
}

// "knock 7H (deadwood 4)", or "gin" when the knock leaves no deadwood.
function moveLabel(m) {
  if (m.kind === "knock" && m.card) {
    if (m.deadwood === 0) return "gin (discard " + m.card + ")";
    if (m.deadwood !== undefined) return "knock " + m.card + " (deadwood " + m.deadwood + ")";
    return "knock " + m.card;
  }
  return m.label;
}

// Once the match is over: its replay, and for a seat a rematch.
function drawAfterMatch(view) {
  const box = $("after-match");
  box.textContent = "";
  box.hidden = !view.over;
  if (!view.over) return;
  box.appendChild(el("a", { href: "/replay?match=" + encodeURIComponent(view.table), id: "replay-link" }, "Replay this match"));
  if (view.you === null) return;
  const b = el("button", { type: "button", id: "rematch" }, "Rematch");
  b.addEventListener("click", async () => {
    const res = await fetch("/api/rematch", { method: "POST", body: JSON.stringify({ link: token }),
      headers: { "Content-Type": "application/json" } });
    const out = await res.json();
    if (!res.ok) { $("error").textContent = out.error; return; }
    const mine = view.players[view.you].name;
    box.appendChild(el("p", {}, "A new table: your seat, and a link for each other person and for spectators:"));
    for (const [name, path] of Object.entries(out.seats)) {
      box.appendChild(el("a", { href: path, class: "seat-link", "data-name": name },
        (name === mine ? "your seat (" + name + ")" : name) + ": " + location.origin + path));
    }
    box.appendChild(el("a", { href: out.spectator, class: "seat-link" }, "spectators: " + location.origin + out.spectator));
  });
  box.appendChild(b);
}

let leaving = false, heartbeat = null, errorSeq = null;

function send(obj) {
  if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(obj));
}

function connect() {
  if (socket && socket.readyState <= WebSocket.OPEN) return;
  leaving = false;
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  const open = new URLSearchParams(location.search).get("open") === "1" ? "?open=1" : "";
  const ws = new WebSocket(proto + "//" + location.host + "/ws/" + token + open);
  socket = ws;
  ws.onopen = () => {
    retry = 0;
    $("connection").textContent = "";  // the reconnecting notice ends with the reconnect
    if (document.visibilityState === "hidden") send({ type: "presence", here: false });
  };
  ws.onmessage = (ev) => {
    const msg = JSON.parse(ev.data);
    if (msg.type === "state") {
      // An error, a hint: about the position they were sent for; a new position clears them.
      if (current && msg.seq !== current.seq) { $("hint-text").textContent = ""; }
      if (errorSeq !== null && msg.seq !== errorSeq) { $("error").textContent = ""; errorSeq = null; }
      render(msg);
    } else if (msg.type === "error") { $("error").textContent = msg.message; errorSeq = msg.seq === undefined ? null : msg.seq; }
    else if (msg.type === "hint") $("hint-text").textContent = msg.agent + " would " + msg.label;
    else if (msg.type === "notice") $("notice").textContent = msg.message;
    else if (msg.type === "chat") $("chat-log").appendChild(el("div", {}, msg.from + ": " + msg.text));
  };
  ws.onclose = (ev) => {
    if (socket !== ws) return;
    socket = null;
    if (leaving || ev.code === 4404 || ev.code === 4403 || ev.code === 4429) return;
    $("connection").textContent = "disconnected; reconnecting...";
    retry = Math.min(retry + 1, 5);
    setTimeout(connect, 500 * retry);
  };
}

function playPage() {
  $("play").hidden = false;
  token = location.pathname.split("/")[2];
  connect();
  // Presence: a hidden page counts as away; a page left (for the lobby, another site) closes
  // its socket, and one shown again (the Back button) opens it again.
  document.addEventListener("visibilitychange", () => {
    send({ type: "presence", here: document.visibilityState === "visible" });
  });
  window.addEventListener("pagehide", () => {
    leaving = true;
    if (socket) socket.close(1000, "page left");
  });
  window.addEventListener("pageshow", (ev) => { if (ev.persisted) connect(); });
  heartbeat = setInterval(() => send({ type: "ping" }), 20000);
  for (const [id, how] of [["sort-suit", "suit"], ["sort-rank", "rank"], ["sort-melds", "melds"]]) {
    $(id).addEventListener("click", () => sortHand(how));
  }
  $("hint").addEventListener("click", () => send({ type: "hint" }));
  $("pile-toggle").addEventListener("click", () => { $("pile-history").hidden = !$("pile-history").hidden; });
  $("chat-send").addEventListener("click", () => {
    const text = $("chat-text").value.trim();
    if (text) send({ type: "chat", text });
    $("chat-text").value = "";
  });
  document.addEventListener("keydown", onKey);
}

function onKey(ev) {
  if (!current || ev.target.tagName === "INPUT") return;
  const byKind = (kind) => current.legal.find((m) => m.kind === kind);
  const keyKinds = { d: "draw", t: "take", p: "pass", n: "no-advice", g: "big-gin" };
  const cards = Array.from(document.querySelectorAll("#table-area button.card.playable"));
  if (keyKinds[ev.key]) { const m = byKind(keyKinds[ev.key]); if (m) sendMove(m.id); }
  else if (ev.key === "h") $("hint").click();
  else if (ev.key === "ArrowRight" || ev.key === "ArrowLeft") {
    if (!cards.length) return;
    if (selected < 0 || selected >= cards.length) selected = ev.key === "ArrowRight" ? 0 : cards.length - 1;
    else selected = (selected + (ev.key === "ArrowRight" ? 1 : cards.length - 1)) % cards.length;
    cards.forEach((c, i) => c.classList.toggle("selected", i === selected));
    cards[selected].focus();
    ev.preventDefault();
  } else if (ev.key === "Enter" && selected >= 0 && cards[selected]) {
    sendMove(Number(cards[selected].dataset.action));
    ev.preventDefault();
  } else if (ev.key === "k" && selected >= 0 && cards[selected] && cards[selected].dataset.knock) {
    sendMove(Number(cards[selected].dataset.knock));
  } else if (/^[1-9]$/.test(ev.key)) {
    const buttons = document.querySelectorAll("#moves button.move");
    const b = buttons[Number(ev.key) - 1];
    if (b) b.click();
  }
}

// -- lobby -------------------------------------------------------------------------------
let gamesInfo = null;

async function lobbyPage() {
  $("lobby").hidden = false;
  gamesInfo = await (await fetch("/api/games")).json();
  $("game").addEventListener("change", drawForm);
  $("named-table").addEventListener("change", applyNamedTable);
  drawForm();
  $("table-form").addEventListener("submit", startTable);
  const list = await (await fetch("/api/matches")).json();
  for (const m of list) {
    const li = el("li", {}, m.game + " " + new Date(m.finished * 1000).toLocaleString() +
      " scores " + (m.scores || []).join("/") + " ");
    li.appendChild(el("a", { href: "/replay?match=" + m.id, class: "open-replay" }, "replay "));
    li.appendChild(el("a", { href: "/api/matches/" + m.id, download: "match_" + m.id + ".json" }, "download"));
    $("matches").appendChild(li);
  }
}

function numPlayers() {
  const game = $("game").value;
  const info = gamesInfo[game];
  if (info.players) return info.players;
  const n = document.querySelector("#options [data-name=num_players]");
  return n ? Number(n.value) : 2;
}

function drawForm() {
  const info = gamesInfo[$("game").value];
  const box = $("options");
  box.textContent = "";
  // Named tables: each sets the rules it changes from the game's defaults.
  const named = $("named-table");
  named.textContent = "";
  for (const name of Object.keys(info.tables || {})) named.appendChild(el("option", { value: name }, name));
  named.appendChild(el("option", { value: "" }, "custom"));
  named.value = "default" in (info.tables || {}) ? "default" : "";
  for (const [name, dflt] of Object.entries(info.options)) {
    let input;
    if (typeof dflt === "boolean") {
      input = el("input", { type: "checkbox", "data-name": name, "data-type": "bool" });
      input.checked = dflt;
    } else if (info.choices[name]) {
      input = el("select", { "data-name": name, "data-type": "text" });
      for (const v of info.choices[name]) input.appendChild(el("option", { value: v }, v));
      input.value = dflt;
    } else {
      input = el("input", { type: "number", "data-name": name, "data-type": "int", value: dflt === null ? "" : dflt });
    }
    input.id = "opt-" + name;
    const label = el("label", { class: "option" }, name.replace(/_/g, " ") + " ");
    label.appendChild(input);
    const help = (info.help || {})[name];
    if (help) { label.title = help; label.appendChild(el("small", { class: "help" }, help)); }
    input.addEventListener("change", () => { $("named-table").value = ""; });
    box.appendChild(label);
    if (name === "num_players") input.addEventListener("change", drawSeats);
  }
  const hint = $("hint-agent");
  hint.textContent = "";
  for (const a of info.agents) {
    const o = el("option", { value: a }, a);
    if (a === info.default_agent) o.selected = true;
    hint.appendChild(o);
  }
  drawSeats();
}

function applyNamedTable() {
  const info = gamesInfo[$("game").value];
  const name = $("named-table").value;
  if (!name) return;
  const changes = info.tables[name];
  for (const [opt, dflt] of Object.entries(info.options)) {
    const input = $("opt-" + opt);
    const value = opt in changes ? changes[opt] : dflt;
    if (input.dataset.type === "bool") input.checked = value;
    else input.value = value === null ? "" : value;
  }
  $("named-table").value = name;
}

function drawSeats() {
  const info = gamesInfo[$("game").value];
  const box = $("seats");
  box.textContent = "";
  for (let p = 0; p < numPlayers(); p++) {
    const s = el("select", { id: "seat-" + p, "data-player": p });
    s.appendChild(el("option", { value: "human" }, "a person"));
    for (const a of info.agents) s.appendChild(el("option", { value: a }, "agent: " + a));
    s.value = p === 0 ? "human" : info.default_agent;
    const label = el("label", {}, "player_" + p + " ");
    label.appendChild(s);
    box.appendChild(label);
  }
}

async function startTable(ev) {
  ev.preventDefault();
  $("lobby-error").textContent = "";
  const options = {};
  for (const input of document.querySelectorAll("#options [data-name]")) {
    const t = input.dataset.type;
    if (t === "bool") options[input.dataset.name] = input.checked;
    else if (t === "int") options[input.dataset.name] = input.value === "" ? null : Number(input.value);
    else options[input.dataset.name] = input.value;
  }
  const seats = [];
  for (let p = 0; p < numPlayers(); p++) seats.push($("seat-" + p).value);
  const body = { game: $("game").value, options, seats, delay: Number($("delay").value || 0),
    hint_agent: $("hint-agent").value };
  if ($("takeover").value) body.takeover = Number($("takeover").value);
  const res = await fetch("/api/tables", { method: "POST", body: JSON.stringify(body),
    headers: { "Content-Type": "application/json" } });
  const out = await res.json();
  const links = $("links");
  links.textContent = "";
  if (!res.ok) { $("lobby-error").textContent = out.error; return; }
  links.appendChild(el("p", {}, "Each person gets their own link (keep it: it is the seat; the deal is the server's secret until the match ends):"));
  for (const [name, path] of Object.entries(out.seats)) {
    links.appendChild(el("a", { href: path, class: "seat-link", "data-name": name, target: "_blank" },
      name + ": " + location.origin + path));
  }
  links.appendChild(el("a", { href: out.spectator, id: "spectator-link", target: "_blank" },
    "spectators: " + location.origin + out.spectator));
  if (!seats.includes("human")) {
    links.appendChild(el("a", { href: out.spectator + "?open=1", id: "watch-open-link", target: "_blank" },
      "watch with every hand face up"));
  }
}

// -- replay ------------------------------------------------------------------------------
let frames = [], frameAt = 0;

function showFrame(i) {
  if (!frames.length) return;
  frameAt = Math.max(0, Math.min(frames.length - 1, i));
  const view = frames[frameAt];
  $("frame-slider").value = frameAt;
  $("frame-no").textContent = "move " + frameAt + " of " + (frames.length - 1);
  $("frame-no").dataset.frame = frameAt;
  $("replay-status").textContent = statusText(view);
  drawTable(view, $("replay-table"), false);
  drawShowdown(view, $("replay-showdown"));
  drawSheet(view, $("replay-sheet"));
  drawLog(view.log, $("replay-log"));
}

function clearReplay() {
  frames = [];
  frameAt = 0;
  for (const id of ["replay-status", "replay-table", "replay-showdown", "replay-sheet", "replay-log", "frame-no"]) {
    $(id).textContent = "";
  }
  $("frame-slider").max = 0;
  $("download").hidden = true;
}

// The server leaves out of each frame what it repeats: the sheet when unchanged, the log
// lines already sent (log_add: the new ones).
function fillFrames(raw) {
  const out = [];
  for (const f of raw) {
    const prev = out.length ? out[out.length - 1] : null;
    if (prev && f.sheet === undefined) f.sheet = prev.sheet;
    if (f.log_add !== undefined) { f.log = prev.log.concat(f.log_add); delete f.log_add; }
    out.push(f);
  }
  return out;
}

async function loadReplay(text) {
  $("replay-error").textContent = "";
  clearReplay();  // a file that fails leaves no other match on screen
  let res, out;
  try {
    res = await fetch("/api/replay", { method: "POST", body: text,
      headers: { "Content-Type": "application/json" } });
    out = await res.json();
  } catch (err) {
    $("replay-error").textContent = "the replay could not be loaded: " + err;
    return;
  }
  if (!res.ok) { $("replay-error").textContent = out.error; return; }
  frames = fillFrames(out.frames);
  $("frame-slider").max = frames.length - 1;
  const a = $("download");
  // The file as it came (JSON numbers such as a 128-bit seed would not survive JavaScript).
  a.href = URL.createObjectURL(new Blob([text], { type: "application/json" }));
  a.hidden = false;
  showFrame(0);
}

function replayPage() {
  $("replay").hidden = false;
  $("replay-file").addEventListener("change", async () => {
    const f = $("replay-file").files[0];
    if (f) await loadReplay(await f.text());
  });
  $("first").addEventListener("click", () => showFrame(0));
  $("prev").addEventListener("click", () => showFrame(frameAt - 1));
  $("next").addEventListener("click", () => showFrame(frameAt + 1));
  $("last").addEventListener("click", () => showFrame(frames.length - 1));
  $("frame-slider").addEventListener("input", () => showFrame(Number($("frame-slider").value)));
  document.addEventListener("keydown", (ev) => {
    if (ev.key === "ArrowRight") showFrame(frameAt + 1);
    if (ev.key === "ArrowLeft") showFrame(frameAt - 1);
  });
  const id = new URLSearchParams(location.search).get("match");
  if (id) fetch("/api/matches/" + encodeURIComponent(id)).then((r) => r.text()).then(loadReplay);
}

// -- rules -------------------------------------------------------------------------------
// docs/RULES.md drawn as text: headings, paragraphs, lists, tables, code (never as HTML).
function inline(text, parent) {
  for (const part of text.split(/(`[^`]+`|\*\*[^*]+\*\*)/)) {
    if (!part) continue;
    if (part.startsWith("`")) parent.appendChild(el("code", {}, part.slice(1, -1)));
    else if (part.startsWith("**")) parent.appendChild(el("strong", {}, part.slice(2, -2)));
    else parent.appendChild(document.createTextNode(part));
  }
  return parent;
}

function drawMarkdown(text, root) {
  root.textContent = "";
  const lines = text.split("\n");
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (line.startsWith("```")) {
      const code = [];
      for (i += 1; i < lines.length && !lines[i].startsWith("```"); i++) code.push(lines[i]);
      root.appendChild(el("pre", {}, code.join("\n")));
      i += 1;
    } else if (/^#{1,6} /.test(line)) {
      const level = Math.min(line.indexOf(" "), 4) + 1;
      root.appendChild(inline(line.replace(/^#+ /, ""), el("h" + level)));
      i += 1;
    } else if (/^\s*([-*]|\d+\.) /.test(line)) {
      const list = el(/^\s*\d/.test(line) ? "ol" : "ul");
      while (i < lines.length && /^\s*([-*]|\d+\.) /.test(lines[i])) {
        let item = lines[i].replace(/^\s*([-*]|\d+\.) /, "");
        for (i += 1; i < lines.length && /^\s{2,}\S/.test(lines[i]) && !/^\s*([-*]|\d+\.) /.test(lines[i]); i++) item += " " + lines[i].trim();
        list.appendChild(inline(item, el("li")));
      }
      root.appendChild(list);
    } else if (line.startsWith("|")) {
      const table = el("table", { class: "sheet" });
      for (; i < lines.length && lines[i].startsWith("|"); i++) {
        if (/^\|[\s:|-]+\|$/.test(lines[i])) continue;
        const tr = el("tr");
        for (const cell of lines[i].slice(1, -1).split("|")) tr.appendChild(inline(cell.trim(), el("td")));
        table.appendChild(tr);
      }
      const wrap = el("div", { class: "scroll" });
      wrap.appendChild(table);
      root.appendChild(wrap);
    } else if (line.trim() === "") {
      i += 1;
    } else {
      const para = [];
      for (; i < lines.length && lines[i].trim() !== "" && !/^(#|```|\||\s*([-*]|\d+\.) )/.test(lines[i]); i++) para.push(lines[i]);
      root.appendChild(inline(para.join(" "), el("p")));
    }
  }
}

async function rulesPage() {
  $("rules").hidden = false;
  const res = await fetch("/api/rules");
  const out = await res.json();
  if (!res.ok) { $("rules-text").textContent = out.error; return; }
  $("rules-source").textContent = "From " + out.path + " of the project.";
  drawMarkdown(out.text, $("rules-text"));
}

// -- people against agents ------------------------------------------------------------------
function pct(x) { return (100 * x).toFixed(1) + "%"; }

async function peoplePage() {
  $("people").hidden = false;
  const out = await (await fetch("/api/people")).json();
  $("people-count").textContent = out.matches_with_people + " finished matches with a person.";
  const t = el("table", { class: "sheet", id: "people-table" });
  const head = el("tr");
  for (const h of ["agent", "game", "matches", "won (95% CI)", "role", "hands", "points a hand (95% CI)"]) head.appendChild(el("th", {}, h));
  t.appendChild(head);
  for (const row of out.agents) {
    const roles = row.roles.length ? row.roles : [null];
    roles.forEach((r, k) => {
      const tr = el("tr");
      const first = [row.agent, row.game, String(row.matches),
        pct(row.win_rate) + " (" + pct(row.win_rate_ci95[0]) + " - " + pct(row.win_rate_ci95[1]) + ")"];
      for (const cell of first) tr.appendChild(el("td", {}, k === 0 ? cell : ""));
      tr.appendChild(el("td", {}, r ? r.role : "-"));
      tr.appendChild(el("td", {}, r ? String(r.hands) : "-"));
      tr.appendChild(el("td", {}, r ? r.points_per_hand.toFixed(2) + " (" + r.points_per_hand_ci95[0].toFixed(2) +
        " to " + r.points_per_hand_ci95[1].toFixed(2) + ")" : "-"));
      t.appendChild(tr);
    });
  }
  const wrap = el("div", { class: "scroll" });
  wrap.appendChild(t);
  $("people-table-box").appendChild(wrap);
}

if (location.pathname.startsWith("/t/")) playPage();
else if (location.pathname.startsWith("/replay")) replayPage();
else if (location.pathname.startsWith("/rules")) rulesPage();
else if (location.pathname.startsWith("/people")) peoplePage();
else lobbyPage();
