"""The paper's definitions in the evaluation harness (issue 37), each checked against numbers computed here
independently (numpy / scipy / loops over the scripted answers): the 24 skill-group fields, gray frames left out
of what is asked and scored, the sim-to-real rules, and the scorer against the raters' majority."""
from __future__ import annotations

import json
import re

import numpy as np
import pytest
from scipy import stats as sps

from eval_support import cli, frame, make_set, offline_run
from realitybench_addon.envs import registry
from realitybench_addon.evaluation import skills as SK
from realitybench_addon.evaluation.report import build_report

HORIZON = {"horizon_visible": True, "level": True, "own_roof_blocks": False}
RO = {"ro": "123456", "vin": "1HGCM82633A004352", "body_style": "sedan"}

# ---- 1. skill groups: the paper's 24 fields ---------------------------------------------------------------------


def test_skill_groups_are_the_papers_24_fields_and_the_two_others_are_outside():
    keys = {(env, k.name) for env in registry.available() for k in registry.get(env).prompt_parts.keys}
    assert keys == set(SK.SKILL_GROUPS) | SK.OUTSIDE_PAPER and not set(SK.SKILL_GROUPS) & SK.OUTSIDE_PAPER
    papers = {k: g for k, g in SK.SKILL_GROUPS.items() if k[0] in registry.SPEC_ENVIRONMENTS}
    assert len(papers) == 24  # Table 10's rows
    counts = {g: sum(v == g for v in papers.values()) for g in SK.GROUPS}
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


# ---- 3. sim-to-real: cut replies left out, severity on readable frames, intervals over measured items -----------

SEED = 261014397


def offline_items_run(folder, run_dir, texts: dict, *, model: str, cut: tuple = ()) -> "Path":
    """A model run written straight into the run store for any folder load_items reads (a set or real photos);
    the `cut` frames' replies end with the OpenAI finish reason `length` (cut by the output cap)."""
    from pathlib import Path

    from realitybench_addon.evaluation import providers
    from realitybench_addon.evaluation.runs import RunStore, request_hash
    from realitybench_addon.evaluation.sets import load_items

    settings = providers.Settings()
    items = load_items(folder)
    store = RunStore(run_dir)
    store.open({"kind": "model", "label": model, "provider": "openai", "model": model,
                "base_url": "http://127.0.0.1:9/v1", "settings": settings.to_dict(), "baseline": None})
    hashes = [request_hash("openai", model, settings.to_dict(), a.prompt, a.item.image_sha256) for a in items]
    store.write_items([a.item for a in items], hashes)
    for a, h in zip(items, hashes):
        fid = a.item.frame_id
        store.append_reply({"request_hash": h, "frame_id": fid, "status": "ok", "reply_text": texts[fid],
                            "finish_reason": "length" if fid in cut else "stop",
                            "usage": {"input_tokens": 100, "output_tokens": 20}})
    return Path(run_dir)


def real_photo_folder(directory, rows: list[dict]):
    import io

    from PIL import Image

    directory.mkdir(parents=True)
    lines = []
    for n, row in enumerate(rows):
        name = f"{row['environment']}/{row['frame_id']}.jpg"
        (directory / row["environment"]).mkdir(exist_ok=True)
        buf = io.BytesIO()
        Image.new("RGB", (12, 10), (20 * n % 256, 90, 160)).save(buf, "JPEG")
        (directory / name).write_bytes(buf.getvalue())
        lines.append(json.dumps({"file_name": name, **row}))
    (directory / "metadata.jsonl").write_text("\n".join(lines) + "\n")
    return directory


