"""The ratings file: how ratings leave and enter a set (CSV or JSONL, chosen by the file's suffix).

    frame_id,rater,rating,seconds,fields,rated_at
    tape_gap-random-s0-000004,ann,accept,7.2,"{""tilted"": false}",2026-11-29T20:01:02Z

Required: `frame_id`, `rater`, `rating` (accept | reject | cant_tell). Optional: `seconds` (time the
rater took), `fields` (the documentation fields the rater filled in, a JSON object; in CSV a JSON
string), `rated_at` (ISO 8601). JSONL rows carry the same keys, `fields` as an object.

Reading validates the whole file before anything uses it, with the checks the rating page's server
applies to an answer (`check_rating`, one function for both): a bad row is an error naming the file,
the line and the problem, and nothing is imported.

Spreadsheets evaluate a CSV cell that starts with = + - @ (or a tab or carriage return) as a
formula, so the CSV export writes such a cell with a leading apostrophe (OWASP's advice), which a
spreadsheet shows as text; a cell that starts with an apostrophe gets one more, so the escape is
reversible. Reading a CSV removes one leading apostrophe from a cell: an exported file imports back
as the same ratings. JSONL is not escaped.
"""
from __future__ import annotations

import csv
import io
import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Iterable, Optional, Sequence, Union

from ..core.errors import RealityBenchError
from ..core.safe_parse import InputError, csv_rows, loads_json, one_line, split_lines
from ..core.safefs import read_path
from .errors import RatingsError

ANSWERS = ("accept", "reject", "cant_tell")
COLUMNS = ("frame_id", "rater", "rating", "seconds", "fields", "rated_at")
MAX_SECONDS = 86400.0
MAX_TEXT = 200  # characters of a string field
MAX_LIST = 100  # items of a list field
MAX_RATED_AT = 40
RATER_RE = re.compile(r"^[^\x00-\x1f\x7f]{1,40}$")
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")  # what a spreadsheet evaluates (OWASP: CSV injection)
ESCAPE = "'"

Keys = Sequence[Sequence[str]]  # a frame's documentation keys: (name, JSON type), as the prompt asks them


@dataclass(frozen=True, slots=True)
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


def check_fields(fields, keys: Keys) -> Optional[dict]:
    """The documentation fields a rater filled in, checked against the frame's keys and their JSON
    types; None for none. The page's answers and imported files both go through here."""
    if fields is None or (isinstance(fields, dict) and not fields):
        return None
    if not isinstance(fields, dict):
        raise RatingsError("fields must be an object")
    types = dict(keys)
    for key, value in fields.items():
        if key not in types:
            raise RatingsError(f"field {key!r} is not asked for this frame")
        kind = types[key]
        ok = {"boolean": isinstance(value, bool),
              "number": isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value),
              "string": isinstance(value, str) and len(value) <= MAX_TEXT,
              "array": isinstance(value, list) and len(value) <= MAX_LIST}.get(kind, False)
        if not ok:
            raise RatingsError(f"field {key!r} must be a {kind}" + (f" (at most {MAX_TEXT} characters)"
                                                                    if kind == "string" else "")
                               + (f" (at most {MAX_LIST} items)" if kind == "array" else ""))
    return fields


def check_rated_at(value) -> Optional[str]:
    """An ISO 8601 date or time (kept as written); None for none."""
    if value is None or value == "":
        return None
    if not isinstance(value, str) or len(value) > MAX_RATED_AT:
        raise RatingsError(f"rated_at {str(value)[:60]!r} must be an ISO 8601 time, e.g. 2026-11-29T20:01:02Z")
    try:
        datetime.fromisoformat(value)
    except ValueError:
        raise RatingsError(f"rated_at {value!r} is not an ISO 8601 time (e.g. 2026-11-29T20:01:02Z)") from None
    return value


def check_rating(frame_id: str, keys: Keys, rater, answer, seconds=None, fields=None, rated_at=None) -> Rating:
    """One answer, checked the same way whether the page sent it or a file holds it."""
    return Rating(frame_id, check_rater(rater), check_answer(answer), check_seconds(seconds),
                  check_fields(fields, keys), check_rated_at(rated_at))


