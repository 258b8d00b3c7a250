"""The blind before/after comparison (issue 20): pairing, hostile answers files, the summary's numbers, and
benchmarks/realism_compare.py end to end on two small sets."""
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from realitybench_addon.rating import blind_pairs as bp
from realitybench_addon.rating.errors import RatingsError

ROOT = Path(__file__).resolve().parent.parent
FRAMES = [(f"{env}-random-s0-00000{i}", env) for env in ("car_view", "tape_gap") for i in range(5)]


def test_pairs_are_shuffled_balanced_and_reproducible():
    pairs = bp.make_pairs(FRAMES, np.random.default_rng(4))
    assert pairs == bp.make_pairs(FRAMES, np.random.default_rng(4))
    assert sorted(p.frame_id for p in pairs) == sorted(f for f, _ in FRAMES)
    assert [p.frame_id for p in pairs] != [f for f, _ in FRAMES]  # shown in another order
    sides = [p.after_side for p in pairs]
    assert sides.count("A") == sides.count("B") == 5
    assert bp.pairs_from_key(json.loads(json.dumps(bp.pairs_to_key(pairs)))) == pairs
    with pytest.raises(RatingsError, match="twice"):
        bp.make_pairs(FRAMES + FRAMES[:1], np.random.default_rng(0))


def _write(tmp_path, data, name="a.json") -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def _answers(pairs, choose_after=True, after=4, before=2, viewer="v1"):
    out = {}
    for p in pairs:
        b = p.side_of("before")
        out[p.pair_id] = {"more_real": p.after_side if choose_after else b, p.after_side: after, b: before}
    return {"viewer": viewer, "answers": out}


@pytest.mark.parametrize("mutate, message", [
    (lambda d: "{not json", "not a JSON answers file"),
    (lambda d: [1, 2], "expected"),
    (lambda d: {**d, "viewer": ""}, "viewer's name"),
    (lambda d: {**d, "answers": {**d["answers"], "pair_999": {"more_real": "A", "A": 1, "B": 1}}}, "not shown"),
    (lambda d: {**d, "answers": dict(list(d["answers"].items())[1:])}, "1 pairs unanswered"),
    (lambda d: {**d, "answers": {**d["answers"], "pair_000": {"more_real": "C", "A": 1, "B": 1}}}, "more_real"),
    (lambda d: {**d, "answers": {**d["answers"], "pair_000": {"more_real": "A", "A": 6, "B": 1}}}, "rating A"),
    (lambda d: {**d, "answers": {**d["answers"], "pair_000": {"more_real": "A", "A": 3, "B": True}}}, "rating B"),
    (lambda d: {**d, "answers": {**d["answers"], "pair_000": {"more_real": "A", "A": 3, "B": 2.5}}}, "rating B"),
    (lambda d: {**d, "answers": {**d["answers"], "pair_000": "A"}}, "an answer is an object"),
    (lambda d: {**d, "answers": {**d["answers"], "pair_000": {"more_real": "A", "A": 3, "B": 2, "x": 1}}},
     "unknown keys"),
])
def test_hostile_answers_files_are_refused_whole(tmp_path, mutate, message):
    pairs = bp.make_pairs(FRAMES, np.random.default_rng(1))
    path = _write(tmp_path, mutate(_answers(pairs)))
    with pytest.raises(RatingsError, match=message) as err:
        bp.read_answers(path, pairs)
    assert str(path) in str(err.value)


def test_summary_counts_preferences_and_ratings_by_side_not_by_letter(tmp_path):
    pairs = bp.make_pairs(FRAMES, np.random.default_rng(2))
    one = bp.read_answers(_write(tmp_path, _answers(pairs)), pairs)[1]
    # the second viewer prefers "before" on every car_view pair and rates both sides 3
    d = _answers(pairs, viewer="v2")
    for p in pairs:
        if p.environment == "car_view":
            d["answers"][p.pair_id] = {"more_real": p.side_of("before"), "A": 3, "B": 3}
    two = bp.read_answers(_write(tmp_path, d, "b.json"), pairs)[1]
    rows = {r.group: r for r in bp.summarize(pairs, [one, two])}
    assert rows["tape_gap"].prefer_after == 1.0 and rows["tape_gap"].judgements == 10
    assert rows["car_view"].prefer_after == 0.5
    assert rows["car_view"].rating_after == pytest.approx((4 * 5 + 3 * 5) / 10)
    assert rows["car_view"].rating_before == pytest.approx((2 * 5 + 3 * 5) / 10)
    assert rows["all"].prefer_after == pytest.approx(15 / 20)
    lo, hi = rows["all"].prefer_after_ci
    assert lo < 0.75 < hi and 0.5 < lo  # Wilson interval of 15/20
    assert "| all | 10 | 20 | 0.75 |" in bp.markdown_table(list(rows.values()), 2)


