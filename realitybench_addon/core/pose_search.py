"""Suggest a Pose, the search itself (pure; no bpy): where should the worker hold the phone so the frame passes?

The search is handed a function that measures a pose (bl/ places the camera and runs the environment's
measurements; tests hand it formulas) and the preset's terms. It scores a pose by how far each failing term
is from passing, each in its own units scaled to a comparable size (`term_shortfall`), so a step that halves
the distance to a threshold counts as progress even when the term still fails. Poses are candidates only if
`feasible` allows them (where a worker can stand and reach, never inside geometry, never nearer than the
phone can focus).

    search_pose(measure, terms, start, space, draws, feasible)
      1. the start pose, and the start aimed at the target and held level (the cheapest fixes);
      2. the environment's own field poses (`draws`), aimed at the target: poses a worker takes there;
      3. a pattern search in the environment's pose space (OrbitSpace: distance, orbit and height angle
         about the target; AimSpace: pitch, yaw and height of a worker turning in place), with steps halved
         when no move helps: from where the worker stands first, then from the two best field poses;
      4. once a pose passes, the smallest move that still passes: bisection on the way back to the start.

Terms that no move changes (the scene's state: a gauge on bare roof, a tape leaning) are reported with
their reason instead of a pose (`SearchResult.unfixable`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Optional, Sequence

import numpy as np

from .terms import Outcome, TermSpec, evaluate

# A term's shortfall is measured in these units: one unit is "clearly failing" for its kind of term.
SHORTFALL_SCALE = {"weber": 0.1, "deg": 10.0, "car_lengths": 0.5, "luminance": 0.05, "bool": 1.0}
MARGIN = 0.05  # a suggested pose passes every term by at least this many scale units where it can
MISSING_SHORTFALL = 3.0  # a term that cannot be measured from the pose (target out of view): far from passing
GRAY_WEIGHT = 0.5  # a gray term is half a failure: better than failing, worse than passing


def term_scale(spec: TermSpec) -> float:
    """One unit of shortfall for a term: fixed per unit for bounded quantities (a tenth of a fraction, at most
    half its threshold); a fifth of the threshold for px and metres (12 px short of 60 is as far as 2 px short
    of 10)."""
    if spec.unit in SHORTFALL_SCALE:
        return SHORTFALL_SCALE[spec.unit]
    if spec.unit == "fraction":  # a tenth of the whole, or half a small threshold (a 4% bbox is 2% short at 2%)
        values = spec.threshold if spec.comparator == "between" else (spec.threshold,)
        return min(0.1, max(0.005, 0.5 * min(abs(float(v)) for v in values)))
    values = spec.threshold if spec.comparator == "between" else (spec.threshold,)
    size = max(abs(float(v)) for v in values) if values and values[0] is not None else 1.0
    floor = 0.1 if spec.unit == "m" else 1.0
    return max(floor, 0.2 * size)


def term_margin(spec: TermSpec, value: Any) -> float:
    """How far `value` passes the term (positive) or fails it (negative), in scale units; nan if unmeasured."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return float("nan")
    if spec.comparator in ("is_true", "is_false"):
        return 1.0 if bool(value) == (spec.comparator == "is_true") else -1.0
    v, s = float(value), term_scale(spec)
    if spec.comparator == ">=":
        return (v - float(spec.threshold)) / s
    if spec.comparator == "<=":
        return (float(spec.threshold) - v) / s
    lo, hi = (float(t) for t in spec.threshold)
    return min(v - lo, hi - v) / s


BOUNDS = {"fraction": (0.0, 1.0), "weber": (0.0, 1.0)}  # a value can pass its threshold by no more than this


def term_shortfall(spec: TermSpec, value: Any, margin: float = MARGIN) -> float:
    """0 when the term passes by `margin` scale units (or by all its range allows: an in-frame share of 1.0
    cannot pass 1.0 by more); else how far short of that it is."""
    m = term_margin(spec, value)
    if math.isnan(m):
        return MISSING_SHORTFALL
    if spec.comparator in ("is_true", "is_false"):
        return 0.0 if m > 0 else 1.0
    if spec.unit in BOUNDS and spec.comparator in (">=", "<="):
        lo, hi = BOUNDS[spec.unit]
        room = (hi - float(spec.threshold)) if spec.comparator == ">=" else (float(spec.threshold) - lo)
        margin = min(margin, room / term_scale(spec))
    return max(0.0, margin - m)


