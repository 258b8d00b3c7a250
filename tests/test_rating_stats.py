"""Rater agreement, the scorer against the raters' majority, the split and gray suggestions:
against hand-computed small cases and the `krippendorff` package."""
from __future__ import annotations

from collections import Counter

import krippendorff
import numpy as np
import pytest

from rating_support import make_scored_set

from realitybench_addon.core.presets import load_environment_preset, load_preset
from realitybench_addon.rating.agreement import (rater_agreement, scorer_vs_majority,
                                                 strict_majority, votes_by_frame)
from realitybench_addon.rating.errors import RatingsError
from realitybench_addon.rating.files import Rating
from realitybench_addon.rating.gray import apply_suggestions, majority_class, suggest_gray
from realitybench_addon.rating.split import make_split, rater_order
from realitybench_addon.rating.summary import RatedSet, summarize

A, R = "accept", "reject"


def ratings_from(table: dict[str, dict[str, str]]) -> list[Rating]:
    return [Rating(f, r, a) for f, votes in table.items() for r, a in votes.items()]


HAND = {"f1": {"r1": A, "r2": A, "r3": A}, "f2": {"r1": A, "r2": A, "r3": R},
        "f3": {"r1": R, "r2": R}, "f4": {"r1": A, "r3": R}, "f5": {"r2": A}}


def test_agreement_by_hand():
    got = rater_agreement(votes_by_frame(ratings_from(HAND)))
    # frames with >= 2 ratings: f1..f4; pairs 3 + 3 + 1 + 1 = 8, of which 3 + 1 + 1 + 0 agree
    assert (got["frames"], got["raters"], got["ratings"], got["rating_pairs"]) == (4, 3, 10, 8)
    assert got["raw_agreement"] == pytest.approx(5 / 8)
    assert got["ratings_per_frame"] == pytest.approx(10 / 4)
    # coincidences: o_AA = 3 + 1 = 4, o_AR = o_RA = 1 + 1 = 2, o_RR = 2; n_A = 6, n_R = 4, n = 10
    # alpha = 1 - (n - 1) * (o_AR + o_RA) / (2 n_A n_R) = 1 - 9 * 4 / 48
    assert got["alpha"] == pytest.approx(0.25)
    # each rater against the strict majority of the others (>= 2 other ratings, no tie)
    assert got["rater_vs_others"] == {"r1": {"agreement": 1.0, "frames": 1}, "r2": {"agreement": 1.0, "frames": 1},
                                      "r3": {"agreement": 0.5, "frames": 2}}


def test_cant_tell_is_a_skipped_frame():
    ratings = ratings_from(HAND) + [Rating("f3", "r3", "cant_tell"), Rating("f5", "r1", "cant_tell")]
    assert rater_agreement(votes_by_frame(ratings)) == rater_agreement(votes_by_frame(ratings_from(HAND)))


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_alpha_matches_the_krippendorff_package(seed):
    rng = np.random.default_rng(seed)
    n_raters, n_frames = 5, 40
    table = {}
    for f in range(n_frames):
        truth = rng.random() < 0.4
        table[f"f{f}"] = {f"r{r}": (A if (rng.random() < 0.8) == truth else R)
                          for r in range(n_raters) if rng.random() < 0.75}
    got = rater_agreement(votes_by_frame(ratings_from(table)))
    data = np.array([[{A: 1.0, R: 0.0}.get(table[f"f{f}"].get(f"r{r}"), np.nan) for f in range(n_frames)]
                     for r in range(n_raters)])
    assert got["alpha"] == pytest.approx(krippendorff.alpha(reliability_data=data, level_of_measurement="nominal"),
                                         abs=1e-12)


def test_strict_majority():
    assert strict_majority([A, A, R]) == A
    assert strict_majority([A, R]) is None and strict_majority([]) is None
    assert majority_class([A, R]) == "split" and majority_class([A, A]) == "accepted"
    assert majority_class([A, A, A, R, R]) == "split"  # 3 of 5 is short of two thirds
    assert majority_class([R, R, A]) == "rejected" and majority_class([A]) is None


