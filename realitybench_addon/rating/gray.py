"""Gray ranges from rater disagreement, on tuning frames only.

For each term of an environment, the frames that inform it are the tuning frames whose every other
term passes (so the term alone decides the scorer's verdict) and that have >= 2 accept/reject
ratings. Each is sorted by the raters' majority:

    accepted  the majority accepts with at least `clear_share` of the answers
    rejected  the same for reject
    split     no clear majority (a tie, or e.g. 3 against 2 at clear_share 2/3)

The values where the majority is not clear are the split frames' values plus the stretch where
accepted and rejected values interleave (for a '>=' term, from the lowest accepted value to the
highest rejected one; mirrored for '<='). The suggested gray range covers them and reaches halfway
to the nearest clear value on each side, where nothing is known either way.
Since a preset's gray range lies on the failing side of its threshold, a range that reaches past
the threshold moves the threshold with it: '>=' t becomes '>=' max(t, hi) with gray [lo, max(t, hi)].

Yes/no terms have no gray range, terms whose gray range is tested on another measurement
(`gray_measure`) and 'between' terms are reported without a suggestion, saying why.
"""
from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Optional

from ..core.presets import Preset, PresetError, save_preset
from ..core.terms import Outcome
from .errors import RatingsError

CLEAR_SHARE = 2 / 3


def _round(x: float) -> float:
    return float(f"{x:.4g}")


def majority_class(answers: list[str], clear_share: float = CLEAR_SHARE) -> Optional[str]:
    """'accepted' | 'rejected' | 'split' for >= 2 accept/reject answers; None for fewer."""
    if len(answers) < 2:
        return None
    top, n = Counter(answers).most_common(1)[0]
    if 2 * n > len(answers) and n / len(answers) >= clear_share - 1e-9:
        return "accepted" if top == "accept" else "rejected"
    return "split"


def refuse_held_out(frame_ids, split: dict[str, str]) -> None:
    held = sorted(f for f in frame_ids if split.get(f) != "tuning")
    if held:
        raise RatingsError(f"tuning on held-out frames is refused ({len(held)} given, e.g. {held[0]}); gray ranges "
                           f"and thresholds are tuned on the tuning part of the split only")


def _ambiguous_range(comparator: str, accepted: list[float], rejected: list[float], split: list[float]):
    """(lo, hi) of the values where the majority is not clear, or None when it is clear everywhere.

    The unclear values are the split ones and those where accepted and rejected interleave; the range
    reaches halfway from them to the nearest clear value on either side (nothing is known in between)."""
    low_side, high_side = (rejected, accepted) if comparator == ">=" else (accepted, rejected)
    unclear = list(split)
    if low_side and high_side:
        a, b = min(high_side), max(low_side)  # interleaving: high-side values below b, low-side above a
        unclear += [v for v in low_side + high_side if a <= v <= b]
    if not unclear:
        return None
    lo, hi = min(unclear), max(unclear)
    below = [v for v in low_side if v < lo]
    above = [v for v in high_side if v > hi]
    return ((lo + max(below)) / 2 if below else lo), ((hi + min(above)) / 2 if above else hi)


def _separating_interval(comparator: str, accepted: list[float], rejected: list[float]):
    if not accepted or not rejected:
        return None
    if comparator == ">=" and max(rejected) < min(accepted):
        return [_round(max(rejected)), _round(min(accepted))]
    if comparator == "<=" and max(accepted) < min(rejected):
        return [_round(max(accepted)), _round(min(rejected))]
    return None


