"""The human baseline in `eval report --ratings`: each rater's F1 with its interval, the runs on the same frames,
the non-author pool (`--authors`), and one human pass priced at `--human-rate`, every number worked out by hand
below; from a ratings file and from the set's ratings database; hostile inputs as one-line errors."""
from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from eval_support import TAPE, cli, csv_rows, frame, make_set, one_line_error, served_run
from realitybench_addon.rating.files import Rating
from realitybench_addon.rating.store import RatingStore

REJECTED = {**TAPE, "tilted": True}



def f1(precision, recall):
    return 2 * precision * recall / (precision + recall)


# Random tape frames f0 f1 f2 (accepted) f3 f4 f5 (rejected), and p0 in the positive stratum (accepted).
# The model accepts f0 f1 f3 p0. ann (an author) rates like the scorer; cy's can't tell on f1 took 30 s.
RATINGS = [("ann", f, v, 4) for f, v in (("f0", "accept"), ("f1", "accept"), ("f2", "accept"), ("f3", "reject"),
                                         ("f4", "reject"), ("f5", "reject"), ("p0", "accept"))] + \
    [("bob", "f0", "accept", 10), ("bob", "f1", "reject", 12), ("bob", "f2", "reject", 8), ("bob", "f3", "accept", 6),
     ("bob", "f4", "reject", 9)] + \
    [("cy", "f0", "accept", 5), ("cy", "f3", "reject", 7), ("cy", "f5", "accept", 20), ("cy", "p0", "accept", 3),
     ("cy", "f1", "cant_tell", 30)]