@dataclass(frozen=True)
class Pose:
    """Where the phone is, the point it is aimed at, and its roll (0: held level)."""

    position: tuple[float, float, float]
    aim: tuple[float, float, float]
    roll_deg: float = 0.0

    @staticmethod
    def of(position, aim, roll_deg: float = 0.0) -> "Pose":
        return Pose(tuple(float(v) for v in position), tuple(float(v) for v in aim), float(roll_deg))

    def to_dict(self) -> dict:
        return {"position_m": list(self.position), "aim_m": list(self.aim), "roll_deg": self.roll_deg}


@dataclass
class Evaluation:
    pose: Pose
    results: list  # TermResult of every term measured (geometric, and image terms when confirmed)
    deficit: float  # the sum of shortfalls: 0 passes every term with margin
    passes: bool  # every term passes (margin or not)
    infeasible: Optional[str] = None  # why no worker can hold the phone there

    def failing(self) -> list[str]:
        return [r.name for r in self.results if r.outcome in (Outcome.FAIL, Outcome.NOT_APPLICABLE)]


@dataclass
class SearchResult:
    before: Evaluation
    after: Evaluation  # the suggested pose (the start itself when nothing better was found)
    evaluations: int
    fixed: bool  # the suggestion passes every term searched on
    unfixable: dict = field(default_factory=dict)  # term -> why no move of the phone fixes it
    tried: list = field(default_factory=list)  # every feasible evaluation, in order


def spherical(point, target) -> tuple[float, float, float]:
    """(distance, azimuth, elevation) of `point` seen from `target`, radians; azimuth about +Z from +X."""
    d = np.asarray(point, float) - np.asarray(target, float)
    r = float(np.linalg.norm(d))
    if r == 0.0:
        return 0.0, 0.0, 0.0
    return r, math.atan2(d[1], d[0]), math.asin(max(-1.0, min(1.0, d[2] / r)))


def from_spherical(target, r: float, azimuth: float, elevation: float) -> np.ndarray:
    c = math.cos(elevation)
    return np.asarray(target, float) + r * np.array([c * math.cos(azimuth), c * math.sin(azimuth), math.sin(elevation)])


def score_pose(terms: Sequence[TermSpec], pose: Pose, measurements: Mapping) -> Evaluation:
    """A pose's terms, its deficit (the sum of shortfalls; a gray term counts half) and whether all pass."""
    results, _ = evaluate(terms, measurements)
    deficit = 0.0
    for spec, r in zip(terms, results):
        if r.outcome is Outcome.NEEDS_RENDER:
            continue
        weight = GRAY_WEIGHT if r.outcome is Outcome.GRAY else 1.0
        deficit += weight * term_shortfall(spec, r.value)
    passes = not any(r.outcome in (Outcome.FAIL, Outcome.NOT_APPLICABLE, Outcome.GRAY) for r in results)
    return Evaluation(pose, results, deficit, passes)


def neighbour_poses(space, pose: Pose, scale: float = 1.0) -> list[Pose]:
    """The poses one step (times `scale`) along each axis of the space from `pose`: where to look next when a
    pose passes its geometry but not its image (more of a module's frame one step back, a glare gone one
    step round)."""
    c = space.coords(pose)
    out = []
    for axis, step in enumerate(space.steps):
        for sign in (1.0, -1.0):
            moved = np.array(c, float)
            moved[axis] += sign * scale * step
            candidate = space.pose(moved)
            if candidate is not None:
                out.append(candidate)
    return out


class _Scorer:
    """Measures poses once each, keeping every evaluation and the best so far."""

    def __init__(self, measure, terms: Sequence[TermSpec], feasible, start: Pose, budget: int):
        self.measure, self.terms, self.feasible = measure, list(terms), feasible
        self.start = np.asarray(start.position, float)
        self.budget, self.count = budget, 0
        self.tried: list[Evaluation] = []
        self.seen: dict = {}

    def exhausted(self) -> bool:
        return self.count >= self.budget

    def __call__(self, pose: Pose) -> Optional[Evaluation]:
        key = tuple(round(v, 5) for v in (*pose.position, *pose.aim, pose.roll_deg))
        if key in self.seen:
            return self.seen[key]
        reason = self.feasible(pose) if self.feasible else None
        if reason is not None:
            self.seen[key] = None
            return None
        if self.exhausted():
            return None
        self.count += 1
        evaluation = self.score(pose, self.measure(pose))
        self.seen[key] = evaluation
        self.tried.append(evaluation)
        return evaluation

    def score(self, pose: Pose, measurements: Mapping) -> Evaluation:
        return score_pose(self.terms, pose, measurements)

    def moved(self, e: Evaluation) -> float:
        return float(np.linalg.norm(np.asarray(e.pose.position) - self.start))

    def better(self, a: Optional[Evaluation], b: Optional[Evaluation]) -> bool:
        """Is `a` better than `b`: a smaller deficit; at equal deficit (both passing with margin), a smaller move."""
        if a is None:
            return False
        if b is None:
            return True
        if a.deficit < b.deficit - 1e-9:
            return True
        return abs(a.deficit - b.deficit) <= 1e-9 and self.moved(a) < self.moved(b) - 1e-6