def _tiny_set(directory: Path, shade: int) -> None:
    from PIL import Image

    rows = []
    for slot, (fid, env) in enumerate(FRAMES):
        (directory / env).mkdir(parents=True, exist_ok=True)
        Image.new("RGB", (80, 60), (shade, slot * 20, 90)).save(directory / env / f"{fid}.jpg")
        rows.append({"file_name": f"{env}/{fid}.jpg", "slot": slot, "frame_id": fid, "environment": env,
                     "stratum": "random"})
    (directory / "metadata.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))


def _script(*args):
    return subprocess.run([sys.executable, str(ROOT / "benchmarks" / "realism_compare.py"), *map(str, args)],
                          capture_output=True, text=True, timeout=120)


def test_script_makes_blind_pairs_and_scores_them(tmp_path):
    _tiny_set(tmp_path / "before", 10)
    _tiny_set(tmp_path / "after", 240)
    run = _script("pairs", tmp_path / "before", tmp_path / "after", "--out", tmp_path / "pairs",
                  "--key", tmp_path / "key.json", "--per-env", 3)
    assert run.returncode == 0, run.stderr
    shown = sorted(p.name for p in (tmp_path / "pairs").iterdir())
    assert shown == [f"pair_{k:03d}.png" for k in range(6)]  # 3 per environment, and nothing else
    pairs = bp.pairs_from_key(json.loads((tmp_path / "key.json").read_text()))
    from PIL import Image

    for p in pairs:  # the "after" images are the bright ones: on the side the key says
        with Image.open(tmp_path / "pairs" / f"{p.pair_id}.png") as im:
            left, right = im.getpixel((20, 50))[0], im.getpixel((im.width - 20, 50))[0]
        assert (left > 200) == (p.after_side == "A") and (right > 200) == (p.after_side == "B")
    answers = _write(tmp_path, _answers(pairs))
    run = _script("score", tmp_path / "key.json", answers, "--markdown", tmp_path / "table.md")
    assert run.returncode == 0, run.stderr
    assert "| all | 6 | 6 | 1.00 |" in (tmp_path / "table.md").read_text()
    # hostile: the key inside the viewers' folder; a viewer twice; a broken answers file
    run = _script("pairs", tmp_path / "before", tmp_path / "after", "--out", tmp_path / "p2",
                  "--key", tmp_path / "p2" / "key.json")
    assert run.returncode == 2 and "out of the viewers' folder" in run.stderr
    run = _script("score", tmp_path / "key.json", answers, answers)
    assert run.returncode == 2 and "answered twice" in run.stderr
    run = _script("score", tmp_path / "key.json", _write(tmp_path, "[", "bad.json"))
    assert run.returncode == 2 and run.stderr.startswith("error: ") and "Traceback" not in run.stderr


@pytest.mark.parametrize("recorded, overall", [
    ("realism-blind-2026-11-30", "| all | 55 | 165 | 0.91 |"),  # before the realism work vs after it
    ("realism-blind-2026-12-01-vehicles", None),  # the lot before vs after the smooth vehicle bodies
    ("realism-blind-2026-12-01-grass", "| all | 12 | 36 | 0.69 |"),  # before vs after the grass blades
])
def test_the_recorded_comparison_gives_the_table_in_docs(tmp_path, recorded, overall):
    """docs/realism.md's tables are what the checked-in keys and answers give."""
    recorded = ROOT / "benchmarks" / "results" / recorded
    run = _script("score", recorded / "key.json", *sorted(recorded.glob("viewer*.json")),
                  "--markdown", tmp_path / "table.md")
    assert run.returncode == 0, run.stderr
    table = (tmp_path / "table.md").read_text().strip()
    assert overall is None or overall in table
    assert table in (ROOT / "docs" / "realism.md").read_text()


def test_sheets_put_each_example_before_left_and_after_right(tmp_path):
    from PIL import Image

    for which, shade in (("before", 10), ("after", 240)):
        (tmp_path / which).mkdir()
        for env in ("tape_gap", "ro_board"):
            Image.new("RGB", (80, 60), (shade, 0, 0)).save(tmp_path / which / f"{env}.jpg")
    Image.new("RGB", (80, 60)).save(tmp_path / "after" / "car_view.jpg")  # no before: no sheet
    run = _script("sheets", tmp_path / "before", tmp_path / "after", "--out", tmp_path / "img")
    assert run.returncode == 0, run.stderr
    assert sorted(p.name for p in (tmp_path / "img").iterdir()) == ["realism_ro_board.jpg", "realism_tape_gap.jpg"]
    with Image.open(tmp_path / "img" / "realism_tape_gap.jpg") as im:
        assert im.getpixel((20, 60))[0] < 60 and im.getpixel((im.width - 20, 60))[0] > 200
    run = _script("sheets", tmp_path / "img", tmp_path / "before", "--out", tmp_path / "x")
    assert run.returncode == 2 and "share no example frame" in run.stderr


def test_contact_sheets_have_a_row_per_frame(tmp_path):
    from PIL import Image

    _tiny_set(tmp_path / "before", 10)
    _tiny_set(tmp_path / "after", 240)
    run = _script("contact", tmp_path / "before", tmp_path / "after", "--out", tmp_path / "img", "--per-env", 2,
                  "--width", 150)
    assert run.returncode == 0, run.stderr
    assert sorted(p.name for p in (tmp_path / "img").iterdir()) == ["realism_car_view.jpg", "realism_tape_gap.jpg"]
    with Image.open(tmp_path / "img" / "realism_tape_gap.jpg") as im:
        scale = 150 / (80 + 24 + 80)  # two 80 px frames and the gap, shrunk to the sheet's width
        assert im.size == (150, round(2 * (60 + 36) * scale))  # two rows, each under its labels
        for row in range(2):
            y = round((row * 96 + 36 + 30) * scale)
            left, right = im.getpixel((round(40 * scale), y))[0], im.getpixel((round(144 * scale), y))[0]
            assert left < 80 and right > 180  # before left, after right
