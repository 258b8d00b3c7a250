"""How the report writes numbers and tables: Markdown cells, CSV files, intervals, money.

Every cell goes through one escaping function per format: `csv_cell` (formula injection: text starting with
= + - @ gets a leading quote) and `md_cell` (line breaks and '|' cannot break the table).
"""
from __future__ import annotations

import csv
import io
import math
import re
from pathlib import Path

from ..setio import atomic_write


def finite(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def fmt(x, digits: int = 3) -> str:
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "n/a"
    return f"{x:.{digits}f}"


def pct(x, digits: int = 0) -> str:
    return "n/a" if not finite(x) else f"{100 * x:.{digits}f}%"


def ci(est: dict, digits: int = 3) -> str:
    if est.get("value") is None:
        return "n/a"
    if est.get("lo") is None:
        return fmt(est["value"], digits)
    return f"{fmt(est['value'], digits)} [{fmt(est['lo'], digits)}, {fmt(est['hi'], digits)}]"


def money(value, currency) -> str:
    if value is None:
        return "n/a"
    return f"{value:,.2f} {currency}" if value >= 10 else f"{value:.4f} {currency}"


# A cell a spreadsheet would run as a formula: '=', '+', '-', '@' first (and tab or CR, which some strip first).
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
PLAIN_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?%?")
LINE_BREAKS = re.compile(r"\r\n|[\n\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029]")


def csv_cell(value):
    """A CSV cell that no spreadsheet runs as a formula: text starting with = + - @ (or tab, CR) is prefixed with
    a quote ('), unless it is a plain number ("-0.25", "+3", "12%"); None and non-finite floats are empty."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return ""
    if isinstance(value, str) and value.startswith(FORMULA_START) and not PLAIN_NUMBER.fullmatch(value):
        return "'" + value
    return value


def md_cell(value) -> str:
    """A Markdown table cell: every line break a space (a newline would end the row), '|' escaped (it would start
    a new cell), a backslash before it kept literal."""
    text = LINE_BREAKS.sub(" ", str(value))
    return text.replace("\\", "\\\\").replace("|", "\\|")


def md_table(header: list[str], rows: list[list]) -> str:
    lines = ["| " + " | ".join(md_cell(h) for h in header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(md_cell(v) for v in r) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def write_csv(path: Path, header: list[str], rows: list[list]) -> None:
    """A CSV file whose every cell went through csv_cell (no formula runs when it is opened in a spreadsheet)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow([csv_cell(h) for h in header])
    for r in rows:
        w.writerow([csv_cell(v) for v in r])
    atomic_write(path, buf.getvalue().encode("utf-8"))  # whole or absent, no link followed
