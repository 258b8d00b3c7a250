"""Which frames count for what: the one place that decides it (docs/evaluation.md, "Which frames count").

Acceptability: frames the scorer accepts or rejects; gray frames and frames not scored for
acceptability (a whole environment, car_plate; or a scene rule, a rail attachment missing its lag
bolt or flashing) are left out.

Documentation, by one of two rules (`eval report --documentation-frames`, `eval rescore` too):

  paper           (default) the scorer-acceptable frames, as the paper scores them: frames the scorer
                  accepts, plus the frames of an environment whose acceptability is not scored at all
                  (car_plate) whose terms all pass. A frame left out of acceptability by a scene rule
                  does not count: the paper removed those rail_attachment frames from the benchmark.
  all-terms-pass  every frame whose terms all pass, scene-rule exclusions included (the harness's rule
                  before the paper's was adopted: "its documentation still counts").

Under both, a field marked `all_frames` in fields.FIELD_RULES (tape_gap.tilted) counts on every frame
of its environment. A field counts only where the frame's ground truth labels it: every field of a
rendered frame, the labelled fields of a real photograph (whose acceptability is not scored). The
same rule says which frames are scorer-rejected for the analysis of documentation on rejected
frames: a failing term, on a frame the rule does not drop.

Gray frames (is_gray) are left out of what is asked and scored by default: sets.load_items drops them
before asking and summary.load_run before scoring, unless the run was asked with `--include-gray`.

A frame excluded from acceptability says why in its `unscored_reason`; an environment-wide exclusion
starts with core.rescoring.RULE_PREFIX. Items recorded before the reason was kept (older run folders)
fall back to the shipped preset of their environment (`acceptability_scored = false`).
"""
from __future__ import annotations

from functools import lru_cache
from typing import Optional

from ..core.errors import RealityBenchError
from ..core.presets import load_environment_preset
from ..core.rescoring import RULE_PREFIX
from . import fields as F

PAPER = "paper"
ALL_TERMS_PASS = "all-terms-pass"
RULES = (PAPER, ALL_TERMS_PASS)
DEFAULT = PAPER

ACCEPTABLE = "acceptable"
REJECTED = "rejected"


@lru_cache(maxsize=None)
def _environment_not_scored(environment: str) -> bool:
    """Whether the shipped preset of `environment` leaves acceptability unscored (an unknown one: no)."""
    try:
        return not load_environment_preset(environment).acceptability_scored
    except (RealityBenchError, OSError, ValueError):  # no shipped preset: no environment-wide rule is known
        return False


def excluded_by_scene_rule(item) -> bool:
    """Left out of acceptability by a rule about the scene (a missing part), not by its environment."""
    if item.verdict != "unscored":
        return False
    reason: Optional[str] = getattr(item, "unscored_reason", None)
    if reason:
        return not reason.startswith(RULE_PREFIX)
    return not _environment_not_scored(item.environment)


def is_gray(item) -> bool:
    """A gray frame: no term fails and one is gray (a verdict the export calls "gray"). The paper's set is "after
    the gray zones": gray frames are left out of what is asked and scored unless a run keeps them
    (`eval run --include-gray`, recorded in run.json as `include_gray`)."""
    if item.verdict == "gray":
        return True
    return bool(item.gray_terms) and item.verdict != "reject" and not item.failing_terms


def check_rule(rule: str) -> str:
    if rule not in RULES:
        raise ValueError(f"unknown documentation rule {rule!r}; expected one of {', '.join(RULES)}")
    return rule


def documentation_class(item, rule: str = DEFAULT) -> Optional[str]:
    """ACCEPTABLE (its documentation counts), REJECTED (a term fails) or None (gray, or dropped by the rule)."""
    check_rule(rule)
    if rule == PAPER and excluded_by_scene_rule(item):
        return None
    if item.verdict == "reject" or item.failing_terms:
        return REJECTED
    if item.verdict == "gray" or item.gray_terms:
        return None
    return ACCEPTABLE if item.verdict in ("accept", "unscored") else None


def documentation_counts(item, rule: str = DEFAULT) -> bool:
    """Whether the frame's documentation is scored (its mean field score enters the documentation score)."""
    return documentation_class(item, rule) == ACCEPTABLE


def field_counts(item, key: str, rule: str = DEFAULT) -> bool:
    """Whether one field is scored on this frame: a labelled field, on documentation-scored frames or
    everywhere (`all_frames`)."""
    if key not in (item.ground_truth or {}):
        return False
    return documentation_counts(item, rule) or F.all_frames(item.environment, key)
