"""`python -m realitybench_addon eval ...` end to end, in subprocesses: kill a run and resume it, user errors,
baselines and the report."""
from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import krippendorff
import numpy as np
import pytest

from eval_support import ScriptedServer, make_set, offline_run, standard_frames
from realitybench_addon.evaluation.runs import RunStore

REPO = Path(__file__).resolve().parent.parent
KEY = "sk-cli-test-0123456789-SECRET"
EXAMPLE_PRICES = REPO / "realitybench_addon" / "evaluation" / "prices" / "example.toml"


def cli(*args, env_extra=None, timeout=60):
    env = {**os.environ, "RB_CLI_KEY": KEY, **(env_extra or {})}
    return subprocess.run([sys.executable, "-m", "realitybench_addon", *map(str, args)], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=timeout)


def assert_user_error(done, *fragments):
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()  # progress lines may come before the one error line
    errors = [line for line in lines if line.startswith("error: ")]
    assert len(errors) == 1 and lines[-1] == errors[0], done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""
    for f in fragments:
        assert f in errors[0], errors[0]


def frames_and_set(tmp_path, n_copies=1):
    frames = standard_frames()
    if n_copies > 1:  # more items for the kill test: the same frames under other indices
        more = []
        for k in range(1, n_copies):
            for f in standard_frames():
                new = dict(f)
                new["frame_id"] = f["frame_id"].replace("-s0-0000", f"-s0-{k:02d}00")
                more.append(new)
        frames += more
    return frames, make_set(tmp_path / "set", frames)


