"""What the web app keeps: every finished match and every decision a person made, in one
SQLite file (``<data dir>/gin_web.sqlite3``, the standard library's ``sqlite3``), and the
tables still at play (their rules, seats, the keys of their links, every move).

Each row is committed when it is written (WAL journal), so a server that stops, even
killed, loses no finished match and no recorded decision, and a restarted server deals
every unfinished table again from its seed and replays its moves: the same links open
the same seats. :func:`export` writes them out
as the project's files: each gin match as a replay (``gin_env.record``'s match format,
which ``gin-rummy replay`` reads and checks), basic rummy matches as their move lists, and
the decisions as ``decisions_<game>.npz`` (basic rummy: ``decisions_rummy_v0_<n>p.npz``,
one per number of players) with the arrays the behaviour-cloning trainer
reads (``obs``, ``mask``, ``action``, ``return``: the same keys, dtypes and meaning as
:func:`training.behaviour_cloning.collect_teacher_data` with ``inputs="obs"``) plus what a
study of people needs (``suggestion``: the adviser's suggestion shown, -1 when none;
``seconds``: time taken; ``role``; ``hand``; ``match``).
"""

from __future__ import annotations

import contextlib
import json
import re
import sqlite3
import threading
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from gin_env import games
from gin_env import record as replay_files
from gin_env.match import side_points
from gin_web.tables import Decision

__all__ = ["Store", "StoreError", "export", "hand_returns", "BC_KEYS", "bc_arrays", "safe_match_id"]

