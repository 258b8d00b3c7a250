"""Evaluation harness over real HTTP: a local scripted server (tests/eval_support.py) speaking the
OpenAI-compatible, Anthropic and Gemini shapes. No mocks of requests."""
from __future__ import annotations

import io
import json
import os
import time

import pytest

from eval_support import LENGTH_STOP, OTHER_TOKEN, ScriptedServer, make_set, standard_frames
from realitybench_addon.evaluation import providers
from realitybench_addon.evaluation.ask import ask_set
from realitybench_addon.evaluation.errors import EvalError
from realitybench_addon.evaluation.pricing import cost, load_prices, usage_totals
from realitybench_addon.evaluation.report import build_report
from realitybench_addon.evaluation.runs import RunStore
from realitybench_addon.evaluation.summary import rescore
from realitybench_addon.evaluation.transport import RateLimiter, TransportConfig, backoff_s, retry_after_s

KEY = "sk-test-9f8e7d6c5b4a-DO-NOT-LEAK"
FAST = TransportConfig(backoff_base_s=0.01, backoff_cap_s=0.05, timeout_s=5, concurrency=4)


@pytest.fixture()
def frames():
    return standard_frames()


@pytest.fixture()
def set_dir(tmp_path, frames):
    return make_set(tmp_path / "set", frames)


@pytest.fixture(autouse=True)
def api_key(monkeypatch):
    monkeypatch.setenv("RB_TEST_KEY", KEY)


def answers(frames):
    return {f["frame_id"]: f["answer"] for f in frames}


def base(server, provider):
    return server.url + {"openai": "/v1", "anthropic": "", "gemini": "/v1beta"}[provider]


def ask(set_dir, out, server, provider="openai", settings=None, transport=FAST, **kw):
    kw.setdefault("include_gray", True)  # these transport tests ask every frame of the set, its gray one too
    return ask_set(set_dir, out, provider=providers.get(provider), model="test-model", base_url=base(server, provider),
                   settings=settings or providers.Settings(image_detail="high" if provider == "openai" else None),
                   transport=transport, api_key_env="RB_TEST_KEY", progress=kw.pop("progress", None), **kw)


@pytest.mark.parametrize("provider", ["openai", "anthropic", "gemini"])
def test_three_shapes_send_the_file_and_normalise_usage(tmp_path, set_dir, frames, provider):
    with ScriptedServer(answers(frames)) as server:
        asked = ask(set_dir, tmp_path / "run", server, provider,
                    settings=providers.Settings(max_tokens=321, temperature=0.0,
                                                image_detail="high" if provider == "openai" else None,
                                                extra={"seed": 5}))
    assert asked["ok"] == 12 and asked["failed"] == 0 and asked["retries"] == 0
    assert len(server.log) == 12 and {r["shape"] for r in server.log} == {provider}
    meta = {json.loads(line)["frame_id"]: json.loads(line) for line in (set_dir / "metadata.jsonl").open()}
    for r in server.log:
        row = meta[r["frame_id"]]
        assert r["images"] == [(set_dir / row["file_name"]).read_bytes()]  # base64 of the exported file, as is
        body = r["body"]
        assert body["seed"] == 5  # --extra is merged into the body
        if provider == "openai":
            assert body["model"] == "test-model" and body["max_tokens"] == 321 and body["temperature"] == 0.0
            assert body["messages"][0]["content"][0]["image_url"]["detail"] == "high"
            assert body["messages"][0]["content"][1]["text"] == row["prompt"]
            assert r["headers"]["Authorization"] == f"Bearer {KEY}"
        elif provider == "anthropic":
            assert body["max_tokens"] == 321 and r["headers"]["x-api-key"] == KEY
            assert r["headers"]["anthropic-version"] == "2023-06-01"
        else:
            assert r["path"] == "/v1beta/models/test-model:generateContent"
            assert body["generationConfig"] == {"maxOutputTokens": 321, "temperature": 0.0}
            assert r["headers"]["x-goog-api-key"] == KEY and KEY not in r["path"]
    summary = rescore(tmp_path / "run")
    assert summary["metrics"]["f1"]["value"] == pytest.approx(20 / 27)  # the same replies in every shape
    totals = summary["usage"]
    # output = billed output with thinking counted once: 50 per reply for every provider
    assert totals["input_tokens"] == 1200 and totals["output_tokens"] == 600
    assert totals["mean_thinking_tokens"] == (None if provider == "anthropic" else 20)
    price = load_prices(providers.__file__.replace("providers.py", "prices/example.toml")).prices[0]
    assert cost(usage_totals([{"usage": {"input_tokens": 1200, "output_tokens": 600}}]), price) == \
        cost(totals, price) == pytest.approx((1200 * 2.5 + 600 * 10.0) / 1e6)