def test_kill_mid_run_and_resume_asks_nothing_twice(tmp_path):
    frames, set_dir = frames_and_set(tmp_path, n_copies=2)  # 24 items
    run_dir = tmp_path / "run"
    answers = {f["frame_id"]: f["answer"] for f in frames}
    args = ["eval", "run", set_dir, "--provider", "openai", "--model", "slow-model", "--api-key-env", "RB_CLI_KEY",
            "--concurrency", "2", "--out", run_dir]
    with ScriptedServer(answers, default="slow:0.2") as server:
        args[args.index("--model"):args.index("--model")] = ["--base-url", server.url + "/v1"]
        env = {**os.environ, "RB_CLI_KEY": KEY}
        child = subprocess.Popen([sys.executable, "-m", "realitybench_addon", *map(str, args)], cwd=REPO, env=env,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        replies = run_dir / "replies.jsonl"
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if replies.exists() and replies.read_bytes().count(b"\n") >= 6:
                break
            time.sleep(0.02)
        child.send_signal(signal.SIGKILL)
        child.communicate(timeout=10)
        finished = {r["frame_id"] for r in RunStore(run_dir).reply_lines() if r["status"] == "ok"}
        assert 6 <= len(finished) < len(frames)  # killed mid-run
        server.phase = 1
        done = cli(*args)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    asked_again = [r["frame_id"] for r in server.log if r["phase"] == 1]
    assert not set(asked_again) & finished  # no finished item was asked again
    assert len(asked_again) == len(set(asked_again)) == len(frames) - len(finished)
    assert result["asked"]["already_answered"] == len(finished)
    assert result["complete"] and result["answered"] == len(frames) and result["failed"] == 0
    lines = RunStore(run_dir).reply_lines()
    assert len({r["request_hash"] for r in lines}) == len(frames) and all(r["status"] == "ok" for r in lines)
    # every item asked once in all, except those in flight at the kill (asked, never recorded)
    total = {}
    for r in server.log:
        total[r["frame_id"]] = total.get(r["frame_id"], 0) + 1
    assert sum(n > 1 for n in total.values()) <= 2  # at most --concurrency requests were in flight
    for path in run_dir.rglob("*"):
        assert KEY.encode() not in path.read_bytes()


def test_user_errors_are_one_line(tmp_path):
    frames, set_dir = frames_and_set(tmp_path)
    assert_user_error(cli("eval", "run", tmp_path / "nope", "--provider", "openai", "--model", "m", "--out",
                          tmp_path / "r", "--api-key-env", "RB_CLI_KEY"), "set folder", "does not exist")
    env = {k: v for k, v in os.environ.items() if k != "ANTHROPIC_API_KEY"}
    done = subprocess.run([sys.executable, "-m", "realitybench_addon", "eval", "run", str(set_dir), "--provider",
                           "anthropic", "--model", "m", "--out", str(tmp_path / "r")], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=60)
    assert_user_error(done, "ANTHROPIC_API_KEY is not set", "--no-api-key")
    assert_user_error(cli("eval", "run", set_dir, "--provider", "anthropic", "--model", "m", "--api-key-env",
                          "RB_CLI_KEY", "--image-detail", "high", "--out", tmp_path / "r"), "--image-detail")
    assert_user_error(cli("eval", "run", set_dir, "--provider", "openai", "--model", "m", "--no-api-key",
                          "--extra", "{not json", "--out", tmp_path / "r"), "--extra is not JSON")
    assert_user_error(cli("eval", "run", set_dir, "--provider", "openai", "--model", "m", "--no-api-key",
                          "--temperature", "warm", "--out", tmp_path / "r"), "--temperature")
    assert_user_error(cli("eval", "rescore", tmp_path), "not a run folder")
    import socket

    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    assert_user_error(cli("eval", "run", set_dir, "--provider", "openai", "--model", "m", "--no-api-key",
                          "--base-url", f"http://127.0.0.1:{port}/v1", "--retries", "0", "--out", tmp_path / "r"),
                      "connection error", "cannot be reached", "rerun the same command")
    (tmp_path / "bad.toml").write_text('currency = "USD"\n[[price]]\nmodel = "m"\ninput = -1\noutput = 2\n'
                                       'source = "x"\ndate = "2025-01-01"\n')
    offline_run(set_dir, tmp_path / "run", {})
    assert_user_error(cli("eval", "report", tmp_path / "run", "--out", tmp_path / "rep", "--prices",
                          tmp_path / "bad.toml"), "bad.toml", "`input` must be a non-negative number")
    (tmp_path / "bad2.toml").write_text('currency = "USD"\n[[price]]\nmodel = "m"\ninput = 1\noutput = 2\n'
                                        'source = "x"\n')
    assert_user_error(cli("eval", "rescore", tmp_path / "run", "--prices", tmp_path / "bad2.toml"), "`date`")
    (tmp_path / "bad3.toml").write_text("currency = \n")
    assert_user_error(cli("eval", "rescore", tmp_path / "run", "--prices", tmp_path / "bad3.toml"),
                      "is not valid TOML")
    (tmp_path / "ratings.csv").write_text("frame_id,rater,rating\nno-such-frame,ann,accept\n")
    assert_user_error(cli("eval", "report", tmp_path / "run", "--out", tmp_path / "rep", "--ratings",
                          tmp_path / "ratings.csv"), "no-such-frame is not in the set")
    # a run folder made with other settings is refused, naming them
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "file").write_text("x")
    assert_user_error(cli("eval", "baseline", set_dir, "--kind", "always-accept", "--out", tmp_path / "x"),
                      "not empty")
    # a reply that is not JSON is no error at all: it is scored as out of grammar
    offline_run(set_dir, tmp_path / "prose", {f["frame_id"]: "The photo looks fine to me." for f in frames})
    done = cli("eval", "rescore", tmp_path / "prose")
    assert done.returncode == 0 and json.loads(done.stdout)["grammar_problems"] == {"not JSON": 12}


