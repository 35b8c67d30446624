"""How much one link, one client (address) and the server allow, so that no client can hold
up the others: the figures (:class:`Limits`, every one checked by a test of
``tests/test_web_attacks.py``), token buckets (:class:`Bucket`), the sizes of a message and
of a body, and their keeping (:class:`Caps`): the tables an address may start and hold, the
tables of agents playing at once and the hands each plays, the tables, sockets and memory
the whole server holds, the sockets a link or an address may open, the messages, moves,
hints and list requests a socket or an address may send, and when a socket that keeps
sending over its rate is closed.

Nothing here sends or plays anything: :class:`Caps` says yes, or why not, and the server
(:mod:`gin_web.server`, :mod:`gin_web.sockets`) does the rest. Every count is kept as
tables and sockets come and go (bookkeeping, never a scan of every table or socket)."""

from __future__ import annotations

import asyncio
import time
from collections import Counter, OrderedDict, deque
from dataclasses import dataclass, fields
from typing import Protocol

__all__ = [
    "Refused",
    "Limits",
    "Bucket",
    "Buckets",
    "FairGate",
    "Caps",
    "MAX_TABLES",
    "MAX_MESSAGE",
    "MAX_PENDING",
    "MAX_BODY",
    "MAX_REPLAY",
]


class Conn(Protocol):
    """What the limits read and count of an open socket (:class:`gin_web.sockets.Conn`):
    named here, so that the limits need not import the sockets that use them."""

    key: str
    client: str
    refused: int
    messages: Bucket
    hints: Bucket


class Refused(ValueError):
    """Something refused for a limit (a rate, a cap, a full server), not for what was asked:
    its answer comes :attr:`Limits.refuse_seconds` late, so that a client that keeps
    asking makes few requests."""


#: The most tables a server holds at once, by default (:attr:`Limits.max_tables`).
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

    # -- connections (the ASGI server's: gin_web.guards.ConnectionGuard) --------------------
    client_connections: int = 64  # open connections (HTTP and WebSocket) from one address
    max_connections: int = 2048  # open connections from everyone (less if files are fewer)
    header_seconds: float = 10.0  # to send a request's headers, from connecting or the last answer
    keep_alive: int = 5  # an idle HTTP connection is closed after this many seconds
    # -- sockets ------------------------------------------------------------------------------
    link_sockets: int = 8  # open sockets on one link
    client_sockets: int = 48  # open sockets from one address
    max_sockets: int = 1536  # open sockets from everyone
    all_sockets_burst: float = 200.0  # sockets all addresses together may open at once ...
    all_sockets_per_second: float = 50.0  # ... and then this many a second (as tables)
    gate_seconds: float = 5.0  # the longest a table or a socket waits its turn
    messages_burst: float = 40.0  # messages one socket may send at once ...
    messages_per_second: float = 20.0  # ... and then this many a second
    hints_burst: float = 5.0
    hints_per_second: float = 1.0
    moves_burst: float = 200.0  # moves one address may make at once, at all its tables ...
    moves_per_second: float = 20.0  # ... and then this many a second
    flood_close: int = 200  # a socket refused this many messages for its rate is closed
    quiet_refusals: float = 10.0  # after a refused socket, an address's next refused ones
    # for this long are refused before the handshake (an HTTP answer with the message)
    silent_close: float = 75.0  # a socket that sends nothing this long (the page pings)
    # -- tables -------------------------------------------------------------------------------
    client_tables: int = 50  # unfinished tables started from one address
    max_tables: int = MAX_TABLES  # tables the server holds (finished ones included)
    memory_mib: float = 1024.0  # what tables and sockets may take, by the estimates below
    table_kib: float = 256.0  # a table's memory, as estimated (measured: under 250 KiB)
    socket_kib: float = 64.0  # a socket's, with what waits to be sent to it
    tables_burst: float = 20.0  # tables one address may start at once ...
    tables_per_second: float = 0.5  # ... and then this many a second
    all_tables_burst: float = 30.0  # tables all addresses together may start at once ...
    all_tables_per_second: float = 10.0  # ... and then this many a second (beyond: each
    # waits its turn, the addresses in turn, at most gate_seconds)
    agent_tables: int = 16  # tables of agents only playing at once
    client_agent_tables: int = 8  # ... of them started from one address (half)
    agent_hands: int = 200  # hands a table with no person playing plays before it stops
    unopened_expire: float = 300.0  # a table whose people never came, after 5 minutes
    idle_expire: float = 6 * 3600.0  # a table nobody moved at nor watched, after 6 hours
    finished_keep: float = 3600.0  # a finished table nobody watches leaves memory
    sweep_seconds: float = 30.0  # how often tables are checked for expiry
    gc_seconds: float = 5.0  # how often what lives on is set aside from Python's collector ...
    gc_full_seconds: float = 600.0  # ... and how often it is all collected once again
    # -- requests -----------------------------------------------------------------------------
    requests_burst: float = 100.0  # requests (pages, API, sockets) one address may make at once ...
    requests_per_second: float = 20.0  # ... and then this many a second
    refuse_seconds: float = 2.0  # a request over a rate or a cap is answered (refused) this late
    body_seconds: float = 10.0  # to send a request's body
    lists_burst: float = 10.0  # list requests (/api/matches, /api/people) at once ...
    lists_per_second: float = 1.0  # ... and then this many a second, per address
    page_size: int = 50  # a list's page, unless asked for another ...
    max_page: int = 200  # ... of at most this many rows
    replay_moves: int = 10_000  # moves of a replay file
    replay_frames_bytes: int = 48_000_000  # the frames of one replay, as JSON
    # -- the agents ---------------------------------------------------------------------------
    slice_seconds: float = 0.002  # tables of agents only run ahead of their share this long
    think_workers: int = 2  # worker processes that think for the agents at people's tables
    lane_workers: int = 1  # ... and for the tables of agents only
    lane_nice: int = 10  # how much lower the priority of the latter is (0..19)
    lane_moves: float = 200.0  # agents' moves a second where nobody plays, all tables together
    free_moves: int = 12  # agents' moves after a person's before his table joins that pace
    think_seconds: float = 60.0  # an agent's move or hint thought longer: its worker is killed
    watch_seconds: float = 0.5  # watchers of a table at full speed get a state this often

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, bool) or not isinstance(value, int | float) or not value >= 0:
                raise ValueError(f"Limits.{f.name} must be a number >= 0, got {value!r}")


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

    def full(self) -> bool:
        """Has it filled up again (nothing taken lately)?"""
        return self.level < 0 or self.level + (time.monotonic() - self.at) * self.rate >= self.burst