def test_usage_normalisation_never_counts_thinking_twice():
    openai = providers.get("openai").usage({"prompt_tokens": 10, "completion_tokens": 300,
                                            "completion_tokens_details": {"reasoning_tokens": 250}})
    gemini = providers.get("gemini").usage({"promptTokenCount": 10, "candidatesTokenCount": 50,
                                            "thoughtsTokenCount": 250})
    anthropic = providers.get("anthropic").usage({"input_tokens": 4, "cache_read_input_tokens": 6,
                                                  "output_tokens": 300})
    assert openai.to_dict() == {"input_tokens": 10, "output_tokens": 300, "thinking_tokens": 250}
    assert gemini.to_dict() == {"input_tokens": 10, "output_tokens": 300, "thinking_tokens": 250}
    assert anthropic.to_dict() == {"input_tokens": 10, "output_tokens": 300, "thinking_tokens": None}
    # no thoughtsTokenCount: the output is the candidates alone, none of it thinking
    assert providers.get("gemini").usage({"promptTokenCount": 10, "candidatesTokenCount": 7}).thinking_tokens == 0


def test_blind_mode_sends_no_image(tmp_path, set_dir, frames):
    with ScriptedServer(answers(frames)) as server:
        ask(set_dir, tmp_path / "blind", server, settings=providers.Settings(blind=True))
        ask(set_dir, tmp_path / "seeing", server)
    blind = [r for r in server.log if isinstance(r["body"]["messages"][0]["content"], str)]
    assert len(blind) == 12 and all(r["images"] == [] for r in blind)
    assert json.loads((tmp_path / "blind" / "run.json").read_text())["label"] == "test-model (blind)"
    hashes = lambda d: {r["request_hash"] for r in RunStore(d).reply_lines()}  # noqa: E731
    assert not hashes(tmp_path / "blind") & hashes(tmp_path / "seeing")


def test_retries_and_what_is_not_retried(tmp_path, set_dir, frames):
    fid = [f["frame_id"] for f in frames]
    script = {fid[0]: ["status:429:1"], fid[1]: ["status:500"], fid[2]: ["drop"], fid[3]: ["status:503", "status:408",
              "status:409"], fid[4]: ["slow:1.5"], fid[5]: ["status:400"], fid[6]: ["status:422"],
              fid[7]: ["status:502"] * 10, fid[8]: ["status:429:30"]}
    transport = TransportConfig(backoff_base_s=0.01, backoff_cap_s=0.05, timeout_s=0.6, max_retries=3,
                                max_wait_s=1.5, concurrency=4)
    with ScriptedServer(answers(frames), script) as server:
        asked = ask(set_dir, tmp_path / "run", server, transport=transport)
    attempts = {f: len(server.requests_for(f)) for f in fid}
    assert attempts[fid[0]] == 2 and attempts[fid[1]] == 2 and attempts[fid[2]] == 2
    assert attempts[fid[3]] == 4 and attempts[fid[4]] == 2  # 408, 409, 5xx; a timeout
    assert attempts[fid[5]] == 1 and attempts[fid[6]] == 1  # other 4xx: never retried
    assert attempts[fid[7]] == 4  # max_retries + 1, then failed
    first, second = server.requests_for(fid[0])
    assert second["time"] - first["time"] >= 1.0  # Retry-After: 1 honoured
    assert attempts[fid[8]] == 1  # Retry-After: 30 is past --max-wait 1.5: failed at once, not cut short
    assert asked["failed"] == 4 and asked["ok"] == 8
    lines = {r["frame_id"]: r for r in RunStore(tmp_path / "run").reply_lines()}
    assert lines[fid[7]]["error"] == "HTTP 502 after 4 attempts"
    assert lines[fid[8]]["error"] == ("HTTP 429: the server asked to wait 30 s, past what --max-wait (1.5 s a request) "
                                      "leaves (1.5 s) after 1 attempt")
    assert [a["status"] for a in lines[fid[3]]["attempts"]] == [503, 408, 409, 200]
    assert lines[fid[0]]["attempts"][0]["retry_after_s"] == 1.0
    assert lines[fid[4]]["attempts"][0]["error"] == "timed out after 0.6 s waiting for the reply (--timeout)"
    assert lines[fid[4]]["attempts"][0]["kind"] == "timeout" and lines[fid[4]]["billing"]["timeouts"] == 1
    assert lines[fid[2]]["attempts"][0]["error"].startswith("connection dropped")  # after sending: not unreachable
    summary = rescore(tmp_path / "run")
    assert summary["failed"] == 4 and summary["items"] == 12
    assert {f["frame_id"] for f in summary["failed_items"]} == {fid[5], fid[6], fid[7], fid[8]}


