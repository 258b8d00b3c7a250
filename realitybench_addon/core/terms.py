"""Acceptability terms and verdicts.

A term compares one measured value with a threshold. Outcomes:
  pass            the value meets the threshold
  fail            it does not, and lies outside the term's gray range
  gray            it does not, but lies inside the gray range (raters would split)
  needs_render    an image term whose frame has not been rendered yet
  not_applicable  nothing to measure (e.g. the target is not in the scene)

Verdict of a frame (spec, "Verdict rules"):
  unscored  the environment's rules exclude the frame from acceptability scoring
  reject    any term fails
  pending   no term fails, but some still need a render
  gray      no term fails, at least one is gray
  accept    every term passes

Every result carries its value, threshold and unit so panels and exports show them.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from enum import Enum
from typing import Any, Mapping, Optional, Sequence


class Outcome(str, Enum):
    PASS = "pass"
    FAIL = "fail"
    GRAY = "gray"
    NEEDS_RENDER = "needs_render"
    NOT_APPLICABLE = "not_applicable"


class Verdict(str, Enum):
    ACCEPT = "accept"
    REJECT = "reject"
    GRAY = "gray"
    UNSCORED = "unscored"
    PENDING = "pending"


KINDS = ("geometric", "image", "state")
COMPARATORS = (">=", "<=", "between", "is_true", "is_false")

# Allowed threshold range for each unit: presets are checked against these.
UNIT_RANGES: dict[str, tuple[float, float]] = {
    "fraction": (0.0, 1.0),
    "deg": (0.0, 180.0),
    "m": (0.0, 1000.0),
    "px": (0.0, 100000.0),
    "car_lengths": (0.0, 100.0),
    "weber": (0.0, 1.0),
    "luminance": (0.0, 100.0),
    "delta_e": (0.0, 100.0),  # CIELAB colour difference (1976): about 2.3 is just noticeable
    "bool": (0.0, 1.0),
}


@dataclass(frozen=True)
class TermSpec:
    name: str
    label: str
    kind: str  # geometric | image | state
    unit: str
    comparator: str
    threshold: Any = None  # float; (lo, hi) for "between"; None for boolean comparators
    gray: Optional[tuple[float, float]] = None  # closed range of values that are gray rather than failing
    gray_measure: Optional[str] = None  # test the gray range on this measurement instead of the term's own value
    measure: Optional[str] = None  # measurement key, when it differs from the term name
    description: str = ""

    @property
    def measurement_key(self) -> str:
        return self.measure or self.name

    def passes(self, value: Any) -> bool:
        c = self.comparator
        if c == "is_true":
            return bool(value) is True
        if c == "is_false":
            return bool(value) is False
        v = float(value)
        if math.isnan(v):
            return False
        if c == ">=":
            return v >= float(self.threshold)
        if c == "<=":
            return v <= float(self.threshold)
        lo, hi = self.threshold
        return float(lo) <= v <= float(hi)

    def describe_threshold(self) -> str:
        unit = "" if self.unit in ("bool", "fraction", "weber") else f" {self.unit}"
        if self.comparator in ("is_true", "is_false"):
            return "yes" if self.comparator == "is_true" else "no"
        if self.comparator == "between":
            return f"{self.threshold[0]:g}–{self.threshold[1]:g}{unit}"
        return f"{self.comparator} {float(self.threshold):g}{unit}"


@dataclass(frozen=True)
class TermResult:
    name: str
    label: str
    kind: str
    unit: str
    comparator: str
    threshold: Any
    gray: Optional[tuple[float, float]]
    value: Any
    outcome: Outcome
    gray_value: Any = None

    def to_dict(self) -> dict:
        d = asdict(self)
        d["outcome"] = self.outcome.value
        if isinstance(d["value"], float) and not math.isfinite(d["value"]):
            d["value"] = None
        return d


def _is_missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def evaluate_term(spec: TermSpec, measurements: Mapping[str, Any]) -> TermResult:
    """Evaluate one term against a mapping of measurement key -> value."""
    key = spec.measurement_key
    value = measurements.get(key)
    gray_value = None
    if key not in measurements or _is_missing(value):
        outcome = Outcome.NEEDS_RENDER if (spec.kind == "image" and key not in measurements) else Outcome.NOT_APPLICABLE
    elif spec.passes(value):
        outcome = Outcome.PASS
    else:
        outcome = Outcome.FAIL
        if spec.gray is not None:
            gray_value = measurements.get(spec.gray_measure) if spec.gray_measure else value
            if not _is_missing(gray_value) and spec.gray[0] <= float(gray_value) <= spec.gray[1]:
                outcome = Outcome.GRAY
    if isinstance(value, (bool,)) or value is None:
        stored = value
    else:
        try:
            stored = float(value)
        except (TypeError, ValueError):
            stored = value
    return TermResult(spec.name, spec.label, spec.kind, spec.unit, spec.comparator, spec.threshold, spec.gray,
                      stored, outcome, gray_value)


@dataclass(frozen=True)
class VerdictResult:
    verdict: Verdict
    failing: tuple[str, ...] = ()
    gray: tuple[str, ...] = ()
    pending: tuple[str, ...] = ()
    not_applicable: tuple[str, ...] = ()
    unscored_reason: Optional[str] = None

    @property
    def scored(self) -> bool:
        return self.verdict in (Verdict.ACCEPT, Verdict.REJECT)

    def to_dict(self) -> dict:
        d = asdict(self)
        d["verdict"] = self.verdict.value
        d["scored"] = self.scored
        return d


def failing_terms(results: Sequence[TermResult], *, gray: bool = False) -> tuple[str, ...]:
    """The names of the terms that fail, in order: a FAIL, or NOT_APPLICABLE (a term that could not be
    measured fails: a target absent from the frame cannot be accepted); with `gray`, the gray ones too (what
    a worker would still have to fix). The one failing-term check: `decide`, Suggest a Pose and its search."""
    failed = (Outcome.FAIL, Outcome.NOT_APPLICABLE, Outcome.GRAY) if gray else (Outcome.FAIL, Outcome.NOT_APPLICABLE)
    return tuple(r.name for r in results if r.outcome in failed)


def decide(results: Sequence[TermResult], unscored_reason: Optional[str] = None) -> VerdictResult:
    """The verdict of a frame from its term results.

    A term that could not be measured (not_applicable) counts as failing: a target that is
    absent from the frame cannot be accepted.
    """
    failing = failing_terms(results)
    gray = tuple(r.name for r in results if r.outcome is Outcome.GRAY)
    pending = tuple(r.name for r in results if r.outcome is Outcome.NEEDS_RENDER)
    not_applicable = tuple(r.name for r in results if r.outcome is Outcome.NOT_APPLICABLE)
    if unscored_reason:
        verdict = Verdict.UNSCORED
    elif failing:
        verdict = Verdict.REJECT
    elif pending:
        verdict = Verdict.PENDING
    elif gray:
        verdict = Verdict.GRAY
    else:
        verdict = Verdict.ACCEPT
    return VerdictResult(verdict, failing, gray, pending, not_applicable, unscored_reason)


def evaluate(specs: Sequence[TermSpec], measurements: Mapping[str, Any],
             unscored_reason: Optional[str] = None) -> tuple[list[TermResult], VerdictResult]:
    results = [evaluate_term(s, measurements) for s in specs]
    return results, decide(results, unscored_reason)
