"""The compiled batched engine behind ``VectorGinEnv(backend="numba")``.

N games of gin (:mod:`gin_env.gin_v0`) or three-handed gin (:mod:`gin_env.three_handed_gin_v0`)
live in numpy arrays and are stepped in lockstep by ``numba.njit(cache=True)`` kernels that
follow :mod:`gin_env.hand` (the phase machine) and :mod:`gin_env.match` (roles, dealer rule,
scores, Hollywood games, the adviser's turns) step by step, and write the observation and
the action mask of :mod:`gin_env.encoding` in place into ``[N, 436]`` / ``[N, 109]`` arrays
(new ones each call, so a caller may keep them). Deadwood, knock legality and the showdown
come from the compiled rule kernels of :mod:`gin_env.fast_melds` (there is no second copy
of the meld rules here); the role draw before a match is :func:`gin_env.match.draw_for_order`
itself, run in Python when the episode's decks are drawn.

State layout
------------
- ``state``: ``int64 [N, NUM_FIELDS]``, one column per scalar field of a game (the
  ``F_*`` constants: each seat's hand as a 52-bit mask, stock position, pile length,
  upcard, phase, seat to act, the card taken this turn, must-draw-stock, turns, each seat's
  took / discarded masks and upcard passes, the hand's knock limit and multiplier
  (Oklahoma), the players of the two seats, every player's role and score, dealer, box,
  captain, adviser, the adviser's state and suggestion, hands played, Hollywood games,
  and the last hand's result). ``state[:, F_HAND0]`` is the field across the batch: a
  struct of arrays kept as the columns of one table, so that one game's fields share cache
  lines while a kernel works on it (and one argument carries them all).
- ``deck``, ``pile``: ``int64 [N, 52]``: the hand's deck (top of the stock at
  ``deck[stock_pos]``) and the discard pile (``pile[:pile_len]``, top last).
- ``log``: ``int64 [N, 64]``: the last ``HISTORY_LENGTH`` moves of the hand on the table
  (a ring, ``F_NMOVES`` moves made in all; see ``_log_move``), for the move history.
- Decks stay in numpy, drawn per slot exactly as ``GinFamilyEnv.reset`` draws them (see
  :class:`BatchedGames`): ``next_deck`` holds each slot's next hand of the running episode,
  ``ep_order``/``ep_deck0``/``ep_deck1`` the role order and first two hands of its next
  episode. The kernels flag the slots that used them (``F_NEED_DECK``, ``F_NEW_EPISODE``)
  and Python refills those slots after the step.

The configuration is an ``int64`` vector (the ``C_*`` constants) and the reward scale.

Besides the observation, compiled encoders write the global state (``state_kernel``:
``encoding.encode_state``, the parts found through :func:`state_offsets`), the move history
of any seat (``history_kernel``: ``encoding.encode_history`` with the envs' visibility) and
the v1 layout's extra entries (``v1_kernel``: ``encoding.encode_observation_v1``).
"""

from __future__ import annotations

import numba
import numpy as np
from gymnasium.utils import seeding

from gin_env import actions as A
from gin_env.cards import NUM_CARDS
from gin_env.config import GinTable, ThreeHandedConfig
from gin_env.encoding import (
    DEADWOOD_SCALE,
    FULL_STOCK,
    HISTORY_FEATURES,
    HISTORY_LENGTH,
    HISTORY_SLICES,
    OBS_SIZE,
    OBS_SIZE_V1,
    OBS_SLICES,
    OBS_V1_EXTRA,
    rules_in_view,
    state_parts,
    state_size,
)
from gin_env.fast_melds import GIN, UNDERCUT, deadwood_nb, discard_deadwoods_nb, showdown_nb
from gin_env.gin_aec import EnvOptions
from gin_env.hand import DRAW_AT_STOCK, Phase
from gin_env.match import ADVISER, BOX, CAPTAIN, DEALER, HOLLYWOOD_GAMES, NONDEALER, draw_for_order

__all__ = ["BatchedGames", "NUM_FIELDS", "REWARD_CODES", "DEALER_CODES", "PARALLEL_MIN_ENVS"]

#: None (the default): every step runs on one thread. An int: from this many games a step
#: runs on all of numba's threads (``numba.set_num_threads`` / ``NUMBA_NUM_THREADS`` limit
#: them). Off by default: on the shared 2-core machine, 2 threads stepped N = 1024 games about
#: ten times slower (wall) than one, and N = 4096 about half as fast
#: (``benchmarks/bench_vector.py``); turn it on where cores are idle.
PARALLEL_MIN_ENVS: int | None = None

# -- constants frozen into the kernels ----------------------------------------------------------

_DRAW_STOCK = A.DRAW_STOCK
_TAKE = A.TAKE_DISCARD
_PASS = A.PASS
_NO_ADVICE = A.NO_ADVICE
_DISCARD = A.DISCARD
_KNOCK = A.KNOCK
_BIG_GIN = A.BIG_GIN
_NUM_ACTIONS = A.NUM_ACTIONS

_UPCARD_NONDEALER = int(Phase.UPCARD_NONDEALER)
_UPCARD_DEALER = int(Phase.UPCARD_DEALER)
_DRAW = int(Phase.DRAW)
_DISCARD_PHASE = int(Phase.DISCARD)
_OVER = int(Phase.OVER)
_DRAW_AT_STOCK = DRAW_AT_STOCK

_BOX, _CAPTAIN, _ADVISER = BOX, CAPTAIN, ADVISER
_DEALER, _NONDEALER = DEALER, NONDEALER
_GAMES = HOLLYWOOD_GAMES

# Observation offsets (encoding.OBS_SLICES).
_O_ROLE = OBS_SLICES["role"].start
_O_PHASE = OBS_SLICES["phase"].start
_O_ADVISING = OBS_SLICES["advising"].start
_O_HAND = OBS_SLICES["hand"].start
_O_TOP = OBS_SLICES["top_discard"].start
_O_PILE = OBS_SLICES["discard_pile"].start
_O_OPP_TOOK = OBS_SLICES["opponent_took"].start
_O_OPP_DISC = OBS_SLICES["opponent_discarded"].start
_O_PARTNER_DISC = OBS_SLICES["partner_discarded"].start
_O_STOCK = OBS_SLICES["stock_size"].start
_O_DEADWOOD = OBS_SLICES["deadwood"].start
_O_TURN = OBS_SLICES["turn"].start
_O_SCORES = OBS_SLICES["scores"].start
_O_SUGGESTION = OBS_SLICES["suggestion"].start
_OBS_SIZE = OBS_SIZE
# v1_kernel writes the v1 parts in this order after the v0 ones, then the rules' entries.
assert [name for name, _ in OBS_V1_EXTRA[:3]] == ["partner_took", "knock_limit", "doubled"]
# The move history (encoding.encode_history).
_HISTORY_LENGTH = HISTORY_LENGTH
_H_ADVICE = HISTORY_SLICES["advice"].start
_H_KIND = HISTORY_SLICES["kind"].start
_H_CARD = HISTORY_SLICES["card"].start
assert HISTORY_SLICES["who"] == slice(0, 3)
_FULL_STOCK = float(FULL_STOCK)
_DEADWOOD_SCALE = float(DEADWOOD_SCALE)

