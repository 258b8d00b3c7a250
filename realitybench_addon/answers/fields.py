"""Per-field documentation scoring: one documentation answer against the ground truth, in [0, 1].

The contract is ../shared/spec/ENVIRONMENTS.md:
  - "The eleven environments": each key and its tolerance (tape reading within 1/8 in of the
    apparent reading, true gap within 1/4 in, gauge reading within 0.2 degrees); breaker_label's
    main amperage and rows count half each, the rows matched in any order, each reply row used
    once, extra rows not penalised; `tilted` scored on every tape_gap frame.
  - "Benchmark set and metrics": text normalised by upper-casing and keeping letters and digits.
Lists of damage types (damage_view) are compared as sets.

A truth may list several acceptable values, `{"any_of": [value, ...]}` (a real photograph that
shows two faces of a car): the answer scores as its best match among them.

A rule that is not the default for its JSON type is declared on the environment's key
(`DocKey(..., rule=FieldRule(...))` in envs/<env>.py); FIELD_RULES collects them from the registry.
"""
from __future__ import annotations

import math
import re
from functools import lru_cache
from typing import Any, Callable, Optional, Sequence

from ..core.doc_fields import FieldRule


@lru_cache(maxsize=1)
def field_rules() -> dict[tuple[str, str], FieldRule]:
    """(environment, key) -> its non-default rule, from the keys of every registered environment. The paper's
    (spec: "The eleven environments"): tape_gap's reading within 1/8 in, gap within 1/4 in, `tilted` scored on
    every frame; slope_gauge's reading within 0.2 degrees; breaker_label's rows; damage_view's set of types."""
    from ..envs import registry

    return {(env, key.name): key.rule for env, key in registry.doc_keys() if key.rule is not None}


def __getattr__(name: str):
    if name == "FIELD_RULES":  # the table, read from the environments when first asked for
        return field_rules()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

# Numbers without a tolerance must be equal; this absorbs float noise only (200 vs 200.0).
EXACT_EPS = 1e-9


def rule(environment: str, key: str) -> Optional[FieldRule]:
    return field_rules().get((environment, key))


def all_frames(environment: str, key: str) -> bool:
    r = rule(environment, key)
    return bool(r and r.all_frames)


def normalise_text(value: Any) -> str:
    """Upper-case, keep ASCII letters and digits only ("Kitchen counter 2" -> "KITCHENCOUNTER2")."""
    return re.sub(r"[^A-Z0-9]", "", str(value).upper())


def is_number(value: Any) -> bool:
    """A finite number a float can hold (a reply's 400-digit integer is not one: it would overflow)."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


def numbers_equal(a: Any, b: Any, tolerance: float = 0.0) -> bool:
    if not (is_number(a) and is_number(b)):
        return False
    return abs(float(a) - float(b)) <= tolerance + EXACT_EPS


def max_matching(n_left: int, n_right: int, compatible: Callable[[int, int], bool]) -> list[tuple[int, int]]:
    """A maximum bipartite matching (Kuhn's augmenting paths; exact, O(V E): rows are few).

    Returns (left, right) pairs, each left and each right used at most once.
    """
    adjacency = [[j for j in range(n_right) if compatible(i, j)] for i in range(n_left)]
    match_right: list[Optional[int]] = [None] * n_right

    def augment(i: int, seen: list[bool]) -> bool:
        for j in adjacency[i]:
            if seen[j]:
                continue
            seen[j] = True
            if match_right[j] is None or augment(match_right[j], seen):
                match_right[j] = i
                return True
        return False

    for i in range(n_left):
        augment(i, [False] * n_right)
    return sorted((i, j) for j, i in enumerate(match_right) if i is not None)


def _row_matches(truth_row: dict, reply_row: Any, row_keys) -> bool:
    if not isinstance(reply_row, dict):
        return False
    for key, json_type in row_keys:
        if key not in truth_row or key not in reply_row:
            return False
        if json_type == "number":
            if not numbers_equal(reply_row[key], truth_row[key]):
                return False
        elif normalise_text(reply_row[key]) != normalise_text(truth_row[key]):
            return False
    return True


def score_rows(truth: Sequence[dict], answer: Any, row_keys) -> float:
    """Fraction of the truth's rows matched by a reply row (same values, any order, each reply row used once;
    extra reply rows are not penalised)."""
    if not isinstance(answer, list):
        return 0.0
    if not truth:
        return 1.0
    pairs = max_matching(len(truth), len(answer), lambda i, j: _row_matches(truth[i], answer[j], row_keys))
    return len(pairs) / len(truth)


def _as_text_set(values: Any) -> Optional[frozenset]:
    if not isinstance(values, list):
        return None
    return frozenset(normalise_text(v) for v in values)


ANY_OF = "any_of"


def acceptable_truths(truth: Any) -> Optional[list]:
    """The values of an `{"any_of": [...]}` truth; None for a plain truth."""
    if isinstance(truth, dict) and list(truth) == [ANY_OF] and isinstance(truth[ANY_OF], list):
        return truth[ANY_OF]
    return None


def score_field(environment: str, key: str, json_type: str, truth: Any, answer: Any) -> float:
    """One field's documentation score in [0, 1]. A missing answer (None) scores 0."""
    if answer is None:
        return 0.0
    options = acceptable_truths(truth)
    if options is not None:
        return max((score_field(environment, key, json_type, t, answer) for t in options), default=0.0)
    r = rule(environment, key)
    if r is not None and r.kind == "tolerance":
        return float(numbers_equal(answer, truth, r.tolerance))
    if r is not None and r.kind == "rows":
        return score_rows(truth or [], answer, r.row_keys)
    if (r is not None and r.kind == "set") or (json_type == "array" and _as_text_set(truth) is not None
                                               and all(not isinstance(v, (dict, list)) for v in truth)):
        got, want = _as_text_set(answer), _as_text_set(truth)
        return float(got is not None and got == want)
    if json_type == "boolean":
        return float(isinstance(answer, bool) and answer == truth)
    if json_type == "number":
        return float(numbers_equal(answer, truth))
    if json_type == "string":
        return float(isinstance(answer, (str, int, float)) and not isinstance(answer, bool)
                     and normalise_text(answer) == normalise_text(truth))
    return float(answer == truth)