class Buckets:
    """A bucket per address (those that have filled up again are forgotten now and then)."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate, self.burst = rate, burst
        self._held: dict[str, Bucket] = {}

    def take(self, client: str) -> bool:
        bucket = self._held.get(client)
        if bucket is None:
            if len(self._held) >= 10_000:  # (forget the quiet ones)
                self._held = {k: b for k, b in self._held.items() if not b.full()}
            bucket = self._held[client] = Bucket(self.rate, self.burst)
        return bucket.take()

    def quiet(self, client: str) -> bool:
        """Has ``client`` taken nothing lately (its bucket full again)?"""
        bucket = self._held.get(client)
        return bucket is None or bucket.full()


class FairGate:
    """What all addresses together may do: ``burst`` at once, then ``rate`` a second. A
    caller over the rate waits for its turn (the addresses waiting take turns, one each, so
    an address with many requests waiting holds up a newcomer by at most one turn each),
    at most ``wait`` seconds and with at most ``queued`` of its own waiting; then it is
    refused (:meth:`enter` returns False). Nothing is thought or sent while it waits."""

    def __init__(self, rate: float, burst: float, wait: float, queued: int = 2) -> None:
        self.bucket = Bucket(rate, burst)
        self.rate, self.wait, self.queued = rate, wait, queued
        self._waiting: OrderedDict[str, deque[asyncio.Future[bool]]] = OrderedDict()
        self._turns: asyncio.Task[None] | None = None

    async def enter(self, client: str) -> bool:
        """Wait for ``client``'s turn; False when refused (its wait or its queue too long)."""
        if not self._waiting and self.bucket.take():
            return True
        mine = self._waiting.get(client)
        if mine is not None and len(mine) >= self.queued:
            return False
        turn: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._waiting.setdefault(client, deque()).append(turn)
        if self._turns is None or self._turns.done():
            self._turns = asyncio.ensure_future(self._give_turns())
        try:
            return await asyncio.wait_for(asyncio.shield(turn), self.wait)
        except TimeoutError:
            turn.cancel()  # (its turn passes to the next)
            return False

    async def _give_turns(self) -> None:
        while self._waiting:
            if not self.bucket.take():
                await asyncio.sleep(1.0 / self.rate if self.rate > 0 else 1.0)
                continue
            while self._waiting:
                client, turns = next(iter(self._waiting.items()))
                turn = turns.popleft()
                if turns:
                    self._waiting.move_to_end(client)  # the next address's turn
                else:
                    del self._waiting[client]
                if not turn.done():
                    turn.set_result(True)
                    break
            else:
                self.bucket.level += 1  # (nobody was still waiting: the token is kept)


