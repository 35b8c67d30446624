"""The play loops of ``gin-rummy play`` and ``gin-rummy match``: a table played out in the
terminal, move by move.

The commands (:mod:`gin_cli.main`) read the arguments, build the env, seat the agents and
reset it; the loops here run the reset env to its end through the one rollout loop
(:func:`gin_eval.rollout.play`) and print what happens. They hold the table in play
(``env.table_state``, a :class:`~gin_env.table_state.TableState`), never the engine: every
line a person reads renders a seat's :class:`~gin_env.seat_view.SeatView`
(:mod:`gin_cli.terminal`).

- :func:`play_gin` and :func:`play_rummy`: a person in one seat against agents, the moves
  typed as words (:func:`ask_human`, :func:`read_move`);
- :func:`play_out`: agents play a match, printed hand by hand when asked.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import agents
from gin_cli.terminal import (
    card_markup,
    explain_illegal,
    human_view,
    legal_words,
    move_line,
    render_view,
    rummy_legal_words,
    showdown_lines,
)
from gin_env import actions as A
from gin_env import rummy_actions as R
from gin_env.record import hand_lines, match_outcome
from gin_env.table_state import TableState
from gin_eval.rollout import play as play_rollout

__all__ = ["Ask", "play_gin", "play_rummy", "ask_human", "read_move", "play_out"]


#: How the person's move is read: ``ask(env, seat, console, reader, hint_agent)``, a legal
#: action id or None when the person leaves (:func:`ask_human`).
Ask = Callable[[Any, int, Any, Any, list[Any]], int | None]


class _Person:
    """The person at the table as a policy of the rollout loop: ``ask`` shows the table and
    reads a legal move, or None when the person leaves (which stops the loop)."""

    def __init__(self, ask: Callable[[], int | None]) -> None:
        self.ask = ask

    def act(self, observation: Any, rng: Any = None) -> int | None:
        return self.ask()


# -- a person against agents ----------------------------------------------------------------
def play_gin(
    env: Any,
    seat: int,
    policies: dict[str, Any],
    rng: Any,
    console: Any,
    reader: Any,
    ask: Ask | None = None,
) -> None:
    """A gin match (two-player or three-handed) with the person in ``seat`` and ``policies``
    in the others, ``env`` reset: each move as the person learnt it, each finished hand's
    showdown, and how the match ended (the person left, it was cut short, or who won).
    ``ask`` reads the person's moves (default :func:`ask_human`)."""
    ask = ask_human if ask is None else ask
    state: TableState = env.table_state
    names = env.possible_agents
    me = names[seat]
    roles = state.describe_roles()
    if roles is not None:
        console.print(roles)
    hint_agent: list[Any] = []
    reported = [0]  # finished hands shown so far

    def after(env: Any, agent: str, action: int) -> None:
        # What the person learnt of the move: the last one of his seat's view.
        view = state.view(seat)
        move = view.moves[-1] if view.moves else None
        if move is not None and agent == me:
            if move.action == A.DRAW_STOCK and move.card is not None:
                console.print(f"  you drew {card_markup(move.card)}")
        elif move is not None:
            line = move_line(view, move, names)
            if line:
                console.print("  " + line)
        if len(view.sheet) > reported[0] and view.showdown is not None:
            console.print("\n".join(showdown_lines(view.showdown, names)))
            reported[0] = len(view.sheet)

    person = _Person(lambda: ask(env, seat, console, reader, hint_agent))
    run = play_rollout(env, {**policies, me: person}, rng, after=after)
    if run.stopped:  # quit, or the input ended
        console.print("You left the table. Scores: " + str(list(state.scores)))
    elif state.winner is None:  # cut short by an option (max_hands)
        console.print(f"[bold]{match_outcome(env)}[/]")
    else:
        winner = names[state.winner]
        verdict = "You win" if winner == me else f"{winner} wins"
        console.print(f"[bold green]{verdict} the match[/]: scores {list(state.scores)}")


def ask_human(env: Any, seat: int, console: Any, reader: Any, hint_agent: list[Any]) -> int | None:
    """Show the gin table from ``seat`` and read moves until a legal one comes; None when
    the person quits (or input ends). ``hint_agent`` keeps the heuristic agent that answers
    ``hint``, made on first use."""
    state: TableState = env.table_state
    console.print()
    console.print(human_view(state, seat, env.possible_agents))

    def hint() -> str:
        if not hint_agent:
            hint_agent.append(agents.seat("heuristic", state.table))
        return A.action_str(int(hint_agent[0].act(env.observe(env.agent_selection))))

    return read_move(
        console,
        reader,
        "Your advice" if state.advising else "Your move",
        state.legal_actions(),
        A.parse_action,
        legal_words,
        lambda action: explain_illegal(state, action),
        hint,
    )


