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

// The agents as docs/agents.md names them: a level and the name it is seated by, with a line
// that says what it is (the server's own line, where /api/games gives one, comes first).
const AGENTS = {
  random: ["L0", "plays any legal move at random"],
  simple: ["L1", "takes a card only if it joins a meld, throws its highest loose card, knocks at once"],
  heuristic: ["L2", "weighs meld chances, reads what the opponent took and threw, knocks with the stock in mind"],
  tuned: ["L3", "L2 with its settings tuned for the table's rules"],
  search: ["L4", "samples the hidden cards and plays fast games out (thinks for seconds)"],
  best: ["", "the strongest agent the project has for the table"],
  "rummy-simple": ["", "basic rummy's simple player: melds and lays off what it can, throws its highest card"],
};
let agentLines = {};  // the server's lines (/api/games "agent_help"), where it gives them

function agentName(name) {
  const level = AGENTS[name] && AGENTS[name][0];
  return level ? level + " (" + name + ")" : String(name);
}

function agentLine(name) {
  return agentLines[name] || (AGENTS[name] ? AGENTS[name][1] : "");
}

// A card as the hand shows it: "TC" is 10\u2663.
function cardText(code) {
  return (code[0] === "T" ? "10" : code[0]) + (SUITS[code[1]] || code[1]);
}

// Card codes in a line of text written as the cards show them ("discard TC": "discard 10\u2663").
function prettyCards(text) {
  return String(text).replace(/\b([A2-9TJQK])([SHDC])\b/g, (_, r, s) => cardText(r + s));
}

// A legal move (or a suggestion) in words, its cards as the hand shows them.
function moveWords(m) {
  const card = m.card ? cardText(m.card) : "";
  if (m.kind === "knock" && m.card) {
    if (m.deadwood === 0) return "gin, discarding " + card;
    return "knock, discarding " + card + (m.deadwood !== undefined ? " (deadwood " + m.deadwood + ")" : "");
  }
  if (m.kind === "no-advice") return "no advice";
  if (m.kind === "big-gin" || m.kind === "big_gin") return "big gin";
  return prettyCards(m.label);
}

// A line of the log in plain words, its cards as the hand shows them.
function logWords(line) {
  return prettyCards(String(line));
}

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
  const b = el("button", { type: "button", class: "card", "data-card": code || "" });
  b.appendChild(cardSvg(code));
  if (suggested) b.classList.add("suggested");
  if (move) {
    b.classList.add("playable");
    b.dataset.action = move.id;
    b.title = moveWords(move) + (knock ? " (k: " + moveWords(knock) + ")" : "");
    if (knock) b.dataset.knock = knock.id;
    b.addEventListener("click", () => {
      if (dragged) { dragged = false; return; }  // the end of a drag is no click
      sendMove(move.id);
    });
  } else {
    b.tabIndex = -1;
  }
  return b;
}

// -- drawing a table (play and replay) ---------------------------------------------------
function seatLabel(view, p) {
  const info = view.players[p];
  let who = info.name + (info.role ? " (" + info.role + ")" : "");
  if (info.kind !== "human") who += " [" + agentName(info.kind) + "]";
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
  // Dropped on a card to its right: it goes after that card; to its left: before it.
  rest.splice(order.indexOf(from) < order.indexOf(to) ? at + 1 : at, 0, from);
  handOrder = rest;
  render(current);
}

// Dragging a card of one's own hand onto another moves it there, by mouse, pen or touch
// (pointer events; the hand's cards take no panning gesture: touch-action none). A press
// that moves less than a few pixels is a click (a discard where one is offered).
let drag = null, dragged = false;

function ownCards() {
  return Array.from(document.querySelectorAll("#table-area .seat.shown.me .cards button.card[data-card]"));
}

function dragStart(ev) {
  const b = ev.target.closest("button.card[data-card]");
  if (!b || !b.dataset.card || (ev.pointerType === "mouse" && ev.button !== 0)) return;
  dragged = false;
  drag = { card: b.dataset.card, el: b, id: ev.pointerId, x: ev.clientX, y: ev.clientY, moving: false };
}

