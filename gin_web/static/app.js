// The page of gin-rummy serve: lobby, play, replay. Plain JavaScript, SVG cards, no build.
// The server is the authority: this page only shows the state it is sent and offers the
// legal moves listed in it. Text from the server goes in with textContent, never as HTML.
"use strict";

const $ = (id) => document.getElementById(id);
const SUITS = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };
const SVG = "http://www.w3.org/2000/svg";

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

function cardButton(code, move, knock) {
  const b = el("button", { type: "button", class: "card", "data-card": code || "" });
  b.appendChild(cardSvg(code));
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
  if (!info.present) who += " - away";
  if (info.stand_in) who += " - an agent stands in";
  return who;
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
  if (entry.cards) {
    for (const meld of entry.cards.melds) {
      const g = el("div", { class: "group meld" });
      for (const c of meld) g.appendChild(cardButton(c, byCard[c], knockBy[c]));
      box.appendChild(g);
    }
    if (entry.cards.deadwood_cards.length) {
      const g = el("div", { class: "group deadwood" });
      for (const c of entry.cards.deadwood_cards) g.appendChild(cardButton(c, byCard[c], knockBy[c]));
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
  pile.appendChild(el("span", {}, (hand.phase.startsWith("upcard") ? "Upcard" : "Discard") + ": "));
  const top = hand.pile.length ? hand.pile[hand.pile.length - 1] : null;
  if (top) pile.appendChild(cardSvg(top)); else pile.appendChild(el("span", {}, "-"));
  mid.appendChild(pile);
  if (hand.knock_limit !== undefined) mid.appendChild(el("div", {}, "Knock limit: " + hand.knock_limit));
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
      const role = row.roles ? row.roles[i] + " " : "";
      const score = row.scores ? row.scores[i] : row.payments[i];
      tr.appendChild(el("td", {}, role + score));
    });
    let what;
    if (row.kind !== undefined) {
      what = row.kind === "draw" ? "draw" :
        row.kind + ": " + view.players[row.winner].name + " +" + row.points;
    } else {
      what = row.winner === null ? "no winner" :
        view.players[row.winner].name + (row.rummy ? " rummy" : " out");
    }
    tr.appendChild(el("td", {}, what));
    t.appendChild(tr);
  }
  const total = el("tr");
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
  if (sd.payments) { // basic rummy
    p.appendChild(el("div", {}, "Hand " + (sd.hand + 1) + ": " +
      (sd.winner === null ? "no winner" : name(sd.winner) + (sd.rummy ? " goes out rummy (double)" : " goes out"))));
    sd.left.forEach((cards, i) => {
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

function drawLog(lines, root) {
  root.textContent = "";
  for (const line of lines) root.appendChild(el("li", {}, line));
  root.scrollTop = root.scrollHeight;
}

function statusText(view) {
  if (view.over) return "Match over: " + view.players[view.winner].name + " wins (" + view.scores.join(" / ") + ")";
  const who = view.to_act === null ? "nobody" : view.players[view.to_act].name;
  const hand = "Hand " + (view.hand.index + 1) + ", " + view.hand.phase;
  if (view.you === null) return hand + ": " + who + " to act";
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
  socket.send(JSON.stringify({ type: "move", action: id, seq: current.seq }));
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
  $("suggestion").textContent = view.suggestion ? "Your adviser suggests: " + view.suggestion.label : "";
  const moves = $("moves");
  moves.textContent = "";
  const advising = view.hand.advising;
  let n = 0;
  for (const m of view.legal) {
    if (m.kind === "discard") continue; // click the card
    n += 1;
    const b = el("button", { type: "button", class: "move", "data-action": m.id, "data-kind": m.kind },
      (advising ? "suggest: " : "") + m.label + (n <= 9 ? "  [" + n + "]" : ""));
    b.addEventListener("click", () => sendMove(m.id));
    moves.appendChild(b);
  }
  const discards = view.legal.filter((m) => m.kind === "discard");
  if (discards.length) moves.appendChild(el("span", { class: "hint" },
    advising ? " or click a card to suggest its discard" : " or click a card to discard it"));
  $("hint").disabled = !(view.to_act === view.you && view.you !== null && !view.over);
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
}

function connect() {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  const open = new URLSearchParams(location.search).get("open") === "1" ? "?open=1" : "";
  socket = new WebSocket(proto + "//" + location.host + "/ws/" + token + open);
  socket.onopen = () => { retry = 0; };
  socket.onmessage = (ev) => {
    const msg = JSON.parse(ev.data);
    if (msg.type === "state") { render(msg); if (current.seq !== undefined) $("hint-text").textContent = ""; }
    else if (msg.type === "error") $("error").textContent = msg.message;
    else if (msg.type === "hint") $("hint-text").textContent = msg.agent + " would " + msg.label;
    else if (msg.type === "chat") $("chat-log").appendChild(el("div", {}, msg.from + ": " + msg.text));
  };
  socket.onclose = (ev) => {
    if (ev.code === 4404 || ev.code === 4403) return;
    $("error").textContent = "disconnected; reconnecting...";
    retry = Math.min(retry + 1, 5);
    setTimeout(connect, 500 * retry);
  };
}

function playPage() {
  $("play").hidden = false;
  token = location.pathname.split("/")[2];
  connect();
  $("hint").addEventListener("click", () => socket.send(JSON.stringify({ type: "hint" })));
  $("pile-toggle").addEventListener("click", () => { $("pile-history").hidden = !$("pile-history").hidden; });
  $("chat-send").addEventListener("click", () => {
    const text = $("chat-text").value.trim();
    if (text) socket.send(JSON.stringify({ type: "chat", text }));
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
    selected = (selected + (ev.key === "ArrowRight" ? 1 : cards.length - 1)) % cards.length;
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
    const label = el("label", {}, name + " ");
    label.appendChild(input);
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
  links.appendChild(el("p", {}, "Each person gets their own link (keep it: it is the seat):"));
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

async function loadReplay(text) {
  $("replay-error").textContent = "";
  const res = await fetch("/api/replay", { method: "POST", body: text,
    headers: { "Content-Type": "application/json" } });
  const out = await res.json();
  if (!res.ok) { $("replay-error").textContent = out.error; return; }
  frames = out.frames;
  $("frame-slider").max = frames.length - 1;
  const a = $("download");
  a.href = URL.createObjectURL(new Blob([JSON.stringify(out.record, null, 1)], { type: "application/json" }));
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

if (location.pathname.startsWith("/t/")) playPage();
else if (location.pathname.startsWith("/replay")) replayPage();
else lobbyPage();