def test_rerun_asks_only_what_is_not_finished(tmp_path, set_dir, frames):
    fid = [f["frame_id"] for f in frames]
    with ScriptedServer(answers(frames), {fid[0]: ["status:400"], fid[1]: ["status:500"] * 2}) as server:
        first = ask(set_dir, tmp_path / "run", server, transport=TransportConfig(max_retries=1, backoff_base_s=0.01))
        assert first["failed"] == 2 and first["ok"] == 10
        with open(tmp_path / "run" / "replies.jsonl", "ab") as fh:  # a line torn by a kill mid-append
            fh.write(b'{"request_hash": "torn-by-a-kill", "status": "o')
        server.phase = 1
        second = ask(set_dir, tmp_path / "run", server)
        assert second == {**second, "already_answered": 10, "asked": 2, "ok": 2, "failed": 0}
        server.phase = 2
        third = ask(set_dir, tmp_path / "run", server)
    assert third["asked"] == 0
    assert sorted(r["frame_id"] for r in server.log if r["phase"] == 1) == sorted(fid[:2])
    assert [r for r in server.log if r["phase"] == 2] == []
    assert rescore(tmp_path / "run")["complete"]
    text = (tmp_path / "run" / "replies.jsonl").read_text()
    assert "torn-by-a-kill" not in text and text.endswith("\n") and len(text.splitlines()) == 14  # torn line cut off


def test_a_different_setting_is_refused(tmp_path, set_dir, frames):
    with ScriptedServer(answers(frames)) as server:
        ask(set_dir, tmp_path / "run", server)
        with pytest.raises(EvalError, match="other settings.*temperature"):
            ask(set_dir, tmp_path / "run", server, settings=providers.Settings(temperature=0.7, image_detail="high"))


def test_rate_and_concurrency_limits(tmp_path, set_dir, frames):
    with ScriptedServer(answers(frames), default="slow:0.25") as server:
        ask(set_dir, tmp_path / "run", server, transport=TransportConfig(concurrency=2, timeout_s=5))
    assert server.max_in_flight == 2
    with ScriptedServer(answers(frames)) as server:
        ask(set_dir, tmp_path / "paced", server, transport=TransportConfig(concurrency=4, rpm=1200))  # 50 ms apart
    starts = sorted(r["time"] for r in server.log)
    assert starts[-1] - starts[0] >= 11 * 0.05 - 0.05  # 12 starts at least 50 ms apart (arrival jitter allowed)
    # the limiter on its own, with a fake clock
    now = [0.0]
    slept = []
    limiter = RateLimiter(60, clock=lambda: now[0], sleep=slept.append)
    assert [limiter.acquire() for _ in range(3)] == [0.0, 1.0, 2.0]


def test_retry_after_and_backoff_helpers():
    assert retry_after_s({"Retry-After": "7"}) == 7.0
    assert retry_after_s({"retry-after-ms": "250", "Retry-After": "7"}) == 0.25
    from datetime import datetime, timezone

    now = datetime(2025, 1, 1, 0, 0, 0, tzinfo=timezone.utc)
    assert retry_after_s({"Retry-After": "Wed, 01 Jan 2025 00:00:09 GMT"}, now=now) == 9.0
    assert retry_after_s({}) is None and retry_after_s({"Retry-After": "soon"}) is None
    config = TransportConfig(backoff_base_s=1.0, backoff_cap_s=8.0)
    waits = [backoff_s(config, "abc", k) for k in range(6)]
    assert all(0 <= w < min(8.0, 2.0 ** k) for k, w in enumerate(waits))
    assert waits == [backoff_s(config, "abc", k) for k in range(6)]  # jitter from the request, not a global source
    assert backoff_s(config, "abd", 3) != waits[3]