function dragMove(ev) {
  if (!drag || ev.pointerId !== drag.id) return;
  const dx = ev.clientX - drag.x, dy = ev.clientY - drag.y;
  if (!drag.moving && Math.hypot(dx, dy) < 8) return;
  if (!drag.moving) {
    drag.moving = true;
    if (drag.el.isConnected && drag.el.setPointerCapture) {
      try { drag.el.setPointerCapture(ev.pointerId); } catch (err) { /* a pointer already gone */ }
    }
  }
  drag.el.classList.add("dragging");
  drag.el.style.transform = "translate(" + dx + "px, " + dy + "px)";
  ev.preventDefault();
}

function dragEnd(ev) {
  if (!drag || ev.pointerId !== drag.id) return;
  const d = drag;
  drag = null;
  d.el.classList.remove("dragging");
  d.el.style.transform = "";
  if (!d.moving || ev.type === "pointercancel") return;
  dragged = true;  // the click that follows the release is not a discard
  setTimeout(() => { dragged = false; }, 0);
  // The card dropped on: the one of the hand nearest the pointer (within a card's height).
  let best = null, bestDist = Infinity;
  for (const b of ownCards()) {
    if (b.dataset.card === d.card) continue;
    const r = b.getBoundingClientRect();
    if (ev.clientY < r.top - r.height || ev.clientY > r.bottom + r.height) continue;
    const dist = Math.abs(ev.clientX - (r.left + r.right) / 2) + Math.abs(ev.clientY - (r.top + r.bottom) / 2) / 4;
    if (dist < bestDist) { best = b; bestDist = dist; }
  }
  if (best) moveCard(d.card, best.dataset.card);
}

document.addEventListener("pointermove", dragMove, { passive: false });
document.addEventListener("pointerup", dragEnd);
document.addEventListener("pointercancel", dragEnd);

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
  if (interactive && entry.cards && entry.player === view.you && !view.open) {
    box.classList.add("own-hand");  // the person's own cards: dragged to reorder
    box.addEventListener("pointerdown", dragStart);
  }
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

function signed(n) { return (n > 0 ? "+" : "") + n; }

const KIND_WORDS = { knock: "knock", undercut: "undercut", gin: "gin", big_gin: "big gin" };
const DRAW_WORDS = { stock: "two cards left in the stock", max_turns: "the turn limit" };

function drawReason(reason) { return DRAW_WORDS[reason] || String(reason || "").replace(/_/g, " "); }

// The hand's result in one line, from the view's row: who scored what, by its named parts
// ("gin: player_0 scores 56 = (gin bonus 25 + defender's deadwood 3) x 2 (spade double)";
// rummy: who went out and what each other player paid him).
function resultWords(view, row) {
  const name = (i) => view.players[i].name;
  if (view.game === "rummy_v0") {
    if (row.winner === null || row.winner === undefined) return "no winner (" + (row.reason ? drawReason(row.reason) : "the turn limit") + "): nobody pays";
    return name(row.winner) + (row.rummy || row.kind === "rummy" ? " goes out rummy (everyone pays double)" : " goes out") +
      ": scores " + rummyPoints(view, row);
  }
  if (row.kind === "draw") return "a draw" + (row.reason ? " (" + drawReason(row.reason) + ")" : "") + ": nobody scores";
  const points = row.explained || (row.parts && row.parts.length ? row.points + " = " + explain(row) : String(row.points));
  return (KIND_WORDS[row.kind] || String(row.kind).replace(/_/g, " ")) + ": " + name(row.winner) + " scores " + points;
}

// Rummy: the winner's points by their parts, and what each other player paid him.
function rummyPoints(view, row) {
  const paid = (row.paid && row.paid.length ? row.paid : row.payments) || [];
  const payers = paid.map((x, i) => [i, x]).filter(([i, x]) => i !== row.winner && x < 0)
    .map(([i, x]) => view.players[i].name + " pays " + -x);
  const points = row.explained || (row.parts && row.parts.length ? row.points + " = " + explain(row) : String(row.points));
  return points + (payers.length ? " (" + payers.join(", ") + ")" : "");
}

