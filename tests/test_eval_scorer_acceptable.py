"""The "scorer-acceptable (%)" row of the paper's Table 9 in `eval report`: the share of each environment's random
frames that the scorer accepts, on a scripted set whose verdicts are known, every count worked out by hand below."""
from __future__ import annotations

import json

from eval_support import ENVIRONMENT_RULE, TAPE, cli, csv_rows, frame, make_set

PLATE = {"plate": "ABC123", "state": "OHIO"}
RAIL = {"lag_present": True, "flashing_present": True}
EQUIPMENT = {"brand": "Sunvolt", "model": "SV-400M", "serial": "A1B2C3", "on": "module"}
HORIZON = {"horizon_visible": True, "level": True, "own_roof_blocks": False}


def scripted_frames() -> list[dict]:
    """Per environment, random frames (r) and positive frames (p):

      tape_gap         r: 2 accept, 3 reject, 1 gray; p: 2 accept        -> 2 of 5 counted = 40
      rail_attachment  r: 1 accept, 2 reject, 1 missing its bolt; p: 1  -> 1 of 3 = 33 (the bolt-less frame is out)
      car_plate        r (not scored by rule): 2 with every term passing, 1 with a failing term, 1 with a gray term
                       only                                              -> 2 of 3 = 67, acceptability not scored
      equipment_label  r: 2 reject                                       -> 0 of 2 = 0
      horizon_peak     r: 1 accept, 7 reject                             -> 1 of 8 = 12.5, printed 13 (half up)
      breaker_label    p: 1 accept, no random frame                      -> n/a
    """
    f = []
    for i, verdict in enumerate(("accept", "accept", "reject", "reject", "reject", "gray")):
        f.append(frame("tape_gap", "random", i, verdict, TAPE, None))
    f += [frame("tape_gap", "positive", i, "accept", TAPE, None) for i in (6, 7)]
    for i, verdict in enumerate(("accept", "reject", "reject", "unscored")):  # unscored: the scene rule (no bolt)
        f.append(frame("rail_attachment", "random", i, verdict, RAIL, None))
    f.append(frame("rail_attachment", "positive", 4, "accept", RAIL, None))
    f.append(frame("car_plate", "random", 0, "unscored", PLATE, None, reason=ENVIRONMENT_RULE))
    f.append(frame("car_plate", "random", 1, "unscored", PLATE, None, reason=ENVIRONMENT_RULE))
    f.append(frame("car_plate", "random", 2, "unscored", PLATE, None, failing=["plate_px_per_char"],
                   reason=ENVIRONMENT_RULE))
    f.append(frame("car_plate", "random", 3, "unscored", PLATE, None, gray=["plate_distance"],
                   reason=ENVIRONMENT_RULE))
    f += [frame("equipment_label", "random", i, "reject", EQUIPMENT, None) for i in (0, 1)]
    f += [frame("horizon_peak", "random", i, "accept" if i == 0 else "reject", HORIZON, None) for i in range(8)]
    f.append(frame("breaker_label", "positive", 0, "accept", {"main_amps": 200, "entries": []}, None))
    return f


# environment: (accepted, counted, printed percent, gray, scene rule, positive, random frames, scored for models)
EXPECTED = {"tape_gap": (2, 5, 40, 1, 0, 2, 6, True),
            "rail_attachment": (1, 3, 33, 0, 1, 1, 4, True),
            "car_plate": (2, 3, 67, 1, 0, 0, 4, False),
            "equipment_label": (0, 2, 0, 0, 0, 0, 2, True),
            "horizon_peak": (1, 8, 13, 0, 0, 0, 8, True),
            "breaker_label": (0, 0, None, 0, 0, 1, 0, True)}


def test_the_row_is_the_share_of_random_frames_the_scorer_accepts(tmp_path):
    set_dir = make_set(tmp_path / "set", scripted_frames())
    # gray frames are asked only with --include-gray: the accept run holds them, the reject run does not; the
    # set's row counts them (left out of its denominator) from the run that holds them
    for kind, extra in (("always-accept", ["--include-gray"]), ("always-reject", [])):
        done = cli("eval", "baseline", set_dir, "--kind", kind, "--out", tmp_path / kind, *extra)
        assert done.returncode == 0, done.stderr
    assert json.loads((tmp_path / "always-accept" / "run.json").read_text())["include_gray"] is True
    assert json.loads((tmp_path / "always-reject" / "run.json").read_text())["include_gray"] is False
    assert [len((tmp_path / k / "items.jsonl").read_text().splitlines()) for k in ("always-accept", "always-reject")
            ] == [len(scripted_frames()), len(scripted_frames()) - 2]  # tape_gap r5 and car_plate r3 are gray
    done = cli("eval", "report", tmp_path / "always-accept", tmp_path / "always-reject", "--out", tmp_path / "report",
               "--no-plots")
    assert done.returncode == 0, done.stderr
    report = tmp_path / "report"

    # report.json: the counts behind each share
    data = json.loads((report / "report.json").read_text())
    rows = data["scorer_acceptable"]
    assert list(rows) == sorted(EXPECTED)
    for env, (accepted, counted, pct, gray, scene, positive, random, scored) in EXPECTED.items():
        e = rows[env]
        assert (e["accepted"], e["counted"], e["percent"], e["gray"], e["unscored_by_scene_rule"],
                e["positive_frames"], e["random_frames"], e["acceptability_scored"]) == (
            accepted, counted, pct, gray, scene, positive, random, scored), env
        assert e["share"] == (accepted / counted if counted else None)
    # the command's stdout names the shares too
    assert json.loads(done.stdout)["scorer_acceptable"] == {
        env: (v[0] / v[1] if v[1] else None) for env, v in EXPECTED.items()}

    # the row is the complement of Table 9's false-accept denominator: always-accept falsely accepts every counted
    # random frame the scorer does not accept, and nothing else
    accept_run = next(r for r in data["runs"] if r["label"] == "always accept")
    for env, (accepted, counted, *_rest, scored) in EXPECTED.items():
        counts = accept_run["environments"][env]["counts"]
        assert counts["random_scorer_rejects"] == (counted - accepted if scored else 0), env
        if scored and counted > accepted:
            assert accept_run["environments"][env]["false_accept"]["value"] == 1.0

    # environments.csv: per run, each run's own frames (here the same for both)
    for row in csv_rows(report / "environments.csv"):
        accepted, counted = EXPECTED[row["environment"]][:2]
        assert (row["scorer_accepted_random"], row["scorer_counted_random"]) == (str(accepted), str(counted))
        assert row["scorer_acceptable"] == ("" if not counted else str(accepted / counted))
    assert len(csv_rows(report / "environments.csv")) == 2 * len(EXPECTED)

    # report.md: the column of the per-environment table, as the paper prints it (whole percent), with the counts
    md = (report / "report.md").read_text()
    table = md.split("## Per environment: F1 [95% CI] / false accept\n", 1)[1].split("\n## ", 1)[0]
    assert table.lstrip().startswith("| environment | scorer-acceptable (%) | always accept | always reject |")
    cells = {line.split(" | ")[0].lstrip("| "): line.split(" | ")[1] for line in table.splitlines()
             if line.startswith("| ") and not line.startswith("| environment")}
    assert cells == {"breaker_label": "n/a", "car_plate": "67 (2/3) †", "equipment_label": "0 (0/2)",
                     "horizon_peak": "13 (1/8)", "rail_attachment": "33 (1/3)", "tape_gap": "40 (2/5)"}
    assert "† acceptability not scored for models (car_plate)" in table