#: The arrays :func:`training.behaviour_cloning.behaviour_cloning` fits.
BC_KEYS = ("obs", "mask", "action", "return")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS matches (
    id TEXT PRIMARY KEY,
    game TEXT NOT NULL,
    finished REAL NOT NULL,
    record TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS tables (
    id TEXT PRIMARY KEY,
    created REAL NOT NULL,
    config TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS moves (
    tbl TEXT NOT NULL,
    n INTEGER NOT NULL,
    player INTEGER NOT NULL,
    action INTEGER NOT NULL,
    PRIMARY KEY (tbl, n)
);
CREATE TABLE IF NOT EXISTS expired (
    id TEXT PRIMARY KEY,
    at REAL NOT NULL,
    why TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS links (
    key TEXT PRIMARY KEY,
    tbl TEXT NOT NULL,
    player INTEGER
);
CREATE TABLE IF NOT EXISTS visits (
    who TEXT NOT NULL,
    tbl TEXT NOT NULL,
    PRIMARY KEY (who, tbl)
);
CREATE TABLE IF NOT EXISTS rematches (
    old TEXT PRIMARY KEY,
    new TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS matches_finished ON matches (finished);
CREATE TABLE IF NOT EXISTS decisions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    match TEXT NOT NULL,
    game TEXT NOT NULL,
    player INTEGER NOT NULL,
    role TEXT NOT NULL,
    hand INTEGER NOT NULL,
    step INTEGER NOT NULL,
    observation BLOB NOT NULL,
    mask BLOB NOT NULL,
    action INTEGER NOT NULL,
    suggestion INTEGER,
    seconds REAL NOT NULL,
    created REAL NOT NULL
);
"""


class StoreError(RuntimeError):
    """The data directory cannot hold the app's SQLite file (missing rights, not a
    directory, not a database): the message names the path and what to do."""


#: Seconds between tries of a write that failed (a locked or full database), growing to the
#: last; the writer keeps trying until it succeeds or the store is closed.
RETRY_SECONDS = (0.05, 0.2, 0.5, 1.0, 2.0)
_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


class Store:
    """The SQLite file of one data directory (created when missing).

    Writes never wait on the database: they go in order into a queue that one writer
    thread commits, each in its own transaction. A write that fails (another process
    holds a lock, the disk is full) is tried again, in order, until it succeeds: the moves
    of a table are never written out of order or with a gap, so every table the file holds
    can be restored. ``on_trouble(table_id, message)`` is called (from the writer thread)
    when a write of that table fails (``table_id`` None: no table's) and with message ""
    when the writes go through again. Reads wait for the queued writes first
    (:meth:`flush`)."""

    def __init__(
        self,
        data_dir: str | Path,
        on_trouble: Callable[[str | None, str], None] | None = None,
    ) -> None:
        self.dir = Path(data_dir)
        self.path = self.dir / "gin_web.sqlite3"
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(
                self.path, check_same_thread=False, isolation_level=None, timeout=2.0
            )
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(_SCHEMA)
            self._writer_db = sqlite3.connect(
                self.path, check_same_thread=False, isolation_level=None, timeout=0.5
            )
            self._writer_db.execute("PRAGMA synchronous=NORMAL")
        except (OSError, sqlite3.Error) as err:
            raise StoreError(
                f"cannot keep the app's data in {str(self.dir)!r} ({err}); choose a "
                "directory this user may write with --data-dir"
            ) from None
        self._lock = threading.Lock()  # the reading connection
        #: Rows left out when the tables were read (:meth:`open_tables`): ``(id, why)``.
        self.skipped: list[tuple[str, str]] = []
        self._link_old_tables()
        self.on_trouble = on_trouble
        self.trouble: str = ""  # the last write's failure, "" while writes go through
        self.failures = 0  # writes that failed at least once (each is tried again)
        # Writes waiting, in order; the writer takes them in batches, one transaction each.
        self._pending: deque[tuple[str, tuple[Any, ...], str | None]] = deque()
        self._wake = threading.Event()
        self._busy = 0  # writes taken by the writer and not yet committed
        self._closed = False
        self._stop = False
        self._writer = threading.Thread(target=self._write_loop, name="gin_web-store",
                                        daemon=True)  # fmt: skip
        self._writer.start()

    def _link_old_tables(self) -> None:
        """A file written before the links were kept apart: each table's link keys listed
        once, from its config (a row that is not a config is passed over here, and named
        by :meth:`open_tables`)."""
        if self._db.execute("SELECT 1 FROM links LIMIT 1").fetchone() is not None:
            return
        rows = self._db.execute("SELECT id, config FROM tables").fetchall()
        made: list[tuple[str, str, int | None]] = []
        for tid, text in rows:
            try:
                config = json.loads(text)
                made.extend((key, tid, p) for p, key in enumerate(config["keys"]) if key)
                made.append((config["spectator_key"], tid, None))
            except (ValueError, TypeError, KeyError):
                continue
        if made:
            with contextlib.suppress(sqlite3.Error):  # (a locked file: tried at next start)
                self._db.executemany(
                    "INSERT OR IGNORE INTO links (key, tbl, player) VALUES (?,?,?)", made
                )

    # -- writing -----------------------------------------------------------------------------
    def _put(self, sql: str, params: tuple[Any, ...], table_id: str | None) -> None:
        if self._closed:
            raise StoreError("the store is closed")
        self._pending.append((sql, params, table_id))  # (deque.append: thread-safe)
        if not self._wake.is_set():
            self._wake.set()

    def _write_loop(self) -> None:
        while not self._stop or self._pending:
            self._wake.wait(0.5)
            self._wake.clear()
            time.sleep(0.005)  # gather a batch: one transaction for the writes of 5 ms
            batch: list[tuple[str, tuple[Any, ...], str | None]] = []
            while self._pending and len(batch) < 2000:
                batch.append(self._pending.popleft())
            if batch:
                self._busy = len(batch)
                try:
                    self._write(batch)
                finally:
                    self._busy = 0

    def _write(self, batch: list[tuple[str, tuple[Any, ...], str | None]]) -> None:
        """Commit ``batch`` in one transaction, trying again (the whole batch, in order)
        until it goes through: nothing is written out of order or with a gap."""
        tries = 0
        tables: list[str | None] = [*sorted({t for _, _, t in batch if t is not None})]
        while True:
            try:
                db = self._writer_db
                db.execute("BEGIN IMMEDIATE")
                try:
                    for sql, params, _ in batch:
                        db.execute(sql, params)
                    db.execute("COMMIT")
                except BaseException:
                    with contextlib.suppress(sqlite3.Error):
                        db.execute("ROLLBACK")
                    raise
                break
            except sqlite3.Error as err:
                if tries == 0:
                    self.failures += 1
                message = f"the server cannot save right now ({err}); it keeps trying"
                if message != self.trouble or tries == 0:
                    self.trouble = message
                    for table_id in tables or [None]:
                        self._tell(table_id, message)
                if self._stop and tries >= len(RETRY_SECONDS):
                    print(f"gin_web: {len(batch)} writes were not saved ({err})", flush=True)
                    return
                time.sleep(RETRY_SECONDS[min(tries, len(RETRY_SECONDS) - 1)])
                tries += 1
        if self.trouble:
            self.trouble = ""
            for table_id in tables or [None]:
                self._tell(table_id, "")

    def _tell(self, table_id: str | None, message: str) -> None:
        if self.on_trouble is not None:
            try:
                self.on_trouble(table_id, message)
            except Exception as err:  # a report must never stop the writer
                print(f"gin_web: could not report a store problem: {err}", flush=True)

    def flush(self, timeout: float = 30.0) -> bool:
        """Wait (at most ``timeout`` seconds) until every queued write is committed; False
        when some still wait (the database is still locked or full)."""
        deadline = time.monotonic() + timeout
        while self.pending:
            if time.monotonic() > deadline:
                return False
            self._wake.set()
            time.sleep(0.005)
        return True

    @property
    def pending(self) -> int:
        """Writes queued and not yet committed."""
        return len(self._pending) + self._busy

    def close(self, timeout: float = 10.0) -> None:
        """Commit what is queued (trying for at most about ``timeout`` seconds), then close."""
        if self._closed:
            return
        if not self.flush(timeout):
            print(f"gin_web: {self.pending} writes not saved at close ({self.trouble})",
                  flush=True)  # fmt: skip
        self._closed = True
        self._stop = True
        self._wake.set()
        self._writer.join(timeout=5)
        self._db.close()
        with contextlib.suppress(sqlite3.Error):
            self._writer_db.close()

    def add_decision(self, game: str, d: Decision) -> None:
        self._put(
            "INSERT INTO decisions (match, game, player, role, hand, step, observation, "
            "mask, action, suggestion, seconds, created) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                d.table,
                game,
                d.player,
                d.role,
                d.hand,
                d.step,
                np.asarray(d.observation, np.float32).tobytes(),
                np.asarray(d.mask, np.int8).tobytes(),
                d.action,
                d.suggestion,
                d.seconds,
                time.time(),
            ),
            d.table,
        )

    def add_table(self, table_id: str, config: dict[str, Any]) -> None:
        self._put(
            "INSERT OR REPLACE INTO tables (id, created, config) VALUES (?,?,?)",
            (table_id, time.time(), json.dumps(config)),
            table_id,
        )

    def add_move(self, table_id: str, n: int, player: int, action: int) -> None:
        self._put(
            "INSERT OR REPLACE INTO moves (tbl, n, player, action) VALUES (?,?,?,?)",
            (table_id, n, player, action),
            table_id,
        )

    def add_links(self, table_id: str, links: list[tuple[str, int | None]]) -> None:
        """The keys of a table's links (``player`` None: the spectators'), so that a link
        finds its table once the table has left memory (a finished match, after a
        restart)."""
        for key, player in links:
            self._put(
                "INSERT OR REPLACE INTO links (key, tbl, player) VALUES (?,?,?)",
                (key, table_id, player),
                table_id,
            )

    def add_visit(self, table_id: str, who: str) -> None:
        """``who`` (an address's SHA-256) started, sat at or watched the table: its match is
        listed to that address (:meth:`match_page`)."""
        self._put("INSERT OR IGNORE INTO visits (who, tbl) VALUES (?,?)", (who, table_id), None)

    def add_rematch(self, old: str, new: str) -> None:
        """The table ``new`` is the rematch of ``old`` (there is one at most)."""
        self._put("INSERT OR IGNORE INTO rematches (old, new) VALUES (?,?)", (old, new), new)

    def expire(self, table_id: str, why: str) -> None:
        """The table is no longer played (it expired or reached its cap): it is not
        restored again; its moves stay in the file."""
        self._put(
            "INSERT OR REPLACE INTO expired (id, at, why) VALUES (?,?,?)",
            (table_id, time.time(), why),
            table_id,
        )

    def add_match(self, match_id: str, game: str, record: dict[str, Any]) -> None:
        self._put(
            "INSERT OR REPLACE INTO matches (id, game, finished, record) VALUES (?,?,?,?)",
            (match_id, game, time.time(), json.dumps(record)),
            match_id,
        )

    # -- reading -----------------------------------------------------------------------------
    def _read(self, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
        self.flush()
        with self._lock:
            return self._db.execute(sql, params).fetchall()

    def open_tables(self, limit: int) -> list[tuple[str, dict[str, Any], list[tuple[int, int]]]]:
        """The tables whose match is not finished (nor expired), newest first (at most
        ``limit``), each with its config and its moves in order. A row that is not a
        table (a config that is not a JSON object, a move that is not two integers, moves
        with a gap) is left out, with its reason, in :attr:`skipped`."""
        rows = self._read(
            "SELECT id, config FROM tables WHERE id NOT IN (SELECT id FROM matches) "
            "AND id NOT IN (SELECT id FROM expired) ORDER BY created DESC LIMIT ?",
            (limit,),
        )
        out = []
        for tid, text in rows:
            found = self._table(tid, text)
            if isinstance(found, str):
                self.skipped.append((tid, found))
            else:
                out.append((tid, *found))
        return out

    def _table(self, tid: str, text: Any) -> tuple[dict[str, Any], list[tuple[int, int]]] | str:
        """A table's config and moves, or why its rows are not a table."""
        try:
            config = json.loads(text)
        except (ValueError, TypeError) as err:
            return f"its config is not JSON ({err})"
        if not isinstance(config, dict):
            return f"its config is not a JSON object ({type(config).__name__})"
        rows = self._read("SELECT n, player, action FROM moves WHERE tbl = ? ORDER BY n", (tid,))
        moves = []
        for i, (n, player, action) in enumerate(rows):
            if n != i:
                return f"its moves have a gap: move {i} is missing"
            if not all(isinstance(x, int) and not isinstance(x, bool) for x in (player, action)):
                return f"its move {i} is not two integers: {player!r}, {action!r}"
            moves.append((player, action))
        return config, moves

    def find_link(self, key: str) -> tuple[str, int | None] | None:
        """The table and seat (None: the spectators') of a link's key, or None."""
        rows = self._read("SELECT tbl, player FROM links WHERE key = ?", (key,))
        return None if not rows else (str(rows[0][0]), rows[0][1])

    def table(
        self, tid: str
    ) -> tuple[dict[str, Any], list[tuple[int, int]], str | None] | str | None:
        """A table kept in the file: its config, its moves and why it ended without a
        match (None: it was finished or still plays); why its rows are not a table
        (text); or None when the file has no such table."""
        rows = self._read("SELECT config FROM tables WHERE id = ?", (tid,))
        if not rows:
            return None
        found = self._table(tid, rows[0][0])
        if isinstance(found, str):
            return found
        why = self._read("SELECT why FROM expired WHERE id = ?", (tid,))
        return (*found, None if not why else str(why[0][0]))

    def rematch_of(self, old: str) -> str | None:
        """The table that is the rematch of ``old``, or None."""
        rows = self._read("SELECT new FROM rematches WHERE old = ?", (old,))
        return None if not rows else str(rows[0][0])

    def match_page(
        self,
        limit: int,
        offset: int = 0,
        who: str | None = None,
        keys: list[str] | None = None,
        everyone: bool = False,
    ) -> tuple[list[dict[str, Any]], bool]:
        """A page of the finished matches, newest first (each as :meth:`matches` gives it;
        only the page's records are read), and whether more follow. ``everyone``: every
        match; else those of the tables ``who`` (an address's SHA-256) started, sat at or
        watched, and those of the link ``keys`` given."""
        sql = (
            "SELECT id, game, finished, json_extract(record, '$.scores'), "
            "json_extract(record, '$.agents') FROM matches"
        )
        params: list[Any] = []
        if not everyone:
            keys = list(keys or [])
            marks = ",".join("?" * len(keys))
            sql += (
                " WHERE id IN (SELECT tbl FROM visits WHERE who = ?) "
                f"OR id IN (SELECT tbl FROM links WHERE key IN ({marks}))"
            )
            params += [who or "", *keys]
        sql += " ORDER BY finished DESC LIMIT ? OFFSET ?"
        rows = self._read(sql, (*params, limit + 1, offset))
        out = [
            {
                "id": mid,
                "game": game,
                "finished": finished,
                "scores": None if scores is None else json.loads(scores),
                "agents": {} if names is None else json.loads(names),
            }
            for mid, game, finished, scores, names in rows[:limit]
        ]
        return out, len(rows) > limit

    def matches(self) -> list[dict[str, Any]]:
        """The finished matches, newest first: id, game, time, scores, agents."""
        rows = self._read("SELECT id, game, finished, record FROM matches ORDER BY finished DESC")
        out = []
        for mid, game, finished, record in rows:
            data = json.loads(record)
            out.append(
                {
                    "id": mid,
                    "game": game,
                    "finished": finished,
                    "scores": data.get("scores"),
                    "agents": data.get("agents", {}),
                }
            )
        return out

    def match(self, match_id: str) -> dict[str, Any] | None:
        rows = self._read("SELECT record FROM matches WHERE id = ?", (match_id,))
        return None if not rows else json.loads(rows[0][0])  # type: ignore[no-any-return]

    def records(self) -> list[tuple[str, str, dict[str, Any]]]:
        """Every finished match: ``(id, game, record)``, oldest first."""
        rows = self._read("SELECT id, game, record FROM matches ORDER BY finished")
        return [(mid, game, json.loads(record)) for mid, game, record in rows]

    def decisions(self) -> list[dict[str, Any]]:
        rows = self._read(
            "SELECT match, game, player, role, hand, step, observation, mask, action, "
            "suggestion, seconds FROM decisions ORDER BY id"
        )
        keys = (
            "match",
            "game",
            "player",
            "role",
            "hand",
            "step",
            "observation",
            "mask",
            "action",
            "suggestion",
            "seconds",
        )
        return [dict(zip(keys, row, strict=True)) for row in rows]


def safe_match_id(match_id: str) -> bool:
    """Is ``match_id`` a name that stays in its folder (letters, digits, ``_``, ``-``)?"""
    return _ID.fullmatch(match_id) is not None


def bc_arrays(path: str | Path) -> dict[str, np.ndarray]:
    """The behaviour-cloning arrays of an exported ``decisions_<game>.npz`` (the trainer's
    four; the others describe the people's decisions)."""
    with np.load(path, allow_pickle=False) as data:
        return {k: np.asarray(data[k]) for k in BC_KEYS}


def hand_returns(record: dict[str, Any]) -> dict[tuple[int, int], float]:
    """``(hand, player) -> points`` of a finished gin match record, as the env's default
    ``reward="team"`` gives them: the scorer's side ``+points``, the other ``-points`` (the
    adviser with his captain); a draw 0. Basic rummy: each player's payment."""
    out: dict[tuple[int, int], float] = {}
    if "hands" not in record:  # basic rummy keeps no per-hand record here
        return out
    for h, hand in enumerate(record["hands"]):
        result = hand["result"]
        scorer = None if result is None else result["winner"]
        points = 0 if result is None else result["points"]
        for p, side in enumerate(side_points(hand["roles"], scorer, points)):
            out[(h, p)] = float(side)
    return out


def _dataset_name(d: dict[str, Any]) -> str:
    """A data set per game, and for basic rummy per number of players (its observation's
    size depends on it): ``three_handed_gin_v0``, ``rummy_v0_3p``."""
    spec = games.get(d["game"])
    if spec.players is not None:
        return spec.name
    size = len(d["observation"]) // 4  # float32
    n = next(n for n in range(2, 7) if spec.observation_size(num_players=n) == size)
    return f"{spec.name}_{n}p"


def export(store: Store, out_dir: str | Path) -> dict[str, Any]:
    """Write every finished match and the decisions under ``out_dir``: ``matches/<id>.json``
    (replay files; gin matches are checked by ``gin_env.record.check`` first) and
    ``decisions_<game>.npz``. Return what was written."""
    out = Path(out_dir)
    (out / "matches").mkdir(parents=True, exist_ok=True)
    returns: dict[str, dict[tuple[int, int], float]] = {}
    written = []
    refused = []
    for info in store.matches():
        if not safe_match_id(info["id"]):  # a hand-edited id would name a path elsewhere
            refused.append(info["id"])
            continue
        record = store.match(info["id"])
        assert record is not None
        if record.get("format") == replay_files.FORMAT:
            replay_files.check(record, f"match {info['id']}")
        path = out / "matches" / f"{info['id']}.json"
        path.write_text(json.dumps(record, indent=1) + "\n")
        written.append(str(path))
        returns[info["id"]] = hand_returns(record)
    by_game: dict[str, list[dict[str, Any]]] = {}
    for d in store.decisions():
        by_game.setdefault(_dataset_name(d), []).append(d)
    datasets = {}
    for name, rows in by_game.items():
        game = rows[0]["game"]
        size = games.get(game).num_actions
        obs = np.stack([np.frombuffer(r["observation"], np.float32) for r in rows])
        mask = np.stack([np.frombuffer(r["mask"], np.int8) for r in rows]).astype(bool)
        if mask.shape[1] != size:
            raise ValueError(f"decisions of {game}: masks of {mask.shape[1]}, expected {size}")
        path = out / f"decisions_{name}.npz"
        # The hand's points to the decider's side (0 for an unfinished match's hands).
        points = [returns.get(r["match"], {}).get((r["hand"], r["player"]), 0.0) for r in rows]
        arrays: dict[str, np.ndarray] = {
            "obs": obs,
            "mask": mask,
            "action": np.asarray([r["action"] for r in rows], np.int64),
            "return": np.asarray(points, np.float32),
            "suggestion": np.asarray(
                [-1 if r["suggestion"] is None else r["suggestion"] for r in rows], np.int64
            ),
            "seconds": np.asarray([r["seconds"] for r in rows], np.float32),
            "role": np.asarray([r["role"] for r in rows]),
            "hand": np.asarray([r["hand"] for r in rows], np.int64),
            "match": np.asarray([r["match"] for r in rows]),
        }
        np.savez(path, **arrays)  # type: ignore[arg-type]  # (numpy stubs: allow_pickle)
        datasets[name] = {"path": str(path), "decisions": len(rows)}
    return {"matches": written, "decisions": datasets, "refused": refused}