// The score sheet: a row a hand (each player's role, what he gained, his total after it),
// and under it, across the whole width, the hand's result by its parts.
function drawSheet(view, root) {
  root.textContent = "";
  const t = el("table", { class: "sheet" });
  const cols = view.players.length + 1;
  const head = el("tr");
  head.appendChild(el("th", {}, "hand"));
  for (const p of view.players) head.appendChild(el("th", {}, p.name));
  t.appendChild(head);
  view.sheet.forEach((row) => {
    const tr = el("tr", { class: "sheet-row", "data-hand": row.hand });
    tr.appendChild(el("td", { rowspan: "2", class: "hand-no" }, String(row.hand + 1)));
    view.players.forEach((p, i) => {
      const gained = row.scored ? row.scored[i] : (row.payments || row.paid || [])[i];
      let total = "";
      // Hollywood: each game's score after the hand, as the engine scored it.
      if (view.games) total = row.games && row.games.length ? "games " + row.games.map((g) => g[i]).join(" / ") : "";
      else if (row.scores) total = "total " + row.scores[i];
      const td = el("td", { "data-gained": gained, "data-total": row.scores && !view.games ? row.scores[i] : "" });
      if (row.roles && row.roles.length) td.appendChild(el("div", { class: "role" }, row.roles[i]));
      td.appendChild(el("div", { class: "gain" + (gained > 0 ? " won" : "") }, signed(gained)));
      if (total) td.appendChild(el("div", { class: "run" }, total));
      tr.appendChild(td);
    });
    t.appendChild(tr);
    const parts = el("tr", { class: "sheet-parts", "data-hand": row.hand });
    parts.appendChild(el("td", { colspan: String(cols - 1) }, resultWords(view, row)));
    t.appendChild(parts);
  });
  if (view.games) { // Hollywood: three games at once
    view.games.forEach((g, i) => {
      const tr = el("tr", { class: "hollywood total" });
      tr.appendChild(el("th", {}, "game " + (i + 1)));
      const w = view.game_winners[i];
      g.forEach((x, p) => tr.appendChild(el("th", {}, String(x) + (w === p ? " won" : ""))));
      t.appendChild(tr);
    });
  } else {
    const total = el("tr", { class: "total" });
    total.appendChild(el("th", {}, "total"));
    for (const s of view.scores) total.appendChild(el("th", {}, String(s)));
    t.appendChild(total);
  }
  const cap = view.games ? "Three games at once: the match goes to whoever wins two. " : "";
  const roles = view.sheet.some((row) => row.roles && row.roles.length);
  t.appendChild(el("caption", {}, cap + "Each hand: " + (roles ? "the role, " : "") + "the points gained, " +
    (view.games ? "each game's total after it" : "the total after it") + (view.target ? "; the target is " + view.target : "") + "."));
  root.appendChild(t);
}

