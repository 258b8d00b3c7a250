"""How long a model takes per item (`elapsed_s`, recorded on every reply line, reported here).

Per model run, over the items it answered (the reply each scored row reads: replies.jsonl's first `ok`
line of the item's request): the median, the 90th percentile (numpy's default linear interpolation
between order statistics), the mean and the largest `elapsed_s`, in seconds. `elapsed_s` is the wall
time from the first send of the request to its final reply, retries and the waits between them
included (transport.py), so a rate-limited run is slower here than its model. Failed items are
counted apart (a timeout says little about the model's speed), and so are answered items whose reply
line records no `elapsed_s` (a run written by hand, or before it was recorded). Baselines ask nothing
and have no row.
"""
from __future__ import annotations

import math
from typing import Optional

import numpy as np

from .runs import RunStore

P90 = 90


def _seconds(value) -> Optional[float]:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value >= 0
    return float(value) if ok else None


def run_latency(run) -> dict:
    """One model run's latency row (see the module docstring)."""
    replies = RunStore(run.path).read_replies()
    answered, failed, unrecorded = [], 0, 0
    for row in run.rows:
        if row["status"] == "failed":
            failed += 1
        if row["status"] != "ok":
            continue
        s = _seconds((replies.get(row.get("request_hash")) or {}).get("elapsed_s"))
        if s is None:
            unrecorded += 1
        else:
            answered.append(s)
    x = np.asarray(answered, dtype=float)
    have = x.size > 0
    return {"answered_timed": int(x.size), "answered_untimed": unrecorded, "failed": failed,
            "median_s": float(np.median(x)) if have else None,
            "p90_s": float(np.percentile(x, P90)) if have else None,
            "mean_s": float(x.mean()) if have else None, "max_s": float(x.max()) if have else None,
            "total_s": float(x.sum()) if have else None}


def latency(labels: list[str], runs: list) -> list[dict]:
    """A row per model run, in the report's order."""
    return [{"label": label, **run_latency(run)} for label, run in zip(labels, runs)
            if run.config.get("kind") == "model"]


HEAD = ["label", "answered_timed", "answered_untimed", "failed", "median_s", "p90_s", "mean_s", "max_s", "total_s"]


def write_section(out, rows: list[dict]) -> tuple[str, list[str]]:
    """(report.md text, files written): latency.csv and its table."""
    from .tables import fmt, md_table, write_csv

    if not rows:
        return "", []
    write_csv(out / "latency.csv", HEAD, [[r[h] for h in HEAD] for r in rows])
    md = ["\n## Latency per item\n",
          md_table(["model", "answered (timed)", "median s", "p90 s", "mean s", "max s", "failed"],
                   [[r["label"], r["answered_timed"] if not r["answered_untimed"] else
                     f"{r['answered_timed']} ({r['answered_untimed']} untimed)", fmt(r["median_s"], 2),
                     fmt(r["p90_s"], 2), fmt(r["mean_s"], 2), fmt(r["max_s"], 2), r["failed"]] for r in rows]),
          "\nSeconds from the first send of an item's request to its final reply (`elapsed_s` in replies.jsonl), "
          "retries and the waits between them included, over the items answered; p90: the 90th percentile "
          "(linear interpolation). Failed items are not timed. Depends on the provider's load and on "
          "--concurrency, --rpm and --tpm as much as on the model.\n"]
    return "\n".join(md), ["latency.csv"]
