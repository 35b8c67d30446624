"""Players that play through words: language models, and any agent's moves said in words.

:class:`LLMAgent` (``agents.make("llm:model=NAME,base_url=URL")``) talks to any
OpenAI-compatible chat endpoint (OpenAI, vLLM, llama.cpp's ``llama-server``, Ollama)
through the ``openai`` client (extra ``llm``: ``pip install "gin-env[llm]"``). It plays
every seat and role of every game:

- in the numeric envs, ``act(observation)`` renders the seat's own observation in words
  (:func:`gin_env.text.seat_text`), asks the model and parses its reply
  (:func:`gin_env.text.parse_reply`); an adviser's reply becomes its suggestion (the
  numeric envs carry no message);
- in the text env (:mod:`gin_env.text`), ``respond(text)`` returns the model's words and
  the env reads them.

Options (in the spec or as keywords): ``model``, ``base_url`` (None: OpenAI's),
``api_key_env`` (the environment variable that holds the key, default
``OPENAI_API_KEY``; unset means no key, as local servers take), ``temperature`` (0.0),
``max_tokens`` (256), ``timeout`` (seconds a reply may take, 30), ``retries`` (re-asks
after an unusable reply, 2), ``http_retries`` (3) and ``backoff`` (seconds, 1.0: the
wait before the k-th retry of a 429 or 5xx answer is ``backoff * 2**k``, or the server's
``Retry-After`` when that is shorter than 60 s), ``on_invalid`` (``"random-legal"``, or
``"raise"``: what to play when every try failed or timed out), ``transcript`` (a JSONL
path: first a line with the system prompt for each game, then one line per exchange with
the prompt, the reply, the parsed move, the error if any, the tokens and the latency),
``game`` (``three_handed``, ``gin``, ``rummy``; found from the table or the observation
when not given), ``system_prompt`` (replaces the rules in brief).

A reply it cannot use, a timeout, a rate limit or a server error never stops a game:
after the tries, ``on_invalid`` plays. Configuration errors (a refused key, an unknown
model: HTTP 400, 401, 403, 404) raise, since no later call would fare better.
:meth:`LLMAgent.stats` counts decisions, replies, unusable replies, re-asks, HTTP
retries, timeouts, tokens and seconds.

:class:`WordsAgent` (``"words:agent=heuristic"``) is any agent whose every move goes
through the words: it says its move (in turn: strict, JSON, a sentence, a ``move:``
line) and the move is parsed back. It needs no model and no network: the text pipeline's
own baseline (its moves are the inner agent's, so its results are too).
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from gin_env import actions as A
from gin_env import rummy_actions as R
from gin_env.config import GinConfig, RummyConfig, ThreeHandedConfig
from gin_env.config import Table as GameTable
from gin_env.extras import require
from gin_env.text import (
    GinFacts,
    ReplyError,
    Table,
    facts,
    game_of,
    move_words,
    parse_advice,
    parse_reply,
    rules_in_brief,
    table_of,
)
from gin_env.text.words import card_name, describe

__all__ = ["LLMAgent", "WordsAgent", "ON_INVALID", "system_prompt", "say"]

ON_INVALID = ("random-legal", "raise")
#: HTTP answers that a later try may fix: rate limits and server errors.
RETRY_STATUS = frozenset((408, 409, 429, 500, 502, 503, 504))
_STAT_KEYS = (
    "decisions", "replies", "invalid", "reasks", "http_retries", "timeouts", "errors",
    "policy_moves", "prompt_tokens", "completion_tokens", "latency_s",
)  # fmt: skip
_TRANSCRIPT_LOCKS: dict[str, threading.Lock] = {}
_LOCKS_LOCK = threading.Lock()


def _game_of_table(rules: GameTable | None) -> str | None:
    """The game a typed table is of (None for a dict of rules, or none)."""
    if isinstance(rules, ThreeHandedConfig):
        return "three_handed"
    if isinstance(rules, GinConfig):
        return "gin"
    if isinstance(rules, RummyConfig):
        return "rummy"
    return None


def system_prompt(table: Table) -> str:
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


def say(action: int, game: str, way: int) -> str:
    """A legal move said one of five ways (all parse back to it): 0 strict, 1 JSON, 2 a
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


