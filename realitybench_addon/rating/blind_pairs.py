"""A blind A/B comparison of two renderings of the same frames (pure): which of two images looks more like
a real phone photo, and a 1-5 rating of each. Built for issue 20's before/after realism check; any two sets
of the same frame ids can be compared.

    pairs = make_pairs(frame_ids, np.random.default_rng(seed))   # which side shows which set, at random
    answers = read_answers(path, pairs)                           # one viewer's answers, checked whole
    table = summarize(pairs, [answers_1, answers_2, ...])         # per environment and overall

A viewer sees only `pair_NNN` images with an A side and a B side; the key (which side is which set) stays
with whoever runs the comparison. An answers file is JSON: {"viewer": "...", "answers": {"pair_000":
{"more_real": "A" | "B", "A": 1-5, "B": 1-5}, ...}}. Every pair must be answered once; anything else (not
JSON, an unknown pair, a rating of 6, a choice of "C") is a `RatingsError` naming the file and the problem,
and nothing of that file is used.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .errors import RatingsError

SIDES = ("A", "B")
RATINGS = range(1, 6)


@dataclass(frozen=True)
class Pair:
    pair_id: str
    frame_id: str
    environment: str
    after_side: str  # the side (A or B) that shows the "after" set

    def side_of(self, which: str) -> str:
        return self.after_side if which == "after" else SIDES[1 - SIDES.index(self.after_side)]


def make_pairs(frames: list[tuple[str, str]], rng: np.random.Generator) -> list[Pair]:
    """One pair per (frame_id, environment), shown in a shuffled order with the sides drawn at random; each
    side gets "after" equally often (to within one), so a viewer who always picks A scores 0.5."""
    if len({f for f, _ in frames}) != len(frames):
        raise RatingsError("a frame id appears twice in the comparison")
    order = rng.permutation(len(frames))
    sides = np.array([i % 2 for i in range(len(frames))])
    rng.shuffle(sides)
    return [Pair(f"pair_{k:03d}", frames[i][0], frames[i][1], SIDES[int(s)])
            for k, (i, s) in enumerate(zip(order, sides))]


def pairs_to_key(pairs: list[Pair]) -> dict:
    return {"pairs": [{"pair_id": p.pair_id, "frame_id": p.frame_id, "environment": p.environment,
                       "after_side": p.after_side} for p in pairs]}


def pairs_from_key(key: dict) -> list[Pair]:
    try:
        return [Pair(str(p["pair_id"]), str(p["frame_id"]), str(p["environment"]), str(p["after_side"]))
                for p in key["pairs"]]
    except (KeyError, TypeError) as err:
        raise RatingsError(f"the comparison key is not one this tool wrote ({err})") from None


@dataclass(frozen=True)
class Answer:
    more_real: str  # "A" or "B"
    ratings: dict  # side -> 1..5


def check_answer(pair_id: str, value) -> Answer:
    """One pair's answer, or a RatingsError saying what is wrong with it."""
    if not isinstance(value, dict):
        raise RatingsError(f"{pair_id}: an answer is an object with more_real, A and B, got {value!r:.60}")
    choice = value.get("more_real")
    if choice not in SIDES:
        raise RatingsError(f"{pair_id}: more_real must be \"A\" or \"B\", got {choice!r:.40}")
    ratings = {}
    for side in SIDES:
        r = value.get(side)
        if isinstance(r, bool) or not isinstance(r, int) or r not in RATINGS:
            raise RatingsError(f"{pair_id}: rating {side} must be a whole number from 1 to 5, got {r!r:.40}")
        ratings[side] = r
    extra = sorted(set(value) - {"more_real", *SIDES, "note"})
    if extra:
        raise RatingsError(f"{pair_id}: unknown keys {extra}")
    return Answer(choice, ratings)


def read_answers(path: Path, pairs: list[Pair]) -> tuple[str, dict[str, Answer]]:
    """A viewer's name and answers from `path`, checked whole against the pairs shown."""
    from .answers_json import load_answers_json
    data = load_answers_json(path)
    if not isinstance(data, dict) or not isinstance(data.get("answers"), dict):
        raise RatingsError(f"{path}: expected {{\"viewer\": ..., \"answers\": {{pair_id: answer}}}}")
    viewer = data.get("viewer")
    if not isinstance(viewer, str) or not viewer.strip():
        raise RatingsError(f"{path}: the viewer's name is missing")
    wanted = {p.pair_id for p in pairs}
    given = set(data["answers"])
    if given - wanted:
        raise RatingsError(f"{path}: answers for pairs that were not shown: {sorted(given - wanted)[:5]}")
    if wanted - given:
        raise RatingsError(f"{path}: {len(wanted - given)} pairs unanswered, e.g. {sorted(wanted - given)[:5]}")
    try:
        answers = {k: check_answer(k, v) for k, v in data["answers"].items()}
    except RatingsError as err:
        raise RatingsError(f"{path}: {err}") from None
    return viewer.strip(), answers


@dataclass(frozen=True)
class GroupSummary:
    group: str
    pairs: int
    judgements: int  # pairs x viewers
    prefer_after: float  # share of judgements that found the "after" image more like a phone photo
    prefer_after_ci: tuple[float, float]  # Wilson 95% interval
    rating_before: float
    rating_after: float


def wilson(successes: int, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return (math.nan, math.nan)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def summarize(pairs: list[Pair], viewers: list[dict[str, Answer]]) -> list[GroupSummary]:
    """Per environment (sorted), then "all": the preference share for "after" and the mean ratings."""
    if not viewers:
        raise RatingsError("no answers to summarize")
    groups: dict[str, list[Pair]] = {}
    for p in pairs:
        groups.setdefault(p.environment, []).append(p)
    rows = []
    for name, members in [*sorted(groups.items()), ("all", pairs)]:
        wins, before, after = 0, [], []
        for answers in viewers:
            for p in members:
                a = answers[p.pair_id]
                wins += a.more_real == p.after_side
                after.append(a.ratings[p.side_of("after")])
                before.append(a.ratings[p.side_of("before")])
        n = len(members) * len(viewers)
        rows.append(GroupSummary(name, len(members), n, wins / n, wilson(wins, n), float(np.mean(before)),
                                 float(np.mean(after))))
    return rows


def markdown_table(rows: list[GroupSummary], viewers: int) -> str:
    lines = [f"| environment | frames | judgements ({viewers} viewers) | prefer after | 95% interval | "
             "rating before | rating after |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        lo, hi = r.prefer_after_ci
        lines.append(f"| {r.group} | {r.pairs} | {r.judgements} | {r.prefer_after:.2f} | {lo:.2f}-{hi:.2f} | "
                     f"{r.rating_before:.2f} | {r.rating_after:.2f} |")
    return "\n".join(lines)
