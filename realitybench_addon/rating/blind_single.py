"""An absolute blind realism rating (pure): each frame shown alone, rated 1-5 on docs/realism.md's scale, with
nothing to compare it against. Built for issue 41, whose target is absolute (a pairwise preference can rise
while every frame still looks synthetic).

    viewings = make_viewings(frames, np.random.default_rng(seed))   # neutral names, in a shuffled order
    orders = viewer_orders(viewings, viewers, rng)                  # each viewer's own order
    answers = read_answers(path, viewings)                          # one viewer's answers, checked whole
    rows = summarize(viewings, [answers_1, answers_2, ...])         # per environment and overall
    verdict = targets_met(rows)                                     # issue 41's three targets

A viewer sees only `image_NNN.png` files (no frame id, no environment); the key (which image is which frame)
stays with whoever runs the rating. An answers file is JSON: {"viewer": "...", "answers": {"image_000":
{"rating": 1-5, "note": "..."}, ...}} (a bare number is accepted for an answer). Every image must be answered
once; anything else is a `RatingsError` naming the file and the problem, and nothing of that file is used.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .errors import RatingsError

RATINGS = range(1, 6)
SCALE = {1: "a video game from 2005", 2: "an obvious render", 3: "a decent render, clearly synthetic at a glance",
         4: "could be mistaken for a photo at a glance", 5: "could pass for a phone photo"}
# Issue 41's targets: the mean over every rating, the lowest environment's mean, the share of frames whose
# mean rating over the viewers is 4 or more.
TARGET_MEAN, TARGET_ENV_MEAN, TARGET_SHARE_4 = 3.5, 3.0, 1 / 3


@dataclass(frozen=True)
class Viewing:
    image_id: str  # the neutral name a viewer sees
    frame_id: str
    environment: str


def make_viewings(frames: list[tuple[str, str]], rng: np.random.Generator) -> list[Viewing]:
    """One viewing per (frame_id, environment), named image_000.. in a shuffled order, so a name says nothing
    about the environment or the frame."""
    if len({f for f, _ in frames}) != len(frames):
        raise RatingsError("a frame id appears twice in the rating")
    if not frames:
        raise RatingsError("no frames to rate")
    order = rng.permutation(len(frames))
    return [Viewing(f"image_{k:03d}", frames[i][0], frames[i][1]) for k, i in enumerate(order)]


def viewer_orders(viewings: list[Viewing], viewers: int, rng: np.random.Generator) -> list[list[str]]:
    """Each viewer's own order of the images (so no order effect is shared by the panel)."""
    if viewers < 1:
        raise RatingsError("a rating needs at least one viewer")
    ids = [v.image_id for v in viewings]
    return [[ids[i] for i in rng.permutation(len(ids))] for _ in range(viewers)]


def viewings_to_key(viewings: list[Viewing]) -> dict:
    return {"kind": "blind_single", "images": [{"image_id": v.image_id, "frame_id": v.frame_id,
                                                "environment": v.environment} for v in viewings]}


def viewings_from_key(key) -> list[Viewing]:
    try:
        if key.get("kind") != "blind_single":
            raise KeyError("kind")
        out = [Viewing(str(v["image_id"]), str(v["frame_id"]), str(v["environment"])) for v in key["images"]]
    except (KeyError, TypeError, AttributeError) as err:
        raise RatingsError(f"the rating key is not one this tool wrote (missing {err})") from None
    if not out or len({v.image_id for v in out}) != len(out):
        raise RatingsError("the rating key lists no images, or an image twice")
    return out


def check_answer(image_id: str, value) -> int:
    """One image's rating, or a RatingsError saying what is wrong with it."""
    if isinstance(value, dict):
        extra = sorted(set(value) - {"rating", "note"})
        if extra:
            raise RatingsError(f"{image_id}: unknown keys {extra}")
        if "note" in value and not isinstance(value["note"], str):
            raise RatingsError(f"{image_id}: a note is text")
        value = value.get("rating")
    if isinstance(value, bool) or not isinstance(value, int) or value not in RATINGS:
        raise RatingsError(f"{image_id}: a rating is a whole number from 1 to 5, got {value!r:.40}")
    return int(value)