MODELS = ("m1", "m2", "m3", "m4")
# rendered tape frames t0..t3 (scorer-accepted), t4 rejected; 1 = reading right. m1's t3 reply is cut.
RENDERED_TAPE = {"m1": [1, 1, 1, None], "m2": [1, 1, 0, 0], "m3": [1, 0, 0, 0], "m4": [0, 0, 0, 0]}
# damage frames d0..d4: d0, d4 accepted; d1 fails a framing term (readable); d2, d3 fail a readable term
DAMAGE_FAILING = [[], ["damage_in_frame"], ["sharp_at_target"], ["neighbour_panel_in_frame", "damage_pixels"], []]
RENDERED_SEVERITY = {"m1": [1, 1, 0, 0, 1], "m2": [0, 1, 1, 1, 0], "m3": [1, 0, 1, 1, 1], "m4": [0, 0, 1, 1, 0]}
# real tape photos p0..p5 of measured items A A A B C C; m1's p5 reply is cut
TAPE_ITEMS = ["A", "A", "A", "B", "C", "C"]
REAL_TAPE = {"m1": [1, 1, 0, 1, 1, None], "m2": [1, 0, 0, 1, 1, 0], "m3": [0, 1, 0, 0, 1, 0],
             "m4": [0, 0, 0, 0, 0, 1]}
REAL_SEVERITY = {"m1": [1, 1, 1, 0], "m2": [1, 0, 0, 0], "m3": [1, 1, 0, 0], "m4": [0, 0, 0, 1]}
CUT_TEXT = '{"adequate": true, "reading_in": 4'


def tape_reply(right, truth):
    return CUT_TEXT if right is None else json.dumps(
        {"adequate": True, "reading_in": truth if right else truth + 1.0, "gap_in": 0.0, "tilted": False})


def damage_reply(right):
    return json.dumps({"adequate": True, "damage_types": ["dent"], "severity": "minor" if right else "severe"})


def mine_interval(scores, clusters, seed=SEED, resamples=1000):
    """The cluster bootstrap written out: the clusters sorted, drawn with replacement by default_rng([seed, 1])
    (as stats.model_rng), each draw keeping all of a cluster's readings."""
    names = sorted(set(clusters))
    rng = np.random.default_rng([seed, 1])
    draws = rng.integers(0, len(names), size=(resamples, len(names)))
    values = []
    for row in draws:
        right = total = 0
        for c in row:
            member = [s for s, k in zip(scores, clusters) if k == names[c]]
            right, total = right + sum(member), total + len(member)
        values.append(right / total)
    return tuple(np.percentile(values, [2.5, 97.5]))