# Hand result kinds (gin_env.vector.HAND_KINDS).
_R_KNOCK, _R_UNDERCUT, _R_GIN, _R_BIG_GIN, _R_DRAW = 0, 1, 2, 3, 4
assert (UNDERCUT, GIN) == (_R_UNDERCUT, _R_GIN)

#: ``reward`` option -> code; ``dealer_rule`` -> code.
REWARD_CODES = {"team": 0, "zero_sum": 1, "individual": 2, "match": 3}
DEALER_CODES = {"alternate": 0, "winner": 1, "loser": 2, "alternate_scored": 3}
_RW_ZERO_SUM, _RW_INDIVIDUAL, _RW_MATCH = 1, 2, 3
_DR_ALTERNATE, _DR_WINNER, _DR_ALTERNATE_SCORED = 0, 1, 3

# Configuration vector.
(
    C_PLAYERS, C_KNOCK_LIMIT, C_GIN_BONUS, C_UNDERCUT_BONUS, C_BIG_GIN, C_ALLOW_TAKEN,
    C_MAX_TURNS, C_OKLAHOMA, C_TARGET, C_DEALER_RULE, C_HOLLYWOOD, C_ADVICE, C_SEES_HAND,
    C_REWARD, C_EPISODE_HAND, C_MAX_HANDS, NUM_CONFIG,
) = range(17)  # fmt: skip

# State columns: one per scalar field of a game (two for a per-seat field, three for a
# per-player one); Hollywood's games take 3 x 2 columns (game g, player p: F_GAMES + 2g + p).
_FIELDS = (
    ("HAND", 2), ("STOCK_POS", 1), ("PILE_LEN", 1), ("UPCARD", 1), ("PHASE", 1), ("CUR", 1),
    ("TAKEN", 1), ("MUST_DRAW", 1), ("TURNS", 1), ("TOOK", 2), ("DISC", 2), ("PASSED", 2),
    ("LIMIT", 1), ("MULT", 1), ("PLAYER", 2), ("ROLE", 3), ("SCORE", 3), ("DEALER", 1),
    ("BOX", 1), ("CAPTAIN", 1), ("ADVISER", 1), ("ADVISING", 1), ("ADVISED", 1),
    ("SUGGESTION", 1), ("HANDS", 1), ("WON", 2), ("GAMES", 2 * _GAMES), ("GAME_WINNER", _GAMES),
    ("RES_KIND", 1), ("RES_POINTS", 1), ("RES_WINNER", 1), ("RES_KNOCKER", 1),
    ("RES_SCORES", 3), ("NEED_DECK", 1), ("NEW_EPISODE", 1), ("NMOVES", 1),
)  # fmt: skip
_COLUMN = {}
_start = 0
for _name, _width in _FIELDS:
    _COLUMN[_name] = _start
    _start += _width
F_HAND0, F_HAND1 = _COLUMN["HAND"], _COLUMN["HAND"] + 1
F_STOCK_POS = _COLUMN["STOCK_POS"]
F_PILE_LEN = _COLUMN["PILE_LEN"]
F_UPCARD = _COLUMN["UPCARD"]
F_PHASE = _COLUMN["PHASE"]
F_CUR = _COLUMN["CUR"]
F_TAKEN = _COLUMN["TAKEN"]
F_MUST_DRAW = _COLUMN["MUST_DRAW"]
F_TURNS = _COLUMN["TURNS"]
F_TOOK0, F_TOOK1 = _COLUMN["TOOK"], _COLUMN["TOOK"] + 1
F_DISC0, F_DISC1 = _COLUMN["DISC"], _COLUMN["DISC"] + 1
F_PASSED0, F_PASSED1 = _COLUMN["PASSED"], _COLUMN["PASSED"] + 1
F_LIMIT = _COLUMN["LIMIT"]
F_MULT = _COLUMN["MULT"]
F_PLAYER0, F_PLAYER1 = _COLUMN["PLAYER"], _COLUMN["PLAYER"] + 1
F_ROLE0, F_ROLE2 = _COLUMN["ROLE"], _COLUMN["ROLE"] + 2
F_SCORE0, F_SCORE1 = _COLUMN["SCORE"], _COLUMN["SCORE"] + 1
F_DEALER = _COLUMN["DEALER"]
F_BOX = _COLUMN["BOX"]
F_CAPTAIN = _COLUMN["CAPTAIN"]
F_ADVISER = _COLUMN["ADVISER"]
F_ADVISING = _COLUMN["ADVISING"]
F_ADVISED = _COLUMN["ADVISED"]
F_SUGGESTION = _COLUMN["SUGGESTION"]
F_HANDS = _COLUMN["HANDS"]
F_WON0 = _COLUMN["WON"]
F_GAMES = _COLUMN["GAMES"]
F_GAME_WINNER = _COLUMN["GAME_WINNER"]
F_RES_KIND = _COLUMN["RES_KIND"]
F_RES_POINTS = _COLUMN["RES_POINTS"]
F_RES_WINNER = _COLUMN["RES_WINNER"]
F_RES_KNOCKER = _COLUMN["RES_KNOCKER"]
F_RES_SCORES = _COLUMN["RES_SCORES"]
F_NEED_DECK = _COLUMN["NEED_DECK"]
F_NEW_EPISODE = _COLUMN["NEW_EPISODE"]
F_NMOVES = _COLUMN["NMOVES"]  # moves made in the hand on the table (the move log's length)
NUM_FIELDS = _start


# -- the hand ------------------------------------------------------------------------------------


@numba.njit(cache=True, inline="always")
def _rank(card: int) -> int:
    return card % 13


@numba.njit(cache=True, inline="always")
def _points(card: int) -> int:
    return min(card % 13 + 1, 10)


@numba.njit(cache=True)
def _start_hand(st: np.ndarray, deck: np.ndarray, pile: np.ndarray, cfg: np.ndarray) -> None:
    """Deal ``deck`` (GinHand.__init__): seat 0 the non-dealer, seat 1 the dealer."""
    h0 = 0
    h1 = 0
    for i in range(20):
        if i % 2 == 0:
            h0 |= 1 << deck[i]
        else:
            h1 |= 1 << deck[i]
    st[F_HAND0] = h0
    st[F_HAND1] = h1
    up = deck[20]
    st[F_UPCARD] = up
    pile[0] = up
    st[F_PILE_LEN] = 1
    st[F_STOCK_POS] = 21
    if cfg[C_OKLAHOMA]:
        st[F_LIMIT] = 0 if _rank(up) == 0 else _points(up)
        st[F_MULT] = 2 if up // 13 == 0 else 1
    else:
        st[F_LIMIT] = cfg[C_KNOCK_LIMIT]
        st[F_MULT] = 1
    st[F_PHASE] = _UPCARD_NONDEALER
    st[F_CUR] = 0
    st[F_TAKEN] = -1
    st[F_MUST_DRAW] = 0
    st[F_TURNS] = 0
    st[F_TOOK0] = 0
    st[F_TOOK1] = 0
    st[F_DISC0] = 0
    st[F_DISC1] = 0
    st[F_PASSED0] = 0
    st[F_PASSED1] = 0
    st[F_NMOVES] = 0