function drawShowdown(view, root) {
  root.textContent = "";
  const sd = view.showdown;
  if (!sd) return;
  const p = el("div", { class: "panel", id: root.id + "-panel", "data-hand": sd.hand });
  const name = (i) => (i === null || i === undefined ? "nobody" : view.players[i].name);
  if (view.game === "rummy_v0") { // basic rummy: what the sheet says, with the cards left
    p.appendChild(el("div", { class: "who" }, "Hand " + (sd.hand + 1) + ": " +
      (sd.winner === null ? "no winner" : name(sd.winner) + (sd.rummy ? " goes out rummy" : " goes out"))));
    if (sd.winner !== null) p.appendChild(el("div", { class: "points-explained" }, "Points: " + rummyPoints(view, sd)));
    else p.appendChild(el("div", { class: "points-explained" }, resultWords(view, sd)));
    // The cards left in each hand: the showdown's hands (by player), else its "left" lists.
    const left = sd.hands ? sd.hands.map((h) => h.cards) : sd.left;
    const paid = (sd.paid && sd.paid.length ? sd.paid : sd.payments) || [];
    left.forEach((cards, i) => {
      const gained = sd.scored ? sd.scored[i] : paid[i];
      let words = name(i) + " " + signed(gained);
      if (i !== sd.winner && paid[i] < 0) words += " (pays " + -paid[i] + " for the cards left)";
      const line = el("div", { class: "left-line", "data-player": i }, words + (cards.length ? ": " : ", no cards left"));
      if (cards.length) line.appendChild(miniCards(cards));
      p.appendChild(line);
    });
    p.appendChild(el("div", {}, "Totals: " + view.players.map((x, i) => x.name + " " + sd.scores[i]).join(", ")));
    root.appendChild(p);
    return;
  }
  const title = sd.kind === "draw" ? "Hand " + (sd.hand + 1) + ": a draw (" + drawReason(sd.reason) + ")" :
    "Hand " + (sd.hand + 1) + ": " + (KIND_WORDS[sd.kind] || sd.kind) + " - " + name(sd.winner) + " scores " + sd.points;
  p.appendChild(el("div", { class: "who" }, title));
  if (sd.kind !== "draw" && (sd.explained || (sd.parts && sd.parts.length))) {
    p.appendChild(el("div", { class: "points-explained" }, "Points: " + (sd.explained || explain(sd))));
  }
  if (sd.knocker_melds && sd.knocker_melds.length + sd.knocker_deadwood_cards.length) {
    const k = el("div", {}, name(sd.knocker) + (sd.kind === "gin" || sd.kind === "big_gin" ? " (gin): " : " (knocker): "));
    for (const m of sd.knocker_melds) k.appendChild(miniCards(m));
    k.appendChild(el("span", {}, " deadwood " + sd.knocker_deadwood + " "));
    k.appendChild(miniCards(sd.knocker_deadwood_cards));
    p.appendChild(k);
    const defender = sd.hands.map((h) => h.player).find((x) => x !== sd.knocker);
    const d = el("div", {}, name(defender) + " (defender): ");
    for (const m of sd.defender_melds) d.appendChild(miniCards(m));
    if (sd.layoffs.length) {
      d.appendChild(el("span", {}, " lays off "));
      d.appendChild(miniCards(sd.layoffs));
    }
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
  if (view.games) {
    p.appendChild(el("div", {}, "Games: " + view.games.map((g, i) => (i + 1) + ": " + g.join("-") +
      (view.game_winners[i] === null ? "" : " (" + name(view.game_winners[i]) + ")")).join(", ")));
  } else {
    p.appendChild(el("div", {}, "Totals: " + view.players.map((x, i) => x.name + " " + sd.scores[i]).join(", ")));
  }
  root.appendChild(p);
}

// A hand's points by their named parts, as the view gives them (never computed here).
function explain(row) {
  const sum = row.parts.map(([name, n]) => name + " " + n).join(" + ");
  return row.multiplier && row.multiplier !== 1 ? "(" + sum + ") x " + row.multiplier + " (spade double)" : sum;
}

// The log, its cards as the hand shows them (a gin is logged as one by the move's own words).
function drawLog(view, root) {
  root.textContent = "";
  for (const line of view.log.map(logWords)) root.appendChild(el("li", {}, line));
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
  if (resultUp() && !current.over) resultSeen = current.showdown.hand;  // he moves on
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
    sugg += moveWords(view.suggestion);
    if (view.suggestion.kind === "no-advice") {
      sugg = view.you === null ? "The adviser gives no advice" : mine && mine.role === "adviser" ?
        "You gave no advice" : "Your adviser gives no advice";
    }
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
      (advising ? (m.kind === "no-advice" ? "give no advice" : "suggest: " + moveWords(m)) : moveWords(m)) +
      (n <= 9 ? "  [" + n + "]" : ""));
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
  drawResult(view);
  drawSheet(view, $("sheet"));
  drawLog(view, $("log"));
  // The team message box: for a captain and an adviser who are both people.
  const partner = { captain: "adviser", adviser: "captain" }[view.role];
  const mate = view.players.find((p, i) => i !== view.you && p.role === partner);
  $("chat").hidden = view.game !== "three_handed_gin_v0" || !mate || mate.kind !== "human";
  selected = -1;
  drawAfterMatch(view);
  firstState = false;
}

// The hand's result stays on top of the page, above the next hand, until the person moves
// on: the "Next hand" button (or Enter), or a move of his in the next hand. A page opened
// once the next hand is under way does not show it again (the "last hand" button does).
let resultSeen = null, resultShown = null, firstState = true;