def test_sim_to_real_follows_the_papers_definitions(tmp_path):
    frames = [frame("tape_gap", "random", i, "accept", TAPE_TRUTH, None) for i in range(4)]
    frames.append(frame("tape_gap", "random", 4, "reject", TAPE_TRUTH, None))
    frames += [frame("damage_view", "random", i, "reject" if f else "accept",
                     {"damage_types": ["dent"], "severity": "minor"}, None, failing=f)
               for i, f in enumerate(DAMAGE_FAILING)]
    set_dir = make_set(tmp_path / "set", frames)
    photos = [{"frame_id": f"p{i}", "environment": "tape_gap", "ground_truth": {"reading_in": 30.0 + i},
               "measured_item": item} for i, item in enumerate(TAPE_ITEMS)]
    photos += [{"frame_id": f"q{i}", "environment": "damage_view", "ground_truth": {"severity": "minor"}}
               for i in range(4)]
    real = real_photo_folder(tmp_path / "real", photos)
    rendered_runs, real_runs = [], []
    for m in MODELS:
        texts = {f["frame_id"]: tape_reply(RENDERED_TAPE[m][i] if i < 4 else 1, 4.5)
                 for i, f in enumerate(frames[:5])}
        texts.update({f["frame_id"]: damage_reply(RENDERED_SEVERITY[m][i]) for i, f in enumerate(frames[5:])})
        cut = (frames[3]["frame_id"],) if m == "m1" else ()
        rendered_runs.append(offline_items_run(set_dir, tmp_path / "rendered" / m, texts, model=m, cut=cut))
        texts = {f"p{i}": tape_reply(right, 30.0 + i) for i, right in enumerate(REAL_TAPE[m])}
        texts.update({f"q{i}": damage_reply(right) for i, right in enumerate(REAL_SEVERITY[m])})
        real_runs.append(offline_items_run(real, tmp_path / "real-runs" / m, texts, model=m,
                                           cut=("p5",) if m == "m1" else ()))
    build_report(rendered_runs, tmp_path / "report", plots=True, real_dirs=real_runs)
    data = json.loads((tmp_path / "report" / "report.json").read_text())["sim_to_real"]
    q = {x["question"]: x for x in data["questions"]}
    assert set(q) == {"tape_gap.reading_in", "damage_view.severity"}

    readable = [not set(f) & {"sharp_at_target", "damage_unoccluded", "px_per_cm", "damage_pixels",
                              "damage_contrast"} for f in DAMAGE_FAILING]
    assert readable == [True, True, False, False, True]
    expected = {  # question: model: (rendered share, real share), cut replies left out
        "tape_gap.reading_in": {m: ([s for s in RENDERED_TAPE[m] if s is not None],
                                    [s for s in REAL_TAPE[m] if s is not None]) for m in MODELS},
        "damage_view.severity": {m: ([s for s, r in zip(RENDERED_SEVERITY[m], readable) if r], REAL_SEVERITY[m])
                                 for m in MODELS}}
    for question, per_model in expected.items():
        got = {m["label"]: m for m in q[question]["models"]}
        for m, (rendered, real_scores) in per_model.items():
            assert got[m]["rendered"]["value"] == pytest.approx(np.mean(rendered)), (question, m)
            assert got[m]["real"]["value"] == pytest.approx(np.mean(real_scores)), (question, m)
            assert got[m]["rendered"]["frames"] == len(rendered) and got[m]["real"]["frames"] == len(real_scores)
        xs = [np.mean(per_model[m][0]) for m in MODELS]
        ys = [np.mean(per_model[m][1]) for m in MODELS]
        assert q[question]["spearman_rho"] == pytest.approx(sps.spearmanr(xs, ys).statistic)
        assert q[question]["pearson_r"] == pytest.approx(sps.pearsonr(xs, ys).statistic)
    # severity: not the scorer-acceptable frames (d0, d4), on which m2 would score 0 and not 1/3
    assert q["damage_view.severity"]["models"][1]["rendered"]["value"] == pytest.approx(1 / 3)
    # the cut replies: left out (listed), not scored 0
    assert q["tape_gap.reading_in"]["cut_left_out"] == [{"label": "m1", "rendered": 1, "real": 1}]
    m1 = q["tape_gap.reading_in"]["models"][0]
    assert (m1["rendered"]["value"], m1["real"]["value"]) == (1.0, pytest.approx(4 / 5))
    # real intervals over measured items (A, B, C; m1's cut p5 leaves C one reading), rendered over frames
    for n, m in enumerate(MODELS):
        kept = [(s, c) for s, c in zip(REAL_TAPE[m], TAPE_ITEMS) if s is not None]
        lo, hi = mine_interval([s for s, _ in kept], [c for _, c in kept])
        got = q["tape_gap.reading_in"]["models"][n]
        assert (got["real"]["lo"], got["real"]["hi"]) == (pytest.approx(lo), pytest.approx(hi)), m
        assert got["real"]["items"] == 3
        rendered = [s for s in RENDERED_TAPE[m] if s is not None]
        lo, hi = mine_interval(rendered, [f"t{i}" for i in range(len(rendered))])
        assert (got["rendered"]["lo"], got["rendered"]["hi"]) == (pytest.approx(lo), pytest.approx(hi)), m
    assert q["tape_gap.reading_in"]["measured_items"] == 3 and q["tape_gap.reading_in"]["photos"] == 6
    text = (tmp_path / "report" / "report.md").read_text()
    assert "Replies cut by the output cap, left out (not scored 0): tape_gap.reading_in `m1` 1 real, 1 rendered" \
        in text
    for question in q:
        assert (tmp_path / "report" / f"sim_to_real_{question.replace('.', '_')}.png").is_file()


