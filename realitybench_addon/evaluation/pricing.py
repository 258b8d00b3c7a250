"""Dated price files and the cost of a run.

A price file (TOML, or JSON of the same shape) lists list prices per million tokens:

    currency = "USD"
    [[price]]
    model = "gpt-4o"          # the --model string of the run
    provider = "openai"       # optional: only runs of this provider match
    input = 2.50              # per million input tokens
    output = 10.00            # per million output tokens; thinking tokens are billed at this rate
    source = "https://..."    # where the price was read
    date = "2025-01-31"       # when (YYYY-MM-DD)

Cost of a run = sum over every attempt that reported usage of input * input price + output *
output price, with output = the provider's billed output (thinking included, counted once:
providers.Usage). Every attempt: each reply line of replies.jsonl (a request asked again by a rerun
has one line per time) keeps the usage of each of its attempts that reported one (`billing.usage`:
an answer, and a reply whose shape the run could not read). Attempts that timed out or whose
connection dropped after sending may have been billed too, but report nothing: they are counted
(`may_be_billed_unpriced`), never priced by a guess. A run written before `billing` existed is priced
from its answered lines' usage.
"""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from .errors import EvalError
from ..core import safefs
from ..core.errors import RealityBenchError
from ..core.safe_parse import InputError, loads_json, loads_toml, one_line

EXAMPLE = Path(__file__).parent / "prices" / "example.toml"
PER_TOKENS = 1_000_000


@dataclass(frozen=True)
class Price:
    model: str
    input: float  # per million tokens
    output: float
    source: str
    date: str
    provider: Optional[str] = None


@dataclass(frozen=True)
class PriceTable:
    path: str
    currency: str
    prices: tuple[Price, ...]

    def find(self, model: str, provider: Optional[str]) -> Optional[Price]:
        exact = [p for p in self.prices if p.model == model and p.provider == provider]
        loose = [p for p in self.prices if p.model == model and p.provider is None]
        return (exact or loose or [None])[0]


def _fail(path, msg):
    raise EvalError(f"price file {path}: {msg}")


def load_prices(path) -> PriceTable:
    path = Path(path)
    try:  # through the file and input layers: a pipe, a huge file, deep nesting or a long number is refused
        raw = safefs.read_path(path, "preset")
    except FileNotFoundError:
        _fail(path, "not found")
    except (OSError, RealityBenchError) as exc:
        _fail(path, f"cannot be read ({one_line(exc)})")
    try:
        data = loads_json(raw) if path.suffix.lower() == ".json" else loads_toml(raw)
    except InputError as exc:
        _fail(path, f"is not valid {'JSON' if path.suffix.lower() == '.json' else 'TOML'} ({exc})")
    if not isinstance(data, dict):
        _fail(path, "must be a table with `currency` and a list `price`")
    currency = data.get("currency")
    if not isinstance(currency, str) or not currency.strip():
        _fail(path, "needs `currency`, e.g. currency = \"USD\"")
    entries = data.get("price")
    if not isinstance(entries, list) or not entries:
        _fail(path, "needs at least one [[price]] entry")
    prices = []
    for n, e in enumerate(entries, 1):
        where = f"entry {n}" + (f" (model {e.get('model')!r})" if isinstance(e, dict) and e.get("model") else "")
        if not isinstance(e, dict):
            _fail(path, f"{where} is not a table")
        unknown = sorted(set(e) - {"model", "provider", "input", "output", "source", "date", "note"})
        if unknown:
            _fail(path, f"{where}: unknown key(s) {', '.join(unknown)}")
        if not isinstance(e.get("model"), str) or not e["model"]:
            _fail(path, f"{where}: `model` must be a non-empty string")
        for key in ("input", "output"):
            v = e.get(key)
            if not isinstance(v, (int, float)) or isinstance(v, bool) or not v >= 0 or v == float("inf"):
                _fail(path, f"{where}: `{key}` must be a non-negative number (price per million tokens)")
        if not isinstance(e.get("source"), str) or not e["source"].strip():
            _fail(path, f"{where}: `source` must say where the price was read")
        date = e.get("date")
        if isinstance(date, dt.date) and not isinstance(date, dt.datetime):
            date = date.isoformat()
        try:
            date = dt.date.fromisoformat(date).isoformat() if isinstance(date, str) else None
        except ValueError:
            date = None
        if date is None:
            _fail(path, f"{where}: `date` must be the date the price was read, YYYY-MM-DD")
        provider = e.get("provider")
        if provider is not None and not isinstance(provider, str):
            _fail(path, f"{where}: `provider` must be a string")
        prices.append(Price(e["model"], float(e["input"]), float(e["output"]), e["source"].strip(), date, provider))
    return PriceTable(str(path), currency.strip(), tuple(prices))


