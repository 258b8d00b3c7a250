"""The paper's definitions in the evaluation harness (issue 37), each checked against numbers computed here
independently (numpy / scipy / loops over the scripted answers): the 24 skill-group fields, gray frames left out
of what is asked and scored, the sim-to-real rules, and the scorer against the raters' majority."""
from __future__ import annotations

import json

import numpy as np
import pytest
from scipy import stats as sps

from eval_support import frame, make_set, offline_run
from realitybench_addon.envs import registry
from realitybench_addon.evaluation import skills as SK
from realitybench_addon.evaluation.report import build_report

HORIZON = {"horizon_visible": True, "level": True, "own_roof_blocks": False}
RO = {"ro": "123456", "vin": "1HGCM82633A004352", "body_style": "sedan"}

# ---- 1. skill groups: the paper's 24 fields ---------------------------------------------------------------------


def test_skill_groups_are_the_papers_24_fields_and_the_two_others_are_outside():
    keys = {(env, k.name) for env in registry.available() for k in registry.get(env).prompt_parts.keys}
    assert keys == set(SK.SKILL_GROUPS) | SK.OUTSIDE_PAPER and not set(SK.SKILL_GROUPS) & SK.OUTSIDE_PAPER
    assert len(SK.SKILL_GROUPS) == 24  # Table 10's rows
    counts = {g: sum(v == g for v in SK.SKILL_GROUPS.values()) for g in SK.GROUPS}
    assert counts == {SK.READING: 10, SK.JUDGMENT: 12, SK.MEASUREMENT: 2}
    assert SK.group_of("horizon_peak.own_roof_blocks") == SK.group_of("ro_board.body_style") == SK.UNGROUPED


def test_judgment_scores_and_correlations_leave_out_the_two_fields(tmp_path):
    """Four models on two horizon frames and two RO-board frames (all scorer-accepted random frames). Each model
    gets the paper's fields right on a known share of frames and the two outside fields right on another share, so
    the judgment score with them would differ. The expected group scores and rho are computed here from the
    per-frame right/wrong table, not read off the harness."""
    # per model: horizon_visible, level, own_roof_blocks right on how many of 2 frames; ro, vin, body_style of 2
    plan = {"m1": (2, 2, 0, 2, 2, 0), "m2": (2, 1, 2, 2, 1, 2), "m3": (1, 0, 2, 1, 1, 2), "m4": (0, 1, 1, 0, 0, 1)}
    frames = [frame("horizon_peak", "random", i, "accept", HORIZON, None) for i in range(2)]
    frames += [frame("ro_board", "random", i, "accept", RO, None) for i in range(2)]
    set_dir = make_set(tmp_path / "set", frames)
    runs, right = [], {}
    for m, (hv, lv, orb, ro, vin, bs) in plan.items():
        texts = {}
        for i in range(2):
            texts[frames[i]["frame_id"]] = json.dumps({
                "adequate": True, "horizon_visible": i < hv, "level": i < lv, "own_roof_blocks": not i < orb})
            texts[frames[2 + i]["frame_id"]] = json.dumps({
                "adequate": True, "ro": "123456" if i < ro else "999999",
                "vin": RO["vin"] if i < vin else "X" * 17, "body_style": "sedan" if i < bs else "pickup"})
        runs.append(offline_run(set_dir, tmp_path / m, texts, model=m))
        right[m] = {"horizon_peak.horizon_visible": hv / 2, "horizon_peak.level": lv / 2,
                    "horizon_peak.own_roof_blocks": orb / 2, "ro_board.ro": ro / 2, "ro_board.vin": vin / 2,
                    "ro_board.body_style": bs / 2}
    build_report(runs, tmp_path / "report", plots=False)
    data = json.loads((tmp_path / "report" / "report.json").read_text())["skills"]
    got = {m["label"]: m for m in data["models"]}
    judgment = {m: np.mean([r["horizon_peak.horizon_visible"], r["horizon_peak.level"]]) for m, r in right.items()}
    reading = {m: np.mean([r["ro_board.ro"], r["ro_board.vin"]]) for m, r in right.items()}
    with_outside = {m: np.mean([r["horizon_peak.horizon_visible"], r["horizon_peak.level"],
                                r["horizon_peak.own_roof_blocks"], r["ro_board.body_style"]]) for m, r in right.items()}
    for m in plan:
        assert got[m]["judgment"] == pytest.approx(judgment[m]) and got[m]["reading"] == pytest.approx(reading[m])
        assert got[m]["measurement"] is None
    assert any(abs(judgment[m] - with_outside[m]) > 0.1 for m in plan)  # the definition matters on this set
    rho = sps.spearmanr([reading[m] for m in plan], [judgment[m] for m in plan]).statistic
    corr = {(c["x"], c["y"]): c for c in data["correlations"]}
    assert corr[("reading", "judgment")]["rho"] == pytest.approx(rho)
    assert corr[("reading", "judgment")]["models"] == 4
    assert data["ungrouped"] == ["horizon_peak.own_roof_blocks", "ro_board.body_style"]
    fields = {f["field"]: f for f in data["fields"]}
    assert fields["ro_board.body_style"]["group"] == SK.UNGROUPED
    assert fields["ro_board.body_style"]["mean"] == pytest.approx(np.mean([r["ro_board.body_style"]
                                                                           for r in right.values()]))
    text = (tmp_path / "report" / "report.md").read_text()
    assert "Fields outside the paper's 24 skill-group fields" in text and "`ro_board.body_style`" in text


