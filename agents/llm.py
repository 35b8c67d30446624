"""Players that play through words: language models, and any agent's moves said in words.

:class:`LLMAgent` (``agents.make("llm:model=NAME,base_url=URL")``) talks to any
OpenAI-compatible chat endpoint (OpenAI, vLLM, llama.cpp's ``llama-server``, Ollama)
through the ``openai`` client (extra ``llm``: ``pip install "gin-env[llm]"``). It plays
every seat and role of every game:

- in the numeric envs, ``act(observation)`` renders the seat's own observation in words
  (:func:`gin_env.text.seat_text`), asks the model and reads its reply
  (:func:`gin_env.text.replies.read_reply`: reasoning blocks set aside, the last explicit
  answer wins); an adviser's reply becomes its suggestion;
- in the text env (:mod:`gin_env.text`), ``respond(text)`` returns the model's words and
  the env reads them.

Every figure is the model's own. The endpoint's faults (timeouts, HTTP 5xx and 429,
bodies that are not the API's JSON, ``null`` content) are retried by the transport
(:mod:`agents.llm_transport`: ``transport_retries`` times a request) and never become a
re-ask of the model; after ``max_failures`` failed requests in a row (each failed after
its retries), or at once on a refused key, request or quota or a model that does not
exist, it raises :class:`~agents.llm_transport.EndpointError` and the run stops. An
*unusable* reply (no legal move, two moves, an illegal one) is the model's: it is
re-asked ``retries`` times, then :class:`~gin_env.text.unusable.UnusablePolicy` decides
(``on_invalid``: ``random-legal``, counted as a fallback move, or ``raise``). A reply
cut at the token limit is *truncated*: asked again with twice the room (``grow``, up to
4x), else unusable.

Options (in the spec or as keywords): ``model``, ``base_url`` (None: OpenAI's),
``api_key_env`` (default ``OPENAI_API_KEY``; unset means no key), ``temperature``,
``max_tokens``, ``max_completion_tokens``, ``reasoning_effort`` (each sent only when set),
``extra_body`` and ``extra_headers`` (a mapping, a JSON text, or the path of a ``.json``
file), ``timeout`` (seconds, 30), ``backoff`` (1.0), ``transport_retries`` (2),
``max_failures`` (5), ``retries`` (2), ``on_invalid``, ``grow`` (True), ``protocol``
(``"words"``: the seat's text with its legal moves; ``"arena"``: as Kaggle's Game Arena
harness plays, a JSON ``{"move": ...}`` reply, no legal moves in the prompt, ``retries``
rethinks), ``conversation`` (``"decision"``: each decision asked alone; ``"hand"``: the
hand's earlier turns kept in the conversation, a constant prefix providers cache),
``price_in`` and ``price_out`` (per million tokens: a cost), ``transcript`` (a JSONL
path), ``run`` (the run's name in the transcript; default: a random id), ``name`` (the
player's name in results; default ``llm(<model>)``), ``game``, ``system_prompt``.

:class:`WordsAgent` (``"words:agent=heuristic"``) is any agent whose every move goes
through the words: it says its move (in turn: strict, JSON, a ``move:`` line, a sentence,
a short form) and the move is read back; it needs no model and no network.
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import threading
import time
import uuid
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from agents.llm_transport import Completion, EndpointError, Transport
from gin_env import actions as A
from gin_env import rummy_actions as R
from gin_env.config import GinConfig, RummyConfig, ThreeHandedConfig
from gin_env.config import Table as GameTable
from gin_env.seat_view import SeatView
from gin_env.text import Rulebook, facts, game_of, move_words, rules_in_brief, table_of
from gin_env.text.replies import NO_MOVE_NAMED, ReplyContext, ReplyError, read_reply
from gin_env.text.unusable import UnusablePolicy
from gin_env.text.views import reply_context
from gin_env.text.words import card_name, describe

__all__ = [
    "LLMAgent",
    "WordsAgent",
    "ON_INVALID",
    "PROTOCOLS",
    "CONVERSATIONS",
    "EndpointError",
    "TruncatedReplyError",
    "NoJsonMoveError",
    "decision_context",
    "system_prompt",
    "arena_system_prompt",
    "say",
    "word_figures",
    "add_counts",
]

#: What a player in words may do after its tries (it cannot forfeit a numeric env's hand).
ON_INVALID = ("random-legal", "raise")
PROTOCOLS = ("words", "arena")
CONVERSATIONS = ("decision", "hand")


class TruncatedReplyError(ReplyError):
    """A model's reply cut at the token limit (unusable as it stands; its message is the
    reason alone)."""

    kind = "truncated"


class NoJsonMoveError(ReplyError):
    """A reply under the ``"arena"`` protocol without its JSON ``{"move": ...}`` (its
    message is the reason alone)."""

    kind = "no-json"


_STAT_KEYS = (
    "decisions", "requests", "replies", "invalid", "truncated", "reasks", "transport_faults",
    "timeouts", "failed_requests", "fallback_moves", "prompt_tokens", "completion_tokens",
    "reasoning_tokens", "cached_tokens", "latency_s", "cost",
)  # fmt: skip
#: The context fields that say which game (one replay) a decision belongs to.
_GAME_KEYS = ("design", "mode", "game_index", "replay", "seed")
_TRANSCRIPT_LOCKS: dict[str, threading.Lock] = {}
_LOCKS_LOCK = threading.Lock()
_CONTEXT: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar(
    "gin_llm_context", default=None
)
_ARENA_ASK = (
    "It is now your turn. Play your strongest move. The move MUST be legal. Reason step by "
    'step, then give your final answer as JSON: {"move": "<your move>"}, e.g. '
    '{"move": "discard 7H"}.'
)


@contextlib.contextmanager
def decision_context(**fields: Any) -> Iterator[None]:
    """Within it, every transcript line and conversation carries ``fields`` (the harness
    says which game a decision belongs to: ``design``, ``mode`` (three-handed:
    ``adviser_on`` or ``adviser_off``), ``game_index``, ``replay`` (the name of the game's
    replay file), ``seed`` (the replay's seed), ``seats``; nested calls add). The player
    adds ``seat``, ``hand`` (the hand of that replay) and ``role``."""
    token = _CONTEXT.set({**(_CONTEXT.get() or {}), **fields})
    try:
        yield
    finally:
        _CONTEXT.reset(token)


def _game_of_table(rules: GameTable | None) -> str | None:
    """The game a typed table is of (None for a dict of rules, or none)."""
    if isinstance(rules, ThreeHandedConfig):
        return "three_handed"
    if isinstance(rules, GinConfig):
        return "gin"
    if isinstance(rules, RummyConfig):
        return "rummy"
    return None


def system_prompt(table: Rulebook) -> str:
    """The rules in brief and how to reply."""
    return (
        f"You are a player at a card table. {rules_in_brief(table)}\n"
        "Cards are written rank then suit: ranks A 2 3 4 5 6 7 8 9 T J Q K (T is ten), "
        "suits S H D C (spades, hearts, diamonds, clubs); TS is the ten of spades.\n"
        "Each message tells you what your seat knows and lists your legal moves. Reply with "
        'exactly one legal move as written there, e.g. "discard 7H", or as JSON '
        '{"move": "discard 7H"}. If you explain, keep it short and end with a line '
        '"move: <your move>".'
    )


def arena_system_prompt(table: Rulebook) -> str:
    """The rules in brief, as the arena protocol asks (no list of legal moves follows)."""
    return (
        f"You are a player at a card table. {rules_in_brief(table)}\n"
        "Cards are written rank then suit: ranks A 2 3 4 5 6 7 8 9 T J Q K (T is ten), "
        "suits S H D C; TS is the ten of spades. Moves are written: draw, take, pass, "
        "discard 7H, knock 7H, no-advice (an adviser), big-gin; in rummy take discard, "
        "meld 5H 6H 7H, lay off 8H on run."
    )


def _arena_prompt(prompt: str) -> str:
    """The seat's text without its legal moves and with the arena's request."""
    keep = [
        line
        for line in prompt.splitlines()
        if not line.startswith(("Legal moves:", "Suggest one of", "Reply with"))
    ]
    return "\n".join(keep + [_ARENA_ASK])


def say(action: int, game: str, way: int) -> str:
    """A legal move said one of five ways (all read back to it): 0 strict, 1 JSON, 2 a
    ``move:`` line after a thought, 3 a sentence, 4 a short form (``10h``)."""
    words = move_words(action, game)
    way %= 5
    if way == 0:
        return words
    if way == 1:
        return json.dumps({"move": words})
    if way == 2:
        return f"Let me think.\nmove: {words.lower()}"
    if game == "rummy":
        kind, value = R.decode(action)
        if kind == "discard" and way == 3:
            return f"I will discard the {card_name(value)}."
        return f"I play: {words}."
    kind, card = A.decode(action)
    if card is not None and kind == "discard":
        return f"I'll discard the {card_name(card)}." if way == 3 else words.split()[1].lower()
    if card is not None and kind == "knock":
        return f"Knock, discarding the {card_name(card)}!"
    return {
        "draw": "I'll draw from the stock.",
        "take": "I take the upcard.",
        "pass": "I pass.",
        "no-advice": "No advice this time.",
        "big-gin": "Big gin!",
    }[kind]


def _json_option(name: str, value: Any) -> dict[str, Any] | None:
    """A mapping option given as a mapping, a JSON text or a ``.json`` file (data only)."""
    if value is None or isinstance(value, Mapping):
        return None if value is None else dict(value)
    if isinstance(value, str):
        text = Path(value).read_text() if value.endswith(".json") else value
        try:
            out = json.loads(text)
        except ValueError as err:
            raise ValueError(f"{name} must be a JSON object: {err}") from None
        if isinstance(out, dict):
            return out
    raise ValueError(f"{name} must be a JSON object (a mapping, JSON text or a .json path)")


class _WordsPlayer:
    """What the word players share: the seat's table and text, replies read with re-asks,
    the unusable-reply policy, stats and the transcript."""

    name = "words"

    def __init__(
        self,
        game: str | None = None,
        rules: GameTable | None = None,
        retries: int = 2,
        on_invalid: str = "random-legal",
        transcript: str | None = None,
        seed: int = 0,
        protocol: str = "words",
        conversation: str = "decision",
        price_in: float = 0.0,
        price_out: float = 0.0,
        run: str | None = None,
        name: str | None = None,
    ) -> None:
        if on_invalid == "forfeit-hand":
            # The arena forfeits; a player in the numeric envs cannot end a hand there.
            raise ValueError(
                "on_invalid='forfeit-hand' cannot be played in the numeric envs (no move there "
                f"ends a hand); allowed for a player: {', '.join(ON_INVALID)}. The text env "
                "forfeits (gin_env.text.env(..., on_invalid='forfeit-hand')); in the numeric "
                "envs a hand the arena would forfeit is a fallback move, counted in "
                "fallback_rate"
            )
        self.policy = UnusablePolicy(retries, on_invalid, allowed=ON_INVALID)
        for option, value, allowed in (
            ("protocol", protocol, PROTOCOLS),
            ("conversation", conversation, CONVERSATIONS),
        ):
            if value not in allowed:
                raise ValueError(f"{option} must be one of {', '.join(allowed)}; got {value!r}")
        for option, price in (("price_in", price_in), ("price_out", price_out)):
            if isinstance(price, bool) or not isinstance(price, int | float) or price < 0:
                raise ValueError(f"{option} must be a price per million tokens >= 0, got {price!r}")
        # The game: as given, else the table's, else the observation's (see table_for).
        self.game = table_of(game).game if game is not None else _game_of_table(rules)
        self.rules = rules
        self._three = self.game == "three_handed"
        self.retries = retries
        self.on_invalid = on_invalid
        self.protocol = protocol
        self.conversation = conversation
        self.price_in = float(price_in)
        self.price_out = float(price_out)
        if name is not None and (not isinstance(name, str) or not name.strip()):
            raise ValueError(f"name must be a non-empty string, got {name!r}")
        if run is not None and (not isinstance(run, str | int) or not str(run).strip()):
            raise ValueError(f"run must be a non-empty string, got {run!r}")
        self.label = None if name is None else name.strip()
        # The run's name in the transcript: as given (gin-rummy eval gives its run's name),
        # else a random id (nothing to derive one from).
        self.run = str(run) if run is not None else uuid.uuid4().hex[:12]
        self.transcript = None if transcript is None else Path(transcript)
        self._rng = np.random.default_rng(seed)
        self._lock = threading.Lock()
        self._stats = dict.fromkeys(_STAT_KEYS, 0.0)
        self._games: set[tuple[Any, ...]] = set()
        self._told: set[tuple[Any, ...]] = set()  # the games whose system prompt is written
        self._tables: dict[str, Rulebook] = {}
        self._talks: dict[tuple[Any, ...], list[dict[str, str]]] = {}

    # -- the seat ----------------------------------------------------------------------------
    def table_for(self, observation: Mapping[str, Any]) -> Rulebook:
        """The table of this seat: the game given or seated at, else the observation's
        family (the two gin games share one layout: an adviser's turn or a suggestion
        shows three hands)."""
        family = game_of(observation)
        if family == "rummy":
            game = "rummy"
        elif self.game is not None:
            game = self.game
        else:
            if not self._three and self._looks_three_handed(observation):
                self._three = True
            game = "three_handed" if self._three else "gin"
        table = self._tables.get(game)
        if table is None:
            fits = _game_of_table(self.rules) in (None, game) or (
                game == "three_handed" and _game_of_table(self.rules) == "gin"
            )
            table = self._tables[game] = table_of(game, self.rules if fits else None)
        return table

    @staticmethod
    def _looks_three_handed(observation: Mapping[str, Any]) -> bool:
        seat = facts(observation, Rulebook("gin"))
        return (
            seat.player == 2
            or seat.advising
            or seat.suggestion is not None
            or A.NO_ADVICE in seat.legal
        )

    def _seat(
        self, observation: Mapping[str, Any], view: SeatView | None = None
    ) -> tuple[Rulebook, str, list[int], bool, str, ReplyContext]:
        """The seat's table, its text, its legal moves, whether it advises, its role and what
        a reply may point at (:class:`~gin_env.text.replies.ReplyContext`): from
        its seat ``view`` when the loop hands it one (the table's own rules, the pile in
        order, the score sheet), else from what its observation holds."""
        if view is not None:
            table = table_of(view.game, view.rules)
            seat = view
        else:
            table = self.table_for(observation)
            seat = facts(observation, table)
        legal = list(seat.legal)
        if not legal:
            raise ValueError("the action mask has no legal action: this agent is not to act")
        advising = seat.family == "gin" and seat.advising
        role = seat.role if seat.family == "gin" else "player"
        return table, describe(seat, table), legal, advising, role, reply_context(seat)

    def system(self, table: Rulebook) -> str:
        return arena_system_prompt(table) if self.protocol == "arena" else system_prompt(table)

    # -- acting ------------------------------------------------------------------------------
    #: The rollout loop hands this player its seat's view (gin_eval.rollout).
    reads_view = True

    def act(
        self,
        observation: Mapping[str, Any],
        rng: np.random.Generator | None = None,
        view: SeatView | None = None,
    ) -> int:
        table, prompt, legal, advising, role, context = self._seat(observation, view)
        if self.protocol == "arena":
            prompt = _arena_prompt(prompt)
        with self._lock:
            self._stats["decisions"] += 1
            decision = int(self._stats["decisions"])
        where = {**(_CONTEXT.get() or {}), "role": role, "decision": decision}
        if view is not None and view.player is not None:
            # The loop's view says the seat, and the hand of the game (of its replay).
            where.setdefault("seat", f"player_{view.player}")
            if view.hand_index >= 0:
                where.setdefault("hand", view.hand_index)
        talk = self._talk(where)
        history = [*talk, {"role": "user", "content": prompt}]
        unusable = 0
        while True:
            done = self._ask(table, history, observation)
            move, refusal = self._read(done, legal, table.game, advising, context)
            if move is not None:
                self._record(table, history, done, move, None, unusable, where, "move")
                self._keep(where, [*history, {"role": "assistant", "content": done.text}])
                return move
            assert refusal is not None
            error = str(refusal)
            unusable += 1
            self._count("invalid")
            step = self.policy.after(unusable)
            kind = "truncated" if done.truncated else "invalid"
            self._record(table, history, done, None, error, unusable - 1, where, kind)
            if step == "reask":
                self._count("reasks")
                # The arena's protocol shows no legal moves: the reason alone.
                why = error if self.protocol == "words" else refusal.reason
                history = [
                    *history,
                    {"role": "assistant", "content": done.text},
                    {"role": "user", "content": f"Your reply was not used: "
                     f"{self.policy.note(why, unusable)}. Reply again with one legal move."},
                ]  # fmt: skip
                continue
            if step == "raise":
                raise ValueError(f"{self.name}: no usable reply after {unusable} tries: {error}")
            self._count("fallback_moves")
            with self._lock:
                move = self.policy.fallback(legal, rng or self._rng)
            self._record(table, history, None, move, None, unusable, where, "fallback")
            return move

    def _read(
        self,
        done: Completion,
        legal: list[int],
        game: str,
        advising: bool,
        context: ReplyContext,
    ) -> tuple[int | None, ReplyError | None]:
        """The move a reply names, or why it is unusable (a :class:`ReplyError`: its type
        says the kind, its ``reason`` and ``legal_moves`` the rest)."""
        if done.truncated:
            return None, TruncatedReplyError("the reply was cut at the token limit")
        try:
            reading = read_reply(done.text, legal, game, context)
        except ReplyError as err:
            if advising and self.protocol == "words" and A.NO_ADVICE in legal:
                if isinstance(err, NO_MOVE_NAMED):
                    return A.NO_ADVICE, None  # an adviser who names no move gives no advice
            return None, err
        if self.protocol == "arena" and reading.how != "json":
            return None, NoJsonMoveError('the reply has no JSON {"move": ...}')
        return reading.action, None

    def respond(self, text: str) -> str:
        """The words this player answers to a seat's text (the text env's loop: the env
        reads them, re-asks and applies its own unusable-reply policy, the same policy)."""
        table = table_of(self.game or "gin", self.rules)
        self._count("decisions")
        where = {**(_CONTEXT.get() or {}), "decision": int(self._stats["decisions"])}
        history = [{"role": "user", "content": text}]
        done = self._ask(table, history, None)
        self._record(table, history, done, None, None, 0, where, "reply")
        return done.text

    def _ask(
        self, table: Rulebook, history: list[dict[str, str]], observation: Mapping[str, Any] | None
    ) -> Completion:
        """The model's reply (transport faults retried, a truncated reply asked again with
        more room); counts requests, replies, tokens, seconds and cost."""
        raise NotImplementedError

    # -- the conversation of a hand -------------------------------------------------------------
    def _talk_key(self, where: Mapping[str, Any]) -> tuple[Any, ...]:
        return (
            threading.get_ident(),
            *(where.get(k) for k in _GAME_KEYS),
            where.get("hand"),
            where.get("seat"),
            where.get("role"),
        )

    def _talk(self, where: Mapping[str, Any]) -> list[dict[str, str]]:
        if self.conversation != "hand":
            return []
        with self._lock:
            return list(self._talks.get(self._talk_key(where), []))

    def _keep(self, where: Mapping[str, Any], messages: list[dict[str, str]]) -> None:
        if self.conversation != "hand":
            return
        key = self._talk_key(where)
        with self._lock:
            # One conversation per thread: a new hand replaces the last one.
            for old in [k for k in self._talks if k[0] == key[0] and k != key]:
                del self._talks[old]
            self._talks[key] = messages[-400:]

    def new_hand(self) -> None:
        """Forget the conversations (``conversation="hand"`` in a loop of your own that
        sets no :func:`decision_context`)."""
        with self._lock:
            self._talks.clear()

    # -- bookkeeping --------------------------------------------------------------------------
    def _count(self, key: str, amount: float = 1) -> None:
        with self._lock:
            self._stats[key] += amount

    def snapshot(self) -> dict[str, Any]:
        """The totals now and the games seen (for :meth:`stats` ``since``: the figures of
        what was played after it)."""
        with self._lock:
            return {**self._stats, "games": frozenset(self._games)}

    def stats(self, since: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Totals so far (``since``: after that :meth:`snapshot`), and each rate over its
        own denominator with its Wilson 95% CI (:func:`word_figures`)."""
        return word_figures(_minus(self.snapshot(), since))

    def _record(
        self,
        table: Rulebook,
        history: list[dict[str, str]],
        done: Completion | None,
        move: int | None,
        error: str | None,
        attempt: int,
        where: Mapping[str, Any],
        kind: str,
    ) -> None:
        key = tuple(where.get(k) for k in _GAME_KEYS)
        with self._lock:
            if any(v is not None for v in key):
                self._games.add(key)
            first = (table.game, *key) not in self._told
            self._told.add((table.game, *key))
        if self.transcript is None:
            return
        head = self._system_line(table) if first else None
        if head is not None:
            # The system prompt once per game, before the game's first exchange, with what
            # says which game it is.
            game = {k: v for k, v in where.items() if k not in _DECISION_KEYS}
            self._write({"run": self.run, "agent": self.name, "game": table.game, **game,
                         **head, "time": time.time()})  # fmt: skip
        line: dict[str, Any] = {
            "run": self.run,
            "agent": self.name,
            "game": table.game,
            **where,
            "attempt": attempt,
            "kind": kind,
            "prompt": history[-1]["content"],
            "turns": len(history),
            "reply": None if done is None else done.text,
            "reasoning": None if done is None else done.reasoning,
            "move": None if move is None else move_words(move, table.game),
            "action": move,
            "error": error,
        }
        if done is not None:
            line.update(
                finish_reason=done.finish_reason,
                prompt_tokens=done.prompt_tokens,
                completion_tokens=done.completion_tokens,
                reasoning_tokens=done.reasoning_tokens,
                cached_tokens=done.cached_tokens,
                latency_s=done.latency_s,
                requests=done.requests,
                faults=done.faults,
                failed_requests=done.failed_requests,
                cost=self._cost(done),
            )
        line["time"] = time.time()
        self._write(line)

    def _system_line(self, table: Rulebook) -> dict[str, Any] | None:
        """What the first line of a game holds besides its context (None: no line)."""
        return None

    def _cost(self, done: Completion) -> float:
        return (
            (done.prompt_tokens or 0) * self.price_in
            + (done.completion_tokens or 0) * self.price_out
        ) / 1e6

    def _write(self, line: dict[str, Any]) -> None:
        """One JSON line into the transcript (threads of one process take turns)."""
        assert self.transcript is not None
        key = str(self.transcript)
        with _LOCKS_LOCK:
            lock = _TRANSCRIPT_LOCKS.setdefault(key, threading.Lock())
        with lock:
            self.transcript.parent.mkdir(parents=True, exist_ok=True)
            with self.transcript.open("a", encoding="utf-8") as f:
                f.write(json.dumps(line) + "\n")

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name})"


