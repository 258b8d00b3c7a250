"""How the report writes numbers and tables: Markdown cells, CSV files, intervals, money."""
from __future__ import annotations

import csv
import io
import math
from pathlib import Path


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


def md_table(header: list[str], rows: list[list]) -> str:
    def cell(v):
        return str(v).replace("|", "\\|")
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(cell(v) for v in r) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def write_csv(path: Path, header: list[str], rows: list[list]) -> None:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    for r in rows:
        w.writerow(["" if v is None or (isinstance(v, float) and not math.isfinite(v)) else v for v in r])
    path.write_text(buf.getvalue(), encoding="utf-8")