def term_suggestion(preset: Preset, term_name: str, values: dict[str, float], classes: dict[str, str]) -> dict:
    """One term's evidence and suggested edit; `values` and `classes` cover its informing frames."""
    spec = preset.term(term_name)
    groups = {c: sorted(_round(values[f]) for f in values if classes[f] == c) for c in ("accepted", "rejected", "split")}
    out = {"environment": preset.environment, "term": term_name, "unit": spec.unit, "comparator": spec.comparator,
           "threshold": spec.threshold, "gray": spec.gray, "informing_frames": len(values),
           "accepted_values": groups["accepted"], "rejected_values": groups["rejected"],
           "split_values": groups["split"], "suggested": None, "reason": None}
    if spec.unit == "bool":
        out["reason"] = "a yes/no term has no gray range"
    elif spec.gray_measure:
        out["reason"] = f"its gray range is tested on {spec.gray_measure}, not on the term's own value"
    elif spec.comparator not in (">=", "<="):
        out["reason"] = f"no suggestion for a {spec.comparator!r} term"
    elif not values:
        out["reason"] = "no rated tuning frame is decided by this term alone"
    if out["reason"]:
        return out
    separating = _separating_interval(spec.comparator, groups["accepted"], groups["rejected"])
    out["separating_interval"] = separating
    if separating is not None:
        t = float(spec.threshold)
        out["threshold_separates"] = (separating[0] < t <= separating[1] if spec.comparator == ">="
                                      else separating[0] <= t < separating[1])
    ambiguous = _ambiguous_range(spec.comparator, groups["accepted"], groups["rejected"], groups["split"])
    if ambiguous is None:
        out["reason"] = "the raters' majority is clear at every rated value: no gray range"
        return out
    lo, hi = _round(ambiguous[0]), _round(ambiguous[1])
    if lo == hi:
        out["reason"] = (f"the unclear frames all have the value {lo:g}: the term does not tell them apart, so "
                         f"no range can be suggested")
        return out
    t = float(spec.threshold)
    if spec.comparator == ">=":
        threshold = max(t, hi)
        gray = [min(lo, threshold), threshold]
    else:
        threshold = min(t, lo)
        gray = [threshold, max(hi, threshold)]
    try:
        preset.with_term(term_name, threshold=threshold, gray=gray)
    except PresetError as exc:
        out["reason"] = f"the range does not fit the preset: {exc}"
        return out
    out["suggested"] = {"threshold": threshold, "gray": gray}
    return out


def suggest_gray(preset: Preset, frames: dict[str, dict], votes: dict[str, dict[str, str]], split: dict[str, str],
                 clear_share: float = CLEAR_SHARE) -> list[dict]:
    """Suggestions for every term of `preset`, from `frames` (frame_id -> {term: TermResult}) of its
    environment, which must all be tuning frames."""
    refuse_held_out(frames, split)
    classes = {f: majority_class(list(votes.get(f, {}).values()), clear_share) for f in frames}
    out = []
    for spec in preset.terms:
        informing = {}
        for f, results in frames.items():
            if classes[f] is None:
                continue
            mine = results[spec.name]
            others_pass = all(r.outcome in (Outcome.PASS, Outcome.NOT_APPLICABLE)
                              for name, r in results.items() if name != spec.name)
            if others_pass and isinstance(mine.value, (int, float)):  # a yes/no value counts as 0 / 1
                informing[f] = float(mine.value)
        out.append(term_suggestion(preset, spec.name, informing, {f: classes[f] for f in informing}))
    return out


def apply_suggestions(presets: dict[str, Preset], suggestions: list[dict], targets: list[str], out_dir,
                      freezes: dict[str, dict]) -> list[str]:
    """Write each target's ('ENV.TERM') suggested edit into OUT_DIR/ENV.toml; the written paths.

    Refused for an environment whose held-out frames were already looked at: tuning after that
    would fit the held-out frames too."""
    by_key = {f"{s['environment']}.{s['term']}": s for s in suggestions}
    edited: dict[str, Preset] = {}
    for target in targets:
        env = target.split(".", 1)[0]
        if env in freezes:
            raise RatingsError(f"{env} is frozen: its held-out frames were reported on {freezes[env]['frozen_at']} "
                               f"with preset {freezes[env]['preset_hash']}; tuning it now would use them")
        if target not in by_key:
            raise RatingsError(f"--apply-gray {target}: no such term among the suggestions (ENV.TERM, e.g. "
                               f"{next(iter(by_key), 'damage_view.camera_distance')})")
        s = by_key[target]
        if s["suggested"] is None:
            raise RatingsError(f"--apply-gray {target}: nothing to apply ({s['reason']})")
        preset = edited.get(env, presets[env])
        edited[env] = preset.with_term(s["term"], **s["suggested"])
    out = Path(out_dir)
    try:
        return [str(save_preset(p, out / f"{env}.toml")) for env, p in sorted(edited.items())]
    except OSError as exc:
        raise RatingsError(f"cannot write presets into {out}: {exc.strerror or exc}") from None