def rated_study(tmp_path):
    frames = {f"f{i}": frame("tape_gap", "random", i, "accept" if i < 3 else "reject", TAPE if i < 3 else REJECTED,
                             None) for i in range(6)}
    frames["p0"] = frame("tape_gap", "positive", 0, "accept", TAPE, None)
    set_dir = make_set(tmp_path / "set", list(frames.values()))
    accepts = {"f0", "f1", "f3", "p0"}
    served_run(set_dir, tmp_path / "m", {f["frame_id"]: {"adequate": k in accepts, **TAPE}
                                         for k, f in frames.items()}, model="m")
    ids = {k: f["frame_id"] for k, f in frames.items()}
    with open(tmp_path / "ratings.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["frame_id", "rater", "rating", "seconds"])
        for rater, f, v, seconds in RATINGS:
            w.writerow([ids[f], rater, v, seconds])
    return set_dir, ids


def check_numbers(report: Path):
    table = {(r["rater"], r["run"]): r for r in csv_rows(report / "human_baseline.csv")}

    def value(rater, run=""):
        return float(table[(rater, run)]["f1"])

    # bob rates f0..f4 and accepts f0 f3: precision 1/2 (f0 of f0 f3), recall 1/3 (f0 of f0 f1 f2)
    assert value("bob") == pytest.approx(f1(1 / 2, 1 / 3))
    # the model on bob's frames accepts f0 f1 f3: precision 2/3, recall 2/3
    assert value("bob", "m") == pytest.approx(2 / 3)
    assert float(table[("bob", "m")]["difference_rater_minus_run"]) == pytest.approx(f1(1 / 2, 1 / 3) - 2 / 3)
    # cy (f1 can't tell: no decision) accepts f0 f5 p0 of f0 f3 f5 p0: precision 1/2 (random only), recall 2/2
    assert value("cy") == pytest.approx(f1(1 / 2, 1)) and value("cy", "m") == pytest.approx(f1(1 / 2, 1))
    # ann agrees with the scorer everywhere: F1 1 in every resample; the model on all 7 frames: 2/3 and 3/4
    assert (value("ann"), float(table[("ann", "")]["lo"]), float(table[("ann", "")]["hi"])) == (1, 1, 1)
    assert table[("ann", "")]["author"] == "True" and value("ann", "m") == pytest.approx(f1(2 / 3, 3 / 4))
    # the pool (bob, cy; ann is an author): 9 ratings. Random accepts: f0 twice (right), f3 bob, f5 cy (wrong):
    # precision 2/4; ratings of accepted frames f0 f0 f1 f2 p0, accepted f0 f0 p0: recall 3/5
    pool = table[("non-author pool", "")]
    assert (int(pool["ratings"]), int(pool["frames"])) == (9, 7)
    assert float(pool["f1"]) == pytest.approx(f1(2 / 4, 3 / 5))
    # the model on the pool's items (its decision once per rating): random accepts f0 f0 f1 (right) f3 f3 (wrong):
    # precision 3/5; accepted items f0 f0 f1 f2 p0, accepted f0 f0 f1 p0: recall 4/5
    assert value("non-author pool", "m") == pytest.approx(f1(3 / 5, 4 / 5))
    assert float(table[("non-author pool", "m")]["difference_rater_minus_run"]) == pytest.approx(
        f1(2 / 4, 3 / 5) - f1(3 / 5, 4 / 5))
    for key in (("bob", ""), ("cy", ""), ("non-author pool", ""), ("non-author pool", "m")):
        assert float(table[key]["lo"]) <= float(table[key]["f1"]) <= float(table[key]["hi"]), key
    data = json.loads((report / "report.json").read_text())["human_baseline"]
    assert data["pool"]["raters"] == ["bob", "cy"] and data["pool"]["authors_left_out"] == ["ann"]
    # seconds of all 17 answers, can't tell included: 3, 4 (x7), 5, 6, 7, 8, 9, 10, 12, 20, 30 -> median 5;
    # one pass over the set's 7 frames at 36 USD/h: 5 x 7 / 3600 x 36
    assert data["human_pass"]["median_seconds"] == 5 and data["human_pass"]["frames"] == 7
    assert data["human_pass"]["cost"] == pytest.approx(5 * 7 / 3600 * 36)
    text = (report / "report.md").read_text()
    assert "## Human baseline" in text and "| ann | yes | 7 (7) | 1.000 [1.000, 1.000] |" in text
    assert "at 36 USD/h = 0.3500 USD" in text
    assert "## Human ratings" in text  # the agreement section stays


def test_human_baseline_from_a_ratings_file_and_from_the_database(tmp_path):
    set_dir, ids = rated_study(tmp_path)
    done = cli("eval", "report", tmp_path / "m", "--ratings", tmp_path / "ratings.csv", "--authors", "ann",
               "--human-rate", "36", "--out", tmp_path / "from-file", "--no-plots")
    assert done.returncode == 0, done.stderr
    check_numbers(tmp_path / "from-file")
    # the same answers given on the rating page: the set's ratings.sqlite, seconds and all
    store = RatingStore(set_dir, {f: "tape_gap" for f in ids.values()})
    for rater, f, v, seconds in RATINGS:
        store.record(Rating(ids[f], rater, v, float(seconds)))
    done = cli("eval", "report", tmp_path / "m", "--ratings", set_dir, "--authors", "ann", "--human-rate", "36",
               "--out", tmp_path / "from-db", "--no-plots")
    assert done.returncode == 0, done.stderr
    check_numbers(tmp_path / "from-db")
    assert csv_rows(tmp_path / "from-db" / "human_baseline.csv") == csv_rows(tmp_path / "from-file" / "human_baseline.csv")


def test_without_authors_everyone_is_pooled_and_no_rate_prices_nothing(tmp_path):
    rated_study(tmp_path)
    done = cli("eval", "report", tmp_path / "m", "--ratings", tmp_path / "ratings.csv", "--out", tmp_path / "rep",
               "--no-plots")
    assert done.returncode == 0, done.stderr
    data = json.loads((tmp_path / "rep" / "report.json").read_text())["human_baseline"]
    assert data["pool"]["raters"] == ["ann", "bob", "cy"] and data["pool"]["ratings"] == 16
    assert data["human_pass"]["cost"] is None and data["human_pass"]["median_seconds"] == 5


def test_ratings_of_another_set_and_bad_flags_are_one_line_errors(tmp_path):
    set_dir, ids = rated_study(tmp_path)
    run = tmp_path / "m"
    # a ratings file of another set: its frames are not the runs'
    other = make_set(tmp_path / "other", [frame("tape_gap", "random", i, "accept", TAPE, None) for i in range(20, 22)])
    (tmp_path / "other.csv").write_text("frame_id,rater,rating\ntape_gap-random-s0-000020,ann,accept\n")
    one_line_error(cli("eval", "report", run, "--ratings", tmp_path / "other.csv", "--out", tmp_path / "r1"),
                   "other.csv: line 2: frame tape_gap-random-s0-000020 is not in the set")
    # the rated folder of another set: refused before its database is opened, which stays as it was
    RatingStore(other, {f"tape_gap-random-s0-0000{i}": "tape_gap" for i in (20, 21)}).record(
        Rating("tape_gap-random-s0-000020", "ann", "accept"))
    before = (other / "ratings.sqlite").read_bytes()
    one_line_error(cli("eval", "report", run, "--ratings", other, "--out", tmp_path / "r2"),
                   f"--ratings {other} is another set: it lacks frame tape_gap-positive-s0-000000")
    assert (other / "ratings.sqlite").read_bytes() == before
    # the same frame ids with another image
    twin = make_set(tmp_path / "twin", [frame("tape_gap", "random", 0, "accept", TAPE, None)])
    for f in [*ids.values()][1:]:
        (twin / "tape_gap" / f"{f}.jpg").write_bytes((set_dir / "tape_gap" / f"{f}.jpg").read_bytes())
    lines = [json.loads(line) for line in (set_dir / "metadata.jsonl").open()]
    (twin / "metadata.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines))
    (twin / "tape_gap" / f"{ids['f0']}.jpg").write_bytes((set_dir / "tape_gap" / f"{ids['f1']}.jpg").read_bytes())
    RatingStore(twin, {f: "tape_gap" for f in ids.values()})
    one_line_error(cli("eval", "report", run, "--ratings", twin, "--out", tmp_path / "r3"),
                   f"its frame {ids['f0']} has another image than the runs'")
    # flags
    one_line_error(cli("eval", "report", run, "--ratings", tmp_path / "ratings.csv", "--authors", "ann,zed",
                       "--out", tmp_path / "r4"), "--authors names 'zed', who rated none of these frames",
                   "(raters: ann, bob, cy)")
    assert not any((tmp_path / f"r{n}").exists() for n in range(1, 5))  # refused before the report is written
    for rate in ("-3", "abc", "nan"):
        one_line_error(cli("eval", "report", run, "--ratings", tmp_path / "ratings.csv", "--human-rate", rate,
                           "--out", tmp_path / "r5"), "--human-rate must be a non-negative number of USD per hour")
    one_line_error(cli("eval", "report", run, "--authors", "ann", "--out", tmp_path / "r6"),
                   "--authors and --human-rate describe the raters of --ratings")
    one_line_error(cli("eval", "report", run, "--ratings", tmp_path / "ratings.csv", "--authors", "ann,,bob",
                       "--out", tmp_path / "r7"), "--authors takes rater names separated by commas")
