"""How much one link, one client (address) and the server allow, so that no client can hold
up the others: the figures (:class:`Limits`, every one checked by a test of
``tests/test_web_attacks.py``), token buckets (:class:`Bucket`), the server's fixed caps
(:data:`MAX_TABLES`, the sizes of a message and of a body), and their keeping
(:class:`Caps`): the tables an address may start and hold, the tables of agents playing at
once and the hands each plays, the sockets a link or an address may open, the messages and
hints a socket may send, and when a socket that keeps sending over its rate is closed.

Nothing here sends or plays anything: :class:`Caps` says yes, or why not, and the server
(:mod:`gin_web.server`, :mod:`gin_web.sockets`) does the rest."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from gin_web.tables import LiveTable


class Conn(Protocol):
    """What the limits read and count of an open socket (:class:`gin_web.sockets.Conn`):
    named here, so that the limits need not import the sockets that use them."""

    key: str
    client: str
    refused: int
    messages: Bucket
    hints: Bucket


__all__ = [
    "Limits",
    "Bucket",
    "Caps",
    "MAX_TABLES",
    "MAX_MESSAGE",
    "MAX_PENDING",
    "MAX_BODY",
    "MAX_REPLAY",
]

#: The most tables a server holds at once (finished ones are dropped first).
MAX_TABLES = 2000
#: The largest WebSocket message a client may send (a move is ~50 bytes).
MAX_MESSAGE = 4096
#: Messages other than states waiting for one client, at most.
MAX_PENDING = 64
#: The largest JSON body of a table request, and of a replay file.
MAX_BODY = 16_384
MAX_REPLAY = 1_000_000


@dataclass
class Limits:
    """What one link, one client (address) and the server allow, so that no client can hold
    up the others. Every figure is checked by a test of ``tests/test_web_attacks.py``."""

    link_sockets: int = 8  # open sockets on one link
    client_sockets: int = 512  # open sockets from one address
    client_tables: int = 200  # unfinished tables started from one address
    tables_burst: float = 120.0  # tables one address may start at once ...
    tables_per_second: float = 1.0  # ... and then this many a second
    messages_burst: float = 40.0  # messages one socket may send at once ...
    messages_per_second: float = 20.0  # ... and then this many a second
    hints_burst: float = 5.0
    hints_per_second: float = 1.0
    agent_tables: int = 16  # tables of agents only playing at once
    agent_hands: int = 200  # hands a table of agents plays before it stops
    unopened_expire: float = 600.0  # a table whose people never came, after 10 minutes
    idle_expire: float = 6 * 3600.0  # a table nobody moved at nor watched, after 6 hours
    finished_keep: float = 3600.0  # a finished table nobody watches leaves memory
    sweep_seconds: float = 30.0  # how often tables are checked for expiry
    silent_close: float = 75.0  # a socket that sends nothing this long (the page pings)
    body_seconds: float = 10.0  # to send a request's body
    replay_moves: int = 10_000  # moves of a replay file
    replay_frames_bytes: int = 48_000_000  # the frames of one replay, as JSON
    slice_seconds: float = 0.002  # tables of agents only run ahead of their share this long
    think_workers: int = 2  # worker processes that think for the agents at people's tables
    lane_workers: int = 1  # ... and for the tables of agents only
    lane_nice: int = 10  # how much lower the priority of the latter is (0..19)
    lane_moves: float = 200.0  # moves a second of all tables of agents only, at most
    think_seconds: float = 60.0  # an agent's move or hint thought longer: its worker is killed
    flood_close: int = 200  # a socket refused this many messages for its rate is closed
    watch_seconds: float = 0.5  # watchers of a table at full speed get a state this often


@dataclass
class Bucket:
    """A token bucket: ``burst`` at once, then ``rate`` a second."""

    rate: float
    burst: float
    level: float = -1.0
    at: float = 0.0

    def take(self) -> bool:
        now = time.monotonic()
        if self.level < 0:
            self.level, self.at = self.burst, now
        self.level = min(self.burst, self.level + (now - self.at) * self.rate)
        self.at = now
        if self.level >= 1:
            self.level -= 1
            return True
        return False


class Caps:
    """The server's limits applied: each check returns (or raises) why something is refused,
    in the words the client is told."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.owner: dict[str, str] = {}  # table -> the address that started it
        self._creators: dict[str, Bucket] = {}

    # -- tables -----------------------------------------------------------------------------
    def check_room(
        self,
        client: str,
        agents_only: bool,
        tables: Mapping[str, LiveTable],
        live: Callable[[str], bool],
    ) -> None:
        """May ``client`` start a table now (``tables`` the server's, ``live`` whether one
        still plays)? A ``ValueError`` says why not."""
        lim = self.limits
        bucket = self._creators.get(client)
        if bucket is None:
            if len(self._creators) > 10_000:  # (forget the quiet ones)
                self._creators = {k: b for k, b in self._creators.items() if b.level < b.burst}
            bucket = self._creators[client] = Bucket(lim.tables_per_second, lim.tables_burst)
        mine = sum(1 for t, who in self.owner.items() if who == client and live(t))
        if mine >= lim.client_tables:
            raise ValueError(
                f"this address has {mine} unfinished tables, the most one may have "
                f"({lim.client_tables}); finish some or let them expire"
            )
        if agents_only:
            playing = sum(1 for t in tables.values() if t.agent_only and live(t.id))
            if playing >= lim.agent_tables:
                raise ValueError(
                    f"this server plays at most {lim.agent_tables} tables of agents at once; "
                    "try again when one has ended"
                )
        if not bucket.take():
            raise ValueError(
                f"too many tables started: at most {lim.tables_burst:.0f} at once, then "
                f"{lim.tables_per_second:g} a second"
            )

    def check_held(self, held: int) -> None:
        """A ``ValueError`` when the server holds :data:`MAX_TABLES` tables already."""
        if held >= MAX_TABLES:
            raise ValueError(f"this server holds {MAX_TABLES} tables already; try again later")

    def capped(self, table: LiveTable) -> bool:
        """A table with no person playing (agents, or stand-ins for people who left) stops
        after :attr:`Limits.agent_hands` hands."""
        nobody = all(not s.human or s.stand_in for s in table.seats)
        return nobody and table.hand_index >= self.limits.agent_hands

    def cap_notice(self) -> str:
        """What the people of a table stopped at its cap are told."""
        return (
            f"this table stopped after {self.limits.agent_hands} hands without a person "
            "playing (the cap of such a table)"
        )

    # -- sockets ----------------------------------------------------------------------------
    def socket_refused(self, key: str, client: str, conns: Iterable[Conn]) -> str | None:
        """Why a new socket on the link ``key`` from ``client`` is refused (``conns``: the
        open ones), or None."""
        lim = self.limits
        open_now = list(conns)
        on_link = sum(1 for c in open_now if c.key == key)
        if on_link >= lim.link_sockets:
            return (f"this link has {on_link} sockets open, the most it may have "
                    f"({lim.link_sockets}); close one")  # fmt: skip
        from_client = sum(1 for c in open_now if c.client == client)
        if from_client >= lim.client_sockets:
            return (f"this address has {from_client} sockets open, the most it may have "
                    f"({lim.client_sockets})")  # fmt: skip
        return None

    def message_bucket(self) -> Bucket:
        return Bucket(self.limits.messages_per_second, self.limits.messages_burst)

    def hint_bucket(self) -> Bucket:
        return Bucket(self.limits.hints_per_second, self.limits.hints_burst)

    def message_refused(self, conn: Conn) -> str | None:
        """Why a message of ``conn`` is refused for the socket's rate, or None (taken)."""
        if conn.messages.take():
            return None
        lim = self.limits
        return (f"too many messages: at most {lim.messages_burst:.0f} at once, then "
                f"{lim.messages_per_second:g} a second")  # fmt: skip

    def hint_refused(self, conn: Conn) -> str | None:
        """Why a hint asked by ``conn`` is refused for the socket's rate, or None (taken)."""
        if conn.hints.take():
            return None
        lim = self.limits
        return (f"too many hints: at most {lim.hints_burst:.0f} at once, then "
                f"{lim.hints_per_second:g} a second")  # fmt: skip

    def flood_closes(self, conn: Conn) -> bool:
        """Count a message of ``conn`` refused for its rate; True once it has sent
        :attr:`Limits.flood_close` of them (no person sends that many): it is closed."""
        conn.refused += 1
        return conn.refused >= self.limits.flood_close

    def forget(self, table_id: str) -> None:
        self.owner.pop(table_id, None)