#: The fields of a transcript line that are the decision's, not its game's.
_DECISION_KEYS = ("seat", "hand", "role", "decision")


def _minus(now: Mapping[str, Any], since: Mapping[str, Any] | None) -> dict[str, Any]:
    """The totals of :meth:`_WordsPlayer.snapshot` ``now`` less those of ``since``."""
    if since is None:
        return dict(now)
    out = {k: now[k] - since.get(k, 0) for k in _STAT_KEYS}
    out["games"] = now["games"] - since.get("games", frozenset())
    return out


def add_counts(*snapshots: Mapping[str, Any]) -> dict[str, Any]:
    """The totals of several :meth:`_WordsPlayer.snapshot` (or differences of them) added:
    one player's figures over several agent objects (a spec seated at two tables)."""
    out: dict[str, Any] = dict.fromkeys(_STAT_KEYS, 0.0)
    games: frozenset[Any] = frozenset()
    for snap in snapshots:
        for k in _STAT_KEYS:
            out[k] += snap.get(k, 0)
        games |= snap.get("games", frozenset())
    out["games"] = games
    return out


def word_figures(counts: Mapping[str, Any]) -> dict[str, Any]:
    """A player in words' figures from its totals (a snapshot, or a difference of two):
    the totals, and each rate over its own denominator with its Wilson 95% CI:
    ``invalid_rate`` (unusable replies per reply), ``transport_fault_rate`` (per
    request), ``timeout_rate`` (per request), ``failed_request_rate`` (requests that failed
    after their retries, per request), ``fallback_rate`` (fallback moves per decision); per
    decision ``reasks_per_decision``, ``tokens_per_decision``, ``latency_s_per_decision``,
    ``cost_per_decision`` (and ``cost_per_1k_decisions``); ``games`` (seen through
    :func:`decision_context`) and ``cost_per_game``."""
    s: dict[str, Any] = {k: float(counts.get(k, 0)) for k in _STAT_KEYS}
    games = counts.get("games", 0)
    s["games"] = games if isinstance(games, int) else len(games)
    n = max(1.0, s["decisions"])
    for rate, num, den in (
        ("invalid_rate", "invalid", "replies"),
        ("transport_fault_rate", "transport_faults", "requests"),
        ("timeout_rate", "timeouts", "requests"),
        ("failed_request_rate", "failed_requests", "requests"),
        ("fallback_rate", "fallback_moves", "decisions"),
    ):
        k, m = int(s[num]), int(s[den])
        s[rate] = k / m if m else 0.0
        s[f"{rate}_ci95"] = list(_wilson(k, m))
    s["reasks_per_decision"] = s["reasks"] / n
    s["tokens_per_decision"] = (s["prompt_tokens"] + s["completion_tokens"]) / n
    s["latency_s_per_decision"] = s["latency_s"] / n
    s["cost_per_decision"] = s["cost"] / n
    s["cost_per_1k_decisions"] = 1000 * s["cost"] / n
    s["cost_per_game"] = s["cost"] / s["games"] if s["games"] else None
    return s


