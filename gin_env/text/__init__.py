"""Language at the table: every game in words, moves in words, advice in words.

This module is the text env's documentation page.

=====================  =============================================================
Import                 ``from gin_env import text``; ``text.env("three_handed")``
Games                  ``"three_handed"``, ``"gin"``, ``"rummy"`` (options as their envs)
Agents                 as the game's env: ``player_0`` ...
Observation            ``gymnasium.spaces.Text``: the seat's view in English (a ``str``)
Action                 ``gymnasium.spaces.Text``: a reply in words
Numeric view           ``infos[agent]["numeric"]``: the game env's observation dict
=====================  =============================================================

What a seat reads
-----------------
Exactly what that seat knows: its :class:`~gin_env.seat_view.SeatView`, the one view of
the table the terminal and the web page render too, written in English by
:func:`~gin_env.text.words.describe`: the game, the seat's role, the table's rules in a
line, this hand's knock limit (Oklahoma's, and its spade double), who dealt, the scores and
the last hands' points in their parts (deadwood difference, bonuses, the double), phase,
turn and stock size; its hand with its best melds and deadwood (the adviser: the captain's
hand, when ``adviser_sees_hand``); the upcard or top of the discard pile and the pile under
it in order; the card just taken; what the opponent took from the pile and still holds and
what he discarded; its own discards; for the captain the adviser's suggestion and message;
the last hand's showdown while the next has had no turn; then the legal moves (a discard or
knock from 11 cards says the deadwood it leaves, a knock that leaves none says gin) and how
to reply. The table's brief, for a system prompt, is
:func:`~gin_env.text.words.rules_in_brief` (the roles and how they rotate, who deals, what
each role plays for, every rule in force). The dealer of ``text.env("gin",
episode="hand")``, seed 3, after taking the upcard (L2's moves; long lines cut at
"...")::

    Two-player gin rummy. You are the dealer.
    Table rules: knock limit 10; gin bonus 25; undercut bonus 10; big gin off; a card ...
    This hand (hand 1): knock limit 10 deadwood; you dealt.
    Scores: non-dealer 0, you (dealer) 0 (match to 100).
    Phase: discard; turn 0; stock: 31 cards.
    Your hand (11 cards): AS 2S JS 8H 9H TH QH 4D JD 5C 8C
      best melds: 8H 9H TH
      deadwood: AS 2S JS QH 4D JD 5C 8C = 50 points
    Top of the discard pile: none.
    You just took JS from the pile.
    Cards the non-dealer took from the pile and still holds: none.
    Cards the non-dealer discarded: none.
    Cards you discarded: none.
    Legal moves: discard AS (leaves 49 deadwood), discard 2S (leaves 48 deadwood), ...
    Reply with one legal move, e.g. "discard 7H", or as JSON: {"move": "discard 7H"}.

A player that holds only its observation (an agent called with ``act(observation)``) reads
the same words from :func:`~gin_env.text.views.facts`: the view the vector holds (the pile
as a set, no score sheet).

Replies
-------
:func:`~gin_env.text.replies.parse_reply` reads strict moves (``draw``, ``take``,
``pass``, ``discard 7H``, ``knock 3C``, ``no-advice``, ``big-gin``; rummy ``take
discard``, ``meld 5H 6H 7H``, ``lay off 8H on run``), a JSON object with a ``"move"``, a
``move: ...`` line, a card alone (``10h``, ``seven of hearts``: a discard) and a move
inside a sentence (``I'll discard the seven of hearts``). Only the moves a reply commits
to count: one named in a negated, deferred, hypothetical or conditional clause ("I won't
knock yet; discard 4C", "I'll knock next turn"), in a question, as a fallback after the
answer ("Runner-up: ...") or as what someone else suggested is not the answer. A reply that
names no legal move, or leaves two standing as equals ("discard KS or KC"), is refused with
a message that names the legal moves: refused and asked again, never guessed.

The adviser speaks (three-handed)
---------------------------------
The adviser's action is a message, cut to ``message_length`` characters (printable
ASCII). The move it names, if any, becomes the suggestion the captain's observation
carries (a message that names none is ``NO_ADVICE``); the whole message is shown to the
captain at his next decision, and to no one else. The numeric envs carry only the
suggestion, so a game played in words and one played in ids stay comparable.

Unusable replies
----------------
A reply that does not parse or names an illegal move is answered to the same seat: its
next observation ends with the reason, and nothing else changes (rewards 0), up to
``retries`` more tries per decision. After that ``on_invalid`` decides:

- ``"forfeit-hand"`` (default): the episode ends at once, reward ``-1`` to that seat
  and 0 to the others (PettingZoo's rule for an illegal move); ``infos[agent]["forfeit"]``
  names it;
- ``"random-legal"``: a legal move drawn with the env's seeded generator is played;
- ``"raise"``: a ``ValueError`` with the reason (nothing changes).

Every unusable reply is counted in ``infos[agent]["invalid_replies"]``, every move the
policy made in ``infos[agent]["policy_moves"]``.

Options
-------
``env(game, retries=2, on_invalid="forfeit-hand", message_length=280,
reply_length=4000, render_mode=None, **options)``: the other options go to the game's
env (``episode``, ``reward``, ``adviser``, ``adviser_sees_hand``, the rules...; the
``infos`` option is not taken). Rewards, episodes, seeds and deals are the game env's.
``render_mode="ansi"`` returns the table as an onlooker sees it and the last reply.

Observation space: ``Text(20000, charset=printable ASCII)``, each observation a
:class:`~gin_env.text.env.SeatText` (a ``str`` carrying the ``Text`` space's ``dtype``,
for PettingZoo's ``api_test``). Action space: ``Text(reply_length)``; any
``str`` is taken and read whole, however long (up to
:data:`~gin_env.text.replies.MAX_REPLY_CHARS`, a million characters; a longer one is
refused, never cut).

Language-model players are :mod:`agents.llm`; the page ``docs/language.md`` shows a
prompt and a whole hand.
"""

from __future__ import annotations

from gin_env.text.env import ON_INVALID, SeatText, env, raw_env
from gin_env.text.replies import (
    NO_MOVE_NAMED,
    AmbiguousReplyError,
    EmptyAnswerError,
    EmptyReplyError,
    IllegalMoveError,
    NoMoveFoundError,
    NotTextError,
    ReplyError,
    UnfinishedReplyError,
    parse_advice,
    parse_reply,
)
from gin_env.text.views import facts, game_of, seat_text, table_of
from gin_env.text.words import Rulebook, describe, legal_words, move_words, rules_in_brief

__all__ = [
    "env",
    "raw_env",
    "SeatText",
    "ON_INVALID",
    "Rulebook",
    "ReplyError",
    "NotTextError",
    "EmptyReplyError",
    "UnfinishedReplyError",
    "EmptyAnswerError",
    "NoMoveFoundError",
    "AmbiguousReplyError",
    "IllegalMoveError",
    "NO_MOVE_NAMED",
    "table_of",
    "game_of",
    "facts",
    "seat_text",
    "describe",
    "rules_in_brief",
    "move_words",
    "legal_words",
    "parse_reply",
    "parse_advice",
]
