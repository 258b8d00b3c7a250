"""Hostile inputs to `eval run` (issue 14, items 4 and 6), end to end in subprocesses against a real server on
127.0.0.1: an API key with Windows line endings or a control character, a server that drips its reply one byte
at a time, and a reply far larger than any model answer."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import urllib.parse
from pathlib import Path

import pytest

from eval_support import ScriptedServer, make_set, standard_frames
from realitybench_addon.evaluation.runs import RunStore

REPO = Path(__file__).resolve().parent.parent
# '+', '/' and '=' make the URL-encoded and '\/'-escaped forms differ from the key itself
KEY = "sk-proj-7Hq2LmZx9Rv4+Wd8Kp3NnT6y/Bc5Fg1Js0=="
KEY_PARTS = [p for p in re.findall(r"[A-Za-z0-9]+", KEY) if len(p) >= 6]  # escaping leaves letters and digits
DRIP_INTERVAL_S = 0.2
DRIP_LIMIT_S = 8.0  # a drip stops by itself after this long, whoever listens
HUGE_BYTES = 20_000_000


class HostileServer(ScriptedServer):
    """The scripted server plus three hostile behaviours:

    echo_forms:STATUS  an error body repeating the credentials it got: URL-encoded, repr, JSON with '\\/'
    drip_headers       a status line, then a header one byte every DRIP_INTERVAL_S (never finished)
    drip_body          whole headers (Content-Length 100000), then the body one byte every DRIP_INTERVAL_S
    huge               a 200 chat completion of HUGE_BYTES, chunked (no Content-Length)
    Each drip and the huge reply log how long they ran and how much they sent before the client hung up."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.sent: dict[str, dict] = {}

    def _respond(self, h, shape, frame_id, behaviour):
        kind, _, arg = behaviour.partition(":")
        if kind == "echo_forms":
            secret = h.headers.get("Authorization") or ""
            escaped = json.dumps(secret)[1:-1].replace("/", "\\/")  # as PHP's json_encode writes it
            message = f"bad credentials {urllib.parse.quote(secret, safe='')} {secret!r} {escaped}"
            return self._send(h, int(arg or 401), None, raw=('{"error": {"message": "%s"}}' % message).encode())
        if kind in ("drip_headers", "drip_body"):
            head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
            if kind == "drip_body":
                head += b"Content-Length: 100000\r\n\r\n"
            else:
                head += b"X-Drip: "
            return self._trickle(h, frame_id, [head], lambda n: b"a", DRIP_INTERVAL_S)
        if kind == "huge":
            head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
            opening = b'{"choices":[{"index":0,"message":{"role":"assistant","content":"'
            closing = b'"},"finish_reason":"stop"}]}'
            block = b"A" * 65536
            n_blocks = (HUGE_BYTES - len(opening) - len(closing)) // len(block)
            pieces = [opening] + [block] * n_blocks + [closing]
            chunks = [head] + [b"%x\r\n%s\r\n" % (len(p), p) for p in pieces] + [b"0\r\n\r\n"]
            return self._trickle(h, frame_id, chunks, None, 0.0)
        return super()._respond(h, shape, frame_id, behaviour)

    def _trickle(self, h, frame_id, chunks, more, interval):
        """Write `chunks`, then `more(n)` every `interval` seconds; stop when the client hangs up or after
        DRIP_LIMIT_S."""
        h.close_connection = True
        t0, sent, gone = time.monotonic(), 0, False
        try:
            for c in chunks:
                h.wfile.write(c)
                sent += len(c)
            while more is not None and time.monotonic() - t0 < DRIP_LIMIT_S:
                time.sleep(interval)
                h.wfile.write(more(sent))
                sent += 1
        except OSError:  # the client hung up
            gone = True
        with self.lock:
            self.sent[frame_id] = {"bytes": sent, "seconds": time.monotonic() - t0, "client_hung_up": gone}


def cli(*args, env_extra=None, timeout=60):
    env = {**os.environ, **(env_extra or {})}
    return subprocess.run([sys.executable, "-m", "realitybench_addon", *map(str, args)], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=timeout)


def error_line(done) -> str:
    lines = done.stderr.strip().splitlines()
    errors = [line for line in lines if line.startswith("error: ")]
    assert len(errors) == 1 and lines[-1] == errors[0], done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""
    return errors[0]


def three_frames(tmp_path):
    frames = standard_frames()[:3]
    frames[2] = {**frames[2], "verdict": "reject", "gray": [], "failing": ["some_term"]}  # a gray frame is not asked
    return frames, make_set(tmp_path / "set", frames)


def run_args(set_dir, server, out, *more):
    return ["eval", "run", set_dir, "--provider", "openai", "--model", "m", "--base-url", server.url + "/v1",
            "--api-key-env", "RB_HOSTILE_KEY", "--concurrency", "1", "--out", out, *more]


def assert_key_nowhere(texts):
    for where, text in texts:
        for part in KEY_PARTS:
            assert part not in text, (where, part)


def run_files(run_dir):
    return [(str(p), p.read_bytes().decode("utf-8", "replace")) for p in Path(run_dir).rglob("*") if p.is_file()]


