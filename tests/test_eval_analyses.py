"""The paper's analyses in `eval report`, each on a small set whose right answers are worked out by hand below:
which frames count, ensembles (cross-fitted routing and the majority), misreadings, documentation on rejected
frames, skill groups, top groups and tokens per item. Runs are asked over HTTP of the scripted local server."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from eval_support import ENVIRONMENT_RULE, TAPE, cli, csv_rows, frame, make_set, one_line_error, served_run
from realitybench_addon.answers.items import load_set
from realitybench_addon.envs import registry
from realitybench_addon.evaluation import skills as SK
from realitybench_addon.evaluation.pricing import load_prices
from realitybench_addon.evaluation.report import build_report




def prices(tmp_path, per_model: dict) -> Path:
    path = tmp_path / "prices.toml"
    path.write_text('currency = "USD"\n' + "".join(
        f'[[price]]\nmodel = "{m}"\ninput = {i}\noutput = {o}\nsource = "test"\ndate = "2025-01-01"\n'
        for m, (i, o) in per_model.items()))
    return path


def tape(reading, gap, tilted, adequate):
    return {"adequate": adequate, "reading_in": reading, "gap_in": gap, "tilted": tilted}


def label(brand, model, serial, on, adequate):
    return {"adequate": adequate, "brand": brand, "model": model, "serial": serial, "on": on}


EQUIPMENT = {"brand": "Sunvolt", "model": "SV-400M", "serial": "A1B2C3", "on": "module"}
TAPE_REJECTED = {"reading_in": 3.0, "gap_in": 3.2, "tilted": True}


# ---- 1. which frames count ------------------------------------------------------------------------------------

def test_which_frames_count_follows_the_paper_and_the_flag_switches_rules(tmp_path):
    """Frames: cp0 car_plate with its terms passing (scorer-acceptable, counts), cp1 car_plate with a failing term
    (out), ra0 a rail attachment missing its bolt, terms passing (out under the paper's rule, in under the other),
    ra1 an accepted rail attachment, tg0 an accepted tape frame, tg1 a rejected one (tilted counts anyway)."""
    plate = {"plate": "ABC123", "state": "OHIO"}
    frames = [frame("car_plate", "random", 0, "unscored", plate,
                    {"adequate": True, "plate": "ABC-123", "state": "Ohio"}, reason=ENVIRONMENT_RULE),  # both right
              frame("car_plate", "random", 1, "unscored", plate, {"adequate": True, "plate": "X", "state": "OHIO"},
                    failing=["plate_px_per_char"], reason=ENVIRONMENT_RULE),
              frame("rail_attachment", "random", 0, "unscored", {"lag_present": False, "flashing_present": True},
                    {"adequate": False, "lag_present": True, "flashing_present": True}),  # 1/2
              frame("rail_attachment", "random", 1, "accept", {"lag_present": True, "flashing_present": True},
                    {"adequate": True, "lag_present": True, "flashing_present": False}),  # 1/2
              frame("tape_gap", "random", 0, "accept", TAPE, tape(4.5, 4.9408, True, True)),  # 2/3
              frame("tape_gap", "random", 1, "reject", {**TAPE, "tilted": True}, tape(0, 0, True, False))]
    set_dir = make_set(tmp_path / "set", frames)
    served_run(set_dir, tmp_path / "run", {f["frame_id"]: f["answer"] for f in frames}, model="m")
    for rule, documentation, counted, plate_frames, lag_frames in (
            ("paper", (1 + 1 / 2 + 2 / 3) / 3, 3, 1, 1),
            ("all-terms-pass", (1 + 1 / 2 + 1 / 2 + 2 / 3) / 4, 4, 1, 2)):
        extra = [] if rule == "paper" else ["--documentation-frames", rule]  # the paper's rule is the default
        done = cli("eval", "report", tmp_path / "run", "--out", tmp_path / rule, "--no-plots", *extra)
        assert done.returncode == 0, done.stderr
        data = json.loads((tmp_path / rule / "report.json").read_text())
        assert data["documentation_frames"] == rule
        assert data["frames_counted"].pop("gray") == {
            "included": "no run", "runs_including_gray": [], "gray_frames_scored": {},
            "gray_frames_left_out": {"m": 0}}
        assert data["frames_counted"] == {
            "rule": rule, "other_rule": "all-terms-pass" if rule == "paper" else "paper", "frames": 6,
            "acceptability": 3, "documentation": counted, "documentation_other_rule": 7 - counted,
            "excluded_by_scene_rule": 1, "environment_not_scored": 2}
        m = data["runs"][0]["metrics"]
        assert m["documentation"]["value"] == pytest.approx(documentation)
        assert m["fields"]["car_plate.plate"]["frames"] == plate_frames
        assert m["fields"]["rail_attachment.lag_present"]["frames"] == lag_frames
        assert m["fields"]["tape_gap.tilted"]["frames"] == 2  # every tape_gap frame, under both rules
        assert f"Documentation rule `{rule}`" in (tmp_path / rule / "report.md").read_text()
    # eval rescore takes the same flag
    done = cli("eval", "rescore", tmp_path / "run", "--documentation-frames", "all-terms-pass")
    assert done.returncode == 0 and json.loads(done.stdout)["documentation"]["value"] == pytest.approx(
        (1 + 1 / 2 + 1 / 2 + 2 / 3) / 4)


# ---- 2, 5, 6: three models over tape_gap and equipment_label ------------------------------------------------------

def three_models(tmp_path):
    """Eight random frames: tape_gap r0..r3 and equipment_label e0..e3. Sorted by frame id and dealt alternately,
    halves are A = {r0, r2, e0, e2}, B = {r1, r3, e1, e3}; r0, r1, e0, e1 are accepted, the rest rejected.

      m1: tape right on half A, wrong on B; rejects every label; tape documentation right on r0 only; labels right
      m2: tape wrong on A, right on B; labels judged right; tape documentation right on r1 only; label brand only
      m3: accepts everything; tape reading and gap right, tilted true everywhere; label serial wrong
    """
    right = tape(4.5, 4.9408, False, None)
    wrong = tape(0, 0, True, None)
    half_right = tape(4.5, 4.9408, True, None)
    rejected = tape(3.0, 3.2, True, None)
    blank = label("", "", "", "", None)
    plan = {  # frame: (truth, verdict, {model: (accepts, answer)})
        "r0": (TAPE, "accept", {"m1": (True, right), "m2": (False, wrong), "m3": (True, half_right)}),
        "r1": (TAPE, "accept", {"m1": (False, wrong), "m2": (True, right), "m3": (True, half_right)}),
        "r2": (TAPE_REJECTED, "reject", {"m1": (False, rejected), "m2": (True, rejected), "m3": (True, rejected)}),
        "r3": (TAPE_REJECTED, "reject", {"m1": (True, rejected), "m2": (False, rejected), "m3": (True, rejected)}),
        "e0": (EQUIPMENT, "accept", {"m1": (False, label("SUNVOLT", "SV-400M", "A1B2C3", "Module", None)),
                                     "m2": (True, label("Sunvolt", "X", "Y", "inverter", None)),
                                     "m3": (True, label("sunvolt", "sv 400m", "WRONG", "module", None))}),
        "e1": (EQUIPMENT, "accept", {"m1": (False, label("SUNVOLT", "SV-400M", "A1B2C3", "Module", None)),
                                     "m2": (True, label("Sunvolt", "X", "Y", "inverter", None)),
                                     "m3": (True, label("sunvolt", "sv 400m", "WRONG", "module", None))}),
        "e2": (EQUIPMENT, "reject", {"m1": (False, blank), "m2": (False, blank), "m3": (True, blank)}),
        "e3": (EQUIPMENT, "reject", {"m1": (False, blank), "m2": (False, blank), "m3": (True, blank)}),
    }
    frames, answers = [], {m: {} for m in ("m1", "m2", "m3")}
    for key, (truth, verdict, by_model) in plan.items():
        env = "tape_gap" if key[0] == "r" else "equipment_label"
        f = frame(env, "random", int(key[1]), verdict, truth, None)
        frames.append(f)
        for m, (accepts, answer) in by_model.items():
            answers[m][f["frame_id"]] = {**answer, "adequate": accepts}
    set_dir = make_set(tmp_path / "set", frames)
    for m in ("m1", "m2", "m3"):
        served_run(set_dir, tmp_path / m, answers[m], model=m)
    # openai shape: 100 input + 50 output tokens a request; per item m1 2e-4, m2 4e-4, m3 6e-4
    price_file = prices(tmp_path, {"m1": (1, 2), "m2": (2, 4), "m3": (3, 6)})
    return set_dir, [tmp_path / m for m in ("m1", "m2", "m3")], price_file


def test_ensembles_are_cross_fitted_and_the_majority_votes(tmp_path):
    set_dir, runs, price_file = three_models(tmp_path)
    done = cli("eval", "report", *runs, "--out", tmp_path / "report", "--prices", price_file)
    assert done.returncode == 0, done.stderr
    report = tmp_path / "report"
    models = {r["label"]: r for r in csv_rows(report / "models.csv")}
    f1, doc, maj = (models["routed by F1 (cross-fitted)"], models["routed by documentation (cross-fitted)"],
                    models["majority of 3 models"])
    # routed by F1. tape: chosen on A, m1 (F1 1) answers B, where it is wrong; chosen on B, m2 answers A, where it
    # is wrong: r2 and r3 accepted, r0 and r1 rejected. labels: m2 (F1 1 on each half) answers both halves.
    # precision 2/4 (e0, e1 of r2, r3, e0, e1), recall 2/4, F1 1/2; false accept 2/4
    assert float(f1["f1"]) == pytest.approx(0.5) and float(f1["false_accept"]) == pytest.approx(0.5)
    # its documentation: r1 by m1 0, r0 by m2 0, e0 and e1 by m2 1/4 each
    assert float(f1["documentation"]) == pytest.approx((0 + 0 + 1 / 4 + 1 / 4) / 4)
    assert float(f1["cost"]) == pytest.approx(2 * 2e-4 + 6 * 4e-4)  # r1, r3 at m1's price; six at m2's
    # routed by documentation. tape: m1 (1 on r0) answers r1 (0), m2 (1 on r1) answers r0 (0); labels: m1 (1) both
    assert float(doc["documentation"]) == pytest.approx((0 + 0 + 1 + 1) / 4)
    assert float(doc["f1"]) == 0.0  # its verdicts: r2 (m2) and r3 (m1) accepted, nothing else
    assert float(doc["cost"]) == pytest.approx(6 * 2e-4 + 2 * 4e-4)
    # majority: every tape frame has two accepts (r0: m1 m3; r1: m2 m3; r2: m2 m3; r3: m1 m3), e0 e1 two (m2 m3),
    # e2 e3 one (m3): accepts r0..r3, e0, e1; precision 4/6, recall 4/4, F1 0.8
    assert float(maj["precision"]) == pytest.approx(4 / 6) and float(maj["f1"]) == pytest.approx(0.8)
    # answers: r0 and r1 reading and gap right (m1 or m2 with m3), tilted true (m2 or m1 with m3): 2/3 each;
    # labels: brand (all three), model and on (m1, m3) right; serial a three-way tie, won by m1 (listed first): 1
    assert float(maj["documentation"]) == pytest.approx((2 / 3 + 2 / 3 + 1 + 1) / 4)
    assert float(maj["cost"]) == pytest.approx(8 * (2e-4 + 4e-4 + 6e-4))
    assert maj["grammar_share"] == "" and f1["kind"] == "ensemble"
    choices = {(r["ensemble"], r["environment"], r["answered_half"]): r for r in csv_rows(report / "ensembles.csv")}
    assert choices[("routed by F1 (cross-fitted)", "tape_gap", "B")]["chosen"] == "m1"
    assert choices[("routed by F1 (cross-fitted)", "tape_gap", "A")]["chosen"] == "m2"
    assert float(choices[("routed by F1 (cross-fitted)", "tape_gap", "A")]["value_on_choosing_half"]) == 1.0
    assert choices[("routed by F1 (cross-fitted)", "equipment_label", "A")]["chosen"] == "m2"
    assert choices[("routed by documentation (cross-fitted)", "equipment_label", "B")]["chosen"] == "m1"
    data = json.loads((report / "report.json").read_text())
    assert data["cost_plots"]["f1"]["ensembles"] == ["routed by F1 (cross-fitted)", "majority of 3 models"]
    assert data["cost_plots"]["documentation"]["ensembles"] == ["routed by documentation (cross-fitted)",
                                                                "majority of 3 models"]
    text = (report / "report.md").read_text()
    assert "| routed by F1 (cross-fitted) | 8 (0) | 0.500 |" in text and "## Ensembles" in text
    assert "Drawn in f1_vs_cost as stars (ensembles): `routed by F1 (cross-fitted)`, `majority of 3 models`." in text
    assert (report / "f1_vs_cost.png").is_file()


def test_skill_groups_sort_fields_and_correlate_across_models(tmp_path):
    """Field scores (paper's rule: r0, r1, e0, e1; tilted on r0..r3):
         tilted  m1 3/4, m2 3/4, m3 1/2;   reading_in, gap_in  m1 1/2, m2 1/2, m3 1
         brand   1, 1, 1;   model  1, 0, 1;   serial  1, 0, 0;   on  1, 0, 1
       reading (brand, model, serial): 1, 1/3, 2/3; judgment (on, tilted): 7/8, 3/8, 3/4;
       measurement: 1/2, 1/2, 1; F1: m1 1/3 (r0 right, r3 false), m2 3/4, m3 2/3."""
    _, runs, _ = three_models(tmp_path)
    out = build_report(runs, tmp_path / "report", plots=True)
    assert "fields_heatmap.png" in out["files"]
    data = json.loads((tmp_path / "report" / "report.json").read_text())["skills"]
    groups = {m["label"]: m for m in data["models"]}
    assert groups["m1"]["reading"] == 1 and groups["m2"]["reading"] == pytest.approx(1 / 3)
    assert groups["m3"]["reading"] == pytest.approx(2 / 3)
    assert [groups[m]["judgment"] for m in ("m1", "m2", "m3")] == pytest.approx([7 / 8, 3 / 8, 3 / 4])
    assert [groups[m]["measurement"] for m in ("m1", "m2", "m3")] == pytest.approx([1 / 2, 1 / 2, 1])
    assert [groups[m]["f1"] for m in ("m1", "m2", "m3")] == pytest.approx([1 / 3, 3 / 4, 2 / 3])
    # grouped (reading, judgment, measurement), sorted by the mean over models, ties by name
    assert [f["field"] for f in data["fields"]] == [
        "equipment_label.brand", "equipment_label.model", "equipment_label.serial",  # 1, 2/3, 1/3
        "equipment_label.on", "tape_gap.tilted",  # 2/3 each
        "tape_gap.gap_in", "tape_gap.reading_in"]  # 2/3 each
    # three models: rho is 1, -1 or 0 here; the exact permutation p of |rho| = 1 over 3! pairings is 2/6
    corr = {(c["x"], c["y"]): c for c in data["correlations"]}
    assert {k: (c["rho"], c["models"]) for k, c in corr.items()} == {
        ("reading", "judgment"): (pytest.approx(1.0), 3), ("reading", "measurement"): (pytest.approx(0.0), 3),
        ("judgment", "measurement"): (pytest.approx(0.0), 3), ("reading", "f1"): (pytest.approx(-1.0), 3),
        ("judgment", "f1"): (pytest.approx(-1.0), 3), ("measurement", "f1"): (pytest.approx(0.0), 3)}
    assert corr[("reading", "judgment")]["p_permutation"] == pytest.approx(1 / 3)
    assert corr[("reading", "measurement")]["p_permutation"] == pytest.approx(1.0)
    by_label = {r["label"]: r for r in csv_rows(tmp_path / "report" / "skills.csv")}
    assert float(by_label["m2"]["judgment"]) == pytest.approx(3 / 8)
    assert (tmp_path / "report" / "skill_correlations.csv").is_file()


def test_every_documentation_key_of_every_environment_has_one_skill_group():
    keys = {(env, k.name) for env in registry.available() for k in registry.get(env).prompt_parts.keys}
    assert keys == set(SK.SKILL_GROUPS) | SK.OUTSIDE_PAPER  # two keys asked but not in the paper's groups
    papers = {k: g for k, g in SK.SKILL_GROUPS.items() if k[0] in registry.SPEC_ENVIRONMENTS}
    assert set(papers.values()) == set(SK.GROUPS)
    assert [k for k, g in papers.items() if g == SK.MEASUREMENT] == [("tape_gap", "reading_in"), ("tape_gap", "gap_in")]
    assert sum(g == SK.READING for g in papers.values()) == 10  # as in the paper's Table 10


def test_top_groups_are_the_runs_not_detectably_worse_than_the_leader(tmp_path):
    """Twenty random tape frames, ten accepted. lead: every verdict and answer right; twin: the same replies;
    near: one false accept (F1 20/21); never: rejects everything and answers wrong (F1 0, documentation 0).
    twin's difference is 0 in every resample; near's is 0 whenever the resample misses its false accept (about
    (19/20)^20 = 36% of them), so its interval reaches 0; never's is -1 in every resample."""
    frames = [frame("tape_gap", "random", i, "accept" if i < 10 else "reject", TAPE if i < 10 else TAPE_REJECTED,
                    None) for i in range(20)]
    set_dir = make_set(tmp_path / "set", frames)
    right = {f["frame_id"]: {**tape(f["truth"]["reading_in"], f["truth"]["gap_in"], f["truth"]["tilted"],
                                    f["verdict"] == "accept")} for f in frames}
    near = {**right, frames[19]["frame_id"]: {**right[frames[19]["frame_id"]], "adequate": True}}
    never = {fid: tape(0, 0, not a["tilted"], False) for fid, a in right.items()}
    for name, answers in (("lead", right), ("twin", right), ("near", near), ("never", never)):
        served_run(set_dir, tmp_path / name, answers, model=name)
    assert cli("eval", "baseline", set_dir, "--kind", "always-accept", "--out", tmp_path / "accept").returncode == 0
    runs = [tmp_path / n for n in ("lead", "twin", "near", "never", "accept")]
    build_report(runs, tmp_path / "report", plots=False)
    top = json.loads((tmp_path / "report" / "report.json").read_text())["top_groups"]
    assert top["f1"]["leader"] == "lead" and top["f1"]["value"] == 1.0  # twin ties; the first listed leads
    assert top["f1"]["top_group"] == ["lead", "twin", "near"]
    f1 = {r["label"]: r for r in top["f1"]["rows"]}
    assert "accept" not in f1  # a baseline is no candidate
    assert f1["twin"]["difference"] == 0 and (f1["twin"]["lo"], f1["twin"]["hi"]) == (0, 0)
    assert f1["near"]["difference"] == pytest.approx(20 / 21 - 1) and f1["near"]["hi"] == 0
    assert (f1["never"]["difference"], f1["never"]["lo"], f1["never"]["hi"]) == (-1, -1, -1)
    assert not f1["never"]["in_top_group"]
    assert top["documentation"]["top_group"] == ["lead", "twin", "near"]
    table = {(r["metric"], r["label"]): r for r in csv_rows(tmp_path / "report" / "top_groups.csv")}
    assert table[("f1", "never")]["in_top_group"] == "False" and table[("f1", "near")]["in_top_group"] == "True"
    assert "f1: `lead` leads (1.000); top group: `lead`, `twin`, `near`." in \
        (tmp_path / "report" / "report.md").read_text()


# ---- 3. misreadings ------------------------------------------------------------------------------------------------

def test_misreading_table_counts_defects_and_wrong_rejections_by_hand(tmp_path):
    """Scorer-accepted frames t0..t3 (tape), s0 s1 (gauge), a0 a1 (rail); t4 (rejected), a2 (a missing bolt) and
    a3 (rejected) are not in the table. m2's reply on t0 is prose: out of grammar, not an answer."""
    gauge = {"reading_deg": 22.4, "on_module": True}
    rail = {"lag_present": True, "flashing_present": True}
    t = lambda tilted, ok: tape(4.5, 4.9408, tilted, ok)  # noqa: E731
    g = lambda on, ok: {"adequate": ok, "reading_deg": 22.4, "on_module": on}  # noqa: E731
    r = lambda lag, flashing, ok: {"adequate": ok, "lag_present": lag, "flashing_present": flashing}  # noqa: E731
    plan = [("tape_gap", 0, "accept", TAPE, t(True, False), None),
            ("tape_gap", 1, "accept", TAPE, t(True, False), t(False, True)),
            ("tape_gap", 2, "accept", TAPE, t(True, True), t(False, True)),
            ("tape_gap", 3, "accept", TAPE, t(False, False), t(True, False)),
            ("tape_gap", 4, "reject", TAPE_REJECTED, t(True, False), t(True, False)),
            ("slope_gauge", 0, "accept", gauge, g(False, False), g(True, True)),
            ("slope_gauge", 1, "accept", gauge, g(True, False), g(True, True)),
            ("rail_attachment", 0, "accept", rail, r(True, False, False), r(True, True, False)),
            ("rail_attachment", 1, "accept", rail, r(False, False, True), r(True, True, True)),
            ("rail_attachment", 2, "unscored", {**rail, "lag_present": False}, r(False, True, False),
             r(False, True, False)),
            ("rail_attachment", 3, "reject", rail, r(False, True, False), r(False, True, False))]
    frames = [frame(env, "random", i, verdict, truth, None) for env, i, verdict, truth, _, _ in plan]
    set_dir = make_set(tmp_path / "set", frames)
    first = {f["frame_id"]: p[4] for f, p in zip(frames, plan)}
    second = {f["frame_id"]: p[5] for f, p in zip(frames, plan) if p[5] is not None}
    served_run(set_dir, tmp_path / "m1", first, model="m1")
    served_run(set_dir, tmp_path / "m2", {**second, frames[0]["frame_id"]: t(False, True)}, model="m2",
               script={frames[0]["frame_id"]: ["prose"]})
    assert cli("eval", "baseline", set_dir, "--kind", "always-reject", "--out", tmp_path / "reject").returncode == 0
    build_report([tmp_path / "m1", tmp_path / "m2", tmp_path / "reject"], tmp_path / "report", plots=False)
    table = {(row["label"], row["environment"]): row for row in csv_rows(tmp_path / "report" / "misreading.csv")}
    assert {k[0] for k in table} == {"m1", "m2", "all models"}  # the baseline reads nothing

    def check(key, answers, reports, rejects_when_reported, rejected, rejected_with_report):
        row = table[key]
        assert [int(row[c]) for c in ("answers", "reports", "rejects_when_reported", "rejected",
                                      "rejected_with_report")] == [answers, reports, rejects_when_reported, rejected,
                                                                   rejected_with_report], key
        for share, num, den in (("reports_defect", reports, answers),
                                ("rejects_if_reported", rejects_when_reported, reports),
                                ("rejections_with_defect", rejected_with_report, rejected)):
            assert (row[share] == "") if den == 0 else float(row[share]) == pytest.approx(num / den), (key, share)

    # m1 tape: tilted on t0 t1 t2 (3 of 4), rejecting t0 t1 (2 of 3); rejects t0 t1 t3, two of them with the report
    check(("m1", "tape_gap"), 4, 3, 2, 3, 2)
    check(("m2", "tape_gap"), 3, 1, 1, 1, 1)  # t0 out of grammar; t3 tilted and rejected
    check(("all models", "tape_gap"), 7, 4, 3, 4, 3)
    check(("m1", "slope_gauge"), 2, 1, 1, 2, 1)  # s0 off the module and rejected; s1 rejected without a report
    check(("m2", "slope_gauge"), 2, 0, 0, 0, 0)
    check(("m1", "rail_attachment"), 2, 2, 1, 1, 1)  # a0 flashing missing (rejected), a1 both missing (accepted)
    check(("m2", "rail_attachment"), 2, 0, 0, 1, 0)  # a0 rejected with nothing reported
    assert table[("m1", "tape_gap")]["defect"] == "tape is tilted"
    text = (tmp_path / "report" / "report.md").read_text()
    assert "| m1 | tape_gap | tape is tilted | 4 | 75% | 66.7% | 3 | 67% |" in text


# ---- 4. documentation on scorer-rejected frames ------------------------------------------------------------------

def test_documentation_gap_between_accepted_and_rejected_random_frames(tmp_path):
    """Random frames e0 (accepted), e1 (rejected), e2 (gray: out), t0 (accepted), t1 (rejected), r0 (a rail
    attachment missing its bolt, terms passing: out under the paper's rule, accepted under the other); e3 is in the
    positive stratum (out).
      m1: e0 1, e1 1/4 (brand only); t0 2/3 (gap off), t1 2/3 (tilted wrong); r0 1
      m2: e0 3/4 (serial wrong), e1 1; t0 prose (0), t1 1; r0 1/2"""
    other = {"brand": "Helio", "model": "H-1", "serial": "Z9", "on": "inverter"}
    rail = {"lag_present": False, "flashing_present": True}
    plan = [("equipment_label", "random", 0, "accept", EQUIPMENT, label("Sunvolt", "SV-400M", "A1B2C3", "module", True),
             label("Sunvolt", "SV-400M", "B", "module", True)),
            ("equipment_label", "random", 1, "reject", other, label("Helio", "X", "X", "module", False),
             label("Helio", "H-1", "Z9", "inverter", False)),
            ("equipment_label", "random", 2, "gray", other, label("", "", "", "", False), label("", "", "", "", False)),
            ("equipment_label", "positive", 3, "accept", EQUIPMENT, label("", "", "", "", True),
             label("", "", "", "", True)),
            ("tape_gap", "random", 0, "accept", TAPE, tape(4.5, 5.5, False, True), tape(4.5, 4.9408, False, True)),
            ("tape_gap", "random", 1, "reject", TAPE_REJECTED, tape(3.0, 3.2, False, False),
             tape(3.0, 3.2, True, False)),
            ("rail_attachment", "random", 0, "unscored", rail, {"adequate": False, **rail},
             {"adequate": False, "lag_present": True, "flashing_present": True})]
    frames = [frame(env, stratum, i, verdict, truth, None) for env, stratum, i, verdict, truth, _, _ in plan]
    set_dir = make_set(tmp_path / "set", frames)
    served_run(set_dir, tmp_path / "m1", {f["frame_id"]: p[5] for f, p in zip(frames, plan)}, model="m1")
    served_run(set_dir, tmp_path / "m2", {f["frame_id"]: p[6] for f, p in zip(frames, plan)}, model="m2",
               script={frames[4]["frame_id"]: ["prose"]})
    runs = [tmp_path / "m1", tmp_path / "m2"]
    build_report(runs, tmp_path / "paper", plots=False)
    build_report(runs, tmp_path / "all", plots=False, documentation_frames="all-terms-pass")
    gap = {(r["label"], r["environment"], r["field"]): r
           for r in csv_rows(tmp_path / "paper" / "rejected_documentation.csv")}
    m1 = gap[("m1", "*", "*")]
    assert float(m1["accepted"]) == pytest.approx((1 + 2 / 3) / 2) and m1["accepted_frames"] == "2"
    assert float(m1["rejected"]) == pytest.approx((1 / 4 + 2 / 3) / 2) and m1["rejected_frames"] == "2"
    assert float(m1["gap"]) == pytest.approx(5 / 6 - 11 / 24)
    assert float(gap[("m2", "*", "*")]["gap"]) == pytest.approx((3 / 4 + 0) / 2 - 1)
    for model, field, want in (("m1", "model", 1), ("m1", "brand", 0), ("m2", "serial", -1), ("m2", "brand", 0)):
        assert float(gap[(model, "equipment_label", field)]["gap"]) == want, (model, field)
    for model, field, want in (("m1", "reading_in", 0), ("m1", "gap_in", -1), ("m1", "tilted", 1),
                               ("m2", "reading_in", -1), ("m2", "tilted", -1)):
        assert float(gap[(model, "tape_gap", field)]["gap"]) == want, (model, field)
    assert ("m1", "rail_attachment", "lag_present") not in gap  # dropped by the paper's rule
    fields = {(f["environment"], f["field"]): f
              for f in json.loads((tmp_path / "paper" / "report.json").read_text())["rejected_documentation"]["fields"]}
    assert fields[("equipment_label", "serial")]["gap"] == 0 and fields[("tape_gap", "reading_in")]["accepted"] == 0.5
    # the other rule counts r0 as accepted: m1 (1 + 2/3 + 1) / 3 against the same rejected frames
    other_rule = {(r["label"], r["field"]): r for r in csv_rows(tmp_path / "all" / "rejected_documentation.csv")}
    assert float(other_rule[("m1", "*")]["gap"]) == pytest.approx(8 / 9 - 11 / 24)
    assert float(other_rule[("m2", "lag_present")]["accepted"]) == 0
    assert "## Documentation on scorer-rejected frames" in (tmp_path / "paper" / "report.md").read_text()


# ---- 7. tokens per item ------------------------------------------------------------------------------------------

def test_tokens_per_item_reported_and_unknown(tmp_path):
    """Each scripted reply costs 100 prompt tokens and 50 output tokens. OpenAI reports 20 of them as reasoning and
    Gemini 20 as thoughts (visible 30); Anthropic reports one output count and its replies hold thinking blocks, so
    visible and thinking are unknown (never estimated from characters)."""
    frames = [frame("tape_gap", "random", i, "accept", TAPE, tape(4.5, 4.9408, False, True)) for i in range(2)]
    frames.append(frame("equipment_label", "random", 0, "accept", EQUIPMENT,
                        label("Sunvolt", "SV-400M", "A1B2C3", "module", True)))
    set_dir = make_set(tmp_path / "set", frames)
    answers = {f["frame_id"]: f["answer"] for f in frames}
    for provider in ("openai", "anthropic", "gemini"):
        served_run(set_dir, tmp_path / provider, answers, model=f"m-{provider}", provider=provider)
    price_file = prices(tmp_path, {"m-openai": (1, 20), "m-anthropic": (10, 15), "m-gemini": (0.5, 2)})
    build_report([tmp_path / p for p in ("openai", "anthropic", "gemini")], tmp_path / "report",
                 prices=load_prices(price_file), plots=False)
    table = {r["label"]: r for r in csv_rows(tmp_path / "report" / "tokens.csv")}
    for name, want_visible, want_thinking, method in (
            ("m-openai", "30.0", "20.0", "reported"), ("m-gemini", "30.0", "20.0", "reported"),
            ("m-anthropic", "", "", "unknown")):
        row = table[name]
        assert float(row["prompt"]) == 100 and row["items"] == "3", name
        assert (row["visible"], row["thinking"], row["method"]) == (want_visible, want_thinking, method), name
    # prompt share: 100 x input price / (100 x input + 50 x output) per item
    assert float(table["m-openai"]["prompt_share"]) == pytest.approx(100 / 1100)
    assert float(table["m-anthropic"]["prompt_share"]) == pytest.approx(1000 / 1750)
    assert float(table["m-gemini"]["prompt_share"]) == pytest.approx(50 / 150)
    # set costs: gemini 3 x 150e-6, openai 3 x 1100e-6, anthropic 3 x 1750e-6
    assert [table[m]["rank_by_price"] for m in ("m-gemini", "m-anthropic", "m-openai")] == ["1", "2", "3"]
    assert [table[m]["rank_by_cost"] for m in ("m-gemini", "m-openai", "m-anthropic")] == ["1", "2", "3"]
    md = (tmp_path / "report" / "report.md").read_text()
    assert "| m-anthropic | 100 | – | – | unknown |" in md and "characters / 4" not in md


# ---- hostile inputs: one line each, never a traceback --------------------------------------------------------------

def test_runs_from_another_set_missing_fields_and_empty_runs_are_one_line_errors(tmp_path):
    frames = [frame("tape_gap", "random", i, "accept", TAPE, tape(4.5, 4.9408, False, True)) for i in range(3)]
    set_dir = make_set(tmp_path / "set", frames)
    answers = {f["frame_id"]: f["answer"] for f in frames}
    served_run(set_dir, tmp_path / "run", answers, model="m")
    # another set whose frames share ids with this one but not labels
    relabeled = [{**f, "truth": {**TAPE, "reading_in": 9.0}} for f in frames]
    served_run(make_set(tmp_path / "set2", relabeled), tmp_path / "other", answers, model="m")
    one_line_error(cli("eval", "report", tmp_path / "run", tmp_path / "other", "--out", tmp_path / "r1"),
                   "holds frame tape_gap-random-s0-000000 with another image, prompt or labels", "different sets")
    # another set sharing no frame at all
    disjoint = [frame("tape_gap", "random", i, "accept", TAPE, None) for i in range(10, 12)]
    served_run(make_set(tmp_path / "set3", disjoint), tmp_path / "disjoint", answers, model="m")
    one_line_error(cli("eval", "report", tmp_path / "run", tmp_path / "disjoint", "--out", tmp_path / "r2"),
                   "shares no frame with `m`", "different sets")
    # a missing field: an items.jsonl line without its verdict; a run.json without its kind
    broken = tmp_path / "broken"
    served_run(set_dir, broken, answers, model="m")
    lines = (broken / "items.jsonl").read_text().splitlines()
    row = json.loads(lines[1])
    del row["verdict"]
    (broken / "items.jsonl").write_text("\n".join([lines[0], json.dumps(row), *lines[2:]]) + "\n")
    one_line_error(cli("eval", "report", tmp_path / "run", broken, "--out", tmp_path / "r3"),
                   "items.jsonl line 2: the field 'verdict' is missing")
    kindless = tmp_path / "kindless"
    served_run(set_dir, kindless, answers, model="m")
    config = json.loads((kindless / "run.json").read_text())
    del config["kind"]
    (kindless / "run.json").write_text(json.dumps(config))
    one_line_error(cli("eval", "report", kindless, "--out", tmp_path / "r4"), "run.json: the field 'kind' is missing")
    # an empty run: no items at all
    empty = tmp_path / "empty"
    served_run(set_dir, empty, answers, model="m")
    (empty / "items.jsonl").write_text("")
    one_line_error(cli("eval", "report", tmp_path / "run", empty, "--out", tmp_path / "r5"),
                   "holds no items (an empty run)")
    one_line_error(cli("eval", "rescore", empty), "holds no items (an empty run)")
    # a reply line that is not an object leaves its item unanswered (no traceback); a lone model has no ensemble
    odd = tmp_path / "odd"
    served_run(set_dir, odd, answers, model="m")
    with open(odd / "replies.jsonl", "a") as fh:
        fh.write("[1, 2]\n")
    done = cli("eval", "report", odd, "--out", tmp_path / "r6", "--no-plots")
    assert done.returncode == 0, done.stderr
    assert "None: ensembles need two or more model runs asked with the image." in \
        (tmp_path / "r6" / "report.md").read_text()
    assert len(load_set(set_dir)) == 3
