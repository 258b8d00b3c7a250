"""The ratings database: DIR/ratings.sqlite beside the set it rates.

Every answer is committed on its own (WAL journal, synchronous=FULL), so a closed browser or a
killed server loses nothing, and several raters (threads or processes) can write at once.

    ratings   one row per (frame, rater): the answer, the documentation fields the rater filled in
              (JSON), the seconds spent on the frame over every visit, when, and where it came from
              (the page or an imported file)
    split     frame -> tuning | held_out, made once (split.py)
    freezes   environment -> the preset hash its held-out frames were first reported with
    meta      the schema version, when the database was made, and `token_secret`: a random key made
              once per database, which the rating page's frame tokens are keyed with (server.py)
"""
from __future__ import annotations

import gc
import json
import secrets
import sqlite3
import stat
import threading
import time
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterable, Optional

from ..core.safe_parse import InputError, loads_json, one_line
from .errors import RatingsError
from .files import ANSWERS, Rating
from .split import PARTS, make_split

DB_NAME = "ratings.sqlite"
SCHEMA_VERSION = 1
BUSY_TIMEOUT_S = 30.0

SCHEMA = f"""
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS ratings (
    frame_id TEXT NOT NULL,
    rater TEXT NOT NULL,
    answer TEXT NOT NULL CHECK (answer IN ({", ".join(repr(a) for a in ANSWERS)})),
    fields TEXT,
    seconds REAL,
    rated_at TEXT NOT NULL,
    source TEXT NOT NULL,
    PRIMARY KEY (frame_id, rater)
);
CREATE TABLE IF NOT EXISTS split (
    frame_id TEXT PRIMARY KEY,
    part TEXT NOT NULL CHECK (part IN ({", ".join(repr(p) for p in PARTS)}))
);
CREATE TABLE IF NOT EXISTS freezes (
    environment TEXT PRIMARY KEY,
    preset_hash TEXT NOT NULL,
    frozen_at TEXT NOT NULL
);
"""


def _shown(fields: Optional[dict]) -> str:
    text = "none" if fields is None else json.dumps(fields, sort_keys=True, ensure_ascii=False)
    return text if len(text) <= 120 else text[:117] + "..."


_gc_lock = threading.Lock()
_gc_pauses = 0  # readers in _no_cyclic_gc now (the server reads from many threads)
_gc_resume = False


@contextmanager
def _no_cyclic_gc():
    """Pause the cyclic garbage collector while millions of acyclic objects are made: its passes over
    the growing heap cost a third of reading a million ratings, and find nothing to free."""
    global _gc_pauses, _gc_resume
    with _gc_lock:
        if _gc_pauses == 0:
            _gc_resume = gc.isenabled()
            gc.disable()
        _gc_pauses += 1
    try:
        yield
    finally:
        with _gc_lock:
            _gc_pauses -= 1
            if _gc_pauses == 0 and _gc_resume:
                gc.enable()


def now_iso() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