# ---- 4. the scorer against the raters' majority on held-out frames, in eval report -----------------------------


def test_report_gives_the_held_out_scorer_vs_majority_as_ratings_held_out_does(tmp_path):
    """Twenty rail_attachment frames (the camera distance decides: under 1.5 m accepted) and twenty car_view frames;
    five raters with scripted votes: some frames get 2 ratings (too few), some tie 2-2, the rest a strict majority
    that agrees or not with the scorer. The expected held-out agreement is counted here from the votes, the verdicts
    and the stored split; `ratings --held-out` (rating/summary.py) must give the same figure."""
    from collections import Counter

    from rating_support import make_scored_set
    from realitybench_addon.rating.files import Rating
    from realitybench_addon.rating.store import RatingStore
    from realitybench_addon.rating.summary import RatedSet, summarize

    frames = [("rail_attachment", i, {"camera_distance": 0.5 + 0.1 * i}) for i in range(20)]
    set_dir = make_scored_set(tmp_path / "set", frames)
    rows = [json.loads(line) for line in (set_dir / "metadata.jsonl").read_text().splitlines()]
    verdict = {r["frame_id"]: r["verdict"] for r in rows}
    env = {r["frame_id"]: r["environment"] for r in rows}
    store = RatingStore(set_dir, env)
    raters = ["ann", "bob", "cy", "dee", "eve"]
    ratings = []
    for n, f in enumerate(sorted(verdict)):
        kind = n % 4  # 0: 2 ratings; 1: a 2-2 tie; 2: 3-1 with the scorer (a gray frame counts as its reject side); 3: 3-2 against
        scorer = "accept" if verdict[f] == "accept" else "reject"
        other = "reject" if scorer == "accept" else "accept"
        answers = {0: [scorer, other], 1: [scorer, scorer, other, other], 2: [scorer, scorer, scorer, other],
                   3: [other, other, other, scorer, scorer]}[kind]
        ratings += [Rating(f, raters[k], a, seconds=5.0) for k, a in enumerate(answers)]
    store.import_ratings(ratings, "test")
    split = store.split()
    # counted here: held-out frames with >= 3 accept/reject ratings, a strict majority, the scorer accepting or
    # rejecting; agreement = majority equals the verdict
    agree = compared = ties = 0
    for f in verdict:
        votes = [r.answer for r in ratings if r.frame_id == f]
        if split[f] != "held_out" or len(votes) < 3:
            continue
        top, count = Counter(votes).most_common(1)[0]
        if 2 * count <= len(votes):
            ties += 1
            continue
        if verdict[f] not in ("accept", "reject"):
            continue
        compared += 1
        agree += top == verdict[f]
    assert compared >= 3 and 0 < agree < compared and ties >= 1  # the scripted set exercises every case

    from realitybench_addon.evaluation.baselines import baseline_run

    baseline_run(set_dir, tmp_path / "accept", "always-accept", include_gray=True)  # every rated frame asked
    done = cli("eval", "report", tmp_path / "accept", "--ratings", set_dir, "--out", tmp_path / "report",
               "--no-plots")
    assert done.returncode == 0, done.stderr
    held = json.loads((tmp_path / "report" / "report.json").read_text())["ratings"]["scorer_vs_majority_held_out"]
    assert held["all"]["frames"] == compared and held["all"]["ties_excluded"] == ties
    assert held["all"]["agreement"] == pytest.approx(agree / compared)
    # `ratings --held-out` on the same set, presets unchanged since the export: the same figure and interval
    figures = summarize(RatedSet(set_dir), held_out=True)["all"]["scorer_vs_majority"]["held_out"]
    assert (figures["frames"], figures["agreement"], figures["interval"]) == (
        held["all"]["frames"], held["all"]["agreement"], held["all"]["interval"])
    text = (tmp_path / "report" / "report.md").read_text()
    assert "Scorer against the raters' strict majority on the held-out frames with at least 3 ratings" in text
    # a ratings file carries no split: the report says n/a
    (tmp_path / "ratings.csv").write_text("frame_id,rater,rating\n" + "".join(
        f"{r.frame_id},{r.rater},{r.answer}\n" for r in ratings))
    done = cli("eval", "report", tmp_path / "accept", "--ratings", tmp_path / "ratings.csv", "--out",
               tmp_path / "report2", "--no-plots")
    assert done.returncode == 0, done.stderr
    assert json.loads((tmp_path / "report2" / "report.json").read_text())["ratings"][
        "scorer_vs_majority_held_out"] is None
    assert "a ratings file carries no tuning / held-out split" in (tmp_path / "report2" / "report.md").read_text()