@numba.njit(cache=True)
def _seat_players(st: np.ndarray, cfg: np.ndarray) -> None:
    """Who sits where and the roles for the next hand (Match._seating)."""
    if cfg[C_PLAYERS] == 3:
        box, captain, adviser = st[F_BOX], st[F_CAPTAIN], st[F_ADVISER]
        st[F_PLAYER0] = captain
        st[F_PLAYER1] = box
        st[F_ROLE0 + box] = _BOX
        st[F_ROLE0 + captain] = _CAPTAIN
        st[F_ROLE0 + adviser] = _ADVISER
    else:
        dealer = st[F_DEALER]
        st[F_PLAYER0] = 1 - dealer
        st[F_PLAYER1] = dealer
        st[F_ROLE0 + dealer] = _DEALER
        st[F_ROLE0 + 1 - dealer] = _NONDEALER
        st[F_ROLE2] = 0


@numba.njit(cache=True, inline="always")
def _update_advising(st: np.ndarray, cfg: np.ndarray) -> None:
    """ThreeHandedMatch._update_advising: before each captain (seat 0) decision."""
    st[F_ADVISING] = (
        1 if cfg[C_PLAYERS] == 3 and cfg[C_ADVICE] and not st[F_ADVISED] and st[F_CUR] == 0 else 0
    )


@numba.njit(cache=True)
def _start_episode(
    st: np.ndarray, deck: np.ndarray, pile: np.ndarray, cfg: np.ndarray, order: np.ndarray
) -> None:
    """A new match: ``order`` is the role draw's result (highest card first)."""
    for f in range(F_ROLE0, F_RES_KIND):
        st[f] = 0
    for g in range(_GAMES):
        st[F_GAME_WINNER + g] = -1
    st[F_SUGGESTION] = -1
    st[F_ADVISED] = 0
    if cfg[C_PLAYERS] == 3:
        st[F_BOX] = order[0]
        st[F_CAPTAIN] = order[1]
        st[F_ADVISER] = order[2]
    else:
        st[F_DEALER] = order[1]  # the lower card deals first
    st[F_HANDS] = 1
    _seat_players(st, cfg)
    _start_hand(st, deck, pile, cfg)
    _update_advising(st, cfg)


@numba.njit(cache=True, inline="always")
def _finish(st: np.ndarray, kind: int, winner: int, points: int, knocker: int) -> None:
    st[F_PHASE] = _OVER
    st[F_RES_KIND] = kind
    st[F_RES_WINNER] = winner  # a seat here; made a player in _end_hand
    st[F_RES_POINTS] = points
    st[F_RES_KNOCKER] = knocker


@numba.njit(cache=True, inline="always")
def _take_discard(st: np.ndarray, pile: np.ndarray, seat: int) -> None:
    n = st[F_PILE_LEN] - 1
    card = pile[n]
    st[F_PILE_LEN] = n
    bit = 1 << card
    st[F_HAND0 + seat] |= bit
    st[F_TOOK0 + seat] |= bit
    st[F_TAKEN] = card
    st[F_PHASE] = _DISCARD_PHASE


@numba.njit(cache=True, inline="always")
def _hand_step(st: np.ndarray, deck: np.ndarray, pile: np.ndarray, cfg: np.ndarray, a: int) -> None:
    """GinHand.step for a legal action ``a`` of the seat to act."""
    seat = st[F_CUR]
    phase = st[F_PHASE]
    if phase == _UPCARD_NONDEALER or phase == _UPCARD_DEALER:
        if a == _TAKE:
            _take_discard(st, pile, seat)
        else:
            st[F_PASSED0 + seat] = 1
            if phase == _UPCARD_NONDEALER:
                st[F_PHASE] = _UPCARD_DEALER
                st[F_CUR] = 1
            else:
                st[F_PHASE] = _DRAW
                st[F_CUR] = 0
                st[F_MUST_DRAW] = 1
    elif phase == _DRAW:
        if a == _DRAW_STOCK:
            pos = st[F_STOCK_POS]
            st[F_HAND0 + seat] |= 1 << deck[pos]
            st[F_STOCK_POS] = pos + 1
            st[F_TAKEN] = -1
            st[F_PHASE] = _DISCARD_PHASE
        else:
            _take_discard(st, pile, seat)
        st[F_MUST_DRAW] = 0
    else:
        mult = st[F_MULT]
        if a == _BIG_GIN:
            d_dw = deadwood_nb(st[F_HAND0 + 1 - seat])
            st[F_TURNS] += 1
            _finish(st, _R_BIG_GIN, seat, (cfg[C_BIG_GIN] + d_dw) * mult, seat)
            return
        card = a - _DISCARD if a < _KNOCK else a - _KNOCK
        bit = 1 << card
        st[F_HAND0 + seat] &= ~bit
        pile[st[F_PILE_LEN]] = card
        st[F_PILE_LEN] += 1
        st[F_DISC0 + seat] |= bit
        st[F_TOOK0 + seat] &= ~bit
        st[F_TAKEN] = -1
        st[F_TURNS] += 1
        if a >= _KNOCK:
            kind, k_pts, d_pts, _, _ = showdown_nb(
                st[F_HAND0 + seat],
                st[F_HAND0 + 1 - seat],
                st[F_LIMIT],
                cfg[C_GIN_BONUS],
                cfg[C_UNDERCUT_BONUS],
            )
            if kind != UNDERCUT:
                _finish(st, kind, seat, k_pts * mult, seat)
            else:
                _finish(st, kind, 1 - seat, d_pts * mult, seat)
        elif NUM_CARDS - st[F_STOCK_POS] <= _DRAW_AT_STOCK:
            _finish(st, _R_DRAW, -1, 0, -1)
        elif st[F_TURNS] >= cfg[C_MAX_TURNS]:
            _finish(st, _R_DRAW, -1, 0, -1)
        else:
            st[F_CUR] = 1 - seat
            st[F_PHASE] = _DRAW


# -- the match -----------------------------------------------------------------------------------


@numba.njit(cache=True)
def _enter_points(st: np.ndarray, cfg: np.ndarray, player: int, points: int) -> None:
    """Match._enter_points, and GinMatch's Hollywood version."""
    if not cfg[C_HOLLYWOOD]:
        st[F_SCORE0 + player] += points
        return
    st[F_WON0 + player] += 1
    won = st[F_WON0 + player]
    entered = 0
    for g in range(_GAMES):
        if st[F_GAME_WINNER + g] != -1:
            continue
        if entered == won:
            break
        entered += 1
        st[F_GAMES + 2 * g + player] += points
        if st[F_GAMES + 2 * g + player] >= cfg[C_TARGET]:
            st[F_GAME_WINNER + g] = player
    shown = _GAMES - 1
    for g in range(_GAMES):
        if st[F_GAME_WINNER + g] == -1:
            shown = g
            break
    st[F_SCORE0] = st[F_GAMES + 2 * shown]
    st[F_SCORE1] = st[F_GAMES + 2 * shown + 1]