class _WordsPlayer:
    """What the word players share: the seat's table, the text of an observation,
    replies parsed with re-asks, the invalid-reply policy, stats and the transcript."""

    name = "words"

    def __init__(
        self,
        game: str | None = None,
        rules: GameTable | None = None,
        retries: int = 2,
        on_invalid: str = "random-legal",
        transcript: str | None = None,
        seed: int = 0,
    ) -> None:
        if on_invalid not in ON_INVALID:
            raise ValueError(
                f"on_invalid must be one of {', '.join(ON_INVALID)}; got {on_invalid!r}"
            )
        if isinstance(retries, bool) or not isinstance(retries, int) or not 0 <= retries <= 20:
            raise ValueError(f"retries must be an int in 0..20, got {retries!r}")
        # The game: as given, else the table's (a typed table says it), else the
        # observation's (see table_for).
        self.game = table_of(game).game if game is not None else _game_of_table(rules)
        self.rules = rules
        self._three = self.game == "three_handed"
        self.retries = retries
        self.on_invalid = on_invalid
        self.transcript = None if transcript is None else Path(transcript)
        self._rng = np.random.default_rng(seed)
        self._lock = threading.Lock()
        self._stats = dict.fromkeys(_STAT_KEYS, 0.0)
        self._tables: dict[str, Table] = {}

    # -- the seat ----------------------------------------------------------------------------
    def table_for(self, observation: Mapping[str, Any]) -> Table:
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
            # The seat's rules when they are this game's (a gin table's do not fit rummy).
            fits = _game_of_table(self.rules) in (None, game) or (
                game == "three_handed" and _game_of_table(self.rules) == "gin"
            )
            table = self._tables[game] = table_of(game, self.rules if fits else None)
        return table

    @staticmethod
    def _looks_three_handed(observation: Mapping[str, Any]) -> bool:
        seat = facts(observation, Table("gin"))
        assert isinstance(seat, GinFacts)
        return seat.role == 2 or seat.advising or seat.suggestion >= 0 or A.NO_ADVICE in seat.legal

    # -- acting ------------------------------------------------------------------------------
    def act(self, observation: Mapping[str, Any], rng: np.random.Generator | None = None) -> int:
        table = self.table_for(observation)
        seat = facts(observation, table)
        legal = list(seat.legal)
        if not legal:
            raise ValueError("the action mask has no legal action: this agent is not to act")
        advising = isinstance(seat, GinFacts) and seat.advising
        prompt = describe(seat, table)
        history: list[dict[str, str]] = [{"role": "user", "content": prompt}]
        self._count("decisions")
        for attempt in range(self.retries + 1):
            reply, meta = self._reply(table, history, observation)
            move: int | None = None
            error = meta.get("error")
            if reply is not None:
                try:
                    if advising:
                        move = parse_advice(reply, legal)
                    else:
                        move = parse_reply(reply, legal, table.game)
                except ReplyError as err:
                    error = str(err)
            self._record(table, history[-1]["content"], reply, move, error, attempt, meta)
            if move is not None:
                return move
            self._count("invalid")
            if attempt < self.retries:
                self._count("reasks")
                history += [
                    {"role": "assistant", "content": reply or ""},
                    {"role": "user", "content": f"Your reply was not used: {error}. Reply "
                     "again with one legal move."},
                ]  # fmt: skip
        if self.on_invalid == "raise":
            raise ValueError(
                f"{self.name}: no usable reply after {self.retries + 1} tries: {error}"
            )
        self._count("policy_moves")
        with self._lock:
            return int((rng or self._rng).choice(legal))

    def respond(self, text: str) -> str:
        """The words this player answers to a seat's text (the text env's loop; the env
        reads them, re-asks and applies its own invalid-reply policy)."""
        table = table_of(self.game or "gin", self.rules)
        reply, meta = self._reply(table, [{"role": "user", "content": text}], None)
        self._count("decisions")
        self._record(table, text, reply, None, meta.get("error"), 0, meta)
        return reply or ""

    def _reply(
        self, table: Table, history: list[dict[str, str]], observation: Mapping[str, Any] | None
    ) -> tuple[str | None, dict[str, Any]]:
        raise NotImplementedError

    # -- bookkeeping --------------------------------------------------------------------------
    def _count(self, key: str, amount: float = 1) -> None:
        with self._lock:
            self._stats[key] += amount

    def stats(self) -> dict[str, float]:
        """Totals so far, and per decision: ``invalid_rate`` (unusable replies per reply),
        ``reasks_per_decision``, ``retries_per_decision`` (re-asks and HTTP retries),
        ``tokens_per_decision``, ``latency_s_per_decision``."""
        with self._lock:
            s = dict(self._stats)
        n = max(1.0, s["decisions"])
        s["invalid_rate"] = s["invalid"] / max(1.0, s["replies"])
        s["reasks_per_decision"] = s["reasks"] / n
        s["retries_per_decision"] = (s["reasks"] + s["http_retries"]) / n
        s["tokens_per_decision"] = (s["prompt_tokens"] + s["completion_tokens"]) / n
        s["latency_s_per_decision"] = s["latency_s"] / n
        return s

    def _record(
        self,
        table: Table,
        prompt: str,
        reply: str | None,
        move: int | None,
        error: str | None,
        attempt: int,
        meta: dict[str, Any],
    ) -> None:
        if self.transcript is None:
            return
        line = {
            "agent": self.name,
            "game": table.game,
            "attempt": attempt,
            "prompt": prompt,
            "reply": reply,
            "move": None if move is None else move_words(move, table.game),
            "action": move,
            "error": error,
            "prompt_tokens": meta.get("prompt_tokens"),
            "completion_tokens": meta.get("completion_tokens"),
            "latency_s": meta.get("latency_s"),
            "http_retries": meta.get("http_retries", 0),
            "time": time.time(),
        }
        self._write(line)

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