# ---- 4b. `ratings` rescores with the presets the set was exported with -------------------------------------------


def test_ratings_rescores_with_the_exports_presets_and_refuses_other_ones(tmp_path):
    """Ten rail_attachment frames at camera distances 0.6 .. 2.4 m. The export used a preset folder whose
    rail_attachment accepts up to 1.2 m (shipped: 1.8 m); the manifest records the folder and
    its hash. `ratings` must score with it (the verdicts counted here from the distances), refuse the shipped
    preset when the folder is gone, and accept an explicit --presets."""
    import shutil
    import subprocess
    import sys

    from rating_support import make_scored_set
    from realitybench_addon.core.presets import load_environment_preset, load_preset, shipped_presets_dir

    distances = [0.6 + 0.2 * i for i in range(10)]
    set_dir = make_scored_set(tmp_path / "set", [("rail_attachment", i, {"camera_distance": d})
                                                  for i, d in enumerate(distances)])
    shipped_text = (shipped_presets_dir() / "rail_attachment.toml").read_text()
    shipped = load_environment_preset("rail_attachment")
    assert shipped.term("camera_distance").comparator == "<=" and shipped.term("camera_distance").threshold > 1.2
    edited_dir = tmp_path / "export-presets"
    edited_dir.mkdir()
    block = shipped_text.split("[terms.camera_distance]", 1)[1].split("\n[", 1)[0]
    (edited_dir / "rail_attachment.toml").write_text(
        shipped_text.replace(block, re.sub(r"\nthreshold = .*", "\nthreshold = 1.2", block)))
    edited = load_preset(edited_dir / "rail_attachment.toml")
    assert edited.content_hash() != shipped.content_hash()
    manifest = {"config": {"preset_dirs": [str(edited_dir)]},
                "versions": {"preset_hashes": {"rail_attachment": edited.content_hash()}}}
    (set_dir / "manifest.json").write_text(json.dumps(manifest))

    def ratings(*extra):
        return subprocess.run([sys.executable, "-m", "realitybench_addon", "ratings", set_dir, *map(str, extra)],
                              capture_output=True, text=True, timeout=120)

    done = ratings()
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["preset_folders"] == [str(edited_dir)]
    assert report["presets_source"] == "the set's manifest (config.preset_dirs)"
    from realitybench_addon.rating.summary import rated_set

    assert rated_set(set_dir).presets["rail_attachment"].content_hash() == edited.content_hash()
    verdicts = rated_set(set_dir).verdicts
    ids = sorted(verdicts)
    expected = ["accept" if d <= 1.2 else "reject" for d in distances]  # the export's 1.2 m, not 1.8 m
    assert [verdicts[f] for f in ids] == expected and "reject" in expected

    shutil.rmtree(edited_dir)  # the export's presets are gone: the shipped ones would load, with another hash
    done = ratings()
    assert done.returncode == 2 and done.stdout == ""
    line, = done.stderr.strip().splitlines()
    assert line.startswith("error: ") and "rail_attachment" in line
    assert edited.content_hash() in line and shipped.content_hash() in line
    done = ratings("--presets", tmp_path / "nothing-here")  # explicit: rescored on purpose, and said so
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["presets_source"] == "--presets"
    assert report["presets_differ_from_export"] == {"rail_attachment": {"exported": edited.content_hash(),
                                                                        "loaded": shipped.content_hash()}}