# ---- 2. gray frames: left out of what is asked and scored unless --include-gray ---------------------------------

TAPE_TRUTH = {"reading_in": 4.5, "gap_in": 4.9408, "tilted": False}


def test_gray_frames_are_not_asked_or_scored_unless_kept(tmp_path):
    """Five tape frames: two accepted, one rejected, two gray. Every reply says tilted=true (right only on the
    rejected frame, whose truth is tilted). tilted is scored on every tape frame: 1/3 without the gray frames,
    1/5 with them (both gray frames untilted). load_items asks 3 or 5."""
    from realitybench_addon.evaluation.sets import load_items
    from realitybench_addon.evaluation.summary import load_run, rescore

    verdicts = ["accept", "accept", "reject", "gray", "gray"]
    frames = [frame("tape_gap", "random", i, v, {**TAPE_TRUTH, "tilted": v == "reject"}, None)
              for i, v in enumerate(verdicts)]
    set_dir = make_set(tmp_path / "set", frames)
    asked = [a.item.frame_id for a in load_items(set_dir)]
    assert asked == [f["frame_id"] for f in frames if f["verdict"] != "gray"]
    assert len(load_items(set_dir, include_gray=True)) == 5
    texts = {f["frame_id"]: json.dumps({"adequate": True, "reading_in": 4.5, "gap_in": 4.9408, "tilted": True})
             for f in frames}
    run = offline_run(set_dir, tmp_path / "run", texts)  # an older run that asked every frame
    tilted_right = [f["truth"]["tilted"] is True for f in frames]
    not_gray = [v != "gray" for v in verdicts]
    summary = rescore(run)
    expected = np.mean([r for r, k in zip(tilted_right, not_gray) if k])
    assert summary["metrics"]["fields"]["tape_gap.tilted"]["value"] == pytest.approx(expected)
    assert summary["items"] == 3 and summary["gray_frames"] == {"included": False, "left_out": 2}
    config = json.loads((run / "run.json").read_text())
    (run / "run.json").write_text(json.dumps({**config, "include_gray": True}))  # as `eval run --include-gray`
    kept = rescore(run)
    assert kept["metrics"]["fields"]["tape_gap.tilted"]["value"] == pytest.approx(np.mean(tilted_right))
    assert kept["items"] == 5 and kept["gray_frames"] == {"included": True, "left_out": 0}
    assert kept["metrics"]["f1"]["value"] == summary["metrics"]["f1"]["value"] == pytest.approx(0.8)  # F1 4/5
    build_report([run], tmp_path / "report", plots=False)
    gray = json.loads((tmp_path / "report" / "report.json").read_text())["frames_counted"]["gray"]
    assert gray["included"] == "all runs" and gray["gray_frames_scored"] == {"offline-model": 2}
    assert "Gray frames are kept (`eval run --include-gray`" in (tmp_path / "report" / "report.md").read_text()
    assert load_run(run).gray_left_out == 0
