"""The absolute blind realism rating (issue 41): rating/blind_single.py's pure parts against hand computations,
its answers files as hostile input (listed cases and Hypothesis), and benchmarks/realism_rate.py end to end on
a small set."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from realitybench_addon.rating import blind_single as bs
from realitybench_addon.rating.errors import RatingsError

ROOT = Path(__file__).resolve().parent.parent
FRAMES = [(f"{env}-random-s7-{i:06d}", env) for env in ("tape_gap", "car_view") for i in range(3)]


def _viewings(seed=1):
    return bs.make_viewings(FRAMES, np.random.default_rng(seed))


def test_viewings_hide_the_frame_and_cover_every_frame_once():
    v = _viewings()
    assert [x.image_id for x in v] == [f"image_{k:03d}" for k in range(6)]
    assert sorted((x.frame_id, x.environment) for x in v) == sorted(FRAMES)
    assert [x.frame_id for x in v] != [f for f, _ in FRAMES]  # shuffled (seed 1)
    assert bs.make_viewings(FRAMES, np.random.default_rng(1)) == v  # reproducible
    orders = bs.viewer_orders(v, 3, np.random.default_rng(2))
    assert len(orders) == 3 and all(sorted(o) == sorted(x.image_id for x in v) for o in orders)
    assert len({tuple(o) for o in orders}) == 3  # each viewer has an order of their own
    assert bs.viewings_from_key(json.loads(json.dumps(bs.viewings_to_key(v)))) == v
    with pytest.raises(RatingsError, match="twice"):
        bs.make_viewings(FRAMES + FRAMES[:1], np.random.default_rng(0))


def test_summary_against_a_hand_computation():
    v = _viewings()
    env = {x.image_id: x.environment for x in v}
    # viewer 1 rates tape_gap 4 and car_view 2; viewer 2 rates tape_gap 5 and car_view 3
    a1 = {x.image_id: 4 if env[x.image_id] == "tape_gap" else 2 for x in v}
    a2 = {x.image_id: 5 if env[x.image_id] == "tape_gap" else 3 for x in v}
    rows = {r.group: r for r in bs.summarize(v, [a1, a2])}
    assert rows["tape_gap"].mean == pytest.approx(4.5) and rows["car_view"].mean == pytest.approx(2.5)
    assert rows["all"].mean == pytest.approx(3.5) and rows["all"].ratings == 12 and rows["all"].frames == 6
    assert rows["tape_gap"].share_frames_4 == 1.0 and rows["car_view"].share_frames_4 == 0.0
    assert rows["all"].share_frames_4 == pytest.approx(0.5) and rows["all"].share_ratings_4 == pytest.approx(0.5)
    assert rows["all"].highest == 5
    # every frame of a stratum has the same mean, so the stratified interval has no width
    assert rows["all"].mean_ci == pytest.approx((3.5, 3.5)) and rows["tape_gap"].mean_ci == pytest.approx((4.5, 4.5))
    met = bs.targets_met(list(rows.values()))
    assert met == {"mean >= 3.5": True, "every environment >= 3.0": False, "a third of frames >= 4": True}
    table = bs.markdown_table(list(rows.values()), 2)
    assert "| all | 6 | 12 | 3.50 | 3.50-3.50 | 0.50 | 0.50 | 5 |" in table
    assert "every environment >= 3.0: not met" in table


def test_a_frames_mean_over_viewers_decides_its_share_of_4():
    v = _viewings()
    a1 = {x.image_id: 4 for x in v}
    a2 = {x.image_id: 3 for x in v}  # every frame's mean is 3.5: rated 4 once, but not a frame rated >= 4
    overall = bs.summarize(v, [a1, a2])[-1]
    assert overall.share_frames_4 == 0.0 and overall.share_ratings_4 == pytest.approx(0.5)


@pytest.mark.parametrize("answers, problem", [
    ({"viewer": "v"}, "expected"),
    ({"answers": {}}, "name is missing"),
    ({"viewer": "v", "answers": []}, "expected"),
    ({"viewer": " ", "answers": {}}, "name is missing"),
    ({"viewer": "v", "answers": {"image_999": 3}}, "not shown"),
    ({"viewer": "v", "answers": {"image_000": 3}}, "unanswered"),
])
def test_answers_files_of_the_wrong_shape_are_refused_whole(answers, problem):
    v = _viewings()
    with pytest.raises(RatingsError, match=problem):
        bs.parse_answers(answers, v, "a.json")


@pytest.mark.parametrize("value", [0, 6, 3.5, True, "4", None, [4], {"rating": 7}, {"rating": 3, "x": 1},
                                   {"rating": 3, "note": 5}])
def test_a_bad_rating_names_its_image(value):
    v = _viewings()
    answers = {"viewer": "v", "answers": {x.image_id: 3 for x in v}}
    answers["answers"]["image_004"] = value
    with pytest.raises(RatingsError, match="image_004"):
        bs.parse_answers(answers, v, "a.json")


JSONISH = st.recursive(st.none() | st.booleans() | st.integers(-3, 9) | st.floats(allow_nan=False) | st.text(max_size=4),
                       lambda kids: st.lists(kids, max_size=3) | st.dictionaries(st.text(max_size=9), kids, max_size=4),
                       max_leaves=12)


@settings(max_examples=300)
@given(data=st.one_of(JSONISH, st.fixed_dictionaries(
    {"viewer": st.text(max_size=4), "answers": st.dictionaries(st.sampled_from([f"image_{k:03d}" for k in range(7)]),
                                                              JSONISH, max_size=7)})))
def test_property_any_decoded_answers_are_ratings_or_one_ratings_error(data):
    v = _viewings()
    try:
        viewer, ratings = bs.parse_answers(data, v, "a.json")
    except RatingsError as err:
        assert "\n" not in str(err) and str(err).startswith("a.json: ")
        return
    assert viewer.strip() == viewer and viewer
    assert set(ratings) == {x.image_id for x in v} and all(r in bs.RATINGS for r in ratings.values())


@settings(max_examples=200)
@given(raw=st.binary(max_size=300))
def test_property_any_bytes_in_an_answers_file_are_read_or_refused_in_one_line(tmp_path_factory, raw):
    path = tmp_path_factory.mktemp("answers") / "a.json"
    path.write_bytes(raw)
    with pytest.raises(RatingsError) as info:  # no byte string of this size answers all six images
        bs.read_answers(path, _viewings())
    assert "\n" not in str(info.value)


def _tiny_set(directory: Path) -> Path:
    from PIL import Image

    rows = []
    for k, (fid, env) in enumerate(FRAMES + [("tape_gap-positive-s7-000000", "tape_gap")]):
        (directory / env).mkdir(parents=True, exist_ok=True)
        Image.new("RGB", (64, 48), (10 * k, 200, 30)).save(directory / env / f"{fid}.jpg")
        rows.append({"file_name": f"{env}/{fid}.jpg", "slot": k, "frame_id": fid, "environment": env,
                     "stratum": fid.split("-")[1], "verdict": "reject", "scored": True})
    (directory / "metadata.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return directory


def _script(*args):
    return subprocess.run([sys.executable, str(ROOT / "benchmarks" / "realism_rate.py"), *map(str, args)],
                          capture_output=True, text=True, timeout=120)


def test_script_makes_the_viewers_folder_and_scores_answers(tmp_path):
    from PIL import Image

    _tiny_set(tmp_path / "set")
    run = _script("images", tmp_path / "set", "--out", tmp_path / "view", "--key", tmp_path / "key.json",
                  "--per-env", 2, "--viewers", 3, "--stratum", "random")
    assert run.returncode == 0, run.stderr
    names = sorted(p.name for p in (tmp_path / "view").iterdir())
    assert names == ["README.md", *[f"image_{k:03d}.png" for k in range(4)], "order_1.txt", "order_2.txt",
                     "order_3.txt"]  # two per environment, random stratum only; no frame id anywhere
    key = json.loads((tmp_path / "key.json").read_text())
    viewings = bs.viewings_from_key(key)
    assert sorted(x.frame_id for x in viewings) == sorted(f for f, _ in FRAMES if f.endswith(("00", "01")))
    for x in viewings:  # the image shown is the frame's own, at full size
        with Image.open(tmp_path / "view" / f"{x.image_id}.png") as im:
            assert im.size == (64, 48)
            assert im.getpixel((5, 5))[0] == pytest.approx(10 * [f for f, _ in FRAMES].index(x.frame_id), abs=8)
    assert "could pass for a phone photo" in (tmp_path / "view" / "README.md").read_text()
    for n, rating in (("a", 4), ("b", 3)):
        (tmp_path / f"{n}.json").write_text(json.dumps(
            {"viewer": n, "answers": {x.image_id: {"rating": rating} for x in viewings}}))
    run = _script("score", tmp_path / "key.json", tmp_path / "a.json", tmp_path / "b.json", "--markdown",
                  tmp_path / "t.md")
    assert run.returncode == 0, run.stderr
    assert "| all | 4 | 8 | 3.50 |" in (tmp_path / "t.md").read_text()
    # hostile: the key inside the viewers' folder; a viewer twice; a broken key
    run = _script("images", tmp_path / "set", "--out", tmp_path / "v2", "--key", tmp_path / "v2" / "k.json")
    assert run.returncode == 2 and "out of the viewers' folder" in run.stderr
    run = _script("score", tmp_path / "key.json", tmp_path / "a.json", tmp_path / "a.json")
    assert run.returncode == 2 and "answered twice" in run.stderr
    (tmp_path / "bad.json").write_text('{"kind": "blind_pairs"}')
    run = _script("score", tmp_path / "bad.json", tmp_path / "a.json")
    assert run.returncode == 2 and run.stderr.startswith("error: ") and "Traceback" not in run.stderr


@pytest.mark.parametrize("recorded, overall", [
    ("realism-absolute-2026-12-04", None),
    ("realism-absolute-2026-12-04b", "| all | 55 | 220 | 2.22 |"),
    ("realism-absolute-2026-12-06", "| all | 55 | 220 | 2.43 |"),
    ("realism-lot-firstlook-2026-12-06", "| all | 20 | 80 | 2.33 |"),
])
def test_the_recorded_panels_give_the_tables_in_docs(tmp_path, recorded, overall):
    """docs/realism.md's absolute-panel tables are what the checked-in key and answers give (bootstrap seed 0),
    and so is each panel's score.md beside them."""
    recorded = ROOT / "benchmarks" / "results" / recorded
    run = _script("score", recorded / "key.json", *sorted((recorded / "answers").glob("*.json")),
                  "--markdown", tmp_path / "table.md")
    assert run.returncode == 0, run.stderr
    table = (tmp_path / "table.md").read_text().strip()
    assert overall is None or overall in table
    assert table == (recorded / "score.md").read_text().strip()
    assert table in (ROOT / "docs" / "realism.md").read_text()