@numba.njit(cache=True)
def _match_winner(st: np.ndarray, cfg: np.ndarray) -> int:
    if cfg[C_HOLLYWOOD]:
        wins0 = 0
        for g in range(_GAMES):
            w = st[F_GAME_WINNER + g]
            if w == -1:
                return -1
            if w == 0:
                wins0 += 1
        return 0 if 2 * wins0 > _GAMES else 1
    for p in range(cfg[C_PLAYERS]):
        if st[F_SCORE0 + p] >= cfg[C_TARGET]:
            return p
    return -1


@numba.njit(cache=True)
def _after_hand(st: np.ndarray, cfg: np.ndarray, winner: int) -> None:
    """Roles for the next hand (ThreeHandedMatch / GinMatch._after_hand); ``winner`` a player."""
    if cfg[C_PLAYERS] == 3:
        st[F_SUGGESTION] = -1
        st[F_ADVISED] = 0
        if winner == -1:
            return
        box, captain, adviser = st[F_BOX], st[F_CAPTAIN], st[F_ADVISER]
        if winner == box:
            st[F_CAPTAIN] = adviser
            st[F_ADVISER] = captain
        else:
            st[F_BOX] = captain
            st[F_CAPTAIN] = adviser
            st[F_ADVISER] = box
        return
    rule = cfg[C_DEALER_RULE]
    if rule == _DR_ALTERNATE or (rule == _DR_ALTERNATE_SCORED and winner != -1):
        st[F_DEALER] = 1 - st[F_DEALER]
    elif winner != -1 and rule != _DR_ALTERNATE_SCORED:
        st[F_DEALER] = winner if rule == _DR_WINNER else 1 - winner


@numba.njit(cache=True)
def _end_hand(
    st: np.ndarray,
    deck: np.ndarray,
    pile: np.ndarray,
    next_deck: np.ndarray,
    ep_order: np.ndarray,
    ep_deck0: np.ndarray,
    ep_deck1: np.ndarray,
    cfg: np.ndarray,
    scale: float,
    rewards: np.ndarray,
) -> bool:
    """Score the hand that just ended, write the env's rewards, and start the next hand or
    the next episode. Returns True when the episode ended."""
    players = cfg[C_PLAYERS]
    seat_won = st[F_RES_WINNER]
    winner = -1 if seat_won == -1 else st[F_PLAYER0 + seat_won]
    st[F_RES_WINNER] = winner
    if st[F_RES_KNOCKER] != -1:
        st[F_RES_KNOCKER] = st[F_PLAYER0 + st[F_RES_KNOCKER]]
    points = st[F_RES_POINTS]
    if winner != -1:
        _enter_points(st, cfg, winner, points)
    for p in range(3):
        st[F_RES_SCORES + p] = st[F_SCORE0 + p]
    # Rewards: GinFamilyEnv._score_hand, with the roles of the hand just played.
    for p in range(players):
        rewards[p] = 0.0
    mode = cfg[C_REWARD]
    champion = _match_winner(st, cfg)
    if mode == _RW_MATCH:
        if champion != -1:
            for p in range(players):
                rewards[p] = 1.0 if p == champion else -1.0 / (players - 1)
    elif winner != -1:
        pts = points * scale
        if mode == _RW_INDIVIDUAL:
            rewards[winner] = pts
        elif players == 2:
            rewards[winner] = pts
            rewards[1 - winner] = -pts
        else:
            box_won = st[F_ROLE0 + winner] == _BOX
            team = pts / 2 if mode == _RW_ZERO_SUM else pts
            for p in range(3):
                if st[F_ROLE0 + p] == _BOX:
                    rewards[p] = pts if box_won else -pts
                else:
                    rewards[p] = -team if box_won else team
    _after_hand(st, cfg, winner)
    max_hands = cfg[C_MAX_HANDS]
    done = (
        cfg[C_EPISODE_HAND] != 0 or champion != -1 or (max_hands > 0 and st[F_HANDS] >= max_hands)
    )
    if done:
        _start_episode(st, ep_deck0, pile, cfg, ep_order)
        deck[:] = ep_deck0
        next_deck[:] = ep_deck1
        st[F_NEW_EPISODE] = 1
    else:
        st[F_HANDS] += 1
        deck[:] = next_deck
        _seat_players(st, cfg)
        _start_hand(st, deck, pile, cfg)
        _update_advising(st, cfg)
        st[F_NEED_DECK] = 1
    return done


@numba.njit(cache=True, inline="always")
def _log_move(st: np.ndarray, deck: np.ndarray, pile: np.ndarray, log: np.ndarray, a: int) -> None:
    """Append the move about to be made to the hand's move log (GinFamilyEnv._move): the
    player, the action, the card it moves (the pile's top for a take, the stock's top for a
    draw, the card of a discard or knock, or none) and whether it is a suggestion; packed as
    ``player | action << 2 | (card + 1) << 9 | advice << 15``. The log keeps the last
    ``HISTORY_LENGTH`` moves (a ring; ``F_NMOVES`` counts them all)."""
    advice = st[F_ADVISING]
    player = st[F_ADVISER] if advice else st[F_PLAYER0 + st[F_CUR]]
    card = -1
    if a == _TAKE:
        if not advice:
            card = pile[st[F_PILE_LEN] - 1]
    elif a == _DRAW_STOCK:
        if not advice:
            card = deck[st[F_STOCK_POS]]
    elif _DISCARD <= a < _BIG_GIN:
        card = (a - _DISCARD) % NUM_CARDS
    k = st[F_NMOVES]
    log[k % _HISTORY_LENGTH] = player | a << 2 | (card + 1) << 9 | advice << 15
    st[F_NMOVES] = k + 1


@numba.njit(cache=True, inline="always")
def _apply(
    st: np.ndarray,
    deck: np.ndarray,
    pile: np.ndarray,
    next_deck: np.ndarray,
    ep_order: np.ndarray,
    ep_deck0: np.ndarray,
    ep_deck1: np.ndarray,
    cfg: np.ndarray,
    scale: float,
    a: int,
    rewards: np.ndarray,
    log: np.ndarray,
) -> int:
    """One action of the player to act. Returns 0, 1 (a hand ended) or 2 (the episode too)."""
    for p in range(rewards.shape[0]):
        rewards[p] = 0.0
    _log_move(st, deck, pile, log, a)
    if st[F_ADVISING]:
        st[F_SUGGESTION] = a
        st[F_ADVISED] = 1
        st[F_ADVISING] = 0
        return 0
    _hand_step(st, deck, pile, cfg, a)
    if st[F_PHASE] == _OVER:
        done = _end_hand(
            st, deck, pile, next_deck, ep_order, ep_deck0, ep_deck1, cfg, scale, rewards
        )
        return 2 if done else 1
    if cfg[C_PLAYERS] == 3:
        # The captain has decided: his next decision gets fresh advice.
        st[F_ADVISED] = 0
        st[F_SUGGESTION] = -1
        _update_advising(st, cfg)
    return 0


# -- observation and mask --------------------------------------------------------------------