class WordsAgent(_WordsPlayer):
    """``agent``'s moves said in words (:func:`say`, turning through its five ways) and
    parsed back: the text pipeline with a player that never errs."""

    def __init__(self, agent: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if not hasattr(agent, "act"):
            raise ValueError(f"agent must be an agent object with act(), got {agent!r}")
        self.agent = agent
        self.name = f"words({getattr(agent, 'name', type(agent).__name__)})"
        self._turn = 0

    def _reply(
        self, table: Table, history: list[dict[str, str]], observation: Mapping[str, Any] | None
    ) -> tuple[str | None, dict[str, Any]]:
        if observation is None:
            raise ValueError("a words agent answers observations (act), not text alone")
        start = time.perf_counter()
        move = int(self.agent.act(observation))
        with self._lock:
            self._turn += 1
            way = self._turn
        self._count("replies")
        seconds = time.perf_counter() - start
        self._count("latency_s", seconds)
        return say(move, table.game, way), {"latency_s": seconds}


class LLMAgent(_WordsPlayer):
    """A language model at the table (see the module docstring for the options)."""

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        api_key_env: str = "OPENAI_API_KEY",
        temperature: float = 0.0,
        max_tokens: int = 256,
        timeout: float = 30.0,
        http_retries: int = 3,
        backoff: float = 1.0,
        system_prompt: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        if not isinstance(model, str) or not model:
            raise ValueError(f"model must be a non-empty string, got {model!r}")
        for name, value, low in (("timeout", timeout, 0.001), ("backoff", backoff, 0.0)):
            if isinstance(value, bool) or not isinstance(value, int | float) or value < low:
                raise ValueError(f"{name} must be a number >= {low}, got {value!r}")
        if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
            raise ValueError(f"max_tokens must be an int >= 1, got {max_tokens!r}")
        if isinstance(http_retries, bool) or not isinstance(http_retries, int) or http_retries < 0:
            raise ValueError(f"http_retries must be an int >= 0, got {http_retries!r}")
        if not isinstance(temperature, int | float) or not 0 <= temperature <= 2:
            raise ValueError(f"temperature must be a number in 0..2, got {temperature!r}")
        if not isinstance(api_key_env, str) or not api_key_env:
            raise ValueError(f"api_key_env must name an environment variable, got {api_key_env!r}")
        self.model = model
        self.base_url = base_url
        self.api_key_env = api_key_env
        self.temperature = float(temperature)
        self.max_tokens = max_tokens
        self.timeout = float(timeout)
        self.http_retries = http_retries
        self.backoff = float(backoff)
        self.custom_prompt = system_prompt
        self.name = f"llm({model})"
        self._client: Any = None
        self._openai: Any = None
        self._told: set[str] = set()

    def client(self) -> Any:
        """The ``openai.OpenAI`` client, made on first use (its own retries off: ours
        count and log each)."""
        if self._client is None:
            openai = self._openai = require("openai", needed_for="language-model agents")
            key = os.environ.get(self.api_key_env) or "no-key"
            self._client = openai.OpenAI(
                base_url=self.base_url, api_key=key, timeout=self.timeout, max_retries=0
            )
        return self._client

    def _reply(
        self, table: Table, history: list[dict[str, str]], observation: Mapping[str, Any] | None
    ) -> tuple[str | None, dict[str, Any]]:
        client = self.client()
        openai = self._openai
        system = self.custom_prompt or system_prompt(table)
        if self.transcript is not None and table.game not in self._told:
            # The system prompt once per game, before the exchanges that use it.
            self._told.add(table.game)
            self._write({"agent": self.name, "game": table.game, "model": self.model,
                         "base_url": self.base_url, "system": system})  # fmt: skip
        messages = [{"role": "system", "content": system}]
        messages += history
        meta: dict[str, Any] = {"http_retries": 0}
        start = time.perf_counter()
        try:
            for k in range(self.http_retries + 1):
                try:
                    answer = client.chat.completions.create(
                        model=self.model,
                        messages=messages,
                        temperature=self.temperature,
                        max_tokens=self.max_tokens,
                        timeout=self.timeout,
                    )
                    break
                except openai.APITimeoutError:
                    self._count("timeouts")
                    meta["error"] = f"no reply within {self.timeout:g} s"
                    return None, meta
                except (openai.APIStatusError, openai.APIConnectionError) as err:
                    status = getattr(err, "status_code", None)
                    if status is not None and status not in RETRY_STATUS:
                        raise ValueError(
                            f"{self.name}: the server refused the request (HTTP {status}): "
                            f"{err}; check model, base_url and {self.api_key_env}"
                        ) from None
                    meta["error"] = f"HTTP {status}" if status else f"connection error: {err}"
                    if k == self.http_retries:
                        self._count("errors")
                        return None, meta
                    self._count("http_retries")
                    meta["http_retries"] += 1
                    time.sleep(self._wait(err, k))
        finally:
            meta["latency_s"] = time.perf_counter() - start
            self._count("latency_s", meta["latency_s"])
        self._count("replies")
        meta.pop("error", None)
        usage = getattr(answer, "usage", None)
        if usage is not None:
            meta["prompt_tokens"] = int(usage.prompt_tokens or 0)
            meta["completion_tokens"] = int(usage.completion_tokens or 0)
            self._count("prompt_tokens", meta["prompt_tokens"])
            self._count("completion_tokens", meta["completion_tokens"])
        choices = getattr(answer, "choices", None) or []
        content = choices[0].message.content if choices else None
        return (content if isinstance(content, str) else ""), meta

    def _wait(self, err: Any, k: int) -> float:
        wait = self.backoff * 2**k
        response = getattr(err, "response", None)
        header = response.headers.get("retry-after") if response is not None else None
        try:
            told = float(header) if header is not None else None
        except ValueError:
            told = None
        return told if told is not None and 0 <= told < 60 else wait
