"""Closed-loop guidance end to end (bpy): `eval guide-episodes`, `eval guide` over HTTP of scripted models on
127.0.0.1 and the baselines, `eval guide-report`; a kill mid-turn resumed. Tiny renders (128 px, 1 sample), one
episode in each of two environments."""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

pytest.importorskip("bpy")

REPO = Path(__file__).resolve().parent.parent
TURN = re.compile(r"Episode (\d+), photo (\d+) of at most (\d+)")
USAGE = (1000, 50)  # input, output tokens of every scripted reply
KEY = "sk-guide-test-0123456789abcdef"
RENDER = ["--samples", "1", "--no-denoise"]


class ScriptedModel:
    """An OpenAI-shaped chat server: `reply(episode number, photo number) -> text`; `hold` seconds of wait for
    the photos numbered in `slow` (to be killed there)."""

    def __init__(self, reply, slow=(), hold=0.0, status=200):
        self.reply, self.slow, self.hold, self.log, self.status = reply, set(slow), hold, [], status
        model = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                parts = body["messages"][0]["content"]
                text = next(p["text"] for p in parts if p["type"] == "text")
                image = next(p["image_url"]["url"] for p in parts if p["type"] == "image_url")
                number, photo, _ = map(int, TURN.search(text).groups())
                model.log.append({"episode": number, "photo": photo, "auth": self.headers.get("Authorization"),
                                  "image": image, "prompt": text})
                if photo in model.slow:
                    time.sleep(model.hold)
                data = json.dumps({"choices": [{"index": 0, "finish_reason": "stop", "message": {
                    "role": "assistant", "content": model.reply(number, photo)}}],
                    "usage": {"prompt_tokens": USAGE[0], "completion_tokens": USAGE[1]}} if model.status == 200 else
                    {"error": {"message": f"refused, you sent {self.headers.get('Authorization')}"}}).encode()
                self.send_response(model.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True

    def __enter__(self):
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()


def main(*args) -> dict:
    """The command as the CLI parses and runs it (in this process: the scene stays built between runs)."""
    from realitybench_addon.__main__ import build_parser
    from realitybench_addon.cli.evaluate import run_command

    return json.loads(json.dumps(run_command(build_parser().parse_args([str(a) for a in args]))))


@pytest.fixture(scope="module")
def episodes(tmp_path_factory):
    path = tmp_path_factory.mktemp("guide") / "episodes.json"
    made = main("eval", "guide-episodes", "--seed", 0, "--per-env", 1, "--envs", "rail_attachment,tape_gap",
                "--long-side", 128, "--max-tries", 12, "--out", path)
    data = json.loads(path.read_text())
    return path, data, made


def turn_lines(run: Path) -> list[dict]:
    return [json.loads(line) for line in (run / "turns.jsonl").read_text().splitlines()]


def guided(episodes_path, run, base_url, *extra):
    os.environ["RB_GUIDE_KEY"] = KEY
    return main("eval", "guide", episodes_path, "--provider", "openai", "--model", "scripted", "--base-url", base_url,
                "--api-key-env", "RB_GUIDE_KEY", *RENDER, *extra, "--out", run)


def test_the_episode_file_is_reproducible_and_every_episode_solvable(episodes, tmp_path):
    path, data, made = episodes
    assert made["per_environment"] == {"rail_attachment": 1, "tape_gap": 1}
    again = tmp_path / "again.json"
    main("eval", "guide-episodes", "--seed", 0, "--per-env", 1, "--envs", "rail_attachment,tape_gap",
         "--long-side", 128, "--max-tries", 12, "--out", again)
    assert again.read_bytes() == path.read_bytes()  # same seed, same bytes
    for e in data["episodes"]:
        assert e["failing_before"] and e["oracle"]["actions"] and e["oracle"]["replay_error_m"] < 1e-3
        assert e["oracle"]["walked_m"] > 0


def test_scripted_models_against_the_baselines_and_a_hand_computation(episodes, tmp_path):
    path, data, _ = episodes
    oracle = {n: e["oracle"]["actions"] for n, e in enumerate(data["episodes"], 1)}
    scripts = {
        "replay": lambda n, t: json.dumps({"actions": oracle[n] if t == 1 else [{"do": "done"}]}),
        "away": lambda n, t: json.dumps({"actions": [{"do": "step_back", "m": 3}, {"do": "move_left", "deg": 90}]}),
        "done": lambda n, t: '{"actions": [{"do": "done"}]}',
        "prose": lambda n, t: 'I would step closer: {"actions": [{"do": "step_closer", "m": 1}]}',
    }
    runs = {}
    for name, script in scripts.items():
        model = ScriptedModel(script)
        with model as url:
            runs[name] = guided(path, tmp_path / name, url, "--label", name)
        assert all(r["auth"] == f"Bearer {KEY}" for r in model.log)
        first = model.log[0]  # the photo sent is the stored one, byte for byte
        import base64
        stored = (tmp_path / name / "renders" / data["episodes"][0]["id"] / "photo-1.jpg").read_bytes()
        assert base64.b64decode(first["image"].split(",", 1)[1]) == stored
    for kind in ("oracle", "random-walk", "done-at-once"):
        runs[kind] = main("eval", "guide", path, "--baseline", kind, *RENDER, "--out", tmp_path / kind)
    for name in runs:
        assert KEY not in "".join(p.read_text(errors="replace") for p in (tmp_path / name).rglob("*.json*"))

    def row(name, env="all"):
        return runs[name]["guide"][0]["rows"][env]

    oracle_lines = turn_lines(tmp_path / "oracle")
    solved = [ln["accepted"] for ln in oracle_lines if ln["turn"] == 2]
    assert row("replay")["success"]["value"] == row("oracle")["success"]["value"] == sum(solved) / 2
    assert [ln["photo_sha256"] for ln in turn_lines(tmp_path / "replay")] == [ln["photo_sha256"] for ln in oracle_lines]
    assert row("replay")["walked_m"] == pytest.approx(sum(e["oracle"]["walked_m"] for e in data["episodes"]) / 2)
    away = turn_lines(tmp_path / "away")
    assert row("away")["success"]["value"] == 0.0 and row("away")["turns"] == 4.0
    assert {ln["end"] for ln in away if ln["end"]} == {"turns_spent"} and len(away) == 8
    assert row("away")["walked_m"] == pytest.approx(sum(ln["walked_m"] for ln in away) / 2)
    for name in ("done", "done-at-once"):
        assert (row(name)["success"]["value"], row(name)["premature"], row(name)["turns"]) == (0.0, 1.0, 1.0)
    assert row("prose")["in_grammar_share"] == 0.0 and row("prose")["success"]["value"] == 0.0
    assert {ln["end"] for ln in turn_lines(tmp_path / "prose")} == {"out_of_grammar"}
    # cost: every reply billed USAGE at 2 / 10 per million tokens; the replay's cost per solved episode
    prices = tmp_path / "prices.toml"
    prices.write_text('currency = "USD"\n[[price]]\nmodel = "scripted"\ninput = 2.0\noutput = 10.0\n'
                      'source = "test"\ndate = "2025-01-01"\n')
    report = main("eval", "guide-report", tmp_path / "replay", tmp_path / "oracle", "--prices", prices,
                  "--out", tmp_path / "report")
    cost = 4 * (USAGE[0] * 2.0 + USAGE[1] * 10.0) / 1e6  # 2 episodes x 2 turns
    replay_all = report["guide"][0]["rows"]["all"]
    assert replay_all["cost"] == pytest.approx(cost)
    n_solved = sum(solved)
    assert replay_all["cost_per_solved"] == (pytest.approx(cost / n_solved) if n_solved else None)
    assert "| replay (K=4) | all | 2 |" in (tmp_path / "report" / "guide.md").read_text()
    # `eval report --guide` adds the same section to report.md
    from eval_support import make_set, standard_frames

    set_dir = make_set(tmp_path / "set", standard_frames())
    main("eval", "baseline", set_dir, "--kind", "always-accept", "--out", tmp_path / "accept")
    made = main("eval", "report", tmp_path / "accept", "--no-plots", "--prices", prices, "--guide", tmp_path / "replay",
                "--out", tmp_path / "full")
    assert made["guide"][0]["rows"]["all"] == replay_all
    assert "## Closed-loop guidance" in (tmp_path / "full" / "report.md").read_text()
    # a rerun that would mix two protocols in one folder is refused before anything is rendered or asked
    from realitybench_addon.evaluation.errors import EvalError

    with pytest.raises(EvalError, match="another guide .turns: run has 4, now 3"):
        main("eval", "guide", path, "--baseline", "oracle", "--turns", 3, *RENDER, "--out", tmp_path / "oracle")
    with pytest.raises(EvalError, match="another policy"):
        main("eval", "guide", path, "--baseline", "random-walk", *RENDER, "--out", tmp_path / "oracle")
    assert main("eval", "guide", path, "--baseline", "oracle", *RENDER, "--out", tmp_path / "oracle")["guided"][
        "already_ended"] == 2  # the same command again asks and renders nothing


def test_a_kill_mid_turn_resumes_without_a_lost_or_doubled_turn(episodes, tmp_path):
    path, data, _ = episodes
    oracle = {n: e["oracle"]["actions"] for n, e in enumerate(data["episodes"], 1)}
    script = lambda n, t: json.dumps({"actions": oracle[n] if t == 1 else [{"do": "done"}]})  # noqa: E731
    run = tmp_path / "killed"
    env = {**os.environ, "RB_GUIDE_KEY": KEY}
    model = ScriptedModel(script, slow={2}, hold=120)
    with model as url:
        args = [sys.executable, "-m", "realitybench_addon", "eval", "guide", str(path), "--provider", "openai",
                "--model", "scripted", "--base-url", url, "--api-key-env", "RB_GUIDE_KEY", *RENDER, "--out", str(run)]
        proc = subprocess.Popen(args, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 120
            while not any(r["photo"] == 2 for r in model.log) and time.monotonic() < deadline:
                time.sleep(0.2)  # turn 1 stored, the photo of turn 2 rendered and asked about: kill mid-turn
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
        assert [(ln["episode"], ln["turn"]) for ln in turn_lines(run)] == [(data["episodes"][0]["id"], 1)]
        model.slow, model.log = set(), []  # the same server (a run's base URL is part of it), answering at once
        guided(path, run, url)
    ids = [e["id"] for e in data["episodes"]]
    assert [(ln["episode"], ln["turn"]) for ln in turn_lines(run)] == [(ids[0], 1), (ids[0], 2), (ids[1], 1),
                                                                        (ids[1], 2)]
    # the rerun asked only what had no stored reply: episode 1's photo 2, then episode 2
    assert [(r["episode"], r["photo"]) for r in model.log] == [(1, 2), (2, 1), (2, 2)]


def test_a_refused_key_stops_the_run_in_one_line_and_is_written_nowhere(episodes, tmp_path):
    from realitybench_addon.evaluation.errors import EvalError

    path, _, _ = episodes
    model = ScriptedModel(lambda n, t: "", status=401)
    with model as url, pytest.raises(EvalError, match="stopped: HTTP 401") as caught:
        guided(path, tmp_path / "refused", url)
    assert KEY not in str(caught.value) and len(model.log) == 1  # fatal: not retried, nothing else asked
    assert not (tmp_path / "refused" / "turns.jsonl").exists()
    assert KEY not in "".join(p.read_text(errors="replace") for p in (tmp_path / "refused").rglob("*.json*"))