# Card parts are written a byte of the mask at a time from this table (row b: the eight
# bits of b as 0.0 / 1.0), several times faster than a shift per card.
_BYTE_BITS = np.array([[(b >> j) & 1 for j in range(8)] for b in range(256)], np.float32)


@numba.njit(cache=True, inline="always")
def _put_cards(row: np.ndarray, offset: int, mask: int) -> None:
    """Write the 52 entries of a card part (1.0 where ``mask`` has the card, else 0.0)."""
    for byte in range(7):
        bits = _BYTE_BITS[(mask >> (8 * byte)) & 255]
        base = offset + 8 * byte
        for j in range(8 if byte < 6 else 4):
            row[base + j] = bits[j]


@numba.njit(cache=True, inline="always")
def _observe(
    st: np.ndarray, pile: np.ndarray, cfg: np.ndarray, player: int, row: np.ndarray
) -> None:
    """encoding.encode_observation of ``player`` into ``row`` (every entry written)."""
    for k in range(_O_HAND):
        row[k] = 0.0
    for k in range(_O_SUGGESTION, _OBS_SIZE):
        row[k] = 0.0
    phase = st[F_PHASE]
    row[_O_ROLE + st[F_ROLE0 + player]] = 1.0
    row[_O_PHASE + phase] = 1.0
    if player == st[F_PLAYER0]:
        seat, playing = 0, True
    elif player == st[F_PLAYER1]:
        seat, playing = 1, True
    else:
        seat, playing = 0, False
    opp = 1 - seat
    if cfg[C_PLAYERS] == 3:
        if st[F_ADVISING]:
            row[_O_ADVISING] = 1.0
        elif player == st[F_CAPTAIN] and st[F_SUGGESTION] >= 0:
            row[_O_SUGGESTION + st[F_SUGGESTION]] = 1.0
    # Scores by role (box / dealer, captain / non-dealer, adviser), from the hand's roles.
    s0 = s1 = s2 = 0
    for p in range(cfg[C_PLAYERS]):
        r = st[F_ROLE0 + p]
        if r == 0:
            s0 = st[F_SCORE0 + p]
        elif r == 1:
            s1 = st[F_SCORE0 + p]
        else:
            s2 = st[F_SCORE0 + p]
    dw = 0.0
    own = 0
    own_disc = 0
    if playing or cfg[C_SEES_HAND]:
        own = st[F_HAND0 + seat]
        own_disc = st[F_DISC0 + seat]
        if phase != _OVER:
            dw = deadwood_nb(own) / _DEADWOOD_SCALE
    n = st[F_PILE_LEN]
    top = 0
    in_pile = 0
    if n > 0:
        top = 1 << pile[n - 1]
        hands = st[F_HAND0] | st[F_HAND1]
        in_pile = (st[F_DISC0] | st[F_DISC1] | 1 << st[F_UPCARD]) & ~hands
    _put_cards(row, _O_HAND, own)
    _put_cards(row, _O_TOP, top)
    _put_cards(row, _O_PILE, in_pile)
    _put_cards(row, _O_OPP_TOOK, st[F_TOOK0 + opp])
    _put_cards(row, _O_OPP_DISC, st[F_DISC0 + opp])
    _put_cards(row, _O_PARTNER_DISC, own_disc)
    target = cfg[C_TARGET]
    row[_O_STOCK] = (NUM_CARDS - st[F_STOCK_POS]) / _FULL_STOCK
    row[_O_DEADWOOD] = dw
    row[_O_TURN] = st[F_TURNS] / cfg[C_MAX_TURNS]
    row[_O_SCORES] = min(s0 / target, 1.0)
    row[_O_SCORES + 1] = min(s1 / target, 1.0)
    row[_O_SCORES + 2] = min(s2 / target, 1.0)


@numba.njit(cache=True, inline="always")
def _hand_mask(
    st: np.ndarray, pile: np.ndarray, cfg: np.ndarray, row: np.ndarray, dws: np.ndarray
) -> None:
    """GinHand.legal_actions of the seat to act, set in ``row`` (cleared by the caller)."""
    phase = st[F_PHASE]
    if phase == _UPCARD_NONDEALER or phase == _UPCARD_DEALER:
        row[_TAKE] = True
        row[_PASS] = True
    elif phase == _DRAW:
        row[_DRAW_STOCK] = True
        if not st[F_MUST_DRAW] and st[F_PILE_LEN] > 0:
            row[_TAKE] = True
    elif phase == _DISCARD_PHASE:
        hand = st[F_HAND0 + st[F_CUR]]
        banned = -1 if cfg[C_ALLOW_TAKEN] else st[F_TAKEN]
        discard_deadwoods_nb(hand, dws)
        limit = st[F_LIMIT]
        for c in range(NUM_CARDS):
            if dws[c] < 0 or c == banned:
                continue
            row[_DISCARD + c] = True
            if dws[c] <= limit:
                row[_KNOCK + c] = True
        if cfg[C_BIG_GIN] >= 0 and deadwood_nb(hand) == 0:
            row[_BIG_GIN] = True


@numba.njit(cache=True, inline="always")
def _mask(
    st: np.ndarray, pile: np.ndarray, cfg: np.ndarray, row: np.ndarray, dws: np.ndarray
) -> None:
    """The legal ids of the player to act (the adviser's suggestions when advising)."""
    for k in range(_NUM_ACTIONS):
        row[k] = False
    if not st[F_ADVISING]:
        _hand_mask(st, pile, cfg, row, dws)
        return
    row[_NO_ADVICE] = True
    if cfg[C_SEES_HAND]:
        _hand_mask(st, pile, cfg, row, dws)
        return
    # The blind adviser (VECTOR_API.md): what he can know the captain may do.
    phase = st[F_PHASE]
    if phase == _UPCARD_NONDEALER or phase == _UPCARD_DEALER:
        row[_TAKE] = True
        row[_PASS] = True
    elif phase == _DRAW:  # the captain's draws are public (both passes were seen)
        row[_DRAW_STOCK] = True
        if not st[F_MUST_DRAW] and st[F_PILE_LEN] > 0:
            row[_TAKE] = True
    elif phase == _DISCARD_PHASE:
        known = st[F_TOOK0]  # the captain is seat 0
        banned = -1 if cfg[C_ALLOW_TAKEN] else st[F_TAKEN]
        for c in range(NUM_CARDS):
            if known >> c & 1 and c != banned:
                row[_DISCARD + c] = True


@numba.njit(cache=True, inline="always")
def _to_act(st: np.ndarray) -> int:
    """The player to act: the adviser while advising, else the seat to act's player."""
    if st[F_ADVISING]:
        return st[F_ADVISER]
    return st[F_PLAYER0 + st[F_CUR]]


@numba.njit(cache=True, inline="always")
def _write_outputs(
    st: np.ndarray,
    pile: np.ndarray,
    cfg: np.ndarray,
    obs: np.ndarray,
    mask: np.ndarray,
    seat: np.ndarray,
    role: np.ndarray,
    dws: np.ndarray,
    i: int,
) -> None:
    p = _to_act(st[i])
    seat[i] = p
    role[i] = st[i, F_ROLE0 + p]
    _observe(st[i], pile[i], cfg, p, obs[i])
    _mask(st[i], pile[i], cfg, mask[i], dws)