def test_fatal_status_stops_the_run_and_keeps_what_finished(tmp_path, set_dir, frames):
    with ScriptedServer(answers(frames), default="status:401") as server:
        with pytest.raises(EvalError, match="HTTP 401.*credentials") as info:
            ask(set_dir, tmp_path / "run", server, transport=TransportConfig(concurrency=1))
    assert KEY not in str(info.value)
    assert len(server.log) == 1  # stopped at the first refusal


def test_a_body_that_is_not_json_fails_the_item_cleanly(tmp_path, set_dir, frames):
    fid = frames[0]["frame_id"]
    with ScriptedServer(answers(frames), {fid: ["notjson"]}) as server:
        asked = ask(set_dir, tmp_path / "run", server)
    assert asked["failed"] == 1
    line = [r for r in RunStore(tmp_path / "run").reply_lines() if r["frame_id"] == fid][0]
    assert line["error"] == "the response body is not JSON" and line["raw_response"] == "<html>gateway</html>"


def test_missing_key_variable_is_a_clear_error(tmp_path, set_dir, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(EvalError, match="OPENAI_API_KEY is not set"):
        ask_set(set_dir, tmp_path / "run", provider=providers.get("openai"), model="m", base_url=None,
                settings=providers.Settings(), transport=FAST, progress=None)
    assert not (tmp_path / "run").exists()


def test_the_key_is_never_written(tmp_path, set_dir, frames):
    """Every file a run and a report write, and the progress stream, are grepped for the key."""
    fid = [f["frame_id"] for f in frames]
    script = {fid[0]: ["echo_key:500"], fid[1]: ["echo_key:400"], fid[2]: ["echo_key:429"]}
    progress = io.StringIO()
    with ScriptedServer(answers(frames), script) as server:
        for provider in ("openai", "anthropic", "gemini"):
            ask(set_dir, tmp_path / provider, server, provider, progress=progress)
    assert any(KEY in json.dumps(r["headers"]) for r in server.log)  # it was sent...
    assert any("credentials" in json.dumps(r.get("raw_response")) for r in RunStore(tmp_path / "openai").reply_lines())
    for provider in ("openai", "anthropic", "gemini"):
        rescore(tmp_path / provider)
    build_report([tmp_path / p for p in ("openai", "anthropic", "gemini")], tmp_path / "report", plots=False)
    written = [p for p in tmp_path.rglob("*") if p.is_file() and "set" not in p.relative_to(tmp_path).parts[:1]]
    assert len(written) > 20
    for path in written:  # ...and never written
        assert KEY.encode() not in path.read_bytes(), path
    assert KEY not in progress.getvalue() and "[REDACTED]" in json.dumps(RunStore(tmp_path / "openai").reply_lines())
    assert os.environ["RB_TEST_KEY"] == KEY


def test_the_transport_is_quick_when_nothing_fails(tmp_path, set_dir, frames):
    with ScriptedServer(answers(frames)) as server:
        t0 = time.monotonic()
        ask(set_dir, tmp_path / "run", server)
    assert time.monotonic() - t0 < 5


# ---- issue 19: a provider that refuses everything, replies cut by the output cap ----------------------------

ONE_BY_ONE = TransportConfig(backoff_base_s=0.01, backoff_cap_s=0.05, timeout_s=5, concurrency=1, max_retries=0)
CREDENTIAL_HEADER = {"openai": "Authorization", "anthropic": "x-api-key", "gemini": "x-goog-api-key"}


@pytest.mark.parametrize("provider", ["openai", "anthropic", "gemini"])
def test_a_provider_refusing_everything_stops_after_three_with_its_message(tmp_path, set_dir, frames, provider):
    progress = io.StringIO()
    with ScriptedServer(answers(frames), default="refuse:400") as server:
        with pytest.raises(EvalError) as info:
            ask(set_dir, tmp_path / "run", server, provider, transport=ONE_BY_ONE, progress=progress)
    assert len(server.log) == 3  # stopped after the third refusal, not twelve
    url = {"openai": f"{server.url}/v1/chat/completions", "anthropic": f"{server.url}/v1/messages",
           "gemini": f"{server.url}/v1beta/models/test-model:generateContent"}[provider]
    bearer = "Bearer " if provider == "openai" else ""
    assert str(info.value) == (
        f"stopped: the first 3 requests all failed with HTTP 400 from {url}; the provider says: This model does not "
        f"support the settings sent (scripted 400). Request headers: {CREDENTIAL_HEADER[provider]}: "
        f"{bearer}[REDACTED]; upstream Authorization: [REDACTED]; fix what it names; finished replies are kept, rerun "
        f"the same command to resume")
    assert OTHER_TOKEN not in progress.getvalue() and KEY not in progress.getvalue()
    assert "failed: HTTP 400: This model does not support the settings sent (scripted 400)." in progress.getvalue()
    lines = RunStore(tmp_path / "run").reply_lines()
    assert [(r["http_status"], r["error"]) for r in lines] == [(400, "HTTP 400")] * 3
    assert all(KEY not in json.dumps(r) and "[REDACTED]" in r["raw_response"] for r in lines)


def test_only_one_4xx_status_on_the_first_three_stops_the_run(tmp_path, set_dir, frames):
    fid = sorted(f["frame_id"] for f in frames)  # the order they are asked in, one at a time
    mixed = {fid[0]: ["refuse:400"], fid[1]: ["refuse:422"], fid[2]: ["refuse:400"]}  # two statuses: not one refusal
    late = {f: ["refuse:400"] for f in fid[1:]}  # the first answered: the provider takes the settings
    with ScriptedServer(answers(frames), mixed) as server:
        assert ask(set_dir, tmp_path / "mixed", server, transport=ONE_BY_ONE)["failed"] == 3
    assert len(server.log) == 12
    with ScriptedServer(answers(frames), late) as server:
        assert ask(set_dir, tmp_path / "late", server, transport=ONE_BY_ONE)["failed"] == 11
    with ScriptedServer(answers(frames), default="status:500") as server:  # 5xx: the server's trouble, retried
        assert ask(set_dir, tmp_path / "5xx", server, transport=ONE_BY_ONE)["failed"] == 12


@pytest.mark.parametrize("provider", ["openai", "anthropic", "gemini"])
def test_replies_cut_by_the_output_cap_are_counted_apart(tmp_path, set_dir, frames, provider):
    fid = [f["frame_id"] for f in frames]
    progress = io.StringIO()
    with ScriptedServer(answers(frames), {fid[0]: ["cut"], fid[1]: ["cut"], fid[2]: ["prose"]}) as server:
        ask(set_dir, tmp_path / "run", server, provider, progress=progress,
            settings=providers.Settings(max_tokens=64, image_detail="high" if provider == "openai" else None))
    stop = LENGTH_STOP[provider]
    assert f"{fid[0]}: ok, cut by the output cap (finish reason {stop}; --max-tokens 64)" in progress.getvalue()
    summary = rescore(tmp_path / "run")
    assert summary["grammar"]["cut_by_output_cap"] == 2
    assert summary["grammar"]["problems"] == {"cut by the output cap (--max-tokens)": 2,
                                              "prose around the JSON object": 1}
    rows = {r["frame_id"]: r for r in map(json.loads, (tmp_path / "run" / "scores.jsonl").read_text().splitlines())}
    assert rows[fid[0]]["finish_reason"] == stop and rows[fid[0]]["cut_by_output_cap"] is True
    assert rows[fid[0]]["problems"][0] == "cut by the output cap (--max-tokens)" and len(rows[fid[0]]["problems"]) > 1
    assert rows[fid[2]]["cut_by_output_cap"] is False and rows[fid[3]]["cut_by_output_cap"] is False
    report = build_report([tmp_path / "run"], tmp_path / "report", plots=False)
    assert report["runs"][0]["label"] == "test-model"
    models = (tmp_path / "report" / "models.csv").read_text().splitlines()
    head, row = models[0].split(","), models[1].split(",")
    assert row[head.index("cut_by_output_cap")] == "2" and float(row[head.index("grammar_share")]) == 9 / 12
    text = (tmp_path / "report" / "report.md").read_text()
    assert "| test-model | 0.750 | 2 | " in text and text.count("prose around the JSON object (1)") == 1
    grammar = (tmp_path / "report" / "grammar.csv").read_text().splitlines()
    assert grammar == ["label,problem,count", "test-model,cut by the output cap (--max-tokens),2",
                       "test-model,prose around the JSON object,1"]


def test_cut_finish_reasons_by_provider():
    assert [providers.cut_by_output_cap(p, s) for p, s in [("openai", "length"), ("anthropic", "max_tokens"),
                                                           ("gemini", "MAX_TOKENS"), ("openai", "stop"),
                                                           ("anthropic", "length"), ("gemini", None),
                                                           (None, "MAX_TOKENS"), (None, "end_turn")]] == \
        [True, True, True, False, False, False, True, False]
