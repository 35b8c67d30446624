"""Pictures of the table: ``render_mode="rgb_array"`` for the gin envs (and rummy).

:func:`table_image` draws a gin table (three-handed or two-player) as an ``(H, W, 3)``
``uint8`` array: the two playing hands (card backs unless shown), the stock with its
count, the top of the discard pile, every player's role and score, the player to act, the
adviser's suggestion, the last action and the last hand's result. :func:`rummy_table_image`
does the same for basic rummy (2-6 hands and the melds on the table).

Pillow is imported only inside the functions that draw, so the rest of the package never
needs it (without it they raise :class:`gin_env.optional.MissingExtraError` naming the
extra). Suit symbols are drawn as shapes rather than font glyphs, so the picture looks
the same whatever fonts the machine has.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from gin_env import actions as A
from gin_env.cards import RANK_CHARS, from_mask, rank, suit, to_mask
from gin_env.optional import require
from gin_env.table_state import TableState

if TYPE_CHECKING:  # Pillow is imported lazily at draw time
    from PIL import ImageDraw, ImageFont

__all__ = ["table_image", "rummy_table_image", "save_png", "CARD_W", "CARD_H"]

CARD_W, CARD_H = 62, 88
FELT = (28, 94, 58)
FELT_DARK = (20, 70, 43)
WHITE = (250, 250, 246)
INK = (25, 25, 25)
RED = (200, 30, 40)
GOLD = (240, 200, 80)
PALE = (210, 230, 215)
BACK = (40, 70, 150)
BACK_LINE = (110, 140, 210)
RANK_TEXT = {r: ("10" if ch == "T" else ch) for r, ch in enumerate(RANK_CHARS)}


class _Fonts:
    """Pillow's bundled scalable font at the few sizes the table uses."""

    def __init__(self) -> None:
        from PIL import ImageFont  # render extra: pillow

        self.small = self._load(ImageFont, 14)
        self.body = self._load(ImageFont, 17)
        self.rank = self._load(ImageFont, 20)
        self.big = self._load(ImageFont, 24)

    @staticmethod
    def _load(image_font: Any, size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
        try:
            return image_font.load_default(size=size)
        except (TypeError, OSError):  # old Pillow or no FreeType: the fixed bitmap font
            return image_font.load_default()


# -- suit symbols as shapes ------------------------------------------------------------------
def _suit_shape(draw: ImageDraw.ImageDraw, s: int, cx: float, cy: float, size: float) -> None:
    """Draw suit ``s`` (0 spades, 1 hearts, 2 diamonds, 3 clubs) centred at (cx, cy)."""
    colour = RED if s in (1, 2) else INK
    h = size / 2
    if s == 2:  # diamond
        draw.polygon([(cx, cy - h), (cx + h * 0.72, cy), (cx, cy + h), (cx - h * 0.72, cy)], colour)
        return
    if s == 3:  # club: three lobes and a stem
        r = size * 0.24
        for dx, dy in ((0, -h * 0.45), (-h * 0.48, h * 0.1), (h * 0.48, h * 0.1)):
            draw.ellipse([cx + dx - r, cy + dy - r, cx + dx + r, cy + dy + r], colour)
        draw.polygon([(cx, cy), (cx - h * 0.35, cy + h), (cx + h * 0.35, cy + h)], colour)
        return
    # Hearts and spades share a shape: two lobes and a point, spades upside down with a stem.
    r = size * 0.26
    flip = -1 if s == 0 else 1
    lobe_y = cy - flip * h * 0.35
    for dx in (-r * 0.95, r * 0.95):
        draw.ellipse([cx + dx - r, lobe_y - r, cx + dx + r, lobe_y + r], colour)
    tip = cy + flip * h
    draw.polygon([(cx - 2 * r * 0.95, lobe_y + flip * r * 0.3), (cx + 2 * r * 0.95,
                  lobe_y + flip * r * 0.3), (cx, tip)], colour)  # fmt: skip
    if s == 0:
        draw.polygon([(cx, cy), (cx - h * 0.35, cy + h), (cx + h * 0.35, cy + h)], colour)


# -- cards -----------------------------------------------------------------------------------
def _card_face(draw: ImageDraw.ImageDraw, fonts: _Fonts, card: int, x: int, y: int) -> None:
    draw.rounded_rectangle([x, y, x + CARD_W, y + CARD_H], 7, WHITE, (90, 90, 90), 1)
    s = suit(card)
    colour = RED if s in (1, 2) else INK
    draw.text((x + 5, y + 3), RANK_TEXT[rank(card)], colour, fonts.rank)
    _suit_shape(draw, s, x + 12, y + 34, 14)
    _suit_shape(draw, s, x + CARD_W * 0.6, y + CARD_H * 0.64, 30)


def _card_back(draw: ImageDraw.ImageDraw, x: int, y: int) -> None:
    draw.rounded_rectangle([x, y, x + CARD_W, y + CARD_H], 7, WHITE, (90, 90, 90), 1)
    draw.rounded_rectangle([x + 4, y + 4, x + CARD_W - 4, y + CARD_H - 4], 5, BACK)
    for k in range(-CARD_H, CARD_W, 9):  # a diagonal lattice, clipped to the inner panel
        x0, y0, x1, y1 = x + 4 + k, y + 4, x + 4 + k + CARD_H - 8, y + CARD_H - 4
        if x0 < x + 4:
            y0 += x + 4 - x0
            x0 = x + 4
        if x1 > x + CARD_W - 4:
            y1 -= x1 - (x + CARD_W - 4)
            x1 = x + CARD_W - 4
        if x1 > x0:
            draw.line([(x0, y0), (x1, y1)], BACK_LINE, 1)


def _card_slot(draw: ImageDraw.ImageDraw, x: int, y: int) -> None:
    draw.rounded_rectangle([x, y, x + CARD_W, y + CARD_H], 7, None, PALE, 2)


def _cards_row(
    draw: ImageDraw.ImageDraw,
    fonts: _Fonts,
    groups: Sequence[Sequence[int]] | None,
    count: int,
    x: int,
    y: int,
    width: int,
) -> None:
    """A hand fanned left to right within ``width`` pixels. ``groups`` are runs of face-up
    cards drawn with a gap between them (melds, then deadwood, at a showdown); None draws
    ``count`` backs."""
    if groups is None:
        groups = [[-1] * count]
    groups = [g for g in groups if g]
    n = sum(len(g) for g in groups)
    if n == 0:
        return
    gap = 14 if len(groups) > 1 else 0
    room = width - CARD_W - gap * (len(groups) - 1)
    step = min(CARD_W + 6, room // max(n - 1, 1))
    cx = x
    for group in groups:
        for card in group:
            if card < 0:
                _card_back(draw, cx, y)
            else:
                _card_face(draw, fonts, card, cx, y)
            cx += step
        cx += gap


def _to_array(image: Any) -> np.ndarray:
    return np.asarray(image.convert("RGB"), dtype=np.uint8).copy()


def save_png(image: np.ndarray, path: str) -> None:
    """Write an image array (as :func:`table_image` returns) to a PNG file."""
    require("PIL", needed_for="saving a PNG")
    from PIL import Image  # render extra: pillow

    Image.fromarray(image).save(path)


# -- the gin table ---------------------------------------------------------------------------
def table_image(env: Any, show_all: bool = False, view: str = "none") -> np.ndarray:
    """A picture of a gin env's table (``three_handed_gin_v0`` or ``gin_v0`` ``raw_env``).

    The playing hands are drawn face up when ``show_all`` is set, once the hand is over (as
    :meth:`table_text` shows them), or when ``view`` (the env's ``render_hands`` values:
    ``"none"``, ``"all"`` or an agent's name) shows them; otherwise as card backs. A box
    player's view hides the adviser's suggestion. Returns an ``(H, W, 3)`` ``uint8`` array.
    """
    require("PIL", needed_for="drawing the table")
    from PIL import Image, ImageDraw  # render extra: pillow

    state = _table_state(env)
    faces = env.face_up(view)
    hide_advice = env.hides_advice(view)
    # The table with every hand open: the picture itself decides which it draws face up.
    seen = state.view(None, open_hands=True)
    fonts = _Fonts()
    width, height = 1040, 640
    image = Image.new("RGB", (width, height), FELT)
    draw = ImageDraw.Draw(image)
    rec = state.history[-1]  # the hand on the table: its players (non-dealer, dealer), roles
    names = list(env.possible_agents)
    roles = seen.roles  # each player's role in words
    to_act = seen.to_act
    three = len(names) == 3
    title = "Three-handed gin" if three else "Gin"
    heading = f"{title}   hand {seen.hand_index + 1}"
    draw.text((24, 14), heading, WHITE, fonts.big)
    phase_x = 24 + fonts.big.getlength(heading) + 24
    draw.text((phase_x, 20), f"phase: {seen.phase_id.replace('_', ' ')}", PALE, fonts.body)

    # The board: dealer's hand on top, non-dealer's below, stock and discard pile between.
    board_w = 730
    draw.rounded_rectangle([12, 52, board_w, height - 92], 14, FELT_DARK)
    shown = show_all or state.hand_over
    last_done = _last_finished(state.history)
    showdown = None
    if state.is_over and last_done is not None and last_done.result is not None:
        showdown = last_done.result.showdown
    for seat, y in ((1, 92), (0, 392)):
        player = rec.players[seat]
        role = roles[player]
        dealer = ", dealer" if player == seen.dealer else ""
        colour = GOLD if player == to_act else WHITE
        label = f"{names[player]} - {role}{dealer}"
        draw.text((28, y - 30), label, colour, fonts.body)
        held = to_mask(seen.hands[player].cards)
        cards = from_mask(held)
        if player == to_act:
            draw.text((28 + fonts.body.getlength(label) + 12, y - 30), "to act", GOLD, fonts.small)
        groups: list[list[int]] | None = [cards] if shown or player in faces else None
        if showdown is not None and last_done is not None and last_done.result is not None:
            # The showdown's arrangement: each meld, then the cards laid off, then deadwood.
            knocker = last_done.result.knocker == seat
            melds = showdown.knocker_melds if knocker else showdown.defender_melds
            laid = 0 if knocker else showdown.layoffs
            rest = held
            groups = [from_mask(m) for m in melds]
            for m in melds:
                rest &= ~m
            groups += [from_mask(laid), from_mask(rest & ~laid)]
            note = (
                f"deadwood {showdown.knocker_deadwood if knocker else showdown.defender_deadwood}"
            )
            if laid:
                note = f"lays off {len(from_mask(laid))}, " + note
            draw.text((470, y - 28), note, PALE, fonts.small)
        _cards_row(draw, fonts, groups, len(cards), 28, y, 680)
    mid = 240
    if seen.stock:
        _card_back(draw, 170, mid - 4)
        _card_back(draw, 166, mid - 8)
    else:
        _card_slot(draw, 166, mid - 8)
    draw.text((160, mid + CARD_H), f"stock {seen.stock}", WHITE, fonts.body)
    top = seen.upcard
    if top is not None:
        if len(seen.pile) > 1:
            _card_face(draw, fonts, seen.pile[-2], 296, mid - 8)
        _card_face(draw, fonts, top, 310, mid - 4)
    else:
        _card_slot(draw, 310, mid - 4)
    upcard_turn = seen.phase_id in ("upcard_nondealer", "upcard_dealer")
    pile = "upcard" if len(seen.pile) == 1 and upcard_turn else "discard pile"
    draw.text((290, mid + CARD_H), f"{pile} {len(seen.pile)}", WHITE, fonts.body)
    suggestion = state.suggestion
    if three:
        adviser = seen.sitting_out[0]
        colour = GOLD if adviser == to_act else WHITE
        draw.text((450, mid + 4), f"{names[adviser]} - adviser", colour, fonts.body)
        advice = "-" if suggestion is None else A.action_str(suggestion)
        if hide_advice and suggestion is not None:
            advice = "(hidden from the box)"
        draw.text((450, mid + 30), f"suggests: {advice}", PALE, fonts.body)
        if adviser == to_act:
            draw.text((450, mid + 56), "to advise", GOLD, fonts.small)

    # Sidebar: scores and roles, then the last action and the last hand.
    x0 = board_w + 22
    draw.text((x0, 60), f"Scores (to {seen.target})", WHITE, fonts.big)
    for p, name in enumerate(names):
        y = 100 + p * 34
        colour = GOLD if p == to_act else WHITE
        draw.text((x0, y), name, colour, fonts.body)
        draw.text((x0 + 95, y), roles[p], PALE, fonts.body)
        draw.text((x0 + 215, y), f"{seen.scores[p]:>4}", colour, fonts.body)
    y = 110 + len(names) * 34
    if env.last_action is not None:
        who, act = env.last_action
        player = names.index(who)
        # An adviser's action is a suggestion, not a move: say so (it is in this hand's record).
        suggested = (
            bool(rec.actions)
            and rec.actions[-1][0] == player
            and three
            and (roles[player] == "adviser")
        )
        verb = " suggests " if suggested else ": "
        text = f"{who}{verb}{A.action_str(act)}"
        if suggested and hide_advice:
            text = f"{who} advised"
        draw.text((x0, y), "Last action", WHITE, fonts.body)
        draw.text((x0, y + 24), text, GOLD, fonts.body)
    if state.winner is not None:
        draw.text((x0, y + 70), f"{names[state.winner]} wins", GOLD, fonts.big)
        draw.text((x0, y + 100), "the match", GOLD, fonts.big)

    # Footer: the last finished hand in words, wrapped to the picture's width.
    if last_done is not None and last_done.result is not None:
        seat_names = [names[p] for p in last_done.players]
        text = f"Hand {last_done.index + 1}: " + last_done.result.describe(seat_names)
        _wrapped(draw, fonts.small, text.replace("\n", " "), 16, height - 84, width - 32, 4)
    return _to_array(image)


def _last_finished(history: Sequence[Any]) -> Any:
    """The record of the most recent hand with a result, or None."""
    for rec in reversed(history):
        if rec.result is not None:
            return rec
    return None


def _table_state(env: Any) -> TableState:
    """The table in play of ``env`` (an AEC env of this package, reset; or the
    :class:`~gin_env.table_state.TableState` itself)."""
    state = env if isinstance(env, TableState) else getattr(env, "table_state", None)
    if state is None:
        raise RuntimeError("call reset() before rendering the env")
    return state


def _wrapped(
    draw: ImageDraw.ImageDraw, font: Any, text: str, x: int, y: int, width: int, lines: int
) -> None:
    words = text.split()
    row: list[str] = []
    for word in words:
        trial = " ".join(row + [word])
        if row and font.getlength(trial) > width:
            draw.text((x, y), " ".join(row), PALE, font)
            y += 19
            lines -= 1
            if lines == 0:
                return
            row = [word]
        else:
            row.append(word)
    if row:
        draw.text((x, y), " ".join(row), PALE, font)


# -- basic rummy -----------------------------------------------------------------------------
def rummy_table_image(env: Any, show_all: bool = False, view: str = "none") -> np.ndarray:
    """A picture of a basic-rummy table, for ``rummy_v0``'s ``render_mode="rgb_array"``.

    ``env`` is a ``rummy_v0`` env (reset) or its table in play (a
    :class:`~gin_env.table_state.TableState`). Draws every hand (backs unless ``show_all``),
    the melds on the table, the stock, the discard pile, scores and the player to act.
    ``view``: ``"none"``, ``"all"`` or an agent's name, whose hand is then face up.
    Returns an ``(H, W, 3)`` ``uint8`` array.
    """
    require("PIL", needed_for="drawing the table")
    from PIL import Image, ImageDraw  # render extra: pillow

    state = _table_state(env)
    if state.family != "rummy":
        raise ValueError(f"rummy_table_image draws a rummy table, not {state.name}")
    # The table with every hand open: the picture itself decides which it draws face up.
    seen = state.view(None, open_hands=True)
    fonts = _Fonts()
    hands = [from_mask(to_mask(seen.hands[p].cards)) for p in range(seen.num_players)]
    n = len(hands)
    width, height = 1040, 60 + 120 * n + 130
    image = Image.new("RGB", (width, height), FELT)
    draw = ImageDraw.Draw(image)
    names = list(getattr(env, "possible_agents", None) or [f"player_{i}" for i in range(n)])
    if view not in ("none", "all", *names):
        raise ValueError(f"view must be 'none', 'all' or one of {', '.join(names)}; got {view!r}")
    draw.text((24, 14), f"Rummy, {n} players   hand {seen.hand_index + 1}", WHITE, fonts.big)
    over = state.hand_over
    to_act = state.to_act
    for p, cards in enumerate(hands):
        y = 84 + p * 120
        colour = GOLD if p == to_act else WHITE
        dealer = ", dealer" if p == seen.dealer else ""
        label = f"{names[p]}{dealer}   {len(cards)} cards   score {seen.scores[p]}"
        draw.text((24, y - 26), label, colour, fonts.body)
        groups = [cards] if show_all or over or view in ("all", names[p]) else None
        _cards_row(draw, fonts, groups, len(cards), 24, y, 600)
    # The melds on the table (each with its owner) on the right.
    x0 = 660
    draw.text((x0, 54), "Melds on the table", WHITE, fonts.body)
    y = 84
    for owner, meld in seen.melds[:12]:
        draw.text((x0, y + 12), f"p{owner}", PALE, fonts.small)
        for i, c in enumerate(_meld_order(meld)):
            _mini_card(draw, fonts, c, x0 + 30 + i * 30, y)
        y += 46
    by = height - 124
    if seen.stock:
        _card_back(draw, 40, by)
    else:
        _card_slot(draw, 40, by)
    draw.text((30, by + CARD_H + 4), f"stock {seen.stock}", WHITE, fonts.body)
    if seen.pile:
        _card_face(draw, fonts, seen.pile[-1], 160, by)
    else:
        _card_slot(draw, 160, by)
    draw.text((150, by + CARD_H + 4), f"discard pile {len(seen.pile)}", WHITE, fonts.body)
    results = state.rummy_results
    result = results[-1] if results else None
    if over and result is not None:
        text = (
            "no winner (turn limit)"
            if result.winner is None
            else f"{names[result.winner]} goes out" + (" - rummy!" if result.rummy else "")
        )
        draw.text((320, by + 30), text, GOLD, fonts.big)
    elif to_act is not None:
        phase = seen.phase_id
        draw.text((320, by + 30), f"{names[to_act]} to {phase}", GOLD, fonts.body)
    return _to_array(image)


def _meld_order(meld: Sequence[int]) -> list[int]:
    """A table meld's cards in playing order: a run with a high ace (Q-K-A: an ace and a
    king, no two) shows the ace last."""
    cards = sorted(meld)
    ranks = {rank(c) for c in cards}
    if len(ranks) > 1 and {0, 12} <= ranks and 1 not in ranks:
        cards.sort(key=lambda c: 13 if rank(c) == 0 else rank(c))
    return cards


def _mini_card(draw: ImageDraw.ImageDraw, fonts: _Fonts, card: int, x: int, y: int) -> None:
    draw.rounded_rectangle([x, y, x + 34, y + 40], 4, WHITE, (90, 90, 90), 1)
    s = suit(card)
    draw.text((x + 3, y + 1), RANK_TEXT[rank(card)], RED if s in (1, 2) else INK, fonts.small)
    _suit_shape(draw, s, x + 22, y + 27, 14)
