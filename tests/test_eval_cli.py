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

from eval_support import OTHER_TOKEN, ScriptedServer, make_set, offline_run, standard_frames
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
        asked = [f for f in frames if f["verdict"] != "gray"]  # gray frames are not asked (no --include-gray)
        assert 6 <= len(finished) < len(asked)  # killed mid-run
        server.phase = 1
        done = cli(*args)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    asked_again = [r["frame_id"] for r in server.log if r["phase"] == 1]
    assert not set(asked_again) & finished  # no finished item was asked again
    assert len(asked_again) == len(set(asked_again)) == len(asked) - len(finished)
    assert result["asked"]["already_answered"] == len(finished)
    assert result["complete"] and result["answered"] == len(asked) and result["failed"] == 0
    lines = RunStore(run_dir).reply_lines()
    assert len({r["request_hash"] for r in lines}) == len(asked) and all(r["status"] == "ok" for r in lines)
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
                      "cannot connect (connection refused)", "cannot be reached", "rerun the same command")
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
    assert done.returncode == 0 and json.loads(done.stdout)["grammar_problems"] == {"not JSON": 11}  # the gray frame not scored


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
    # 11 answered items scored (the gray frame is not) at 1000 input + 200 output tokens, gpt-4o example prices
    # 2.50 / 10.00 per Mtok
    assert float(models["gpt-4o"]["cost"]) == pytest.approx((11000 * 2.5 + 2200 * 10.0) / 1e6)
    assert float(models["gpt-4o"]["mean_thinking_tokens"]) == 50
    assert models["always reject"]["precision"] == "" and float(models["always reject"]["f1"]) == 0
    paired = list(csv.DictReader((report / "paired.csv").open()))
    row = [r for r in paired if r["a"] == "gpt-4o" and r["b"] == "always accept" and r["metric"] == "f1"][0]
    assert float(row["difference"]) == pytest.approx(20 / 27 - 2 * (3 / 7) / (3 / 7 + 1))
    assert float(row["lo"]) <= float(row["difference"]) <= float(row["hi"])
    fields = {(r["label"], r["environment"], r["field"]): r for r in csv.DictReader((report / "fields.csv").open())}
    assert float(fields[("gpt-4o", "tape_gap", "tilted")]["score"]) == 1.0  # tg0, tg1, tg3; the gray tg2 not scored
    ratings = {r["rater"]: r for r in csv.DictReader((report / "ratings.csv").open())}
    coded = np.array([[{"accept": 1.0, "reject": 0.0}.get(v, np.nan) for v in values] for values in raters.values()])
    assert float(ratings["all"]["krippendorff_alpha_nominal"]) == pytest.approx(
        krippendorff.alpha(reliability_data=coded, level_of_measurement="nominal"), abs=1e-12)
    text = (report / "report.md").read_text()
    assert "## Models" in text and "## Human ratings" in text and "gpt-4o" in text
    assert "| always accept | 11 (0) | 1.000 | 0.000 | 0.429 | 1.000 |" in text  # the gray frame is not asked

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
    # the same rows, plus the held-out rows a rated set folder adds (its stored split; a ratings file has none)
    assert {k: v for k, v in from_db.items() if not k.startswith("held-out: ")} == ratings
    assert {k for k in from_db if k.startswith("held-out: ")} >= {"held-out: all"}


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


# ---- issue 19: failed items fail the command; cost plots and correlations say who is left out --------------

def test_a_run_with_failed_items_exits_non_zero_with_the_first_failure(tmp_path):
    frames, set_dir = frames_and_set(tmp_path)
    fid = sorted(f["frame_id"] for f in frames)
    answers = {f["frame_id"]: f["answer"] for f in frames}
    args = ["eval", "run", set_dir, "--provider", "anthropic", "--model", "claude-sonnet-4-5", "--api-key-env",
            "RB_CLI_KEY", "--concurrency", "1", "--out", tmp_path / "run"]
    with ScriptedServer(answers, {fid[4]: ["refuse:400"], fid[7]: ["status:422"]}) as server:
        args[args.index("--model"):args.index("--model")] = ["--base-url", server.url]
        done = cli(*args)
        assert_user_error(done)
        summary = json.loads((tmp_path / "run" / "summary.json").read_text())
        server.phase = 1
        again = cli(*args)
    line = done.stderr.strip().splitlines()[-1]
    assert line == (f"error: 2 of 11 items failed; the first, {fid[4]}: HTTP 400 (This model does not support the "
                    f"settings sent (scripted 400). Request headers: x-api-key: [REDACTED]; upstream Authorization: "
                    f"[REDACTED]); the run is kept in {tmp_path / 'run'} (its numbers in summary.json); rerun the same "
                    f"command to ask the failed items again")
    assert KEY not in done.stderr and OTHER_TOKEN not in done.stderr
    assert f"{fid[7]}: failed: HTTP 422: scripted 422" in done.stderr  # each failure's progress line says why
    assert summary["failed"] == 2 and summary["answered"] == 9 and not summary["complete"]
    # the rerun asks the two failed items only, and succeeds
    assert again.returncode == 0, again.stderr
    assert sorted(r["frame_id"] for r in server.log if r["phase"] == 1) == [fid[4], fid[7]]
    assert json.loads(again.stdout)["complete"]