def play_rummy(
    env: Any, seat: int, policies: dict[str, Any], rng: Any, console: Any, reader: Any
) -> None:
    """Basic rummy with the person in ``seat``, ``env`` reset: the table from the person's
    seat and the legal moves at each turn, the others' moves, and at the end every hand laid
    open."""
    state: TableState = env.table_state
    names = env.possible_agents
    me = names[seat]
    hint_agent = agents.seat("simple", state.table)

    def ask() -> int | None:
        console.print()
        console.print(human_view(state, seat, names))
        return read_move(
            console,
            reader,
            "Your move",
            state.legal_actions(),
            R.parse_action,
            rummy_legal_words,
            lambda action: explain_illegal(state, action),
            lambda: R.action_str(int(hint_agent.act(env.observe(me)))),
        )

    def after(env: Any, agent: str, action: int) -> None:
        if agent != me:
            console.print(f"  {agent} {R.action_str(action)}")

    run = play_rollout(env, {**policies, me: _Person(ask)}, rng, after=after)
    if run.stopped:
        console.print("You left the table.")
        return
    # The match is over: every hand is laid open.
    view = state.view(seat, open_hands=True)
    if view.showdown is not None:
        console.print("\n".join(showdown_lines(view.showdown, names)))
    console.print(render_view(view, names))


def read_move(
    console: Any,
    reader: Any,
    prompt: str,
    legal: Sequence[int],
    parse: Callable[[str], int],
    legal_words: Callable[[Sequence[int]], str],
    explain: Callable[[int], str],
    hint: Callable[[], str] | None = None,
) -> int | None:
    """Read lines until one is a legal move: ``?`` lists the legal moves, ``hint`` asks for
    a suggestion where there is one, a bad or illegal move says why; None when the person
    quits or the input ends."""
    while True:
        console.print(f"[bold green]{prompt}[/] ([dim]? for the legal moves[/]): ", end="")
        line = reader.readline()
        if not line:
            console.print("\n(input ended)")
            return None
        text = line.strip()
        low = text.lower()
        if not text:
            continue
        if low in ("quit", "exit", "q"):
            return None
        if low in ("?", "help", "legal", "moves"):
            console.print("  legal: " + legal_words(legal))
            continue
        if low == "hint" and hint is not None:
            console.print(f"  hint: {hint()}")
            continue
        try:
            action = parse(text)
        except ValueError as err:
            console.print(f"  [red]{err}[/]")
            continue
        if action not in legal:
            console.print(f"  [red]not legal: {explain(action)}[/]")
            console.print("  legal: " + legal_words(legal))
            continue
        return action


# -- agents only ----------------------------------------------------------------------------
def play_out(
    env: Any, policies: dict[str, Any], rng: Any, show: bool, verbose: bool, console: Any
) -> tuple[list[int], int | None, int]:
    """Play the env's episode (reset) to its end; print hands as they finish when ``show``
    (every action too with ``verbose``). ``(scores, winner, hands finished)``."""
    state: TableState = env.table_state
    if state.family == "rummy":
        return _play_out_rummy(env, state, policies, rng, show, verbose, console)
    reported = 0

    def after(env: Any, agent: str, action: int) -> None:
        nonlocal reported
        history = state.history
        while reported < len(history) and history[reported].result is not None:
            if show:
                for line in hand_lines(
                    history[reported], env.possible_agents, state.role_names, verbose
                ):
                    console.print(line, markup=False)
            reported += 1

    play_rollout(env, policies, rng, after=after)
    return list(state.scores), state.winner, reported


def _play_out_rummy(
    env: Any,
    state: TableState,
    policies: dict[str, Any],
    rng: Any,
    show: bool,
    verbose: bool,
    console: Any,
) -> tuple[list[int], int | None, int]:
    """Basic rummy's :func:`play_out`: the table laid open after each hand when ``show``;
    a single hand's scores are its payments, a match's the match's scores."""
    n_hands = 0

    def after(env: Any, agent: str, action: int) -> None:
        nonlocal n_hands
        if show and verbose:
            console.print(f"    {agent} {R.action_str(action)}", markup=False)
        if env.infos[agent].get("hand_result"):
            finished = len(state.view(None, open_hands=True).sheet)
            if finished > n_hands:
                n_hands = finished
                if show:
                    console.print(env.table_text(show_all=True), markup=False)

    play_rollout(env, policies, rng, after=after)
    sheet = state.view(None, open_hands=True).sheet  # a row per hand: its payments, winner
    scores = list(state.scores) if state.table.target_score else list(sheet[-1].paid)
    return scores, sheet[-1].winner if sheet else None, n_hands
