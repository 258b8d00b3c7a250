"""The ratings file: how ratings leave and enter a set (CSV or JSONL, chosen by the file's suffix).

    frame_id,rater,rating,seconds,fields,rated_at
    tape_gap-random-s0-000004,ann,accept,7.2,"{""tilted"": false}",2026-11-29T20:01:02Z

Required: `frame_id`, `rater`, `rating` (accept | reject | cant_tell). Optional: `seconds` (time the
rater took), `fields` (the documentation fields the rater filled in, a JSON object; in CSV a JSON
string), `rated_at` (ISO 8601). JSONL rows carry the same keys, `fields` as an object.

Reading validates the whole file before anything uses it: a bad row is an error naming the file,
the line and the problem, and nothing is imported.
"""
from __future__ import annotations

import csv
import io
import json
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Optional

from .errors import RatingsError

ANSWERS = ("accept", "reject", "cant_tell")
COLUMNS = ("frame_id", "rater", "rating", "seconds", "fields", "rated_at")
MAX_SECONDS = 86400.0
RATER_RE = re.compile(r"^[^\x00-\x1f\x7f]{1,40}$")


@dataclass(frozen=True)
class Rating:
    frame_id: str
    rater: str
    answer: str  # accept | reject | cant_tell
    seconds: Optional[float] = None
    fields: Optional[dict] = None
    rated_at: Optional[str] = None

    def to_row(self) -> dict:
        return {"frame_id": self.frame_id, "rater": self.rater, "rating": self.answer, "seconds": self.seconds,
                "fields": self.fields, "rated_at": self.rated_at}


def check_rater(name) -> str:
    """The rater's name, stripped; a RatingsError for an empty, over-long or control-character name."""
    if not isinstance(name, str) or not RATER_RE.match(name.strip()):
        raise RatingsError(f"rater name {name!r} must be 1-40 printable characters")
    return name.strip()


def check_answer(answer) -> str:
    if answer not in ANSWERS:
        raise RatingsError(f"rating {answer!r} is not one of {', '.join(ANSWERS)}")
    return answer


def check_seconds(value) -> Optional[float]:
    if value is None or value == "":
        return None
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        raise RatingsError(f"seconds {value!r} is not a number") from None
    if isinstance(value, bool) or not math.isfinite(seconds) or not 0 <= seconds <= MAX_SECONDS:
        raise RatingsError(f"seconds {value!r} must be a number of seconds in [0, {MAX_SECONDS:g}]")
    return seconds


def _parse_row(row, known: set[str]) -> Rating:
    if not isinstance(row, dict):
        raise RatingsError("the row is not an object")
    for key in ("frame_id", "rater", "rating"):
        if not isinstance(row.get(key), str) or not row[key].strip():
            raise RatingsError(f"{key} is missing or empty")
    frame_id = row["frame_id"].strip()
    if frame_id not in known:
        raise RatingsError(f"frame {frame_id} is not in the set")
    fields = row.get("fields")
    if isinstance(fields, str):
        if fields.strip() == "":
            fields = None
        else:
            try:
                fields = json.loads(fields)
            except ValueError:
                raise RatingsError(f"fields {row['fields']!r} is not JSON") from None
    if fields is not None and not isinstance(fields, dict):
        raise RatingsError("fields must be a JSON object")
    rated_at = row.get("rated_at") or None
    if rated_at is not None and not isinstance(rated_at, str):
        raise RatingsError("rated_at must be a string (ISO 8601)")
    return Rating(frame_id, check_rater(row["rater"]), check_answer(row["rating"].strip().lower()),
                  check_seconds(row.get("seconds")), fields, rated_at)


def read_ratings_file(path, known_frame_ids: Iterable[str]) -> list[Rating]:
    """Every rating in the file, validated against the set's frame ids; one rating per rater and frame."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise RatingsError(f"ratings file {path} not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise RatingsError(f"ratings file {path} cannot be read ({exc})") from None
    if path.suffix.lower() == ".jsonl":
        rows = []
        for n, line in enumerate(text.splitlines(), 1):
            if line.strip():
                try:
                    rows.append((n, json.loads(line)))
                except ValueError:
                    raise RatingsError(f"ratings file {path}: line {n} is not JSON") from None
    elif path.suffix.lower() == ".csv":
        reader = csv.DictReader(io.StringIO(text))
        if reader.fieldnames is None or not {"frame_id", "rater", "rating"} <= set(reader.fieldnames):
            raise RatingsError(f"ratings file {path}: needs a header with frame_id,rater,rating")
        rows = [(n, r) for n, r in enumerate(reader, 2)]
    else:
        raise RatingsError(f"ratings file {path}: the name must end in .csv or .jsonl")
    known = set(known_frame_ids)
    out, seen = [], set()
    for n, row in rows:
        try:
            rating = _parse_row(row, known)
        except RatingsError as exc:
            raise RatingsError(f"ratings file {path}: line {n}: {exc}") from None
        if (rating.frame_id, rating.rater) in seen:
            raise RatingsError(f"ratings file {path}: line {n}: rater {rating.rater!r} rated {rating.frame_id} twice")
        seen.add((rating.frame_id, rating.rater))
        out.append(rating)
    if not out:
        raise RatingsError(f"ratings file {path} holds no ratings")
    return out


def ratings_file_bytes(ratings: list[Rating], suffix: str) -> bytes:
    """The file's bytes for `ratings` (CSV or JSONL by suffix); `read_ratings_file` reads them back."""
    if suffix == ".jsonl":
        return "".join(json.dumps(r.to_row(), ensure_ascii=False) + "\n" for r in ratings).encode()
    if suffix != ".csv":
        raise RatingsError(f"a ratings file must end in .csv or .jsonl, not {suffix or 'no suffix'}")
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(COLUMNS)
    for r in ratings:
        writer.writerow([r.frame_id, r.rater, r.answer, "" if r.seconds is None else f"{r.seconds:g}",
                         "" if r.fields is None else json.dumps(r.fields, ensure_ascii=False, sort_keys=True),
                         r.rated_at or ""])
    return buf.getvalue().encode()