class Caps:
    """The server's limits applied: each check returns (or raises) why something is refused,
    in the words the client is told. The server tells it of every table and socket that
    comes and goes (:meth:`opened_table`, :meth:`done`, :meth:`forget`, :meth:`add_socket`,
    :meth:`remove_socket`), so that each check counts without a scan."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        lim = limits
        self.owner: dict[str, str] = {}  # table -> the address that started it
        self._live: dict[str, set[str]] = {}  # address -> its unfinished tables
        self._agents: dict[str, set[str]] = {}  # address -> its tables of agents playing
        self.agent_playing: set[str] = set()  # tables of agents only, playing
        self._creators = Buckets(lim.tables_per_second, lim.tables_burst)
        self._movers = Buckets(lim.moves_per_second, lim.moves_burst)
        self._listers = Buckets(lim.lists_per_second, lim.lists_burst)
        self.all_tables = FairGate(
            lim.all_tables_per_second, lim.all_tables_burst, lim.gate_seconds
        )
        self.all_sockets = FairGate(
            lim.all_sockets_per_second, lim.all_sockets_burst, lim.gate_seconds
        )
        self._refused_at: dict[str, float] = {}  # address -> when a socket was last refused
        self.on_link: Counter[str] = Counter()
        self.from_client: Counter[str] = Counter()
        self.sockets = 0

    # -- tables -----------------------------------------------------------------------------
    def check_room(self, client: str, agents_only: bool) -> None:
        """May ``client`` start a table now (its own share: unfinished tables, tables of
        agents, its rate; the server's whole is :meth:`check_held`)? A :class:`Refused` says
        why not."""
        lim = self.limits
        mine = len(self._live.get(client, ()))
        if mine >= lim.client_tables:
            raise Refused(
                f"this address has {mine} unfinished tables, the most one may have "
                f"({lim.client_tables}); finish some or let them expire"
            )
        if agents_only:
            if len(self.agent_playing) >= lim.agent_tables:
                raise Refused(
                    f"this server plays at most {lim.agent_tables} tables of agents at once; "
                    "try again when one has ended"
                )
            own = len(self._agents.get(client, ()))
            if own >= lim.client_agent_tables:
                raise Refused(
                    f"this address has {own} tables of agents playing, the most one may "
                    f"have ({lim.client_agent_tables}); try again when one has ended"
                )
        if not self._creators.take(client):
            raise Refused(
                f"too many tables started: at most {lim.tables_burst:.0f} at once, then "
                f"{lim.tables_per_second:g} a second"
            )

    async def table_turn(self, client: str) -> None:
        """Wait for ``client``'s turn to start a table among everyone's (at most
        :attr:`Limits.all_tables_per_second`, the addresses in turn); a :class:`Refused`
        when it does not come in :attr:`Limits.gate_seconds`."""
        if not await self.all_tables.enter(client):
            lim = self.limits
            raise Refused(
                "this server is starting many tables now (at most "
                f"{lim.all_tables_per_second:g} a second from everyone); try again in a few "
                "seconds"
            )

    def memory_kib(self, tables: int) -> float:
        """The estimate of what ``tables`` tables and the open sockets take."""
        return tables * self.limits.table_kib + self.sockets * self.limits.socket_kib

    def room_for_table(self, held: int) -> bool:
        """Is there room for one more table beside the ``held`` ones (count and memory)?"""
        lim = self.limits
        return held < lim.max_tables and self.memory_kib(held + 1) <= lim.memory_mib * 1024

    def full_message(self, held: int) -> str:
        """What a client is told when the server is full, after reclaiming what it could."""
        lim = self.limits
        return (
            f"this server is full: it holds {held} tables with people playing or watching "
            f"(at most {lim.max_tables}, and {lim.memory_mib:g} MiB of tables and sockets); "
            "try again in a few minutes"
        )

    def opened_table(self, table_id: str, client: str, agents_only: bool) -> None:
        """A table started by ``client`` is held (unfinished)."""
        self.owner[table_id] = client
        self._live.setdefault(client, set()).add(table_id)
        if agents_only:
            self._agents.setdefault(client, set()).add(table_id)
            self.agent_playing.add(table_id)

    def done(self, table_id: str) -> None:
        """The table finished or stopped: it counts no more as unfinished or playing."""
        client = self.owner.get(table_id)
        if client is not None:
            for held in (self._live, self._agents):
                mine = held.get(client)
                if mine is not None:
                    mine.discard(table_id)
                    if not mine:
                        del held[client]
        self.agent_playing.discard(table_id)

    def forget(self, table_id: str) -> None:
        self.done(table_id)
        self.owner.pop(table_id, None)

    def capped(self, nobody: bool, hand_index: int) -> bool:
        """A table with no person playing (agents, or stand-ins for people who left) stops
        after :attr:`Limits.agent_hands` hands."""
        return nobody and hand_index >= self.limits.agent_hands

    def cap_notice(self) -> str:
        """What the people of a table stopped at its cap are told."""
        return (
            f"this table stopped after {self.limits.agent_hands} hands without a person "
            "playing (the cap of such a table)"
        )

    # -- sockets ----------------------------------------------------------------------------
    def socket_refused(self, key: str, client: str) -> str | None:
        """Why a new socket on the link ``key`` from ``client`` is refused, or None."""
        lim = self.limits
        if self.on_link[key] >= lim.link_sockets:
            return (f"this link has {self.on_link[key]} sockets open, the most it may have "
                    f"({lim.link_sockets}); close one")  # fmt: skip
        if self.from_client[client] >= lim.client_sockets:
            return (f"this address has {self.from_client[client]} sockets open, the most it "
                    f"may have ({lim.client_sockets})")  # fmt: skip
        if self.sockets >= lim.max_sockets:
            return (f"this server has {self.sockets} sockets open, the most it holds "
                    f"({lim.max_sockets}); try again in a few minutes")  # fmt: skip
        return None

    async def socket_turn(self, client: str) -> str | None:
        """Wait for ``client``'s turn to open a socket among everyone's (at most
        :attr:`Limits.all_sockets_per_second`, the addresses in turn); why not when it does
        not come in :attr:`Limits.gate_seconds`, or None."""
        if await self.all_sockets.enter(client):
            return None
        lim = self.limits
        return (f"this server is opening many sockets now (at most "
                f"{lim.all_sockets_per_second:g} a second from everyone); try again in a "
                "few seconds")  # fmt: skip

    def refused_lately(self, client: str) -> bool:
        """Was a socket of ``client`` refused within :attr:`Limits.quiet_refusals` seconds?
        (Counts this refusal, too.) Its next refusals are then made before the handshake,
        which costs the server a tenth as much: the first said in full to a person's page,
        a flood's refused at little cost."""
        now = time.monotonic()
        last = self._refused_at.get(client)
        if len(self._refused_at) >= 10_000:  # (forget the old ones)
            keep = self.limits.quiet_refusals
            self._refused_at = {k: t for k, t in self._refused_at.items() if now - t < keep}
        self._refused_at[client] = now
        return last is not None and now - last < self.limits.quiet_refusals

    def add_socket(self, key: str, client: str) -> None:
        self.on_link[key] += 1
        self.from_client[client] += 1
        self.sockets += 1

    def remove_socket(self, key: str, client: str) -> None:
        for counter, name in ((self.on_link, key), (self.from_client, client)):
            counter[name] -= 1
            if counter[name] <= 0:
                del counter[name]
        self.sockets -= 1

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

    def move_refused(self, client: str) -> str | None:
        """Why a move from ``client`` is refused for the address's rate (all its tables
        together), or None (taken)."""
        if self._movers.take(client):
            return None
        lim = self.limits
        return (f"too many moves from this address: at most {lim.moves_burst:.0f} at once, "
                f"then {lim.moves_per_second:g} a second at all its tables; wait a moment "
                "and move again")  # fmt: skip

    def list_refused(self, client: str) -> str | None:
        """Why a list request from ``client`` is refused for its rate, or None (taken)."""
        if self._listers.take(client):
            return None
        lim = self.limits
        return (f"too many list requests: at most {lim.lists_burst:.0f} at once, then "
                f"{lim.lists_per_second:g} a second; try again in a moment")  # fmt: skip

    def flood_closes(self, conn: Conn) -> bool:
        """Count a message of ``conn`` refused for its rate; True once it has sent
        :attr:`Limits.flood_close` of them (no person sends that many): it is closed."""
        conn.refused += 1
        return conn.refused >= self.limits.flood_close