function resultUp() {
  return current && current.showdown && (current.over || resultSeen !== current.showdown.hand);
}

function drawResult(view) {
  const sd = view.showdown;
  if (sd && firstState && !view.over && view.log_hand !== undefined && view.log_hand !== sd.hand) resultSeen = sd.hand;
  drawShowdown(view, $("showdown"));
  const up = Boolean(sd) && (view.over || resultSeen !== sd.hand);
  $("result").hidden = !up;
  $("next-hand").hidden = !up || view.over;
  $("last-result").hidden = !sd || up;
  if (up && resultShown !== sd.hand) {  // a new result: in view
    resultShown = sd.hand;
    const r = $("result").getBoundingClientRect();
    if (r.top < 0 || r.bottom > window.innerHeight) $("result").scrollIntoView({ block: "start" });
  }
}

function moveOn() {
  if (!current || !current.showdown || current.over) return;
  resultSeen = current.showdown.hand;
  render(current);
}

// Once the match is over: its replay, and for a seat a rematch (its new link: this
// person's own seat only).
let rematchPath = null;

function seatPath(v) {
  const p = v && typeof v === "object" ? v.link || v.path || v.seat || v.href : v;
  return typeof p === "string" && /^\/t\/[\w-]+$/.test(p) ? p : null;
}

// The rematch answer, old shape (every seat's link by name) or new (this person's own:
// "seat", "link" or "you", a path or an object holding one).
function ownRematchPath(out, view) {
  for (const key of ["seat", "link", "you", "your_seat"]) {
    const p = seatPath(out[key]);
    if (p) return p;
  }
  if (out.seats && typeof out.seats === "object" && view.you !== null) return seatPath(out.seats[view.players[view.you].name]);
  return null;
}