class OrbitSpace:
    """Poses about a target point, always aimed at it and held level: (log distance, azimuth, elevation) of the
    phone seen from the target. Where the worker can step around what they photograph."""

    steps = (0.35, math.radians(25.0), math.radians(12.0))
    min_steps = (0.02, math.radians(1.5), math.radians(1.0))

    def __init__(self, target, min_distance: float = 0.1):
        self.target = np.asarray(target, float)
        self.min_distance = min_distance

    def coords(self, pose: Pose) -> np.ndarray:
        r, az, el = spherical(pose.position, self.target)
        return np.array([math.log(max(r, 1e-6)), az, el])

    def pose(self, c) -> Optional[Pose]:
        r = math.exp(c[0])
        if r < self.min_distance:
            return None
        return Pose.of(from_spherical(self.target, r, c[1], c[2]), self.target)

    def level(self, pose: Pose) -> Optional[Pose]:
        """The pose aimed at the target and held level, from where it stands."""
        if np.linalg.norm(np.asarray(pose.position) - self.target) < self.min_distance:
            return None
        return Pose.of(pose.position, self.target)


class AimSpace:
    """Poses of a worker turning in place at `eye`: (pitch, yaw, height offset), held level, the aim `reach`
    metres ahead. Where the photographer stays put and only points the phone (the horizon from a ridge)."""

    steps = (math.radians(10.0), math.radians(15.0), 0.25)
    min_steps = (math.radians(0.75), math.radians(1.0), 0.02)
    heights = (-0.9, 0.4)  # the phone's height about the eye: crouching to a raised arm

    def __init__(self, eye, reach: float = 10.0, walk_words: str = ""):
        self.eye = np.asarray(eye, float)
        self.reach = reach
        self.walk_words = walk_words  # what getting to `eye` takes, in words, when the worker is not there

    def coords(self, pose: Pose) -> np.ndarray:
        d = np.asarray(pose.aim, float) - np.asarray(pose.position, float)
        d /= max(np.linalg.norm(d), 1e-9)
        # a pose elsewhere (where the worker stood before the move) maps to the eye at the nearest held height
        height = float(np.clip(pose.position[2] - self.eye[2], *self.heights))
        return np.array([math.asin(max(-1.0, min(1.0, d[2]))), math.atan2(d[1], d[0]), height])

    def pose(self, c) -> Optional[Pose]:
        if abs(c[0]) > math.radians(85.0):
            return None
        position = self.eye + np.array([0.0, 0.0, c[2]])
        direction = np.array([math.cos(c[0]) * math.cos(c[1]), math.cos(c[0]) * math.sin(c[1]), math.sin(c[0])])
        return Pose.of(position, position + self.reach * direction)

    def level(self, pose: Pose) -> Optional[Pose]:
        """Held level, looking the same way, from the eye (a pose elsewhere is brought to it: a field pose drawn
        on the ladder says where to look, the eye says from where)."""
        if np.linalg.norm((np.asarray(pose.position) - self.eye)[:2]) <= 0.3:
            return Pose.of(pose.position, pose.aim)
        return self.pose(self.coords(pose))


def _wrap(delta: np.ndarray) -> np.ndarray:
    """The second coordinate of both spaces (azimuth, yaw) wraps: take the short way round."""
    delta = np.array(delta, float)
    delta[1] = (delta[1] + math.pi) % (2 * math.pi) - math.pi
    return delta


def _refine(scorer: _Scorer, best: Evaluation, space, limit: Optional[int] = None) -> Evaluation:
    """Pattern search in the space's coordinates, steps halved when no move helps. Before the first halving it
    looks two and three steps out along each axis: a yes/no term (the horizon in the band, a post's shadow)
    gives no sign of progress until a step crosses it."""
    steps = np.array(space.steps, float)
    looked_far = False
    limit = scorer.budget if limit is None else min(limit, scorer.budget)
    while scorer.count < limit and best.deficit > 0 and np.any(steps > np.asarray(space.min_steps)):
        c = space.coords(best.pose)
        improved = None
        for scale in ((1.0,) if looked_far or not np.allclose(steps, space.steps) else (1.0, 2.0, 3.0)):
            for axis in range(len(steps)):
                for sign in (-1.0, 1.0):
                    moved = c.copy()
                    moved[axis] += sign * scale * steps[axis]
                    pose = space.pose(moved)
                    candidate = scorer(pose) if pose is not None else None
                    if scorer.better(candidate, improved if improved is not None else best):
                        improved = candidate
            if improved is not None:
                break
        if improved is not None:
            best = improved
        else:
            looked_far = True
            steps = steps / 2
    return best