def _parse_row(row, keys_of: Mapping) -> Rating:
    if not isinstance(row, dict):
        raise RatingsError("the row is not an object")
    for key in ("frame_id", "rater", "rating"):
        if not isinstance(row.get(key), str) or not row[key].strip():
            raise RatingsError(f"{key} is missing or empty")
    frame_id = row["frame_id"].strip()
    if frame_id not in keys_of:
        raise RatingsError(f"frame {one_line(frame_id, 120)} is not in the set")
    fields = row.get("fields")
    if isinstance(fields, str):
        if fields.strip() == "":
            fields = None
        else:
            try:
                fields = loads_json(fields)
            except InputError as exc:
                shown, why = repr(one_line(row["fields"], 80)), str(exc)
                raise RatingsError(f"fields {shown} is {why}" if why.startswith("not JSON")
                                   else f"fields {shown} cannot be read: {why}") from None
    if fields is not None and not isinstance(fields, dict):
        raise RatingsError("fields must be a JSON object")
    keys = keys_of[frame_id]
    rating = check_rating(frame_id, keys or (), row["rater"], row["rating"].strip().lower(), row.get("seconds"),
                          None if keys is None else fields, row.get("rated_at"))
    if keys is None:  # the caller knows the frame ids only, not which fields each frame asks for
        rating = replace(rating, fields=fields or None)
    return rating


def _unescape_cell(cell):
    return cell[1:] if isinstance(cell, str) and cell.startswith(ESCAPE) else cell


def _escape_cell(cell: str) -> str:
    return ESCAPE + cell if cell.startswith(FORMULA_START + (ESCAPE,)) else cell


def read_ratings_file(path, frames: Union[Mapping[str, Keys], Iterable[str]]) -> list[Rating]:
    """Every rating in the file, validated like an answer from the page; one rating per rater and frame.

    `frames` maps each of the set's frame ids to its documentation keys, so fields are checked by
    name and type; given only frame ids, the fields are checked to be an object of JSON values."""
    path = Path(path)
    if path.suffix.lower() not in (".jsonl", ".csv"):
        raise RatingsError(f"ratings file {path}: the name must end in .csv or .jsonl")
    try:
        data = read_path(path, "ratings")  # a regular file within the cap: a FIFO or a device is refused
    except FileNotFoundError:
        raise RatingsError(f"ratings file {path} not found") from None
    except OSError as exc:
        raise RatingsError(f"ratings file {path} cannot be read ({exc.strerror or exc})") from None
    except RealityBenchError as exc:
        raise RatingsError(f"ratings file {exc}") from None
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]  # a spreadsheet's byte order mark
    if path.suffix.lower() == ".jsonl":
        rows = []
        lines, last = split_lines(data)  # lines end at b"\n" only (a stray \r hides nothing)
        for n, line in enumerate(lines + ([last] if last.strip() else []), 1):
            if line.strip():
                try:
                    rows.append((n, loads_json(line)))
                except InputError as exc:
                    raise RatingsError(f"ratings file {path}: line {n} is not JSON ({exc})") from None
    else:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise RatingsError(f"ratings file {path} is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset "
                               f"{exc.start})") from None
        try:
            fieldnames, parsed = csv_rows(text)
        except InputError as exc:
            raise RatingsError(f"ratings file {path}: {exc}") from None
        if fieldnames is None or not {"frame_id", "rater", "rating"} <= set(fieldnames):
            raise RatingsError(f"ratings file {path}: needs a header with frame_id,rater,rating")
        rows = [(n, {k: _unescape_cell(v) for k, v in r.items()}) for n, r in parsed]
    keys_of = frames if isinstance(frames, Mapping) else dict.fromkeys(frames)
    out, seen = [], set()
    for n, row in rows:
        try:
            rating = _parse_row(row, keys_of)
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
        writer.writerow([_escape_cell(cell) for cell in (
            r.frame_id, r.rater, r.answer, "" if r.seconds is None else f"{r.seconds:g}",
            "" if r.fields is None else json.dumps(r.fields, ensure_ascii=False, sort_keys=True), r.rated_at or "")])
    return buf.getvalue().encode()
