"""Issue 37's analyses in `eval report`, each against an independent computation (numpy, scipy, loops written
here) on a scripted set with known answers: latency per model, the cost figure (frontier, the human pass,
unpriced runs), the verdict-only prompt and the paper's ablation subset, and the drivers of difficulty."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from eval_support import csv_rows, frame, make_set, offline_run, standard_frames, TAPE
from realitybench_addon.evaluation.report import build_report


def with_elapsed(run_dir: Path, seconds: dict) -> None:
    """Give each reply line of an offline run the `elapsed_s` the transport would have recorded."""
    path = run_dir / "replies.jsonl"
    lines = [json.loads(l) for l in path.read_text().splitlines() if l.strip()]
    for line in lines:
        if line["frame_id"] in seconds:
            line["elapsed_s"] = seconds[line["frame_id"]]
    path.write_text("".join(json.dumps(l) + "\n" for l in lines))


# ---- latency ----------------------------------------------------------------------------------------------------

def test_latency_per_model_is_the_median_and_p90_of_the_answered_items(tmp_path):
    frames = standard_frames()
    set_dir = make_set(tmp_path / "set", frames)
    ids = [f["frame_id"] for f in frames]
    texts = {f["frame_id"]: json.dumps(f["answer"]) for f in frames}
    rng = np.random.default_rng(7)
    fast = {fid: float(s) for fid, s in zip(ids, rng.uniform(0.5, 3.0, len(ids)).round(3))}
    slow = {fid: float(s) for fid, s in zip(ids, rng.uniform(10, 90, len(ids)).round(3))}
    offline_run(set_dir, tmp_path / "fast", texts, model="fast", failed=(ids[0],))
    with_elapsed(tmp_path / "fast", fast)
    offline_run(set_dir, tmp_path / "slow", texts, model="slow")
    with_elapsed(tmp_path / "slow", {k: v for k, v in slow.items() if k != ids[1]})  # one line never timed
    build_report([tmp_path / "fast", tmp_path / "slow"], tmp_path / "report", plots=False)
    got = {r["label"]: r for r in csv_rows(tmp_path / "report" / "latency.csv")}
    # the frames the runs score: every frame but the gray one (tg2), as `eval run` asks them
    scored = [f["frame_id"] for f in frames if f["verdict"] != "gray"]
    for name, seconds, left_out in (("fast", fast, {ids[0]}), ("slow", slow, {ids[1]})):
        x = sorted(seconds[f] for f in scored if f not in left_out)
        n = len(x)
        # p90 by hand: linear interpolation between order statistics at (n - 1) * 0.9
        pos = (n - 1) * 0.9
        lo = int(pos)
        p90 = x[lo] + (x[min(lo + 1, n - 1)] - x[lo]) * (pos - lo)
        median = (x[n // 2] if n % 2 else (x[n // 2 - 1] + x[n // 2]) / 2)
        row = got[name]
        assert int(row["answered_timed"]) == n
        assert float(row["median_s"]) == pytest.approx(median)
        assert float(row["p90_s"]) == pytest.approx(p90)
        assert float(row["max_s"]) == pytest.approx(max(x))
    assert got["fast"]["failed"] == "1" and got["fast"]["answered_untimed"] == "0"
    assert got["slow"]["answered_untimed"] == "1"
    data = json.loads((tmp_path / "report" / "report.json").read_text())
    assert [r["label"] for r in data["latency"]] == ["fast", "slow"]
    assert "## Latency per item" in (tmp_path / "report" / "report.md").read_text()


# ---- the cost figure ----------------------------------------------------------------------------------------------

def price_file(tmp_path, per_model: dict, currency="USD") -> Path:
    path = tmp_path / "prices.toml"
    path.write_text(f'currency = "{currency}"\n' + "".join(
        f'[[price]]\nmodel = "{m}"\ninput = {p}\noutput = {p}\nsource = "test"\ndate = "2025-01-01"\n'
        for m, p in per_model.items()))
    return path


def pareto_by_hand(points: dict) -> set:
    """label -> (cost, score): the labels no other label beats on both, one strictly."""
    front = set()
    for a, (ca, va) in points.items():
        beaten = False
        for b, (cb, vb) in points.items():
            if b != a and cb <= ca and vb >= va and (cb < ca or vb > va):
                beaten = True
        if not beaten:
            front.add(a)
    return front


def test_cost_figure_frontier_unpriced_runs_and_the_human_pass(tmp_path):
    from realitybench_addon.evaluation.pricing import load_prices

    frames = standard_frames()
    set_dir = make_set(tmp_path / "set", frames)
    ids = {f"{f['environment']}:{f['stratum']}:{f['frame_id'][-1]}": f["frame_id"] for f in frames}
    texts = {"cheap": {f["frame_id"]: "Looks fine." for f in frames},  # out of grammar: F1 0
             "mid": {f["frame_id"]: json.dumps(f["answer"]) for f in frames},  # F1 20/27
             "dear": {f["frame_id"]: json.dumps({**f["answer"], "adequate": True}) for f in frames},  # F1 6/10
             "best": {f["frame_id"]: json.dumps({**f["answer"], "adequate": f["verdict"] == "accept"})
                      for f in frames},  # the scorer's verdicts: F1 1
             "served": {f["frame_id"]: json.dumps(f["answer"]) for f in frames}}  # no price: hollow
    for name, by_frame in texts.items():
        offline_run(set_dir, tmp_path / name, by_frame, model=f"m-{name}", label=name)
    per_mtok = {"m-cheap": 1.0, "m-mid": 2.0, "m-dear": 5.0, "m-best": 40.0}
    prices = price_file(tmp_path, per_mtok)
    ratings = tmp_path / "ratings.csv"  # bob: accepts tg0 (right) and tg1 (wrong), rejects eq0, accepts tg3
    ratings.write_text("frame_id,rater,rating,seconds\n" + "".join(
        f"{ids[k]},bob,{v},6\n" for k, v in (("tape_gap:random:0", "accept"), ("tape_gap:random:1", "accept"),
                                            ("equipment_label:random:0", "reject"),
                                            ("tape_gap:positive:3", "accept"))))

    def load(items):
        from realitybench_addon.cli.evaluate import load_human_ratings
        return load_human_ratings(ratings, items)

    runs = [tmp_path / n for n in texts]
    build_report(runs, tmp_path / "report", prices=load_prices(prices), ratings=load, human_rate=20.0)
    data = json.loads((tmp_path / "report" / "report.json").read_text())
    fig = data["cost_figure"]
    scored = sum(f["verdict"] != "gray" for f in frames)  # 11: what the runs ask
    cost = {n: scored * 1200 * per_mtok[f"m-{n}"] / 1e6 for n in ("cheap", "mid", "dear", "best")}
    f1 = {"cheap": 0.0, "mid": 20 / 27, "dear": 0.6, "best": 1.0}
    by_run = {r["label"]: r for r in data["runs"]}
    for n in f1:
        assert by_run[n]["cost"]["total"] == pytest.approx(cost[n])
        assert by_run[n]["metrics"]["f1"]["value"] == pytest.approx(f1[n])
    assert set(fig["f1"]["frontier"]) == pareto_by_hand({n: (cost[n], f1[n]) for n in f1}) == {"cheap", "mid", "best"}
    assert fig["f1"]["frontier"] == ["cheap", "mid", "best"]  # cheapest first
    doc = {n: by_run[n]["metrics"]["documentation"]["value"] for n in f1}
    assert set(fig["documentation"]["frontier"]) == pareto_by_hand({n: (cost[n], doc[n]) for n in f1})
    assert fig["f1"]["hollow"] == ["served"] and fig["documentation"]["hollow"] == ["served"]
    # one human pass: 3-12 s per frame at 10-35.91 USD/h over the frames asked (the paper: 11-165 USD for 1,378)
    assert fig["human_pass"]["lo"] == pytest.approx(3 * scored / 3600 * 10)
    assert fig["human_pass"]["hi"] == pytest.approx(12 * scored / 3600 * 35.91)
    assert (round(3 * 1378 / 3600 * 10), round(12 * 1378 / 3600 * 35.91)) == (11, 165)
    # bob's F1: precision 1/2 (random accepts tg0 right, tg1 wrong), recall 2/3 (accepted tg0, eq0, tg3)
    rater = fig["f1"]["rater"]
    assert rater["value"] == pytest.approx(2 * 0.5 * (2 / 3) / (0.5 + 2 / 3))
    assert rater["cost_at_rate"] == pytest.approx(6 * scored / 3600 * 20.0)
    assert fig["documentation"]["rater"] is None
    text = (tmp_path / "report" / "report.md").read_text()
    assert "On the cost frontier of f1_vs_cost (no other priced run costs no more and scores at least as much): " \
           "`cheap`, `mid`, `best`." in text
    assert "Drawn hollow at the left edge of f1_vs_cost (a score, no price): `served`." in text
    assert (tmp_path / "report" / "f1_vs_cost.png").stat().st_size > 10_000
    # prices in another currency: no human band (the paper's range is in USD), and the report says so
    build_report(runs, tmp_path / "eur", prices=load_prices(price_file(tmp_path, per_mtok, "EUR")), plots=False)
    eur = json.loads((tmp_path / "eur" / "report.json").read_text())["cost_figure"]
    assert eur["human_pass"] is None and "EUR" in eur["human_pass_note"]


# ---- the verdict alone and the paper's ablation subset -----------------------------------------------------------

GAUGE = {"reading_deg": 22.4, "on_module": True}
RAIL = {"lag_present": True, "flashing_present": True}


def ablation_frames() -> list[dict]:
    """tape_gap 27 random + 25 positive (2 gray), slope_gauge 25 + 26, rail_attachment 25 + 3 (short), and
    equipment_label frames, which the subset never draws."""
    out = []
    for env, truth, random_n, positive_n in (("tape_gap", TAPE, 27, 25), ("slope_gauge", GAUGE, 25, 26),
                                             ("rail_attachment", RAIL, 25, 3)):
        for i in range(random_n):
            verdict = "gray" if env == "tape_gap" and i < 2 else ("accept" if i % 3 else "reject")
            out.append(frame(env, "random", i, verdict, truth, None))
        for i in range(positive_n):
            out.append(frame(env, "positive", i, "accept", truth, None))
    out += [frame("equipment_label", "random", i, "accept", {"brand": "A", "model": "B", "serial": "C",
                                                            "on": "module"}, None) for i in range(4)]
    return out


def test_the_paper_ablation_subset_is_deterministic_and_stratified(tmp_path):
    from realitybench_addon.evaluation.sets import load_items
    from realitybench_addon.evaluation.subsets import draw

    frames = ablation_frames()
    items = load_items(make_set(tmp_path / "set", frames))
    picked, info = draw(items, "paper-ablation", 0)
    got = {(a.item.environment, a.item.stratum) for a in picked}
    assert got == {(e, s) for e in ("tape_gap", "slope_gauge", "rail_attachment") for s in ("random", "positive")}
    count = {k: sum((a.item.environment, a.item.stratum) == k for a in picked) for k in got}
    # 25 wherever there are 25 or more candidates (tape_gap random: 27 less its 2 gray frames), all 3 otherwise
    assert count == {("tape_gap", "random"): 25, ("tape_gap", "positive"): 25, ("slope_gauge", "random"): 25,
                     ("slope_gauge", "positive"): 25, ("rail_attachment", "random"): 25,
                     ("rail_attachment", "positive"): 3}
    assert info["items"] == 128 and info["short"] == ["rail_attachment positive: 3 of 25"]
    assert not any(a.item.verdict == "gray" for a in picked)
    # the documented draw, recomputed: per (environment, stratum) the sorted candidates, one generator each
    for e, env in enumerate(("tape_gap", "slope_gauge", "rail_attachment")):
        for s, stratum in enumerate(("random", "positive")):
            ids = sorted(a.item.frame_id for a in items if (a.item.environment, a.item.stratum) == (env, stratum))
            rng = np.random.default_rng(np.random.SeedSequence([0, e, s]))
            expect = {ids[i] for i in rng.choice(len(ids), size=min(25, len(ids)), replace=False)}
            assert {a.item.frame_id for a in picked if (a.item.environment, a.item.stratum) == (env, stratum)} == \
                expect
    again, _ = draw(list(reversed(items)), "paper-ablation", 0)  # the same frames in any order of the set
    assert {a.item.frame_id for a in again} == {a.item.frame_id for a in picked}
    other, _ = draw(items, "paper-ablation", 1)
    assert {a.item.frame_id for a in other} != {a.item.frame_id for a in picked}
    # frames of another environment do not move the draw
    fewer, _ = draw([a for a in items if a.item.environment != "equipment_label"], "paper-ablation", 0)
    assert {a.item.frame_id for a in fewer} == {a.item.frame_id for a in picked}


def test_the_verdict_alone_over_http_on_the_ablation_subset_and_rejects_compared_with_first(tmp_path):
    import scipy.stats

    from eval_support import ScriptedServer, cli, one_line_error
    from realitybench_addon.core import prompt as P
    from realitybench_addon.evaluation.grammar import parse_strict

    frames = ablation_frames()
    set_dir = make_set(tmp_path / "set", frames)
    ids = [f["frame_id"] for f in frames if f["verdict"] != "gray"]
    # first: rejects every 4th frame; alone: rejects every 3rd frame
    first = {fid: {"adequate": n % 4 != 0, **{"tape": TAPE, "slope": GAUGE, "rail_": RAIL, "equip": {
        "brand": "A", "model": "B", "serial": "C", "on": "module"}}[next(k for k in ("tape", "slope", "rail_",
                                                                                     "equip") if fid.startswith(k))]}
             for n, fid in enumerate(ids)}
    alone = {fid: {"adequate": n % 3 != 0} for n, fid in enumerate(ids)}
    common = ["--provider", "openai", "--model", "m", "--no-api-key", "--concurrency", "8", "--subset",
              "paper-ablation", "--subset-seed", "3"]
    with ScriptedServer(first) as server:
        done = cli("eval", "run", set_dir, *common, "--base-url", server.url + "/v1", "--out", tmp_path / "first")
        assert done.returncode == 0, done.stderr
    with ScriptedServer(alone) as server:
        done = cli("eval", "run", set_dir, *common, "--base-url", server.url + "/v1", "--variant", "verdict-only",
                   "--out", tmp_path / "alone")
        assert done.returncode == 0, done.stderr
        prompts = ["".join(server._content("openai", r["body"])[0]) for r in server.log]
    assert len(prompts) == 128  # the subset, asked once each
    for text in prompts:  # the verdict alone: the framing and requirement, no question, no documentation keys
        assert "Question:" not in text and '- "' not in text and 'Its only key is "adequate"' in text
        assert "Requirement for the photo: " in text and P.ORDER[P.VERDICT_ONLY] in text
    config = json.loads((tmp_path / "alone" / "run.json").read_text())
    assert config["variant"] == "verdict-only" and config["subset"]["name"] == "paper-ablation"
    assert config["subset"]["seed"] == 3 and config["subset"]["items"] == 128
    asked = [json.loads(l)["frame_id"] for l in (tmp_path / "alone" / "items.jsonl").read_text().splitlines()
             if l.strip()]
    first_asked = [json.loads(l)["frame_id"] for l in (tmp_path / "first" / "items.jsonl").read_text().splitlines()
                   if l.strip()]
    assert sorted(asked) == sorted(first_asked)  # one seed, the same frames for each prompt
    # grammar: the verdict alone is one key; a documentation key is unexpected
    assert parse_strict('{"adequate": false}', "tape_gap", (("tilted", "boolean"),), P.VERDICT_ONLY)[1] == []
    assert parse_strict('{"adequate": false, "tilted": true}', "tape_gap", (("tilted", "boolean"),),
                        P.VERDICT_ONLY)[1] == ["unexpected key 'tilted'"]
    done = cli("eval", "report", tmp_path / "first", tmp_path / "alone", "--out", tmp_path / "rep", "--no-plots")
    assert done.returncode == 0, done.stderr
    rows = {r["environment"]: r for r in csv_rows(tmp_path / "rep" / "variants.csv")}
    data = json.loads((tmp_path / "rep" / "report.json").read_text())
    alone_summary = next(s for s in data["runs"] if s["variant"] == "verdict-only")
    assert alone_summary["metrics"]["documentation"]["value"] is None  # nothing documented: n/a, not 0
    index = {fid: n for n, fid in enumerate(ids)}
    for env in ("tape_gap", "slope_gauge", "rail_attachment", "all"):
        held = [f for f in asked if env == "all" or f.startswith(env)]
        rf = {f for f in held if index[f] % 4 == 0}
        ra = {f for f in held if index[f] % 3 == 0}
        b, c = len(rf - ra), len(ra - rf)
        r = rows[env]
        assert (int(r["rejects_a"]), int(r["rejects_b"]), int(r["rejects_a_only"]), int(r["rejects_b_only"])) == \
            (len(rf), len(ra), b, c)
        assert float(r["rejects_p_exact"]) == pytest.approx(scipy.stats.binomtest(b, b + c, 0.5).pvalue)
        assert r["claims_a"] == "" and r["claims_p_exact"] == ""  # the verdict alone claims nothing
    one_line_error(cli("eval", "run", set_dir, "--provider", "openai", "--model", "m", "--no-api-key", "--base-url",
                       "http://127.0.0.1:9/v1", "--subset", "paper-ablation", "--subset-seed", "-1", "--out",
                       tmp_path / "bad"), "--subset-seed must be a non-negative integer")
    # which frames are asked is the run's identity: a resume with another subset seed, or every frame, is refused
    first_url = json.loads((tmp_path / "first" / "run.json").read_text())["base_url"]  # the same server
    for other, named in ((["--subset", "paper-ablation", "--subset-seed", "4"], "subset:"), ([], "subset:"),
                         (["--include-gray", *common[-4:]], "include_gray:")):
        one_line_error(cli("eval", "run", set_dir, *common[:-4], *other, "--base-url", first_url,
                           "--out", tmp_path / "first"), "holds a run made with other settings", named)
    assert len((tmp_path / "first" / "replies.jsonl").read_text().splitlines()) == 128  # nothing was added


# ---- drivers of difficulty ---------------------------------------------------------------------------------------

def bonett_wright(rho, n):
    se = np.sqrt((1 + rho ** 2 / 2) / (n - 3))
    return np.tanh(np.arctanh(rho) - 1.959963984540054 * se), np.tanh(np.arctanh(rho) + 1.959963984540054 * se)


def camera(roll, pitch):
    """A camera row whose view direction (minus the third column) is pitched by `pitch` degrees."""
    p = np.radians(pitch)
    forward = np.array([0.0, np.cos(p), np.sin(p)])
    return {"resolution": [160, 120], "pose": {"roll_deg": roll},
            "camera_to_world": [[1, 0, -forward[0], 0], [0, 0, -forward[1], 0], [0, 1, -forward[2], 0], [0, 0, 0, 1]]}


def test_drivers_of_difficulty_against_scipy(tmp_path):
    import scipy.stats

    n_tape, n_label = 14, 10
    rolls = [-13.0, 2.0, 7.5, -1.0, 11.0, 4.0, -9.0, 0.5, 15.0, -3.0, 6.0, 12.5, -8.0, 1.5]
    pitches = [-40.0 + 4.5 * i for i in range(n_tape)]
    pixels = [300 + 97 * ((5 * i) % n_tape) for i in range(n_tape)]
    text_px = [4.0 + 1.3 * ((7 * i) % n_label) for i in range(n_label)]
    truth_label = {"brand": "Sunvolt", "model": "SV-400M", "serial": "A1B2C3", "on": "module"}
    frames = [frame("tape_gap", "random", i, "accept", TAPE, None) for i in range(n_tape)] + \
        [frame("equipment_label", "random", i, "accept", truth_label, None) for i in range(n_label)]
    set_dir = make_set(tmp_path / "set", frames)
    extra = {}
    for i in range(n_tape):
        extra[frames[i]["frame_id"]] = {
            "camera": camera(rolls[i], pitches[i]),
            "measurements": {"crossing_in_frame": True, "crossing_unoccluded": i % 5 != 0,
                             "target_mask_pixels": pixels[i]},
            "terms": {"crossing_in_frame": {"value": 1.0}, "crossing_unoccluded": {"value": 1.0}}}
    for i in range(n_label):
        extra[frames[n_tape + i]["frame_id"]] = {
            "camera": camera(0.0, -10.0),  # constant: no roll or pitch row for the labels
            "measurements": {"text_row_px": text_px[i], "label_unoccluded": 1.0, "view_angle": 10.0 + 3 * i}}
    meta = set_dir / "metadata.jsonl"
    rows = [json.loads(l) for l in meta.read_text().splitlines() if l.strip()]
    meta.write_text("".join(json.dumps({**r, **extra[r["frame_id"]]}) + "\n" for r in rows))

    def tape_answer(tilted, gap=TAPE["gap_in"]):
        return {"adequate": True, "reading_in": TAPE["reading_in"], "gap_in": gap, "tilted": tilted}

    tilted = {  # the scored field is right when the model says "not tilted" (the truth)
        "a": [abs(r) > 7 for r in rolls],  # wrong on the steeply rolled frames: falls with roll
        "b": [i % 3 == 0 for i in range(n_tape)],
        "c": [False] * n_tape}  # always right: constant, no rho
    serial_ok = {"a": [p > 9 for p in text_px], "b": [p > 6 for p in text_px],
                 "c": [i % 2 == 0 for i in range(n_label)]}
    for m in ("a", "b", "c"):
        texts = {frames[i]["frame_id"]: json.dumps(tape_answer(tilted[m][i])) for i in range(n_tape)}
        texts.update({frames[n_tape + i]["frame_id"]: json.dumps(
            {"adequate": True, **truth_label, "serial": "A1B2C3" if serial_ok[m][i] else "XXX"})
            for i in range(n_label)})
        offline_run(set_dir, tmp_path / m, texts, model=m)
    blind = offline_run(set_dir, tmp_path / "blind", {}, model="blind")  # kept out: no image asked
    cfg = json.loads((blind / "run.json").read_text())
    (blind / "run.json").write_text(json.dumps({**cfg, "settings": {**cfg["settings"], "blind": True}}))
    build_report([tmp_path / m for m in ("a", "b", "c", "blind")], tmp_path / "rep", set_dir=set_dir)
    data = json.loads((tmp_path / "rep" / "report.json").read_text())["difficulty"]
    assert data["models"] == ["a", "b", "c"]
    got = {(r["environment"], r["score"], r["driver"]): r for r in data["rows"]}
    assert {d for e, s, d in got if (e, s) == ("tape_gap", "tilted")} == {"roll", "pitch", "apparent_size",
                                                                          "unoccluded"}
    assert {d for e, s, d in got if (e, s) == ("equipment_label", "serial")} == {"px_per_text_row", "view_angle"}
    drivers = {("tape_gap", "tilted", "roll"): [abs(r) for r in rolls],
               ("tape_gap", "tilted", "pitch"): pitches,
               ("tape_gap", "tilted", "apparent_size"): [p / (160 * 120) for p in pixels],
               ("tape_gap", "tilted", "unoccluded"): [float(i % 5 != 0) for i in range(n_tape)],
               ("equipment_label", "serial", "px_per_text_row"): text_px,
               ("equipment_label", "serial", "view_angle"): [10.0 + 3 * i for i in range(n_label)]}
    scores = {("tape_gap", "tilted"): {m: [float(not t) for t in tilted[m]] for m in tilted},
              ("equipment_label", "serial"): {m: [float(s) for s in serial_ok[m]] for m in serial_ok}}
    for key, x in drivers.items():
        row = got[key]
        per = {m["label"]: m for m in row["per_model"]}
        rising = detect_up = detect_down = defined = 0
        for m, y in scores[key[:2]].items():
            if len(set(y)) < 2:
                assert per[m]["rho"] is None
                continue
            rho = scipy.stats.spearmanr(x, y).statistic
            lo, hi = bonett_wright(rho, len(x))
            assert per[m]["rho"] == pytest.approx(rho) and per[m]["frames"] == len(x)
            assert (per[m]["lo"], per[m]["hi"]) == (pytest.approx(lo), pytest.approx(hi))
            defined += 1
            rising += rho > 0
            detect_up += lo > 0
            detect_down += hi < 0
        assert (row["models"], row["rising"], row["rising_detectably"], row["falling_detectably"]) == \
            (defined, rising, detect_up, detect_down), key
        mean = np.mean([scores[key[:2]][m] for m in ("a", "b", "c")], axis=0)
        assert row["pooled_rho"] == pytest.approx(scipy.stats.spearmanr(x, mean).statistic)
        assert row["frames"] == len(x)
    # the steep rolls: model a falls detectably with roll, as the paper's tape models do
    assert got[("tape_gap", "tilted", "roll")]["falling_detectably"] >= 1
    csv = csv_rows(tmp_path / "rep" / "difficulty.csv")
    assert {r["label"] for r in csv} == {"a", "b", "c"}
    assert "## Drivers of difficulty" in (tmp_path / "rep" / "report.md").read_text()
    assert (tmp_path / "rep" / "difficulty.png").stat().st_size > 5_000
    # the set another export: one line; no set recorded or found: the section says why
    from realitybench_addon.evaluation.errors import EvalError
    other = make_set(tmp_path / "other", frames[:3])
    with pytest.raises(EvalError, match="is another set: it lacks frame"):
        build_report([tmp_path / "a"], tmp_path / "r2", set_dir=other, plots=False)