def _count(value) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def billed_totals(lines: list) -> dict:
    """What every attempt of a run's reply lines cost as far as the provider said, and how many attempts there
    were: requests (lines), attempts, retries (attempts - requests), timeouts, attempts that may have been billed
    without a usage (timed out or dropped after sending), the summed input and output tokens of every attempt that
    reported usage, and the images re-encoded before sending (each request once)."""
    out = {"requests": 0, "attempts": 0, "retries": 0, "timeouts": 0, "may_be_billed_unpriced": 0,
           "attempts_with_usage": 0, "input_tokens": 0, "output_tokens": 0, "images_re_encoded": 0}
    re_encoded = set()
    for line in lines:
        if not isinstance(line, dict) or line.get("request_hash") is None:
            continue
        billing = line.get("billing")
        attempts = line.get("attempts") if isinstance(line.get("attempts"), list) else []
        if isinstance(billing, dict):
            usages = [u for u in billing.get("usage") or [] if isinstance(u, dict)]
            n = _count(billing.get("attempts")) or len(attempts)
            out["timeouts"] += _count(billing.get("timeouts"))
            out["may_be_billed_unpriced"] += _count(billing.get("may_be_billed_unpriced"))
        else:  # written before billing was recorded: the answer's usage
            usages = [line["usage"]] if line.get("status") == "ok" and isinstance(line.get("usage"), dict) else []
            n = len(attempts) or 1
        out["requests"] += 1
        out["attempts"] += n
        for u in usages:
            out["attempts_with_usage"] += 1
            out["input_tokens"] += _count(u.get("input_tokens"))
            out["output_tokens"] += _count(u.get("output_tokens"))
        sent = line.get("image_sent")
        if isinstance(sent, dict) and sent.get("re_encoded"):
            re_encoded.add(line["request_hash"])
    out["retries"] = out["attempts"] - out["requests"]
    out["images_re_encoded"] = len(re_encoded)
    return out


def usage_totals(rows: list[dict], reply_lines: Optional[list] = None) -> dict:
    """Summed normalised usage of a run's score rows (each request once, should two items share one), and mean
    thinking tokens over the requests that report them; with `reply_lines` (replies.jsonl), `billed`: every
    attempt's (billed_totals) of the rows' requests, which the cost is taken from."""
    seen, answered = set(), []
    for r in rows:
        if r.get("usage") and (r.get("request_hash") is None or r["request_hash"] not in seen):
            seen.add(r.get("request_hash"))
            answered.append(r["usage"])
    thinking = [u["thinking_tokens"] for u in answered if u.get("thinking_tokens") is not None]
    asked = {r.get("request_hash") for r in rows}  # the lines of the items scored (gray frames left out: not theirs)
    return {"answered": len(answered),
            "input_tokens": sum(u.get("input_tokens") or 0 for u in answered),
            "output_tokens": sum(u.get("output_tokens") or 0 for u in answered),
            "thinking_tokens": sum(thinking) if thinking else None,
            "thinking_reported_items": len(thinking),
            "mean_thinking_tokens": (sum(thinking) / len(thinking)) if thinking else None,
            "usage_missing_items": sum(1 for u in answered if u.get("input_tokens") is None
                                       or u.get("output_tokens") is None),
            **({"billed": billed_totals([line for line in reply_lines if isinstance(line, dict)
                                         and line.get("request_hash") in asked])}
               if reply_lines is not None else {})}


def item_cost(usage: Optional[dict], price) -> float:
    """One request's cost at `price` (a Price, or its dict from a summary); nothing without usage."""
    if not usage:
        return 0.0
    get = price.get if isinstance(price, dict) else lambda k: getattr(price, k)
    return ((usage.get("input_tokens") or 0) * get("input") + (usage.get("output_tokens") or 0) * get("output")) \
        / PER_TOKENS


def cost(totals: dict, price: Optional[Price]) -> Optional[float]:
    """The cost of a run's usage totals: of every attempt that reported usage where `billed` is there."""
    if price is None:
        return None
    totals = totals.get("billed") or totals
    return (totals["input_tokens"] * price.input + totals["output_tokens"] * price.output) / PER_TOKENS
