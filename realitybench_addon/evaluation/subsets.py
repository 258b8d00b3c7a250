"""Subsets of a set to ask (`eval run --subset NAME --subset-seed N`), recorded in run.json `subset`.

    paper-ablation  the paper's verdict-order ablation (its Table 4): 150 items from tape_gap,
                    slope_gauge and rail_attachment, 25 per environment from the random frames and 25 from
                    the positive stratum, drawn without replacement

The draw is deterministic: the candidates of each environment and stratum sorted by frame id, one
np.random.Generator per (seed, environment, stratum) (numpy's SeedSequence of the seed and the two
positions in SUBSETS' lists: a stratum's draw does not depend on the others, nor on frames of other
environments). Candidates are the items `eval run` would ask (gray frames only with --include-gray).
A stratum with fewer candidates than asked is taken whole, and run.json says how many were drawn
(`short`). Asking the same set with the same seed draws the same frames for every model and every
prompt variant, so their runs pair up in `eval report`'s prompt-variant section (variants.py).
"""
from __future__ import annotations

import numpy as np

from .errors import EvalError

PAPER_ABLATION = "paper-ablation"
STRATA = ("random", "positive")
SUBSETS = {PAPER_ABLATION: {"environments": ("tape_gap", "slope_gauge", "rail_attachment"), "per_stratum": 25}}


def rng_for(seed: int, env_index: int, stratum_index: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence([int(seed), env_index, stratum_index]))


def draw(ask_items: list, name: str, seed: int) -> tuple[list, dict]:
    """(the items drawn, in the set's order; what run.json records)."""
    if name not in SUBSETS:
        raise EvalError(f"unknown --subset {name!r}; expected one of {', '.join(SUBSETS)}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise EvalError(f"--subset-seed must be a non-negative integer, got {seed!r}")
    spec = SUBSETS[name]
    chosen, drawn, short = set(), {}, []
    for e, env in enumerate(spec["environments"]):
        drawn[env] = {}
        for s, stratum in enumerate(STRATA):
            ids = sorted(a.item.frame_id for a in ask_items
                         if a.item.environment == env and a.item.stratum == stratum)
            k = min(spec["per_stratum"], len(ids))
            picked = rng_for(seed, e, s).choice(len(ids), size=k, replace=False) if k else []
            chosen.update(ids[i] for i in picked)
            drawn[env][stratum] = k
            if k < spec["per_stratum"]:
                short.append(f"{env} {stratum}: {k} of {spec['per_stratum']}")
    items = [a for a in ask_items if a.item.frame_id in chosen]
    if not items:
        raise EvalError(f"--subset {name}: the set holds no random or positive frame of "
                        f"{', '.join(spec['environments'])}")
    return items, {"name": name, "seed": seed, "environments": list(spec["environments"]),
                   "per_stratum": spec["per_stratum"], "drawn": drawn, "items": len(items), "short": short}