@pytest.mark.parametrize("ending", ["\r\n", "\r"], ids=["crlf", "cr"])
def test_a_key_with_windows_line_ending_is_stripped_and_never_written(tmp_path, ending):
    """`OPENAI_API_KEY="$(cat k)"` with k saved on Windows: the key ends in \\r (\\r\\n without the shell)."""
    frames, set_dir = three_frames(tmp_path)
    fid = frames[0]["frame_id"]
    with HostileServer({f["frame_id"]: f["answer"] for f in frames}, {fid: ["echo_forms:401"]}) as server:
        done = cli(*run_args(set_dir, server, tmp_path / "run"), env_extra={"RB_HOSTILE_KEY": KEY + ending})
    assert done.returncode == 2, done.stderr
    line = error_line(done)
    assert line.startswith(f"error: stopped: HTTP 401 from {server.url}/v1/chat/completions: the server refused "
                           "the credentials (")
    assert line.count("[REDACTED]") == 3  # the URL-encoded, repr and JSON forms the server echoed
    assert [r["headers"]["Authorization"] for r in server.log] == [f"Bearer {KEY}"]  # sent stripped
    replies = RunStore(tmp_path / "run").reply_lines()
    assert [(r["frame_id"], r["error"]) for r in replies] == [(fid, "HTTP 401")]
    assert replies[0]["raw_response"].count("[REDACTED]") == 3
    assert_key_nowhere(run_files(tmp_path / "run") + [("stderr", done.stderr), ("stdout", done.stdout)])


@pytest.mark.parametrize("bad", ["\x07", "\n", "\r", "\x1b[0m", "\x7f", "\u00e9"],
                         ids=["bel", "newline", "cr", "escape", "del", "non-ascii"])
def test_a_key_with_a_control_character_inside_is_refused_without_echo(tmp_path, bad):
    frames, set_dir = three_frames(tmp_path)
    broken = KEY[:20] + bad + KEY[20:]
    with HostileServer({f["frame_id"]: f["answer"] for f in frames}, default="echo_forms:400") as server:
        done = cli(*run_args(set_dir, server, tmp_path / "run"), env_extra={"RB_HOSTILE_KEY": broken})
    assert done.returncode == 2, done.stderr
    assert error_line(done) == ("error: the API key in RB_HOSTILE_KEY contains a control character or a character "
                                "outside printable ASCII; set the variable to the key alone")
    assert server.log == []  # nothing was sent
    assert not (tmp_path / "run").exists()  # nothing was written
    assert_key_nowhere([("stderr", done.stderr), ("stdout", done.stdout)])


def test_a_server_dripping_its_reply_is_cut_by_the_deadline(tmp_path):
    """A byte every 0.2 s never trips a 0.5 s read timeout; the 1 s deadline of the whole request cuts it, in the
    headers and in the body alike, and the client hangs up (the server sees it)."""
    frames, set_dir = three_frames(tmp_path)
    fid = [f["frame_id"] for f in frames]
    script = {fid[1]: ["drip_headers"], fid[2]: ["drip_body"]}
    with HostileServer({f["frame_id"]: f["answer"] for f in frames}, script) as server:
        t0 = time.monotonic()
        done = cli(*run_args(set_dir, server, tmp_path / "run", "--timeout", "0.5", "--deadline", "1",
                             "--retries", "0"), env_extra={"RB_HOSTILE_KEY": KEY})
        wall = time.monotonic() - t0
        time.sleep(2 * DRIP_INTERVAL_S)  # the drips' next writes find the connection closed
        sent = dict(server.sent)
    assert done.returncode == 2, done.stderr  # a run with failed items is no success
    assert error_line(done) == (f"error: 2 of 3 items failed; the first, {fid[1]}: timed out after 1 s (the deadline of "
                                f"the whole attempt) after 1 attempt; the run is kept in {tmp_path / 'run'} (its "
                                f"numbers in summary.json); rerun the same command to ask the failed items again")
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["answered"] == 1 and summary["failed"] == 2
    lines = {r["frame_id"]: r for r in RunStore(tmp_path / "run").reply_lines()}
    for f in fid[1:]:
        assert lines[f]["status"] == "error"
        assert lines[f]["error"] == "timed out after 1 s (the deadline of the whole attempt) after 1 attempt"
        assert 0.9 <= lines[f]["attempts"][0]["elapsed_s"] < 2.0
        assert sent[f]["client_hung_up"] and sent[f]["seconds"] < 2.5, sent[f]
    assert wall < 10  # the drips alone would take 2 x 8 s
    assert {r["frame_id"] for r in json.loads((tmp_path / "run" / "summary.json").read_text())["failed_items"]} == \
        set(fid[1:])


def test_an_oversized_reply_is_capped_and_recorded(tmp_path):
    frames, set_dir = three_frames(tmp_path)
    fid = frames[1]["frame_id"]
    cap = 100_000
    with HostileServer({f["frame_id"]: f["answer"] for f in frames}, {fid: ["huge"]}) as server:
        done = cli(*run_args(set_dir, server, tmp_path / "run", "--max-reply-bytes", str(cap)),
                   env_extra={"RB_HOSTILE_KEY": KEY})
        time.sleep(0.2)
        sent = dict(server.sent)
    assert done.returncode == 2, done.stderr
    error = error_line(done)
    assert error.startswith(f"error: 1 of 3 items failed; the first, {fid}: the reply is larger than the {cap}-byte "
                            f"limit (--max-reply-bytes); the rest was not read ({{\"choices\":[{{\"index\":0,")
    assert len(error) < 700  # the first 300 characters of the body, not 100 kB
    line = [r for r in RunStore(tmp_path / "run").reply_lines() if r["frame_id"] == fid][0]
    assert line["status"] == "error" and line["truncated"] is True and line["http_status"] == 200
    assert line["error"] == f"the reply is larger than the {cap}-byte limit (--max-reply-bytes); the rest was not read"
    assert line["raw_response"].startswith('{"choices":[{"index":0,"message":') and len(line["raw_response"]) <= cap
    assert line["reply_text"] is None
    assert (tmp_path / "run" / "replies.jsonl").stat().st_size < cap  # never more than the cap stored
    assert sent[fid]["client_hung_up"] and sent[fid]["bytes"] < HUGE_BYTES // 2, sent[fid]  # it stopped reading
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["failed_items"] == [{"frame_id": fid, "error": line["error"]}]
