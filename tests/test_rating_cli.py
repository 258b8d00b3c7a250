"""`rate` and `ratings` from the command line: the served page over HTTP, many writers at once,
export and import, malformed input, preset edits and rescoring."""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import requests

from rating_support import make_scored_set

from realitybench_addon.rating.files import Rating
from realitybench_addon.rating.server import RatingServer, RatingSession, frame_token
from realitybench_addon.rating.split import rater_order
from realitybench_addon.rating.store import RatingStore

ROOT = Path(__file__).resolve().parent.parent
FRAMES = ([("rail_attachment", i, {"camera_distance": 0.6 + 0.2 * i}) for i in range(10)]
          + [("car_view", i, {"camera_distance": 2.0 + 0.5 * i}) for i in range(5)])


def cli(*args, timeout=120):
    return subprocess.run([sys.executable, "-m", "realitybench_addon", *map(str, args)], cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout)


def assert_user_error(done, fragment):
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and fragment in lines[0], done.stderr
    assert done.stdout == ""


@pytest.fixture
def rated_set(tmp_path):
    return make_scored_set(tmp_path / "set", FRAMES)


def store_of(set_dir) -> RatingStore:
    import json as _json

    rows = [_json.loads(line) for line in (set_dir / "metadata.jsonl").read_text().splitlines()]
    return RatingStore(set_dir, {r["frame_id"]: r["environment"] for r in rows})