def _wilson(k: int, n: int) -> tuple[float, float]:
    """The Wilson 95% interval of ``k`` in ``n`` ((0, 1) for none)."""
    if n <= 0:
        return (0.0, 1.0)
    z = 1.959963984540054
    p = k / n
    den = 1 + z * z / n
    mid = (p + z * z / (2 * n)) / den
    half = z * ((p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5) / den
    return (max(0.0, mid - half), min(1.0, mid + half))


class WordsAgent(_WordsPlayer):
    """``agent``'s moves said in words (:func:`say`, turning through its five ways) and
    read back: the text pipeline with a player that never errs."""

    def __init__(self, agent: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if not hasattr(agent, "act"):
            raise ValueError(f"agent must be an agent object with act(), got {agent!r}")
        self.agent = agent
        self.name = self.label or f"words({getattr(agent, 'name', type(agent).__name__)})"
        self._turn = 0

    def _ask(
        self, table: Rulebook, history: list[dict[str, str]], observation: Mapping[str, Any] | None
    ) -> Completion:
        if observation is None:
            raise ValueError("a words agent answers observations (act), not text alone")
        start = time.perf_counter()
        move = int(self.agent.act(observation))
        with self._lock:
            self._turn += 1
            way = self._turn
            self._stats["requests"] += 1
            self._stats["replies"] += 1
        seconds = time.perf_counter() - start
        self._count("latency_s", seconds)
        return Completion(text=say(move, table.game, way), finish_reason="stop", latency_s=seconds)


class LLMAgent(_WordsPlayer):
    """A language model at the table (see the module docstring for the options)."""

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        api_key_env: str = "OPENAI_API_KEY",
        temperature: float | None = None,
        max_tokens: int | None = None,
        max_completion_tokens: int | None = None,
        reasoning_effort: str | None = None,
        extra_body: Any = None,
        extra_headers: Any = None,
        timeout: float = 30.0,
        backoff: float = 1.0,
        max_failures: int = 5,
        transport_retries: int = 2,
        grow: bool = True,
        system_prompt: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        if not isinstance(grow, bool):
            raise ValueError(f"grow must be true or false, got {grow!r}")
        self.transport = Transport(
            model, base_url, api_key_env, timeout, backoff, max_failures, temperature,
            max_tokens, max_completion_tokens, reasoning_effort,
            _json_option("extra_body", extra_body), _json_option("extra_headers", extra_headers),
            transport_retries,
        )  # fmt: skip
        self.model = model
        self.base_url = base_url
        self.grow = grow
        self.custom_prompt = system_prompt
        self.name = self.label or f"llm({model})"

    def _system_line(self, table: Rulebook) -> dict[str, Any]:
        return {"model": self.model, "base_url": self.base_url,
                "system": self.custom_prompt or self.system(table),
                "options": self.transport.request_options(), "protocol": self.protocol,
                "conversation": self.conversation}  # fmt: skip

    def _ask(
        self, table: Rulebook, history: list[dict[str, str]], observation: Mapping[str, Any] | None
    ) -> Completion:
        system = self.custom_prompt or self.system(table)
        messages = [{"role": "system", "content": system}, *history]
        limit = self.transport.token_limit
        total_faults: list[str] = []
        latency, requests, timeouts, failed = 0.0, 0, 0, 0
        while True:
            try:
                done = self.transport.complete(messages, limit)
            except EndpointError:
                raise
            latency += done.latency_s
            requests += done.requests
            timeouts += done.timeouts
            failed += done.failed_requests
            total_faults += done.faults
            self._tally(done)
            if not (done.truncated and self.grow and limit is not None):
                break
            base = self.transport.token_limit or limit
            if limit >= 4 * base:
                break
            self._count("truncated")
            limit *= 2  # the same question with more room: not a re-ask
        if done.truncated:
            self._count("truncated")
        done.latency_s, done.requests, done.timeouts, done.faults, done.failed_requests = (
            latency, requests, timeouts, total_faults, failed,
        )  # fmt: skip
        return done

    def _tally(self, done: Completion) -> None:
        with self._lock:
            s = self._stats
            s["requests"] += done.requests
            s["replies"] += 1
            s["transport_faults"] += len(done.faults)
            s["timeouts"] += done.timeouts
            s["failed_requests"] += done.failed_requests
            s["latency_s"] += done.latency_s
            s["prompt_tokens"] += done.prompt_tokens or 0
            s["completion_tokens"] += done.completion_tokens or 0
            s["reasoning_tokens"] += done.reasoning_tokens or 0
            s["cached_tokens"] += done.cached_tokens or 0
            s["cost"] += self._cost(done)