function drawAfterMatch(view) {
  const box = $("after-match");
  box.textContent = "";
  box.hidden = !view.over;
  if (!view.over) return;
  box.appendChild(el("a", { href: "/replay?match=" + encodeURIComponent(view.table), id: "replay-link" }, "Replay this match"));
  if (view.you === null) return;
  const pushed = seatPath(view.rematch);  // a rematch someone else started: the server's own link for this seat
  if (pushed) rematchPath = pushed;
  if (rematchPath) {
    const mine = view.players[view.you].name;
    box.appendChild(el("a", { href: rematchPath, id: "rematch-link", class: "seat-link", "data-name": mine },
      "Your seat at the rematch (" + mine + "): " + location.origin + rematchPath));
    return;
  }
  const b = el("button", { type: "button", id: "rematch" }, "Rematch");
  b.addEventListener("click", async () => {
    b.disabled = true;
    let res, out = {};
    try {
      res = await fetch("/api/rematch", { method: "POST", body: JSON.stringify({ link: token }),
        headers: { "Content-Type": "application/json" } });
      out = await res.json();
    } catch (err) {
      $("error").textContent = "the rematch could not be started: " + err;
      b.disabled = false;
      return;
    }
    if (!res.ok) { $("error").textContent = out.error || "the rematch could not be started"; b.disabled = false; return; }
    rematchPath = ownRematchPath(out, current || view);
    if (!rematchPath) { $("error").textContent = "the rematch started, but its answer holds no link for your seat"; return; }
    drawAfterMatch(current || view);
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
    else if (msg.type === "hint") $("hint-text").textContent = hintWords(msg);
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

// "L2 (heuristic) would draw": the hint agent as the docs name it, the move as the buttons say it.
function hintWords(msg) {
  const m = current && current.legal.find((x) => x.id === msg.action);
  let words = m ? moveWords(m) : prettyCards(msg.label);
  if (m && m.kind === "no-advice") words = "give no advice";
  else if (m && current.hand.advising) words = "suggest " + words;
  return agentName(msg.agent) + " would " + words;
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
  $("next-hand").addEventListener("click", moveOn);
  $("last-result").addEventListener("click", () => {
    if (!current || !current.showdown) return;
    resultSeen = null;
    resultShown = null;
    render(current);
  });
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
  } else if (ev.key === "Enter" && selected < 0 && resultUp() && !current.over) {
    moveOn();
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
  const res = await fetch("/api/matches");
  if (!res.ok) return;  // (refused or paged away: the lobby works without its list)
  const out = await res.json();
  const list = Array.isArray(out) ? out : out.matches || [];
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
  agentLines = info.agent_help || {};
  const hint = $("hint-agent");
  hint.textContent = "";
  for (const a of info.agents) {
    const o = el("option", { value: a }, agentName(a));
    if (a === info.default_agent) o.selected = true;
    hint.appendChild(o);
  }
  showAgentLine(hint);
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
    for (const a of info.agents) s.appendChild(el("option", { value: a }, "agent: " + agentName(a)));
    s.value = p === 0 ? "human" : info.default_agent;
    const label = el("label", { class: "option" }, "player_" + p + " ");
    label.appendChild(s);
    box.appendChild(label);
    showAgentLine(s);
  }
}

// The line under an agent's select that says what the chosen agent is.
function showAgentLine(select) {
  const label = select.closest("label");
  let help = label.querySelector("small.agent-help");
  if (!help) {
    help = el("small", { class: "help agent-help" });
    label.appendChild(help);
    select.addEventListener("change", () => showAgentLine(select));
  }
  help.textContent = select.value === "human" ? "the link is the seat: send it to the person" : agentLine(select.value);
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
  drawLog(view, $("replay-log"));
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
  if (!res.ok) { $("rules-source").textContent = out.error; $("rules-details").hidden = true; return; }
  $("rules-source").textContent = "The rules above are the short version. Every rule, with every " +
    "case the published rules leave open decided, is in the project's " + out.path + " (written for " +
    "the people who build agents):";
  drawMarkdown(out.text, $("rules-text"));
}

// -- people against agents ------------------------------------------------------------------
function pct(x) { return (100 * x).toFixed(1) + "%"; }

const GAME_NAMES = { three_handed_gin_v0: "three-handed gin", gin_v0: "two-player gin", rummy_v0: "basic rummy" };

// Each agent and game: a block of its own (the matches, the share won, and a small table of
// its roles), so that a phone shows every figure without scrolling sideways.
async function peoplePage() {
  $("people").hidden = false;
  const out = await (await fetch("/api/people")).json();
  $("people-count").textContent = out.matches_with_people + " finished matches with a person.";
  const box = $("people-table-box");
  box.textContent = "";
  for (const row of out.agents) {
    const card = el("div", { class: "people-row", "data-agent": row.agent, "data-game": row.game });
    card.appendChild(el("h2", {}, agentName(row.agent) + ", " + (GAME_NAMES[row.game] || row.game)));
    const won = row.matches_won !== undefined ? row.matches_won : Math.round(row.win_rate * row.matches);
    card.appendChild(el("p", { class: "people-matches" }, "matches " + row.matches + ", won " + won + ": " +
      pct(row.win_rate) + " (95% CI " + pct(row.win_rate_ci95[0]) + " to " + pct(row.win_rate_ci95[1]) + ")"));
    if (row.roles.length) {
      const t = el("table", { class: "sheet people-roles" });
      const head = el("tr");
      for (const h of ["role", "hands", "its side's points a hand (95% CI)"]) head.appendChild(el("th", {}, h));
      t.appendChild(head);
      for (const r of row.roles) {
        const tr = el("tr");
        tr.appendChild(el("td", {}, r.role));
        tr.appendChild(el("td", {}, String(r.hands)));
        const cell = el("td", {}, r.points_per_hand.toFixed(2) + " ");
        cell.appendChild(el("span", { class: "ci" }, "(" + r.points_per_hand_ci95[0].toFixed(2) +
          " to " + r.points_per_hand_ci95[1].toFixed(2) + ")"));
        tr.appendChild(cell);
        t.appendChild(tr);
      }
      card.appendChild(t);
    } else {
      card.appendChild(el("p", { class: "keys" }, "no hand results kept for this game (its records keep the match only)"));
    }
    box.appendChild(card);
  }
}

if (location.pathname.startsWith("/t/")) playPage();
else if (location.pathname.startsWith("/replay")) replayPage();
else if (location.pathname.startsWith("/rules")) rulesPage();
else if (location.pathname.startsWith("/people")) peoplePage();
else lobbyPage();
