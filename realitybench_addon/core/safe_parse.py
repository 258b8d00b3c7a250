"""The one input layer: JSON lines, JSON documents, TOML and CSV from outside, parsed with limits.

Everything a set, a shard, a preset or a ratings file holds was written by someone else, so a parse
never crashes on it: each function returns the value or raises InputError, whose message is one line
saying why (the caller adds the file and the line). The limits:

- lines split on b"\\n" only (`bytes.splitlines` also splits on \\r, \\x0b, \\x0c, \\x1c-\\x1e and \\x85,
  `str.splitlines` on \\u2028 and \\u2029 too: one stray \\r must not hide the rows after it);
- a line or document at most a given number of bytes (MAX_LINE_BYTES for a JSON line);
- nesting at most MAX_DEPTH arrays/objects (tables) deep: a 100k-deep array is an error, not a
  RecursionError;
- integers at most Python's int-string limit (4300 digits): a longer one is an error, not a ValueError
  from inside json;
- text is UTF-8 (decoded strictly here, never guessed as UTF-16 the way json.loads guesses for bytes),
  and strings hold no lone surrogate (\\ud800 escapes), which could not be written back as UTF-8.

No bpy, no file access: safefs.py reads the bytes, this module judges them.
"""
from __future__ import annotations

import csv
import io
import json
import re
import tomllib

from .errors import RealityBenchError

MAX_DEPTH = 64
MAX_LINE_BYTES = 16 * 1024 * 1024  # one metadata row, ratings line or reply line
MAX_CSV_FIELD = 1024 * 1024  # one CSV cell (csv's own default, 131072, is raised to this and no further)
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


class InputError(RealityBenchError, ValueError):
    """Outside input that cannot be parsed within the limits; the message is one line (the reason)."""


def one_line(text: str, limit: int = 200) -> str:
    """`text` with every line break and control character shown escaped, cut to `limit` characters."""
    text = str(text)
    out = "".join(c if c.isprintable() or c == " " else repr(c)[1:-1] for c in text[: limit + 1])
    return out[:limit] + ("..." if len(out) > limit else "")


def split_lines(data: bytes) -> tuple[list[bytes], bytes]:
    """The whole lines of `data` (each without its b"\\n") and what follows the last b"\\n" (a torn line,
    or b""). Only b"\\n" ends a line."""
    pieces = data.split(b"\n")
    return pieces[:-1], pieces[-1]


def _depth(value) -> int:
    """How deep arrays and objects nest in a parsed value (iterative: never recurses)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        node, level = stack.pop()
        if isinstance(node, dict):
            children = node.values()
        elif isinstance(node, list):
            children = node
        else:
            continue
        deepest = max(deepest, level)
        if deepest > MAX_DEPTH:
            return deepest
        stack.extend((child, level + 1) for child in children)
    return deepest


def nesting_depth(text: str) -> int:
    """How deep [ and { nest in `text`, outside JSON strings, read without parsing (so without recursing):
    a model's reply is judged by it before any JSON decoder, whose recursion a 100k-deep reply would exhaust."""
    deepest = depth = 0
    in_string = escaped = False
    for c in text:
        if in_string:
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
        elif c in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif c in "]}" and depth:
            depth -= 1
    return deepest


def _has_lone_surrogate(value) -> bool:
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            try:
                node.encode("utf-8")
            except UnicodeEncodeError:
                return True
        elif isinstance(node, dict):
            stack.extend(node.keys())
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return False


def _check_shape(raw: bytes, value):
    if raw.count(b"[") + raw.count(b"{") > MAX_DEPTH and _depth(value) > MAX_DEPTH:
        raise InputError(f"nested more than {MAX_DEPTH} arrays or objects deep")
    if _SURROGATE_ESCAPE.search(raw) and _has_lone_surrogate(value):
        raise InputError("holds a lone UTF-16 surrogate (\\ud800-\\udfff), which is not text")
    return value


def _bounded_bytes(raw: bytes | str, max_bytes: int) -> bytes:
    """`raw` as bytes (text encoded as UTF-8), at most `max_bytes` of them; InputError otherwise."""
    if isinstance(raw, str):
        try:
            raw = raw.encode("utf-8")
        except UnicodeEncodeError:
            raise InputError("holds a lone UTF-16 surrogate, which is not text") from None
    if len(raw) > max_bytes:
        raise InputError(f"is {len(raw):,} bytes long; at most {max_bytes:,} are read")
    return raw


def loads_json(raw: bytes | str, *, max_bytes: int = MAX_LINE_BYTES):
    """One JSON value from `raw` (a line or a document), within the limits; InputError otherwise."""
    raw = _bounded_bytes(raw, max_bytes)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset {exc.start})") from None
    if text.startswith("\ufeff"):
        raise InputError("starts with a byte order mark (U+FEFF); write it as plain UTF-8")
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"not JSON ({exc.msg} at column {exc.colno})") from None
    except RecursionError:
        raise InputError(f"nested more than {MAX_DEPTH} arrays or objects deep") from None
    except ValueError as exc:  # Python's int-string limit: a number of more than 4300 digits
        raise InputError(f"holds a number too long to read ({one_line(exc, 80)})") from None
    return _check_shape(raw, value)


def loads_toml(text: bytes | str, *, max_bytes: int = 1024 * 1024) -> dict:
    """A TOML document within the limits (a leading UTF-8 byte order mark is dropped); InputError otherwise."""
    raw = _bounded_bytes(text, max_bytes)
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]  # a BOM some editors write: not part of the TOML
    try:
        decoded = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"is not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset {exc.start}); "
                         "TOML files must be UTF-8") from None
    try:
        value = tomllib.loads(decoded)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"is not valid TOML: {one_line(exc)}") from None
    except RecursionError:
        raise InputError(f"nests more than {MAX_DEPTH} arrays or tables deep") from None
    except ValueError as exc:  # the int-string limit, or a date tomllib cannot represent
        raise InputError(f"holds a value that cannot be read ({one_line(exc, 80)})") from None
    if _depth(value) > MAX_DEPTH:
        raise InputError(f"nests more than {MAX_DEPTH} arrays or tables deep")
    return value


def csv_rows(text: str) -> tuple[list | None, list[tuple[int, dict]]]:
    """The header and the (line number, row) pairs of csv.DictReader over `text`, with a cell limit of
    MAX_CSV_FIELD characters. A cell over the limit, a NUL or any other csv.Error is an InputError naming the line."""
    if csv.field_size_limit() < MAX_CSV_FIELD:  # process-wide, raised once (never lowered)
        csv.field_size_limit(MAX_CSV_FIELD)
    reader = csv.DictReader(io.StringIO(text, newline=""))
    try:
        fieldnames = reader.fieldnames
        rows = [(reader.line_num, row) for row in reader]
    except csv.Error as exc:
        raise InputError(f"line {reader.line_num}: not CSV ({one_line(exc, 120)})") from None
    return fieldnames, rows