# -- the global state and the move history ---------------------------------------------------

#: The parts of ``encoding.state_parts``, in order: the kernel finds each at ``off[S_*]``.
STATE_PART_NAMES = (
    "hands", "took", "discarded", "stock", "stock_order", "discard_pile", "pile_order",
    "upcard", "taken", "roles", "scores", "phase", "to_act", "advising", "suggestion",
    "must_draw_stock", "passed_upcard", "turn", "knock_limit", "doubled",
)  # fmt: skip
(
    S_HANDS, S_TOOK, S_DISCARDED, S_STOCK, S_STOCK_ORDER, S_PILE, S_PILE_ORDER, S_UPCARD,
    S_TAKEN, S_ROLES, S_SCORES, S_PHASE, S_TO_ACT, S_ADVISING, S_SUGGESTION, S_MUST_DRAW,
    S_PASSED, S_TURN, S_KNOCK_LIMIT, S_DOUBLED,
) = range(len(STATE_PART_NAMES))  # fmt: skip


def state_offsets(num_players: int) -> np.ndarray:
    """Where each part of ``encoding.state_parts(num_players)`` starts (indexed by ``S_*``)."""
    parts = state_parts(num_players)
    names = tuple(name for name, _ in parts)
    if names != STATE_PART_NAMES:  # the layout changed: the kernel must follow it
        raise AssertionError(
            f"encoding.state_parts is {names}, the kernel writes {STATE_PART_NAMES}"
        )
    starts = np.cumsum([0] + [size for _, size in parts[:-1]])
    return starts.astype(np.int64)


@numba.njit(cache=True)
def _encode_state(
    st: np.ndarray, deck: np.ndarray, pile: np.ndarray, cfg: np.ndarray, off: np.ndarray,
    row: np.ndarray,
) -> None:  # fmt: skip
    """encoding.encode_state of one game into ``row`` (every entry written)."""
    for k in range(row.shape[0]):
        row[k] = 0.0
    n = cfg[C_PLAYERS]
    for seat in range(2):  # the adviser holds no cards: his rows stay zero
        p = st[F_PLAYER0 + seat]
        _put_cards(row, off[S_HANDS] + p * NUM_CARDS, st[F_HAND0 + seat])
        _put_cards(row, off[S_TOOK] + p * NUM_CARDS, st[F_TOOK0 + seat])
        _put_cards(row, off[S_DISCARDED] + p * NUM_CARDS, st[F_DISC0 + seat])
    pos = st[F_STOCK_POS]
    for j in range(pos, NUM_CARDS):  # the stock, top first
        c = deck[j]
        row[off[S_STOCK] + c] = 1.0
        row[off[S_STOCK_ORDER] + c] = (j - pos + 1) / _FULL_STOCK
    for j in range(st[F_PILE_LEN]):  # the pile, bottom first
        c = pile[j]
        row[off[S_PILE] + c] = 1.0
        row[off[S_PILE_ORDER] + c] = (j + 1) / NUM_CARDS
    row[off[S_UPCARD] + st[F_UPCARD]] = 1.0
    if st[F_TAKEN] >= 0:
        row[off[S_TAKEN] + st[F_TAKEN]] = 1.0
    target = cfg[C_TARGET]
    for p in range(n):
        row[off[S_ROLES] + 3 * p + st[F_ROLE0 + p]] = 1.0
        row[off[S_SCORES] + p] = min(st[F_SCORE0 + p] / target, 1.0)
    row[off[S_PHASE] + st[F_PHASE]] = 1.0
    if st[F_PHASE] != _OVER:
        row[off[S_TO_ACT] + _to_act(st)] = 1.0
    if n == 3:
        row[off[S_ADVISING]] = st[F_ADVISING]
        if st[F_SUGGESTION] >= 0:
            row[off[S_SUGGESTION] + st[F_SUGGESTION]] = 1.0
    row[off[S_MUST_DRAW]] = st[F_MUST_DRAW]
    row[off[S_PASSED]] = st[F_PASSED0]  # seat 0 is the non-dealer
    row[off[S_PASSED] + 1] = st[F_PASSED1]
    row[off[S_TURN]] = st[F_TURNS] / cfg[C_MAX_TURNS]
    row[off[S_KNOCK_LIMIT]] = st[F_LIMIT] / 10
    row[off[S_DOUBLED]] = 1.0 if st[F_MULT] == 2 else 0.0


@numba.njit(cache=True, inline="always")
def _move_kind(a: int) -> int:
    """encoding.move_kind."""
    if a < _DISCARD:
        return a
    if a < _KNOCK:
        return 4
    return 5 if a < _BIG_GIN else 6


@numba.njit(cache=True)
def _encode_history(
    st: np.ndarray, log: np.ndarray, cfg: np.ndarray, observer: int, hist: np.ndarray,
    hmask: np.ndarray,
) -> None:  # fmt: skip
    """encoding.encode_history of ``observer`` from the hand's move log, with the envs'
    visibility (GinFamilyEnv._history): a stock draw's card only for the drawer and for the
    adviser who sees the captain's hand (the captain's draws); a suggestion's kind and card
    not for the box. ``hist`` and ``hmask`` come zeroed."""
    n = cfg[C_PLAYERS]
    captain = st[F_PLAYER0]
    adviser = observer != st[F_PLAYER0] and observer != st[F_PLAYER1]
    sees_captain = adviser and cfg[C_SEES_HAND] != 0
    sees_advice = n == 2 or st[F_ROLE0 + observer] != _BOX
    total = st[F_NMOVES]
    k = min(total, _HISTORY_LENGTH)
    first = total - k
    for i in range(k):
        m = log[(first + i) % _HISTORY_LENGTH]
        player = m & 3
        a = (m >> 2) & 127
        card = ((m >> 9) & 63) - 1
        advice = (m >> 15) & 1
        row = hist[i]
        row[(player - observer) % n] = 1.0
        hmask[i] = True
        if advice:
            row[_H_ADVICE] = 1.0
            if not sees_advice:
                continue
        row[_H_KIND + _move_kind(a)] = 1.0
        if card < 0:
            continue
        if a == _DRAW_STOCK and not advice:
            if player != observer and not (player == captain and sees_captain):
                continue
        row[_H_CARD + card] = 1.0


# -- batch kernels ---------------------------------------------------------------------------


@numba.njit(cache=True)
def v1_kernel(st, cfg, seats, rules, obs):  # type: ignore[no-untyped-def]
    """The ``gin_obs_v1`` entries after the v0 ones (encoding.encode_observation_v1) of
    ``seats[i]`` in row ``i`` of ``obs`` ``[N, OBS_SIZE_V1]``: the observed hand's took
    cards, this hand's knock limit and doubling, then ``rules`` (the options' entries, the
    same for every game)."""
    for i in range(st.shape[0]):
        g = st[i]
        row = obs[i]
        seat = 1 if seats[i] == g[F_PLAYER1] else 0  # the adviser watches the captain's seat
        _put_cards(row, _OBS_SIZE, g[F_TOOK0 + seat])
        row[_OBS_SIZE + NUM_CARDS] = g[F_LIMIT] / 10
        row[_OBS_SIZE + NUM_CARDS + 1] = 1.0 if g[F_MULT] == 2 else 0.0
        for k in range(rules.shape[0]):
            row[_OBS_SIZE + NUM_CARDS + 2 + k] = rules[k]