def test_scorer_vs_majority_by_hand():
    votes = {"a": {"x": A, "y": A, "z": R},  # majority accept, scorer accept: agree
             "b": {"x": R, "y": R, "z": R},  # majority reject, scorer accept: disagree
             "c": {"x": A, "y": R, "z": R, "w": A},  # tie: left out
             "d": {"x": A, "y": A},  # two ratings: too few
             "e": {"x": R, "y": R, "z": A},  # majority reject, scorer gray: left out
             "f": {"x": A, "y": A, "z": A},  # majority accept, scorer reject: disagree
             "g": {"x": R, "y": R, "z": R}}  # agree
    verdicts = {"a": A, "b": A, "c": A, "d": R, "e": "gray", "f": R, "g": R}
    envs = dict.fromkeys(verdicts, "env")
    got = scorer_vs_majority(votes, verdicts, envs, verdicts)
    assert (got["frames"], got["ties_excluded"], got["scorer_unscored_excluded"]) == (4, 1, 1)
    assert got["agreement"] == pytest.approx(0.5)
    assert got["scorer_accepts_of_majority_rejects"] == [1, 2]
    assert got["scorer_rejects_of_majority_accepts"] == [1, 2]
    lo, hi = got["interval"]
    assert 0 <= lo < 0.5 < hi <= 1
    perfect = scorer_vs_majority(votes, {**verdicts, "b": R, "f": A}, envs, verdicts)
    assert perfect["agreement"] == 1.0 and perfect["interval"] == [1.0, 1.0]


def test_split_is_60_40_per_environment_stable_and_extends():
    frames = {f"{env}-random-s0-{i:06d}": env for env, n in (("a", 30), ("b", 11)) for i in range(n)}
    split = make_split(frames)
    for env, n in (("a", 30), ("b", 11)):
        counts = Counter(split[f] for f, e in frames.items() if e == env)
        assert counts["tuning"] == round(0.6 * n + 1e-9) if n != 11 else counts["tuning"] == 7  # 6.6 -> 7
    assert make_split(frames) == split
    assert rater_order(frames, "ann") == rater_order(frames, "ann") != rater_order(frames, "bob")
    assert sorted(rater_order(frames, "ann")) == sorted(frames)


def test_the_split_is_made_once_and_stored(tmp_path):
    rows = [("rail_attachment", i, {}) for i in range(10)]
    make_scored_set(tmp_path / "set", rows)
    first = RatedSet(tmp_path / "set").store.split()
    assert Counter(first.values()) == {"tuning": 6, "held_out": 4}
    make_scored_set(tmp_path / "set", rows + [("rail_attachment", 10 + i, {}) for i in range(5)])  # the set grows
    second = RatedSet(tmp_path / "set").store.split()
    assert {f: second[f] for f in first} == first  # no frame changes part
    assert Counter(second[f] for f in second if f not in first) == {"tuning": 3, "held_out": 2}


# ---- gray suggestions: values placed on tuning frames, votes chosen by hand ---------------------------------

def designed_set(tmp_path, environment, term, cases, extra_held_out=4):
    """A set where tuning frames carry `cases` [(value, [answers])] on `term` (all other terms pass),
    plus held-out frames; returns (RatedSet, tuning ids in case order, held-out ids)."""
    n = len(cases) + extra_held_out
    while True:  # enough tuning frames for the cases, and the rest held out
        ids = {f"{environment}-random-s0-{i:06d}": environment for i in range(n)}
        split = make_split(ids)
        tuning = sorted(f for f in ids if split[f] == "tuning")
        if len(tuning) >= len(cases):
            break
        n += 1
    values = {f: v for f, (v, _) in zip(tuning, cases)}
    frames = [(environment, i, {term: values[f]} if f in values else {})
              for i, f in enumerate(sorted(ids))]
    make_scored_set(tmp_path / "set", frames)
    rated = RatedSet(tmp_path / "set")
    assert rated.store.split() == split
    for f, (_, answers) in zip(tuning, cases):
        for k, a in enumerate(answers):
            rated.store.record(Rating(f, f"r{k}", a))
    held = sorted(f for f in ids if split[f] == "held_out")
    return rated, tuning[:len(cases)], held


def suggestion(report, env, term):
    return next(s for s in report["gray_suggestions"] if s["environment"] == env and s["term"] == term)


def test_gray_suggestion_for_a_lower_limit(tmp_path):
    # rail_attachment: attachment_bbox >= 0.02
    cases = [(0.05, [A, A, A]), (0.04, [A, A, A]), (0.03, [A, A, R]), (0.018, [A, A, A]),  # accepted
             (0.025, [A, R]),  # split
             (0.02, [R, R, R]), (0.015, [R, R, A]), (0.01, [R, R, R])]  # rejected
    rated, _, _ = designed_set(tmp_path, "rail_attachment", "attachment_bbox", cases)
    s = suggestion(summarize(rated), "rail_attachment", "attachment_bbox")
    assert s["accepted_values"] == [0.018, 0.03, 0.04, 0.05]
    assert s["rejected_values"] == [0.01, 0.015, 0.02]
    assert s["split_values"] == [0.025]
    # not clear: the split value 0.025 and the interleaved stretch [min accepted, max rejected] = [0.018, 0.02];
    # widened halfway to the nearest clear values, 0.015 (rejected) and 0.03 (accepted): [0.0165, 0.0275].
    # The range reaches past the threshold 0.02, so the threshold moves up with it.
    assert s["suggested"] == {"threshold": 0.0275, "gray": [0.0165, 0.0275]}


