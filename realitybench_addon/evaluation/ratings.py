"""Human ratings of frames: agreement between raters, and the scorer against their majority.

A ratings file is CSV with the header `frame_id,rater,rating` (or JSONL rows with those keys);
`rating` is `accept` or `reject` (would a reviewer accept this photo as proof?). One rating per
rater and frame; every frame must belong to the set.

Reported:
  - Krippendorff's alpha (nominal) over all raters and frames;
  - raw agreement: the share of agreeing rater pairs over all pairs of ratings of one frame;
  - the scorer's agreement with the raters' majority (frames with a strict majority that the
    scorer accepts or rejects; ties and gray/unscored frames left out);
  - each rater as a "model": the acceptability metrics against the scorer on the frames they rated
    (the spec's single-human-rater baseline).
"""
from __future__ import annotations

import csv
import io
import json
from collections import Counter, defaultdict
from pathlib import Path

from . import metrics as M
from . import stats
from .errors import EvalError
from .items import Item

RATINGS = ("accept", "reject")


def load_ratings(path, items: list[Item]) -> list[tuple[str, str, str]]:
    """[(frame_id, rater, rating)], validated against the set's items."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise EvalError(f"ratings file {path} not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise EvalError(f"ratings file {path} cannot be read ({exc})") from None
    rows = []
    if path.suffix.lower() == ".jsonl":
        for n, line in enumerate(text.splitlines(), 1):
            if line.strip():
                try:
                    rows.append((n, json.loads(line)))
                except ValueError:
                    raise EvalError(f"ratings file {path}: line {n} is not JSON") from None
    else:
        reader = csv.DictReader(io.StringIO(text))
        if reader.fieldnames is None or not {"frame_id", "rater", "rating"} <= set(reader.fieldnames):
            raise EvalError(f"ratings file {path}: needs the header frame_id,rater,rating")
        rows = [(n, r) for n, r in enumerate(reader, 2)]
    known = {i.frame_id for i in items}
    out, seen = [], set()
    for n, r in rows:
        if not isinstance(r, dict) or not all(isinstance(r.get(k), str) and r.get(k).strip()
                                              for k in ("frame_id", "rater", "rating")):
            raise EvalError(f"ratings file {path}: line {n} needs frame_id, rater and rating")
        frame_id, rater, rating = r["frame_id"].strip(), r["rater"].strip(), r["rating"].strip().lower()
        if rating not in RATINGS:
            raise EvalError(f"ratings file {path}: line {n}: rating {r['rating']!r} is not accept or reject")
        if frame_id not in known:
            raise EvalError(f"ratings file {path}: line {n}: frame {frame_id} is not in the set")
        if (frame_id, rater) in seen:
            raise EvalError(f"ratings file {path}: line {n}: rater {rater!r} rated {frame_id} twice")
        seen.add((frame_id, rater))
        out.append((frame_id, rater, rating))
    if not out:
        raise EvalError(f"ratings file {path} holds no ratings")
    return out


def _rows_for(items_by_id: dict, decisions: dict) -> list[dict]:
    rows = []
    for frame_id, accepts in decisions.items():
        item = items_by_id[frame_id]
        rows.append({"frame_id": frame_id, "environment": item.environment, "stratum": item.stratum,
                     "verdict": item.verdict, "acceptability_scored": item.acceptability_scored,
                     "documentation_scored": item.documentation_scored, "status": "ok", "in_grammar": None,
                     "problems": [], "model_accepts": accepts, "fields": None, "documentation": None,
                     "lenient_accepts": accepts, "lenient_fields": None, "lenient_documentation": None})
    return rows


def agreement(ratings: list[tuple[str, str, str]], items: list[Item]) -> dict:
    by_id = {i.frame_id: i for i in items}
    frames = sorted({f for f, _, _ in ratings})
    raters = sorted({r for _, r, _ in ratings})
    table = {(f, r): v for f, r, v in ratings}
    matrix = [[table.get((f, r)) for f in frames] for r in raters]
    raw, pairs = stats.pairwise_agreement(matrix)
    by_frame = defaultdict(list)
    for f, _, v in ratings:
        by_frame[f].append(v)
    agree = n_majority = 0
    for f, values in by_frame.items():
        top, count = Counter(values).most_common(1)[0]
        if count * 2 <= len(values) or not by_id[f].acceptability_scored:  # no strict majority, or not scored
            continue
        n_majority += 1
        agree += (top == "accept") == (by_id[f].verdict == "accept")
    per_rater = {}
    for r in raters:
        decisions = {f: table[(f, r)] == "accept" for f in frames if (f, r) in table}
        t = M.ScoreTable(_rows_for(by_id, decisions))
        values = M.acceptability(t)
        scored = [f for f in decisions if by_id[f].acceptability_scored]
        per_rater[r] = {"frames": len(decisions), "scored_frames": len(scored),
                        "agreement_with_scorer": (sum(decisions[f] == (by_id[f].verdict == "accept") for f in scored)
                                                  / len(scored)) if scored else None,
                        **{k: M.estimate(v, None)["value"] for k, v in values.items()}}
    return {"raters": len(raters), "frames": len(frames), "ratings": len(ratings),
            "krippendorff_alpha_nominal": stats.krippendorff_alpha_nominal(matrix) if len(raters) > 1 else None,
            "raw_agreement": raw if pairs else None, "rating_pairs": pairs,
            "scorer_vs_majority": {"agreement": agree / n_majority if n_majority else None, "frames": n_majority},
            "per_rater": per_rater}