class RatingStore:
    """The ratings of one set. `frames` maps each of the set's frame ids to its environment."""

    def __init__(self, set_dir, frames: dict[str, str]):
        self.path = Path(set_dir) / DB_NAME
        self.frames = dict(frames)
        self._check_files()
        try:
            self._open_once()
        except sqlite3.DatabaseError as exc:
            raise RatingsError(f"cannot use the ratings database {self.path}: {exc}") from None

    def _check_files(self) -> None:
        """The database and SQLite's side files are plain files of the set, never links: SQLite follows a
        link, and would write through one outside the set (a set is a folder people pass around)."""
        for suffix in ("", "-wal", "-shm", "-journal"):
            path = self.path.with_name(DB_NAME + suffix)
            try:
                mode = path.lstat().st_mode
            except FileNotFoundError:
                continue
            except OSError as exc:
                raise RatingsError(f"cannot use the ratings database {path}: {exc.strerror}") from None
            if not stat.S_ISREG(mode):
                raise RatingsError(f"cannot open {path}: it is a link or not a regular file; a set's ratings "
                                   "database must be a plain file inside the set: remove it and run again")

    def _open_once(self) -> None:
        """Make the file, its tables, its secret and split (all idempotent), retrying while another
        process does the same: SQLite reports a lock during the switch to WAL at once, without
        waiting for it, so processes opening a new database together would otherwise fail."""
        deadline = time.monotonic() + BUSY_TIMEOUT_S
        pause = 0.02
        while True:
            try:
                return self._open()
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() + pause > deadline:
                    raise
            time.sleep(pause)
            pause = min(pause * 2, 0.5)

    def _open(self) -> None:
        with self.connect() as db:
            db.execute("PRAGMA journal_mode=WAL")  # persistent: readers never block the writer
            db.executescript(SCHEMA)
        with self.connect(write=True) as db:
            version = db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
            if version is None:
                db.execute("INSERT OR IGNORE INTO meta VALUES ('schema_version', ?), ('created_at', ?)",
                           (str(SCHEMA_VERSION), now_iso()))
            elif int(version[0]) != SCHEMA_VERSION:
                raise RatingsError(f"{self.path} has ratings schema {version[0]}; this version reads "
                                   f"{SCHEMA_VERSION}")
            db.execute("INSERT OR IGNORE INTO meta VALUES ('token_secret', ?)", (secrets.token_hex(32),))
            self.secret = bytes.fromhex(db.execute("SELECT value FROM meta WHERE key='token_secret'").fetchone()[0])
            self._extend_split(db)

    @contextmanager
    def connect(self, write: bool = False):
        """A connection of its own (one per thread or request), closed when the block ends. With
        write=True the block is one transaction (BEGIN IMMEDIATE ... COMMIT; ROLLBACK on an error)."""
        if not self.path.parent.is_dir():
            raise RatingsError(f"set folder {self.path.parent} does not exist")
        try:
            db = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
            db.execute("PRAGMA synchronous=FULL")
        except sqlite3.OperationalError as exc:
            raise RatingsError(f"cannot open {self.path} for writing ({exc}); is the set folder writable?") from None
        try:
            if write:
                db.execute("BEGIN IMMEDIATE")
            yield db
            if write:
                db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise
        finally:
            db.close()

    def _extend_split(self, db: sqlite3.Connection) -> None:
        """Split the frames that have no part yet (all of them, the first time)."""
        have = {f for (f,) in db.execute("SELECT frame_id FROM split")}
        new = {f: env for f, env in self.frames.items() if f not in have}
        if new:
            db.executemany("INSERT OR IGNORE INTO split VALUES (?, ?)", sorted(make_split(new).items()))

    # ---- answers ---------------------------------------------------------------------------------
    def record(self, rating: Rating, source: str = "page") -> None:
        """Write one answer now; answering a frame again replaces the answer and adds the seconds."""
        if rating.frame_id not in self.frames:
            raise RatingsError(f"frame {rating.frame_id} is not in the set")
        fields = None if rating.fields is None else json.dumps(rating.fields, sort_keys=True)
        with self.connect(write=True) as db:
            db.execute("""INSERT INTO ratings VALUES (?, ?, ?, ?, ?, ?, ?)
                          ON CONFLICT (frame_id, rater) DO UPDATE SET answer=excluded.answer,
                              fields=excluded.fields, rated_at=excluded.rated_at, source=excluded.source,
                              seconds=CASE WHEN ratings.seconds IS NULL AND excluded.seconds IS NULL THEN NULL
                                      ELSE COALESCE(ratings.seconds, 0) + COALESCE(excluded.seconds, 0) END""",
                       (rating.frame_id, rating.rater, rating.answer, fields, rating.seconds,
                        rating.rated_at or now_iso(), source))

    def ratings(self, rater: Optional[str] = None, ordered: bool = True) -> list[Rating]:
        """Every rating (of one rater), by frame and rater; `ordered=False` takes them in the table's
        order, which reads a million ratings in half the time (the index order jumps across the file)."""
        query = "SELECT frame_id, rater, answer, seconds, fields, rated_at FROM ratings"
        args: tuple = ()
        if rater is not None:
            query, args = query + " WHERE rater = ?", (rater,)
        if ordered:
            query += " ORDER BY frame_id, rater"
        with self.connect() as db, _no_cyclic_gc():
            rows = db.execute(query, args).fetchall()
            try:
                loads = json.loads
                return [Rating(f, r, a, s, fields and loads(fields), at) for f, r, a, s, fields, at in rows]
            except (ValueError, RecursionError):  # a database edited by hand: find the row for the message
                for f, r, a, s, fields, at in rows:
                    try:
                        fields and loads_json(fields)
                    except InputError as exc:
                        raise RatingsError(f"{self.path}: the fields of {r!r} for {one_line(f, 120)} {exc}") from None
                raise

    def answers_of(self, rater: str) -> dict[str, Rating]:
        return {r.frame_id: r for r in self.ratings(rater)}

    def import_ratings(self, ratings: Iterable[Rating], source: str) -> dict:
        """Add ratings from a file, all or nothing. A rating the database already holds unchanged is
        skipped; one that differs is an error, and nothing is imported."""
        ratings = list(ratings)
        with self.connect(write=True) as db:
            try:
                existing = {(f, r): (a, None if fl is None else loads_json(fl)) for f, r, a, fl in
                            db.execute("SELECT frame_id, rater, answer, fields FROM ratings")}
            except InputError as exc:
                raise RatingsError(f"{self.path}: a rating's fields {exc}") from None
            added = []
            for r in ratings:
                old = existing.get((r.frame_id, r.rater))
                if old is None:
                    added.append(r)
                elif old[0] != r.answer:
                    raise RatingsError(f"{source}: rater {r.rater!r} rated {r.frame_id} {r.answer!r}, but the "
                                       f"database holds {old[0]!r}; nothing was imported")
                elif old[1] != r.fields:
                    raise RatingsError(f"{source}: rater {r.rater!r} gave {r.frame_id} the fields "
                                       f"{_shown(r.fields)}, but the database holds {_shown(old[1])}; nothing was "
                                       f"imported")
            db.executemany("INSERT INTO ratings VALUES (?, ?, ?, ?, ?, ?, ?)",
                           [(r.frame_id, r.rater, r.answer, None if r.fields is None else json.dumps(r.fields,
                                                                                                    sort_keys=True),
                             r.seconds, r.rated_at or now_iso(), f"import:{source}") for r in added])
        return {"added": len(added), "already_held": len(ratings) - len(added)}

    # ---- the split and the freezes ----------------------------------------------------------------
    def split(self) -> dict[str, str]:
        with self.connect() as db:
            return dict(db.execute("SELECT frame_id, part FROM split"))

    def freezes(self) -> dict[str, dict]:
        with self.connect() as db:
            return {env: {"preset_hash": h, "frozen_at": at}
                    for env, h, at in db.execute("SELECT environment, preset_hash, frozen_at FROM freezes")}

    def freeze(self, environment: str, preset_hash: str) -> None:
        """Record the scorer the held-out frames were first looked at with (the first freeze stays)."""
        with self.connect(write=True) as db:
            db.execute("INSERT OR IGNORE INTO freezes VALUES (?, ?, ?)", (environment, preset_hash, now_iso()))


def load_ratings(path, items) -> list[tuple[str, str, str]]:
    """[(frame_id, rater, 'accept' | 'reject')] from a ratings file or a set folder's ratings database,
    for the frames of `items` (answers.items.Item); "can't tell" answers are left out."""
    from .files import read_ratings_file

    path = Path(path)
    if path.is_dir():
        if not (path / DB_NAME).is_file():
            raise RatingsError(f"{path} holds no {DB_NAME}: rate the set first (`rate {path}`) or give a ratings file")
        frames = {i.frame_id: i.environment for i in items}
        ratings = [r for r in RatingStore(path, frames).ratings() if r.frame_id in frames]
    else:
        ratings = read_ratings_file(path, {i.frame_id: i.keys for i in items})
    return [(r.frame_id, r.rater, r.answer) for r in ratings if r.answer in ("accept", "reject")]