def parse_answers(data, viewings: list[Viewing], where: str) -> tuple[str, dict[str, int]]:
    """A viewer's name and ratings from decoded JSON, checked whole against the images shown."""
    if not isinstance(data, dict) or not isinstance(data.get("answers"), dict):
        raise RatingsError(f"{where}: expected {{\"viewer\": ..., \"answers\": {{image_id: rating}}}}")
    viewer = data.get("viewer")
    if not isinstance(viewer, str) or not viewer.strip():
        raise RatingsError(f"{where}: the viewer's name is missing")
    wanted = {v.image_id for v in viewings}
    given = set(data["answers"])
    if given - wanted:
        raise RatingsError(f"{where}: answers for images that were not shown: {sorted(given - wanted)[:5]}")
    if wanted - given:
        raise RatingsError(f"{where}: {len(wanted - given)} images unanswered, e.g. {sorted(wanted - given)[:5]}")
    try:
        return viewer.strip(), {k: check_answer(k, v) for k, v in data["answers"].items()}
    except RatingsError as err:
        raise RatingsError(f"{where}: {err}") from None


def read_answers(path: Path, viewings: list[Viewing]) -> tuple[str, dict[str, int]]:
    """parse_answers of a file, read through the guarded file and JSON layer."""
    from .answers_json import load_answers_json
    return parse_answers(load_answers_json(path), viewings, str(path))


@dataclass(frozen=True)
class GroupRating:
    group: str
    frames: int
    ratings: int  # frames x viewers
    mean: float
    mean_ci: tuple[float, float]  # 95% percentile interval, frames resampled (stratified by environment for "all")
    share_frames_4: float  # frames whose mean over the viewers is 4 or more
    share_ratings_4: float  # single ratings of 4 or 5
    highest: int


def _bootstrap_mean(frame_means: dict[str, np.ndarray], rng: np.random.Generator, n: int = 2000):
    """Percentile interval of the mean rating, resampling frames within each stratum."""
    draws = np.zeros(n)
    total = sum(len(m) for m in frame_means.values())
    for means in frame_means.values():
        idx = rng.integers(0, len(means), size=(n, len(means)))
        draws += means[idx].sum(axis=1)
    draws /= total
    lo, hi = np.percentile(draws, [2.5, 97.5])
    return float(lo), float(hi)


def summarize(viewings: list[Viewing], viewers: list[dict[str, int]], seed: int = 0) -> list[GroupRating]:
    """Per environment (sorted), then "all". Every viewer rates every image, so a frame's mean weighs each
    viewer alike and the overall mean equals the mean over all ratings."""
    if not viewers:
        raise RatingsError("no answers to summarize")
    table = np.array([[answers[v.image_id] for answers in viewers] for v in viewings], dtype=float)
    groups: dict[str, list[int]] = {}
    for i, v in enumerate(viewings):
        groups.setdefault(v.environment, []).append(i)
    rows = []
    for name, members in [*sorted(groups.items()), ("all", list(range(len(viewings))))]:
        sub = table[members]
        strata = ({name: sub.mean(axis=1)} if name != "all"
                  else {g: table[m].mean(axis=1) for g, m in sorted(groups.items())})
        rows.append(GroupRating(name, len(members), sub.size, float(sub.mean()),
                                _bootstrap_mean(strata, np.random.default_rng(seed)),
                                float(np.mean(sub.mean(axis=1) >= 4.0)), float(np.mean(sub >= 4)),
                                int(sub.max())))
    return rows


def targets_met(rows: list[GroupRating]) -> dict[str, bool]:
    """Issue 41's three targets, each on its own."""
    overall = next(r for r in rows if r.group == "all")
    envs = [r for r in rows if r.group != "all"]
    return {"mean >= 3.5": overall.mean >= TARGET_MEAN,
            "every environment >= 3.0": all(r.mean >= TARGET_ENV_MEAN for r in envs),
            "a third of frames >= 4": overall.share_frames_4 >= TARGET_SHARE_4}


def markdown_table(rows: list[GroupRating], viewers: int) -> str:
    lines = [f"| environment | frames | ratings ({viewers} viewers) | mean | 95% interval | frames rated >= 4 | "
             "ratings >= 4 | highest |", "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lo, hi = r.mean_ci
        lines.append(f"| {r.group} | {r.frames} | {r.ratings} | {r.mean:.2f} | {lo:.2f}-{hi:.2f} | "
                     f"{r.share_frames_4:.2f} | {r.share_ratings_4:.2f} | {r.highest} |")
    met = targets_met(rows)
    lines.append("")
    lines.append("Targets: " + "; ".join(f"{k}: {'met' if ok else 'not met'}" for k, ok in met.items()))
    return "\n".join(lines)
