"""The "scorer-acceptable (%)" row of the paper's Table 9: the share of each environment's random frames
that the scorer accepts, from the set's items alone (no model reply enters it).

What counts, per environment, over the frames of the random stratum (the positive stratum is left out:
it was drawn to be accepted):

  accepted   the scorer accepts the frame; in an environment whose acceptability is not scored at all
             (car_plate, by rule) the frame's terms all pass: the paper's scorer-acceptable frames
             (answers/counting.py, the paper's documentation rule), which its row reports for car_plate
             too (21%) while models get no acceptability score there
  counted    accepted + the frames the scorer rejects (a failing term)
  left out   gray frames (the verdict rests on a gray term only: the paper dropped them from its set)
             and frames a scene rule leaves unscored (a rail attachment missing its lag bolt or
             flashing: no verdict to count)

share = accepted / counted, per environment, printed as a whole percent rounded half up; no pooled
figure (the paper's table gives none). Why gray frames are out of the denominator: the paper's
Table 10 scores imply 23 accepted random car_view frames and 24 damage_view ones (multiples of 1/23
and 1/24), which print as its 26 and 28 only over 87-90 and 85-87 frames, not 100 (its set dropped
the gray frames); car_plate's 21 accepted of 100 print as its 21. The paper's bolt-less rail frames
were all in the positive stratum (1,265 of its 1,378 frames scored: 100 car_plate + 13; its Table 12
has 49 accepted rail frames = 12 random + 37 positive), so its row does not show how a random one
would count; here it is left out, as it is of the false-accept denominator. The share is the
complement of that denominator: a counted random frame the scorer does not accept is one a model's
false accept is measured on.
"""
from __future__ import annotations

from typing import Iterable, Optional

from ..answers import counting

ACCEPTED, REJECTED, GRAY, SCENE_RULE = "accepted", "rejected", "gray", "unscored_by_scene_rule"


def classify(item) -> str:
    """How one random frame enters the row: ACCEPTED, REJECTED, GRAY or SCENE_RULE (the last two left out)."""
    if item.verdict == "accept":
        return ACCEPTED
    if item.verdict == "reject":
        return REJECTED
    if item.verdict == "unscored":
        if counting.excluded_by_scene_rule(item):
            return SCENE_RULE
        # the whole environment is unscored (car_plate): its terms decide, as for the paper's scorer-acceptable frames
        cls = counting.documentation_class(item, counting.PAPER)
        return {counting.ACCEPTABLE: ACCEPTED, counting.REJECTED: REJECTED}.get(cls, GRAY)
    return GRAY  # "gray" (or a verdict the harness does not know: never counted)


def scorer_acceptable(items: Iterable) -> dict[str, dict]:
    """Per environment (sorted): the random frames, the positive frames left out, each class's count, the share
    (None without a counted frame) and whether the environment's acceptability is scored for models."""
    items = list(items)
    out: dict[str, dict] = {}
    for item in items:
        e = out.setdefault(item.environment, {"random_frames": 0, "positive_frames": 0, ACCEPTED: 0, REJECTED: 0,
                                              GRAY: 0, SCENE_RULE: 0, "acceptability_scored": True})
        if item.stratum != "random":
            e["positive_frames"] += item.stratum == "positive"
            continue
        e["random_frames"] += 1
        e[classify(item)] += 1
    for item in items:  # the environment's own rule (car_plate), not a scene rule: models get no acceptability score
        if item.verdict == "unscored" and not counting.excluded_by_scene_rule(item):
            out[item.environment]["acceptability_scored"] = False
    for env, e in out.items():
        e["counted"] = e[ACCEPTED] + e[REJECTED]
        e["share"] = e[ACCEPTED] / e["counted"] if e["counted"] else None
        e["percent"] = percent(e[ACCEPTED], e["counted"])
    return {env: out[env] for env in sorted(out)}


def set_items(runs) -> list:
    """The set's items as the report's runs hold them: each frame once (check_one_set has made sure that a frame
    two runs share is the same frame)."""
    seen: dict[str, object] = {}
    for run in runs:
        for item in run.items:
            seen.setdefault(item.frame_id, item)
    return [seen[f] for f in sorted(seen)]


def percent(accepted: int, counted: int) -> Optional[int]:
    """100 x accepted / counted as the paper prints it, a whole number rounded half up (exactly, on the counts)."""
    return (200 * accepted + counted) // (2 * counted) if counted else None


def cell(e: Optional[dict]) -> str:
    """The Markdown cell: the percentage as the paper prints it, then accepted / counted; a dagger where models get
    no acceptability score (car_plate)."""
    if e is None or e["counted"] == 0:
        return "n/a"
    mark = "" if e["acceptability_scored"] else " †"
    return f"{e['percent']} ({e[ACCEPTED]}/{e['counted']}){mark}"


NOTE = ("Scorer-acceptable (%): the paper's Table 9 row, the share of an environment's random frames that the "
        "scorer accepts (accepted / counted; whole percent, rounded half up), from the set's items. Counted: the "
        "random frames the scorer accepts or rejects; positive-stratum frames, gray frames and frames a scene rule "
        "leaves unscored (a rail attachment missing a part) are left out. † acceptability not scored for models "
        "(car_plate): the share counts the random frames whose terms all pass, as the paper's row does; its F1 and "
        "false accept are n/a.")