def _shrink(scorer: _Scorer, start: Pose, found: Evaluation, space) -> Evaluation:
    """The pose nearest the start on the straight way (in the space's coordinates) to `found` that still
    passes with margin: a coarse look along the way, then bisection."""
    c0, c1 = space.coords(start), space.coords(found.pose)
    delta = _wrap(c1 - c0)

    def at(t: float) -> Optional[Evaluation]:
        pose = space.pose(c0 + t * delta)
        return scorer(pose) if pose is not None else None

    lo, hi, best = 0.0, 1.0, found
    for t in (0.25, 0.5, 0.75):
        e = at(t)
        if e is not None and e.deficit <= 1e-9:
            hi, best = t, e
            break
        lo = t
    for _ in range(5):
        if scorer.exhausted():
            break
        mid = (lo + hi) / 2
        e = at(mid)
        if e is not None and e.deficit <= 1e-9:
            hi, best = mid, e
        else:
            lo = mid
    return best


def search_pose(measure: Callable[[Pose], Mapping], terms: Sequence[TermSpec], start: Pose, space,
                draws: Sequence[Pose] | Callable[[], Sequence[Pose]] = (),
                feasible: Optional[Callable[[Pose], Optional[str]]] = None, *,
                scene_state: Optional[Mapping[str, str]] = None, budget: int = 60,
                start_measurements: Optional[Mapping] = None) -> SearchResult:
    """Search for the pose nearest `start` whose every term in `terms` passes (see the module's docstring).

    measure(pose) -> the measurements the terms read; feasible(pose) -> None, or why no worker can hold the
    phone there; space: the poses searched (OrbitSpace about a target, AimSpace turning in place); draws: the
    environment's own field poses (or a function that draws them, called only when needed); scene_state: terms
    that depend on the scene alone, with the reason no move fixes them (they are left out of the search and
    reported when they fail); start_measurements: the start as the worker took it, when the search measures
    it otherwise (with the focus fixed)."""
    scene_state = dict(scene_state or {})
    searched = [t for t in terms if t.name not in scene_state]
    scorer = _Scorer(measure, searched, feasible, start, budget)
    first = measure(start)
    before_all = _Scorer(measure, terms, None, start, 0).score(start, start_measurements or first)  # the report
    before = scorer.score(start, first)
    scorer.count += 1
    scorer.tried.append(before)
    unfixable = {r.name: scene_state[r.name] for r in before_all.results
                 if r.name in scene_state and r.outcome in (Outcome.FAIL, Outcome.NOT_APPLICABLE, Outcome.GRAY)}
    level = space.level(start)
    here = scorer(level) if level is not None else None  # aimed at the target from where the worker stands
    best = before if not scorer.better(here, before) else here
    seeds = []
    if best.deficit > 1e-9:  # the field poses only when aiming alone does not do it
        draws = draws() if callable(draws) else draws
        seeds = sorted((e for e in (scorer(space.level(d)) if space.level(d) is not None else None for d in draws)
                        if e is not None), key=lambda e: (e.deficit, scorer.moved(e)))
    # From where the worker stands first (the smallest move, when it gets there), then from the best field poses.
    for seed in ([here] if here is not None else []) + seeds[:2]:
        if best.deficit <= 1e-9 or scorer.exhausted():
            break
        share = scorer.count + max(12, (scorer.budget - scorer.count) // 2)
        found = _refine(scorer, seed, space, share)
        if scorer.better(found, best):
            best = found
    if best.deficit <= 1e-9 and best is not before:
        best = _shrink(scorer, start, best, space)
    if not best.passes:
        unfixable.update(_unmoved_failures(scorer.tried, best))
    return SearchResult(before_all, best, scorer.count, best.passes and not unfixable, unfixable, scorer.tried)


def _unmoved_failures(tried: Sequence[Evaluation], best: Evaluation) -> dict:
    """Failing terms whose value no pose tried changed: the scene, not the pose, decides them."""
    out = {}
    if len(tried) < 8:
        return out
    for r in best.results:
        if r.outcome not in (Outcome.FAIL, Outcome.NOT_APPLICABLE):
            continue
        values = {repr(e.results[[x.name for x in e.results].index(r.name)].value) for e in tried}
        if len(values) == 1:
            spread = max(float(np.linalg.norm(np.asarray(e.pose.position) - np.asarray(tried[0].pose.position)))
                         for e in tried)
            out[r.name] = (f"no pose changed it: {r.value!r} from each of the {len(tried)} poses tried, up to "
                           f"{spread:.1f} m from where the phone was")
    return out