@numba.njit(cache=True)
def state_kernel(st, deck, pile, cfg, off, out):  # type: ignore[no-untyped-def]
    for i in range(st.shape[0]):
        _encode_state(st[i], deck[i], pile[i], cfg, off, out[i])


@numba.njit(cache=True)
def history_kernel(st, log, cfg, seats, hist, hmask):  # type: ignore[no-untyped-def]
    """The history of ``seats[i]`` in slot ``i``, into zeroed ``hist`` / ``hmask``."""
    for i in range(st.shape[0]):
        _encode_history(st[i], log[i], cfg, seats[i], hist[i], hmask[i])


@numba.njit(cache=True)
def outputs_kernel(st, pile, cfg, obs, mask, seat, role):  # type: ignore[no-untyped-def]
    dws = np.empty(NUM_CARDS, np.int64)
    for i in range(st.shape[0]):
        _write_outputs(st, pile, cfg, obs, mask, seat, role, dws, i)


@numba.njit(cache=True)
def step_kernel(  # type: ignore[no-untyped-def]
    st, deck, pile, next_deck, ep_order, ep_deck0, ep_deck1, cfg, scale, actions,
    obs, mask, seat, role, rewards, hand_over, done, active, log,
):  # fmt: skip
    """Apply ``actions`` (already checked legal) to the ``active`` slots and write the
    outputs (an inactive slot keeps its state: no reward, no hand or episode end). Returns
    the number of slots that used a prepared deck (Python then draws new ones)."""
    dws = np.empty(NUM_CARDS, np.int64)
    used = 0
    for i in range(st.shape[0]):
        st[i, F_NEED_DECK] = 0
        st[i, F_NEW_EPISODE] = 0
        if not active[i]:
            rewards[i, :] = 0.0
            hand_over[i] = False
            done[i] = False
            _write_outputs(st, pile, cfg, obs, mask, seat, role, dws, i)
            continue
        r = _apply(
            st[i], deck[i], pile[i], next_deck[i], ep_order[i], ep_deck0[i], ep_deck1[i],
            cfg, scale, actions[i], rewards[i], log[i],
        )  # fmt: skip
        hand_over[i] = r >= 1
        done[i] = r == 2
        used += r >= 1
        _write_outputs(st, pile, cfg, obs, mask, seat, role, dws, i)
    return used


@numba.njit(cache=True, parallel=True)
def step_kernel_parallel(  # type: ignore[no-untyped-def]
    st, deck, pile, next_deck, ep_order, ep_deck0, ep_deck1, cfg, scale, actions,
    obs, mask, seat, role, rewards, hand_over, done, active, log,
):  # fmt: skip
    """``step_kernel`` with the slots shared among numba's threads."""
    used = 0
    for i in numba.prange(st.shape[0]):
        dws = np.empty(NUM_CARDS, np.int64)
        st[i, F_NEED_DECK] = 0
        st[i, F_NEW_EPISODE] = 0
        r = 0
        if active[i]:
            r = _apply(
                st[i], deck[i], pile[i], next_deck[i], ep_order[i], ep_deck0[i], ep_deck1[i],
                cfg, scale, actions[i], rewards[i], log[i],
            )  # fmt: skip
        else:
            rewards[i, :] = 0.0
        hand_over[i] = r >= 1
        done[i] = r == 2
        used += r >= 1
        _write_outputs(st, pile, cfg, obs, mask, seat, role, dws, i)
    return used


@numba.njit(cache=True)
def first_illegal(mask, actions):  # type: ignore[no-untyped-def]
    """The first slot whose action is out of range or not set in its ``mask`` row, or -1."""
    for i in range(actions.shape[0]):
        a = actions[i]
        if a < 0 or a >= mask.shape[1] or not mask[i, a]:
            return i
    return -1


@numba.njit(cache=True)
def observe_kernel(st, pile, cfg, seats, obs):  # type: ignore[no-untyped-def]
    for i in range(st.shape[0]):
        _observe(st[i], pile[i], cfg, seats[i], obs[i])


@numba.njit(cache=True)
def start_kernel(st, deck, pile, next_deck, ep_order, ep_deck0, ep_deck1, cfg, which):  # type: ignore[no-untyped-def]
    """Start the pending episode in the slots ``which`` (reset)."""
    for i in which:
        _start_episode(st[i], ep_deck0[i], pile[i], cfg, ep_order[i])
        deck[i, :] = ep_deck0[i]
        next_deck[i, :] = ep_deck1[i]
        st[i, F_NEED_DECK] = 0
        st[i, F_NEW_EPISODE] = 1


# -- the Python side -------------------------------------------------------------------------


def config_vector(table: GinTable, options: EnvOptions) -> tuple[np.ndarray, float]:
    """The kernels' configuration: the table's rules and the env options (both checked)."""
    cfg = np.zeros(NUM_CONFIG, np.int64)
    cfg[C_PLAYERS] = table.num_players
    cfg[C_KNOCK_LIMIT] = table.knock_limit
    cfg[C_GIN_BONUS] = table.gin_bonus
    cfg[C_UNDERCUT_BONUS] = table.undercut_bonus
    cfg[C_BIG_GIN] = -1 if table.big_gin_bonus is None else table.big_gin_bonus
    cfg[C_ALLOW_TAKEN] = table.allow_discard_of_taken_card
    cfg[C_MAX_TURNS] = table.max_turns_per_hand
    cfg[C_OKLAHOMA] = table.oklahoma
    cfg[C_TARGET] = table.target_score
    if isinstance(table, ThreeHandedConfig):
        cfg[C_DEALER_RULE] = DEALER_CODES["alternate"]
        cfg[C_ADVICE] = table.adviser == "suggest"
        cfg[C_SEES_HAND] = table.adviser_sees_hand
    else:
        cfg[C_DEALER_RULE] = DEALER_CODES[table.dealer_rule]
        cfg[C_HOLLYWOOD] = table.hollywood
        cfg[C_SEES_HAND] = True  # the two-player game: no adviser to be blind
    cfg[C_REWARD] = REWARD_CODES[options.reward]
    cfg[C_EPISODE_HAND] = options.episode == "hand"
    cfg[C_MAX_HANDS] = 0 if options.max_hands is None else options.max_hands
    return cfg, float(options.reward_scale)


