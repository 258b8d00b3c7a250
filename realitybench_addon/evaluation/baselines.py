"""Runs that need no model: "always accept" and "always reject" (spec, "Benchmark set and metrics").

A baseline run folder has the same run.json and items.jsonl as a model run and no replies: its
decision is its kind. It answers acceptability only; its documentation is not applicable.
(The third baseline, a model asked without the image, is `eval run --blind`.)
"""
from __future__ import annotations

from pathlib import Path

from .errors import EvalError
from .runs import RunStore, now_iso, package_version
from .sets import load_items

KINDS = ("always-accept", "always-reject")


def baseline_run(set_dir, out_dir, kind: str, include_gray: bool = False) -> dict:
    if kind not in KINDS:
        raise EvalError(f"unknown baseline {kind!r}; expected one of {', '.join(KINDS)}")
    ask_items = load_items(set_dir, include_gray=include_gray)
    config = {"kind": "baseline", "label": kind.replace("-", " "), "provider": None, "model": None,
              "base_url": None, "settings": None, "baseline": kind, "set": str(Path(set_dir).resolve()),
              "items": len(ask_items), "include_gray": include_gray, "created": now_iso(),
              "package_version": package_version()}
    store = RunStore(out_dir)
    store.open(config)
    store.write_items([a.item for a in ask_items], [f"baseline:{kind}:{a.item.frame_id}" for a in ask_items])
    return {"run": str(Path(out_dir)), "items": len(ask_items), "baseline": kind}