def test_rate_serves_the_set_and_stops_cleanly(rated_set):
    proc = subprocess.Popen([sys.executable, "-m", "realitybench_addon", "rate", str(rated_set), "--port", "0",
                             "--env", "car_view"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stderr.readline()
        url = re.search(r"rating page: (http://\S+)", line).group(1)
        assert "5 frames" in line
        page = requests.get(url, timeout=10)
        assert page.status_code == 200 and "RealityBench rating" in page.text
        progress = requests.get(url + "api/session", params={"rater": "dee"}, timeout=10).json()
        assert progress == {"rater": "dee", "total": 5, "rated": 0, "next_position": 0}
        shown = requests.get(url + "api/frame", params={"rater": "dee", "position": 0}, timeout=10).json()
        first = rater_order([f"car_view-random-s0-{i:06d}" for i in range(5)], "dee")[0]
        assert shown["frame"]["token"] == frame_token(store_of(rated_set).secret, first)
        assert "verdict" not in json.dumps(shown) and "car_view-random" not in json.dumps(shown)
        image = requests.get(url.rstrip("/") + shown["frame"]["image"], timeout=10)
        assert image.headers["Content-Type"] == "image/jpeg" and image.content == (rated_set / "car_view" /
                                                                                   f"{first}.jpg").read_bytes()
        saved = requests.post(url + "api/answer", json={"rater": "dee", "token": shown["frame"]["token"],
                                                        "answer": "reject", "seconds": 4.2}, timeout=10).json()
        assert (saved["rated"], saved["next_position"]) == (1, 1)
        bad = requests.post(url + "api/answer", json={"rater": "dee", "token": shown["frame"]["token"],
                                                      "answer": "maybe"}, timeout=10)
        assert bad.status_code == 400 and "rating 'maybe' is not one of" in bad.json()["error"]
        bad = requests.post(url + "api/answer", json={"rater": "dee", "token": shown["frame"]["token"],
                                                      "answer": "accept", "fields": {"side": 3}}, timeout=10)
        assert bad.status_code == 400 and "field 'side' must be a string" in bad.json()["error"]
        assert requests.get(url + "image/../../metadata.jsonl", timeout=10).status_code == 404
    finally:
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    summary = json.loads(out)
    assert (summary["ratings"], summary["raters"]) == (1, ["dee"])
    assert [(r.rater, r.answer, r.seconds) for r in store_of(rated_set).ratings()] == [("dee", "reject", 4.2)]


def test_a_sample_per_environment_is_the_same_for_every_rater(rated_set):
    session = RatingSession(rated_set, per_environment=3)
    envs = sorted(f.split("-")[0] for f in session.items)
    assert envs == ["car_view"] * 3 + ["rail_attachment"] * 3
    assert sorted(RatingSession(rated_set, per_environment=3).items) == sorted(session.items)  # drawn once
    assert sorted(session.order("ann")) == sorted(session.order("bob")) == sorted(session.items)
    assert len(RatingSession(rated_set, per_environment=50).items) == len(FRAMES)  # fewer frames than asked
    assert_user_error(cli("rate", rated_set, "--port", "0", "--per-env", "0"), "--per-env 0 must be at least 1")


def test_many_raters_write_at_once(rated_set):
    session = RatingSession(rated_set)
    server = RatingServer(session, port=0).start()
    errors = []

    def rater(name):
        try:
            for position in range(len(FRAMES)):
                frame = requests.get(server.url + "api/frame", params={"rater": name, "position": position},
                                     timeout=30).json()
                r = requests.post(server.url + "api/answer", json={"rater": name, "token": frame["frame"]["token"],
                                                                   "answer": "accept" if position % 2 else "reject",
                                                                   "seconds": 1.0}, timeout=30)
                r.raise_for_status()
        except Exception as exc:  # collected and asserted below
            errors.append(exc)

    threads = [threading.Thread(target=rater, args=(f"rater{k}",)) for k in range(6)]
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        server.stop()
    assert errors == []
    ratings = store_of(rated_set).ratings()
    assert len(ratings) == 6 * len(FRAMES)
    assert all(r.seconds == 1.0 for r in ratings)


def test_several_processes_write_one_database(rated_set):
    """Two rating servers on one set (or a server and an import) write the same file at once."""
    script = ("import sys; from pathlib import Path; sys.path.insert(0, 'tests'); import test_rating_cli as t;"
              "from realitybench_addon.rating.files import Rating; s = t.store_of(Path(sys.argv[1]));"
              "[s.record(Rating(f, sys.argv[2], 'accept', 0.5)) for f in sorted(s.frames) for _ in range(3)]")
    procs = [subprocess.Popen([sys.executable, "-c", script, str(rated_set), f"proc{k}"], cwd=ROOT)
             for k in range(4)]
    assert [p.wait(timeout=120) for p in procs] == [0] * 4
    ratings = store_of(rated_set).ratings()
    assert len(ratings) == 4 * len(FRAMES)
    assert {r.seconds for r in ratings} == {1.5}  # each of the 3 visits added its half second


def test_rate_errors_are_one_line(rated_set, tmp_path):
    assert_user_error(cli("rate", tmp_path / "nowhere", "--port", "0"), "does not exist")
    assert_user_error(cli("rate", rated_set, "--port", "0", "--env", "tape_gap"), "'tape_gap' is not in the set")
    assert_user_error(cli("rate", rated_set, "--port", "0", "--stratum", "positive"), "no positive frames")
    blocked = make_scored_set(tmp_path / "blocked", FRAMES[:2])
    (blocked / "ratings.sqlite").mkdir()  # a folder where the database should be: cannot be opened
    assert_user_error(cli("rate", blocked, "--port", "0"), "cannot open")
    assert_user_error(cli("ratings", blocked), "cannot open")
    if os.geteuid() != 0:  # root writes anywhere
        locked = make_scored_set(tmp_path / "locked", FRAMES[:2])
        locked.chmod(0o555)
        try:
            assert_user_error(cli("rate", locked, "--port", "0"), "is the set folder writable?")
        finally:
            locked.chmod(0o755)


def three_raters(set_dir):
    store = store_of(set_dir)
    for k, name in enumerate(("ann", "bob", "cy")):
        for n, (env, i, overrides) in enumerate(FRAMES):
            frame_id = f"{env}-random-s0-{i:06d}"
            close = overrides["camera_distance"] < (1.5 if env == "rail_attachment" else 3.0)
            answer = "accept" if close or (k == 0 and n % 3 == 0) else "reject"
            store.record(Rating(frame_id, name, answer, 2.0 + k, {"lag_present": n != 0} if k == 2 and
                                env == "rail_attachment" else None))  # the lag bolt is there: frame 0 wrong
    return store


def test_ratings_report_export_import_roundtrip(rated_set, tmp_path):
    three_raters(rated_set)
    done = cli("ratings", rated_set, "--export", tmp_path / "all.csv", "--markdown", tmp_path / "ratings.md")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    table = (tmp_path / "ratings.md").read_text()
    env = report["environments"]["rail_attachment"]
    assert (f"| rail_attachment | 10 | 3 | 3.0 | {env['raw_agreement']:.2f} | {env['alpha']:.2f} | "
            f"{env['scorer_vs_majority']['tuning']['agreement']:.2f} [") in table
    assert "| sealed (4) |" in table
    # cy's documentation fields, scored like a model's on the 6 accepted rail frames (0.6-1.6 m): one wrong
    assert report["per_rater"]["cy"]["documentation"] == {"frames": 6, "mean_field_score": pytest.approx(5 / 6)}
    assert report["per_rater"]["ann"]["documentation"] == {"frames": 0, "mean_field_score": None}
    assert report["per_rater"]["bob"]["median_seconds"] == 3.0
    assert report["ratings"] == 3 * len(FRAMES) and report["raters"] == ["ann", "bob", "cy"]
    assert report["split"] == {"tuning": 9, "held_out": 6}
    env = report["environments"]["rail_attachment"]
    assert env["frames"] == 10 and env["ratings_per_frame"] == 3.0
    assert env["scorer_vs_majority"]["held_out"]["sealed"] is True
    assert report["exported"]["ratings"] == 45
    assert {s["term"] for s in report["gray_suggestions"] if s["environment"] == "car_view"} >= {"camera_distance"}

    # the exported file imports into a copy of the set without ratings, and reports the same
    for suffix in (".csv", ".jsonl"):
        cli("ratings", rated_set, "--export", tmp_path / f"all{suffix}")
        copy = make_scored_set(tmp_path / f"copy{suffix}", FRAMES)
        done = cli("ratings", copy, "--import", tmp_path / f"all{suffix}")
        assert done.returncode == 0, done.stderr
        again = json.loads(done.stdout)
        assert again["imported"] == {"added": 45, "already_held": 0}
        assert again["environments"] == report["environments"]
        assert ([r.to_row() | {"rated_at": None} for r in store_of(copy).ratings()]
                == [r.to_row() | {"rated_at": None} for r in store_of(rated_set).ratings()])
        repeat = json.loads(cli("ratings", copy, "--import", tmp_path / f"all{suffix}").stdout)
        assert repeat["imported"] == {"added": 0, "already_held": 45}  # importing twice changes nothing


@pytest.mark.parametrize("name, text, fragment", [
    ("bad.csv", "frame,who,answer\nx,y,z\n", "needs a header with frame_id,rater,rating"),
    ("bad.csv", "frame_id,rater,rating\nrail_attachment-random-s0-000000,ann,accept\nno-such,ann,accept\n",
     "line 3: frame no-such is not in the set"),
    ("bad.csv", "frame_id,rater,rating\nrail_attachment-random-s0-000000,ann,yes\n",
     "line 2: rating 'yes' is not one of accept, reject, cant_tell"),
    ("bad.csv", "frame_id,rater,rating\nrail_attachment-random-s0-000000,ann,accept\n"
                "rail_attachment-random-s0-000000,ann,reject\n", "line 3: rater 'ann' rated"),
    ("bad.csv", "frame_id,rater,rating,seconds\nrail_attachment-random-s0-000000,ann,accept,-3\n",
     "line 2: seconds '-3' must be a number of seconds"),
    ("bad.csv", "frame_id,rater,rating,fields\nrail_attachment-random-s0-000000,ann,accept,{oops\n",
     "line 2: fields '{oops' is not JSON"),
    ("bad.jsonl", '{"frame_id": "rail_attachment-random-s0-000000", "rater": "ann", "rating": "accept"}\n{oops\n',
     "line 2 is not JSON"),
    ("bad.jsonl", '{"frame_id": "rail_attachment-random-s0-000000", "rating": "accept"}\n',
     "line 1: rater is missing or empty"),
    ("bad.txt", "frame_id,rater,rating\n", "must end in .csv or .jsonl"),
    ("conflict.csv", "frame_id,rater,rating\nrail_attachment-random-s0-000001,zed,accept\n"
                     "rail_attachment-random-s0-000009,bob,accept\n",  # bob rejected it
     "rater 'bob' rated rail_attachment-random-s0-000009 'accept', but the database holds 'reject'"),
])
def test_a_malformed_import_is_a_clear_error_that_changes_nothing(rated_set, tmp_path, name, text, fragment):
    store = three_raters(rated_set)
    before = store.ratings()
    (tmp_path / name).write_text(text)
    assert_user_error(cli("ratings", rated_set, "--import", tmp_path / name), fragment)
    assert store.ratings() == before


def test_apply_gray_then_held_out_then_refused(rated_set, tmp_path):
    store = three_raters(rated_set)
    for i in range(4, 8):  # 1.4-2.0 m: two more raters accept, so the raters split there
        for name in ("dee", "eve"):
            store.record(Rating(f"rail_attachment-random-s0-{i:06d}", name, "accept"))
    report = json.loads(cli("ratings", rated_set).stdout)
    target = next(s for s in report["gray_suggestions"] if s["suggested"] is not None)
    key = f"{target['environment']}.{target['term']}"
    done = cli("ratings", rated_set, "--apply-gray", key, "--presets-out", tmp_path / "tuned")
    assert done.returncode == 0, done.stderr
    applied = json.loads(done.stdout)["applied"]
    assert applied["presets"] == [str(tmp_path / "tuned" / f"{target['environment']}.toml")]
    flips = cli("rescore", rated_set, "--presets", tmp_path / "tuned")
    assert json.loads(flips.stdout)["flipped"] == applied["verdicts_changed"] > 0
    assert_user_error(cli("ratings", rated_set, "--apply-gray", "car_view.no_such_term", "--presets-out",
                          tmp_path / "x"), "no such term")
    assert_user_error(cli("ratings", rated_set, "--apply-gray", key), "needs --presets-out")
    held = json.loads(cli("ratings", rated_set, "--presets", tmp_path / "tuned", "--held-out").stdout)
    figures = held["environments"][target["environment"]]["scorer_vs_majority"]["held_out"]
    assert figures["part"] == "held_out" and figures["clean"] is True
    assert_user_error(cli("ratings", rated_set, "--presets", tmp_path / "tuned", "--apply-gray", key,
                          "--presets-out", tmp_path / "again"), f"{target['environment']} is frozen")
    assert not (tmp_path / "again").exists()
    assert_user_error(cli("ratings", rated_set, "--clear-share", "0.4"), "--clear-share 0.4 must be above 0.5")
    assert_user_error(cli("ratings", tmp_path), "is not an exported set")


def test_raters_documentation_counts_where_models_does_not_on_a_frame_missing_a_part(rated_set):
    """The one rule (answers/counting.py, the paper's): a rail frame left out because its lag bolt is missing
    counts for neither acceptability nor documentation, for raters as for models."""
    metadata = rated_set / "metadata.jsonl"
    rows = [json.loads(line) for line in metadata.read_text().splitlines()]
    missing = next(r for r in rows if r["frame_id"] == "rail_attachment-random-s0-000001")
    assert missing["verdict"] == "accept"
    missing.update(verdict="unscored", scored=False, unscored_reason="lag bolt missing from the scene")
    metadata.write_text("".join(json.dumps(r) + "\n" for r in rows))
    store = store_of(rated_set)
    for i in (0, 1):  # both accepted by distance; frame 1 now unscored by the scene rule
        store.record(Rating(f"rail_attachment-random-s0-{i:06d}", "dee", "accept", 3.0, {"lag_present": True}))
    done = cli("ratings", rated_set)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["per_rater"]["dee"]["documentation"] == {"frames": 1, "mean_field_score": 1.0}