def test_a_provider_refusing_everything_is_one_line_from_the_cli(tmp_path):
    frames, set_dir = frames_and_set(tmp_path)
    with ScriptedServer({}, default="refuse:400") as server:
        done = cli("eval", "run", set_dir, "--provider", "openai", "--model", "gpt-4o", "--base-url",
                   server.url + "/v1", "--api-key-env", "RB_CLI_KEY", "--concurrency", "1", "--out", tmp_path / "run")
    assert_user_error(done, f"error: stopped: the first 3 requests all failed with HTTP 400 from {server.url}/v1/chat/"
                            "completions; the provider says: This model does not support the settings sent (scripted "
                            "400).", "fix what it names", "rerun the same command to resume")
    assert len(server.log) == 3 and KEY not in done.stderr and OTHER_TOKEN not in done.stderr


def test_cost_plots_name_the_runs_they_leave_out_and_correlations_leave_out_baselines(tmp_path):
    import scipy.stats

    frames, set_dir = frames_and_set(tmp_path)
    texts = {"cheap": {f["frame_id"]: "Looks fine." for f in frames},  # out of grammar: F1 0
             "mid": {f["frame_id"]: json.dumps(f["answer"]) for f in frames},  # F1 20/27
             "dear": {f["frame_id"]: json.dumps({**f["answer"], "adequate": True}) for f in frames},  # F1 6/10
             "unpriced": {f["frame_id"]: json.dumps(f["answer"]) for f in frames}}
    for name, by_frame in texts.items():
        offline_run(set_dir, tmp_path / name, by_frame, model=f"m-{name}", label=name)
    for kind in ("always-accept", "always-reject"):
        assert cli("eval", "baseline", set_dir, "--kind", kind, "--out", tmp_path / kind).returncode == 0
    prices = tmp_path / "prices.toml"
    prices.write_text('currency = "USD"\n' + "".join(
        f'[[price]]\nmodel = "m-{name}"\ninput = {p}\noutput = {p}\nsource = "test"\ndate = "2025-01-01"\n'
        for name, p in (("cheap", 1.0), ("mid", 2.0), ("dear", 5.0))))
    runs = [tmp_path / n for n in ("cheap", "mid", "dear", "unpriced", "always-accept", "always-reject")]
    done = cli("eval", "report", *runs, "--out", tmp_path / "report", "--prices", prices)
    assert done.returncode == 0, done.stderr
    report = tmp_path / "report"
    corr = {(r["x"], r["y"]): r for r in csv.DictReader((report / "correlations.csv").open())}
    f1 = [0.0, 20 / 27, 0.6]
    cost = [12 * 1200 * p / 1e6 for p in (1.0, 2.0, 5.0)]  # 12 items x (1000 + 200) tokens at p per Mtok
    assert int(corr[("f1", "cost")]["runs"]) == 3  # the three priced model runs: no baseline at cost 0
    assert float(corr[("f1", "cost")]["rho"]) == pytest.approx(scipy.stats.spearmanr(f1, cost).statistic) == 0.5
    assert int(corr[("f1", "documentation")]["runs"]) == 4  # baselines have an F1 but stay out all the same
    data = json.loads((report / "report.json").read_text())
    assert [c["labels"] for c in data["correlations"] if (c["x"], c["y"]) == ("f1", "cost")] == \
        [["cheap", "mid", "dear"]]
    unpriced = f"no price for model `m-unpriced` (openai) in `{prices}`"
    assert {k: v for k, v in data["cost_plots"]["f1"].items() if not k.startswith("ensembles")} == {
        "plotted": ["cheap", "mid", "dear"], "reference_lines": ["always accept", "always reject"],
        "left_out": [{"label": "unpriced", "reason": unpriced}]}
    # ensembles are markers too: the majority asks every model, the unpriced one included, so it has no cost
    assert data["cost_plots"]["f1"]["ensembles_left_out"] == [
        {"label": "majority of 4 models", "reason": f"no cost (`unpriced`: {unpriced})"}]
    assert data["cost_plots"]["documentation"]["left_out"] == [
        {"label": "unpriced", "reason": unpriced},
        {"label": "always accept", "reason": "a baseline without a documentation score"},
        {"label": "always reject", "reason": "a baseline without a documentation score"}]
    text = (report / "report.md").read_text()
    assert f"Left out of f1_vs_cost: `unpriced` ({unpriced})." in text
    assert "Drawn in f1_vs_cost as a level, not a point at cost 0 (a baseline): `always accept`, `always reject`." \
        in text
    assert "Baselines (`always accept`, `always reject`) are kept out of the rank correlations" in text
    costs = {r["label"]: r for r in csv.DictReader((report / "cost.csv").open())}
    assert costs["unpriced"]["not_in_cost_plots"] == unpriced and costs["mid"]["not_in_cost_plots"] == ""
    assert costs["always accept"]["not_in_cost_plots"] == "baseline: a reference line"
    assert (report / "f1_vs_cost.png").is_file()
    # without a price file every model run is left out, and the report says so
    done = cli("eval", "report", *runs, "--out", tmp_path / "bare", "--no-plots")
    assert done.returncode == 0, done.stderr
    assert "Left out of f1_vs_cost: `cheap` (no price file (--prices)); `mid` (no price file (--prices));" in \
        (tmp_path / "bare" / "report.md").read_text()
    bare = {(r["x"], r["y"]) for r in csv.DictReader((tmp_path / "bare" / "correlations.csv").open())}
    assert bare == {("f1", "documentation")}
