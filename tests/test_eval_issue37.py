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