class BatchedGames:
    """The numba backend of :class:`gin_env.vector.VectorGinEnv`: ``num_envs`` games as arrays.

    ``table`` is the game's rules, ``options`` what is not a rule (reward, episode...),
    ``obs_version`` the observation layout (0 or 1). The decks of slot ``i`` come from its
    own generators, drawn exactly as ``GinFamilyEnv.reset`` draws them: ``np_random =
    seeding.np_random(seed + i)``; per episode ``deck_rng =
    default_rng(np_random.integers(2**63))``, the role deck first, then one permutation per
    hand.
    """

    def __init__(
        self, table: GinTable, options: EnvOptions, num_envs: int, obs_version: int = 0
    ) -> None:
        n = num_envs
        self.num_envs = n
        self.num_players = table.num_players
        self.cfg, self.scale = config_vector(table, options)
        self.state = np.zeros((n, NUM_FIELDS), np.int64)
        self.deck = np.zeros((n, NUM_CARDS), np.int64)
        self.pile = np.zeros((n, NUM_CARDS), np.int64)
        self.next_deck = np.zeros((n, NUM_CARDS), np.int64)
        self.ep_order = np.zeros((n, 3), np.int64)
        self.ep_deck0 = np.zeros((n, NUM_CARDS), np.int64)
        self.ep_deck1 = np.zeros((n, NUM_CARDS), np.int64)
        #: The move log of each slot's hand on the table (see ``_log_move``).
        self.log = np.zeros((n, HISTORY_LENGTH), np.int64)
        self.state_offsets = state_offsets(self.num_players)
        self.state_size = state_size(self.num_players)
        self.obs_size = OBS_SIZE_V1 if obs_version == 1 else OBS_SIZE
        #: The v1 layout's rule entries (the same in every game and hand), from the encoder's
        #: own function so that they are its float32 values to the bit.
        self.v1_rules = rules_in_view(table) if obs_version == 1 else np.zeros(0, np.float32)
        self.state[:, F_RES_KIND] = -1  # no hand finished yet
        self.state[:, F_RES_WINNER] = -1
        self.state[:, F_RES_KNOCKER] = -1
        self._all_active = np.ones(n, np.bool_)
        self.np_random: list[np.random.Generator] = []
        self.deck_rng: list[np.random.Generator | None] = [None] * n
        self.pending_rng: list[np.random.Generator | None] = [None] * n
        self._players = tuple(range(self.num_players))
        self.results = {
            "kind": self.state[:, F_RES_KIND],
            "points": self.state[:, F_RES_POINTS],
            "winner": self.state[:, F_RES_WINNER],
            "knocker": self.state[:, F_RES_KNOCKER],
            "scores": self.state[:, F_RES_SCORES : F_RES_SCORES + self.num_players],
        }

    # -- decks ---------------------------------------------------------------------------
    def _prepare_episode(self, i: int) -> None:
        """Draw slot ``i``'s next episode: its deck generator, role draw and first two hands."""
        rng = np.random.default_rng(self.np_random[i].integers(2**63))
        role_deck = rng.permutation(NUM_CARDS)
        order, _ = draw_for_order(role_deck.tolist(), self._players)
        self.ep_order[i, : len(order)] = order
        self.ep_deck0[i] = rng.permutation(NUM_CARDS)
        self.ep_deck1[i] = rng.permutation(NUM_CARDS)
        self.pending_rng[i] = rng

    def _refill(self) -> None:
        """After a step: new decks for the slots that used theirs."""
        st = self.state
        for i in np.flatnonzero(st[:, F_NEW_EPISODE]).tolist():
            self.deck_rng[i] = self.pending_rng[i]
            self._prepare_episode(i)
        for i in np.flatnonzero(st[:, F_NEED_DECK]).tolist():
            rng = self.deck_rng[i]
            assert rng is not None
            self.next_deck[i] = rng.permutation(NUM_CARDS)

    # -- the backend interface -------------------------------------------------------------
    def reset(self, seed: int | None, decks: np.ndarray | None = None) -> None:
        """Start every slot's next episode (seeded ``seed + i`` when ``seed`` is given);
        ``decks`` replace the first hands' decks (the deck stream goes on unchanged)."""
        n = self.num_envs
        if seed is not None or not self.np_random:
            self.np_random = [
                seeding.np_random(None if seed is None else seed + i)[0] for i in range(n)
            ]
            for i in range(n):
                self._prepare_episode(i)
        if decks is not None:
            self.ep_deck0[:] = decks
        start_kernel(
            self.state, self.deck, self.pile, self.next_deck, self.ep_order, self.ep_deck0,
            self.ep_deck1, self.cfg, np.arange(n),
        )  # fmt: skip
        self._refill()

    def _new_outputs(self) -> dict[str, np.ndarray]:
        n = self.num_envs
        return {
            "observation": np.empty((n, self.obs_size), np.float32),
            "action_mask": np.empty((n, A.NUM_ACTIONS), np.bool_),
            "seat": np.empty(n, np.int64),
            "role": np.empty(n, np.int64),
        }

    def outputs(self) -> dict[str, np.ndarray]:
        out = self._new_outputs()
        outputs_kernel(
            self.state, self.pile, self.cfg, out["observation"], out["action_mask"],
            out["seat"], out["role"],
        )  # fmt: skip
        self._v1(out["seat"], out["observation"])
        return out

    def _v1(self, seats: np.ndarray, obs: np.ndarray) -> None:
        """Complete v1 observations (the kernels wrote the v0 entries first)."""
        if self.obs_size != OBS_SIZE:
            v1_kernel(self.state, self.cfg, seats, self.v1_rules, obs)

    def step(self, actions: np.ndarray, active: np.ndarray | None = None) -> dict[str, np.ndarray]:
        n = self.num_envs
        if active is None:
            active = self._all_active
        out = self._new_outputs()
        out["rewards"] = np.empty((n, self.num_players), np.float32)
        out["hand_over"] = np.empty(n, np.bool_)
        out["done"] = np.empty(n, np.bool_)
        kernel = step_kernel
        if PARALLEL_MIN_ENVS is not None and n >= PARALLEL_MIN_ENVS and numba.get_num_threads() > 1:
            kernel = step_kernel_parallel
        used = kernel(
            self.state, self.deck, self.pile, self.next_deck, self.ep_order, self.ep_deck0,
            self.ep_deck1, self.cfg, self.scale, actions, out["observation"],
            out["action_mask"], out["seat"], out["role"], out["rewards"], out["hand_over"],
            out["done"], active, self.log,
        )  # fmt: skip
        if used:
            self._refill()
        self._v1(out["seat"], out["observation"])
        return out

    def first_illegal(self, mask: np.ndarray, actions: np.ndarray) -> int:
        return int(first_illegal(mask, actions))

    def observe(self, seats: np.ndarray) -> np.ndarray:
        obs = np.empty((self.num_envs, self.obs_size), np.float32)
        observe_kernel(self.state, self.pile, self.cfg, seats, obs)
        self._v1(seats, obs)
        return obs

    def global_state(self) -> np.ndarray:
        """``[N, state_size]``: each game's ``encoding.encode_state``."""
        out = np.empty((self.num_envs, self.state_size), np.float32)
        state_kernel(self.state, self.deck, self.pile, self.cfg, self.state_offsets, out)
        return out

    def history(self, seats: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``[N, 64, 63]`` and ``[N, 64]`` bool: the move history of ``seats[i]`` in slot ``i``."""
        n = self.num_envs
        hist = np.zeros((n, HISTORY_LENGTH, HISTORY_FEATURES), np.float32)
        hmask = np.zeros((n, HISTORY_LENGTH), np.bool_)
        history_kernel(self.state, self.log, self.cfg, seats, hist, hmask)
        return hist, hmask