def test_gray_suggestion_for_an_upper_limit_applied_and_rescored(tmp_path):
    # rail_attachment: camera_distance <= 1.8 m
    cases = [(0.8, [A, A, A]), (1.0, [A, A]), (1.4, [A, A, R]),
             (1.6, [A, R, A, R]),
             (1.3, [R, R, R]), (2.0, [R, R, A]), (2.2, [R, R])]
    rated, tuning, _ = designed_set(tmp_path, "rail_attachment", "camera_distance", cases)
    report = summarize(rated)
    s = suggestion(report, "rail_attachment", "camera_distance")
    assert (s["accepted_values"], s["rejected_values"], s["split_values"]) == ([0.8, 1.0, 1.4], [1.3, 2.0, 2.2], [1.6])
    # unclear: 1.6 (split) and the interleaved [1.3, 1.4]; halfway to 1.0 (accepted) and 2.0 (rejected)
    assert s["suggested"] == {"threshold": 1.15, "gray": [1.15, 1.8]}
    # the other terms pass on every frame and are clear: no suggestion, and says why
    assert suggestion(report, "rail_attachment", "attachment_bbox")["suggested"] is None
    written = apply_suggestions(rated.presets, report["gray_suggestions"], ["rail_attachment.camera_distance"],
                                tmp_path / "tuned", rated.store.freezes())
    edited = load_preset(written[0])
    term = edited.term("camera_distance")
    assert (term.threshold, term.gray) == (1.15, (1.15, 1.8))
    assert load_environment_preset("rail_attachment").term("camera_distance").threshold == 1.8  # shipped one intact
    after = RatedSet(tmp_path / "set", [tmp_path / "tuned"]).verdicts
    by_value = dict(zip([v for v, _ in cases], tuning))
    assert (rated.verdicts[by_value[1.4]], after[by_value[1.4]]) == ("accept", "gray")
    assert (rated.verdicts[by_value[1.6]], after[by_value[1.6]]) == ("accept", "gray")
    assert (rated.verdicts[by_value[1.3]], after[by_value[1.3]]) == ("accept", "gray")
    assert (after[by_value[1.0]], after[by_value[2.0]]) == ("accept", "reject")


def test_tuning_on_held_out_frames_is_refused(tmp_path):
    rated, _, held = designed_set(tmp_path, "rail_attachment", "camera_distance", [(1.0, [A, A])])
    preset = rated.presets["rail_attachment"]
    frames = {f: rated.results[f] for f in held}
    with pytest.raises(RatingsError, match="tuning on held-out frames is refused"):
        suggest_gray(preset, frames, {}, rated.store.split())


def test_held_out_is_sealed_then_reported_once_and_frozen(tmp_path):
    cases = [(0.8, [A, A, A]), (1.6, [A, R, A, R]), (2.0, [R, R, A])]
    rated, _, held = designed_set(tmp_path, "rail_attachment", "camera_distance", cases)
    for f in held:
        for k, a in enumerate([A, A, R]):
            rated.store.record(Rating(f, f"r{k}", a))
    sealed = summarize(rated)["environments"]["rail_attachment"]["scorer_vs_majority"]["held_out"]
    assert sealed["sealed"] is True and sealed["frames_with_enough_ratings"] == len(held)
    assert "agreement" not in sealed
    report = summarize(rated, held_out=True)
    figures = report["environments"]["rail_attachment"]["scorer_vs_majority"]["held_out"]
    assert figures["part"] == "held_out" and figures["clean"] is True
    assert figures["frames"] == len(held) and figures["agreement"] == 1.0  # all pass, majority accepts
    assert report["frozen"]["rail_attachment"]["preset_hash"] == rated.presets["rail_attachment"].content_hash()
    with pytest.raises(RatingsError, match="rail_attachment is frozen"):
        apply_suggestions(rated.presets, report["gray_suggestions"], ["rail_attachment.camera_distance"],
                          tmp_path / "tuned", rated.store.freezes())
    # a scorer changed after the freeze: its held-out figures are marked as no longer clean
    changed = rated.presets["rail_attachment"].with_term("camera_distance", threshold=1.7)
    from realitybench_addon.core.presets import save_preset

    save_preset(changed, tmp_path / "other" / "rail_attachment.toml")
    again = summarize(RatedSet(tmp_path / "set", [tmp_path / "other"]), held_out=True)
    stale = again["environments"]["rail_attachment"]["scorer_vs_majority"]["held_out"]
    assert stale["clean"] is False and "no longer held-out" in stale["note"]
    assert again["frozen"]["rail_attachment"]["preset_hash"] == rated.presets["rail_attachment"].content_hash()