def test_baselines_report_and_ratings(tmp_path):
    frames, set_dir = frames_and_set(tmp_path)
    for kind in ("always-accept", "always-reject"):
        done = cli("eval", "baseline", set_dir, "--kind", kind, "--out", tmp_path / kind)
        assert done.returncode == 0, done.stderr
    accept = json.loads(cli("eval", "rescore", tmp_path / "always-accept").stdout)
    # always accept: precision = scorer accepts among random scored frames (tg0, eq0, dv0 of 7)
    assert accept["precision"]["value"] == pytest.approx(3 / 7) and accept["recall"]["value"] == 1.0
    assert accept["false_accept"]["value"] == 1.0 and accept["documentation"]["value"] is None
    offline_run(set_dir, tmp_path / "model", {f["frame_id"]: json.dumps(f["answer"]) for f in frames},
                model="gpt-4o", label="gpt-4o")
    raters = {"ann": ["accept", "reject", "accept", "accept", "reject", "accept"],
              "bob": ["accept", "reject", "reject", "accept", "reject", "accept"],
              "cy": ["accept", "accept", "accept", None, "reject", "reject"]}
    rated = [f["frame_id"] for f in frames if f["verdict"] in ("accept", "reject")][:6]
    with open(tmp_path / "ratings.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["frame_id", "rater", "rating"])
        for rater, values in raters.items():
            for fid, v in zip(rated, values):
                if v:
                    w.writerow([fid, rater, v])
    done = cli("eval", "report", tmp_path / "model", tmp_path / "always-accept", tmp_path / "always-reject",
               "--out", tmp_path / "report", "--prices", EXAMPLE_PRICES, "--ratings", tmp_path / "ratings.csv")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    report = tmp_path / "report"
    for name in ("report.md", "models.csv", "environments.csv", "fields.csv", "paired.csv", "mcnemar.csv", "cost.csv",
                 "correlations.csv", "grammar.csv", "ratings.csv", "report.json", "f1_vs_cost.png",
                 "fields_heatmap.png", "documentation_vs_cost.png"):
        assert (report / name).is_file() and name in out["files"], name
    models = {r["label"]: r for r in csv.DictReader((report / "models.csv").open())}
    assert float(models["gpt-4o"]["f1"]) == pytest.approx(20 / 27)
    assert float(models["gpt-4o"]["f1_lo"]) <= 20 / 27 <= float(models["gpt-4o"]["f1_hi"])
    # 12 answered items at 1000 input + 200 output tokens, gpt-4o example prices 2.50 / 10.00 per Mtok
    assert float(models["gpt-4o"]["cost"]) == pytest.approx((12000 * 2.5 + 2400 * 10.0) / 1e6)
    assert float(models["gpt-4o"]["mean_thinking_tokens"]) == 50
    assert models["always reject"]["precision"] == "" and float(models["always reject"]["f1"]) == 0
    paired = list(csv.DictReader((report / "paired.csv").open()))
    row = [r for r in paired if r["a"] == "gpt-4o" and r["b"] == "always accept" and r["metric"] == "f1"][0]
    assert float(row["difference"]) == pytest.approx(20 / 27 - 2 * (3 / 7) / (3 / 7 + 1))
    assert float(row["lo"]) <= float(row["difference"]) <= float(row["hi"])
    fields = {(r["label"], r["environment"], r["field"]): r for r in csv.DictReader((report / "fields.csv").open())}
    assert float(fields[("gpt-4o", "tape_gap", "tilted")]["score"]) == 0.75
    ratings = {r["rater"]: r for r in csv.DictReader((report / "ratings.csv").open())}
    coded = np.array([[{"accept": 1.0, "reject": 0.0}.get(v, np.nan) for v in values] for values in raters.values()])
    assert float(ratings["all"]["krippendorff_alpha_nominal"]) == pytest.approx(
        krippendorff.alpha(reliability_data=coded, level_of_measurement="nominal"), abs=1e-12)
    text = (report / "report.md").read_text()
    assert "## Models" in text and "## Human ratings" in text and "gpt-4o" in text
    assert "| always accept | 12 (0) | 1.000 | 0.000 | 0.429 | 1.000 |" in text

    # the same ratings given on the rating page (the set's ratings.sqlite), plus a can't-tell that counts nowhere
    from realitybench_addon.rating.files import Rating
    from realitybench_addon.rating.store import RatingStore

    store = RatingStore(set_dir, {f["frame_id"]: f["environment"] for f in frames})
    for rater, values in raters.items():
        for fid, v in zip(rated, values):
            store.record(Rating(fid, rater, v or "cant_tell"))
    done = cli("eval", "report", tmp_path / "model", "--out", tmp_path / "report-db", "--ratings", set_dir,
               "--no-plots")
    assert done.returncode == 0, done.stderr
    from_db = {r["rater"]: r for r in csv.DictReader((tmp_path / "report-db" / "ratings.csv").open())}
    assert from_db == ratings


def test_eval_commands_import_no_bpy(tmp_path):
    """Nor do baselines, rescoring and reports need requests (only `eval run` does)."""
    frames, set_dir = frames_and_set(tmp_path)
    code = ("import sys; sys.modules['bpy'] = sys.modules['requests'] = None  # importing them now fails\n"
            "from realitybench_addon.__main__ import main\n"
            f"assert main(['eval', 'baseline', {str(set_dir)!r}, '--kind', 'always-accept', '--out', "
            f"{str(tmp_path / 'b')!r}]) == 0\n"
            f"assert main(['eval', 'report', {str(tmp_path / 'b')!r}, '--out', {str(tmp_path / 'r')!r}, "
            "'--no-plots']) == 0\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
