"""Generation-settings profiles (`eval run --profile`) and the per-provider checks made before the first request
(issue 19): what each profile sends over real HTTP (tests/eval_support.py's server), what run.json records, and
the combinations a provider would refuse, each a one-line error naming the fix, with nothing sent or written."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from eval_support import ScriptedServer, make_set, standard_frames
from realitybench_addon.evaluation import profiles, providers
from realitybench_addon.evaluation.errors import EvalError

REPO = Path(__file__).resolve().parent.parent
KEY = "sk-s3tt1ngs-test-5a4b3c2d1e"  # no English word of 8 letters: any 8-character run of a key is redacted
BEFORE_PROFILES = {"max_tokens": 1024, "temperature": 0.0, "image_detail": "high", "max_tokens_field": "max_tokens",
                   "blind": False, "extra": {}}  # what every openai run sent before profiles existed


def cli(*args):
    return subprocess.run([sys.executable, "-m", "realitybench_addon", *map(str, args)], cwd=REPO,
                          env={**os.environ, "RB_SETTINGS_KEY": KEY}, capture_output=True, text=True, timeout=60)


def error_line(done) -> str:
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    errors = [line for line in lines if line.startswith("error: ")]
    assert len(errors) == 1 and lines[-1] == errors[0], done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""
    return errors[0]


@pytest.fixture()
def frames():
    out = standard_frames()[:3]
    out[2] = {**out[2], "verdict": "reject", "gray": [], "failing": ["some_term"]}  # a gray frame is not asked
    return out


@pytest.fixture()
def set_dir(tmp_path, frames):
    return make_set(tmp_path / "set", frames)


def run(set_dir, server, out, provider="openai", model="gpt-4o", *more):
    base = server.url + {"openai": "/v1", "anthropic": "", "gemini": "/v1beta"}[provider]
    return cli("eval", "run", set_dir, "--provider", provider, "--model", model, "--base-url", base,
               "--api-key-env", "RB_SETTINGS_KEY", "--concurrency", "1", "--out", out, *more)


# ---- the profiles ------------------------------------------------------------------------------

def test_profiles_resolve_to_their_settings():
    assert profiles.resolve("paper", "openai", "gpt-4o").to_dict() == {
        "max_tokens": 16384, "temperature": None, "image_detail": None, "max_tokens_field": "max_tokens",
        "blind": False, "extra": {}}
    assert profiles.resolve("paper", "openai", "gpt-4o") == providers.Settings()  # the dataclass defaults are paper's
    assert profiles.resolve("deterministic", "openai", "gpt-4o").to_dict() == BEFORE_PROFILES
    assert profiles.resolve("deterministic", "gemini", "gemini-2.5-pro").image_detail is None
    assert profiles.resolve("deterministic", "anthropic", "claude").to_dict() == {
        **BEFORE_PROFILES, "image_detail": None}
    for model in ("o1", "o3-mini", "o4-mini", "gpt-5", "GPT-5-nano"):  # reasoning models refuse max_tokens
        assert profiles.resolve("paper", "openai", model).max_tokens_field == "max_completion_tokens", model
    assert profiles.resolve("paper", "openai", "gpt-4o-mini").max_tokens_field == "max_tokens"
    assert profiles.resolve("paper", "anthropic", "o3").max_tokens_field == "max_tokens"  # openai only
    # explicit flags override the profile; None means "not sent"
    s = profiles.resolve("deterministic", "openai", "gpt-4o", {"temperature": None, "max_tokens": 4096,
                                                               "image_detail": "low"}, blind=True, extra={"seed": 1})
    assert s.to_dict() == {"max_tokens": 4096, "temperature": None, "image_detail": "low",
                           "max_tokens_field": "max_tokens", "blind": True, "extra": {"seed": 1}}
    assert profiles.resolve("paper", "openai", "o3", {"max_tokens_field": "max_tokens"}).max_tokens_field == \
        "max_tokens"  # then refused by the check below, naming the fix
    with pytest.raises(EvalError, match="^unknown profile 'fast'; expected one of paper, deterministic$"):
        profiles.resolve("fast", "openai", "gpt-4o")


@pytest.mark.parametrize("provider, model, expected", [
    ("openai", "gpt-4o", {"max_tokens": 16384}),
    ("openai", "o3", {"max_completion_tokens": 16384}),
    ("anthropic", "claude-sonnet-4-5", {"max_tokens": 16384}),
    ("gemini", "gemini-2.5-pro", {"generationConfig": {"maxOutputTokens": 16384}}),
])
def test_the_paper_profile_is_the_default_and_sends_the_providers_defaults(tmp_path, set_dir, frames, provider,
                                                                           model, expected):
    with ScriptedServer({f["frame_id"]: f["answer"] for f in frames}) as server:
        done = run(set_dir, server, tmp_path / "run", provider, model)
    assert done.returncode == 0, done.stderr
    assert len(server.log) == 3
    for r in server.log:
        body = r["body"]
        assert {k: body[k] for k in expected} == expected
        assert "temperature" not in body and "temperature" not in body.get("generationConfig", {})
        if provider == "openai":
            assert set(body) == {"model", "messages", *expected}  # no max_tokens beside max_completion_tokens
            assert "detail" not in body["messages"][0]["content"][0]["image_url"]  # the provider's default detail
    config = json.loads((tmp_path / "run" / "run.json").read_text())
    assert config["profile"] == {"name": "paper", "overrides": {}}
    assert config["settings"] == profiles.resolve("paper", provider, model).to_dict()
    out = json.loads(done.stdout)
    assert out["profile"] == "paper" and out["settings"] == config["settings"] and out["complete"]


def test_explicit_flags_override_the_profile_and_are_recorded(tmp_path, set_dir, frames):
    with ScriptedServer({f["frame_id"]: f["answer"] for f in frames}) as server:
        done = run(set_dir, server, tmp_path / "det", "openai", "gpt-4o", "--profile", "deterministic")
        assert done.returncode == 0, done.stderr
        server.phase = 1
        done = run(set_dir, server, tmp_path / "mixed", "openai", "gpt-4o", "--profile", "deterministic",
                   "--max-tokens", "2048", "--image-detail", "default", "--temperature", "0.25")
        assert done.returncode == 0, done.stderr
    det = [r["body"] for r in server.log if r["phase"] == 0]
    assert all(b["max_tokens"] == 1024 and b["temperature"] == 0.0 and
               b["messages"][0]["content"][0]["image_url"]["detail"] == "high" for b in det)
    mixed = [r["body"] for r in server.log if r["phase"] == 1]
    assert all(b["max_tokens"] == 2048 and b["temperature"] == 0.25 and
               "detail" not in b["messages"][0]["content"][0]["image_url"] for b in mixed)
    assert json.loads((tmp_path / "det" / "run.json").read_text())["settings"] == BEFORE_PROFILES
    config = json.loads((tmp_path / "mixed" / "run.json").read_text())
    assert config["profile"] == {"name": "deterministic",
                                 "overrides": {"max_tokens": 2048, "image_detail": None, "temperature": 0.25}}
    assert config["settings"] == {**BEFORE_PROFILES, "max_tokens": 2048, "image_detail": None, "temperature": 0.25}


def test_a_run_made_before_profiles_resumes_with_the_deterministic_profile(tmp_path, set_dir, frames):
    with ScriptedServer({f["frame_id"]: f["answer"] for f in frames}) as server:
        assert run(set_dir, server, tmp_path / "run", "openai", "gpt-4o", "--profile", "deterministic",
                   "--max-tokens", "1024").returncode == 0
        server.phase = 1
        again = run(set_dir, server, tmp_path / "run", "openai", "gpt-4o", "--profile", "deterministic")
        other = run(set_dir, server, tmp_path / "run", "openai", "gpt-4o")  # the paper default: other settings
    assert again.returncode == 0 and json.loads(again.stdout)["asked"]["already_answered"] == 3
    assert [r for r in server.log if r["phase"] == 1] == []
    line = error_line(other)
    assert "holds a run made with other settings (settings: run has" in line and "use another --out" in line


# ---- the checks before the first request -------------------------------------------------------

THINKING = {"thinking": {"type": "enabled", "budget_tokens": 2048}}


@pytest.mark.parametrize("provider, model, overrides, extra, message", [
    ("anthropic", "claude-sonnet-4-5", {"max_tokens": 1024}, THINKING,
     "Anthropic extended thinking needs budget_tokens (2048) below --max-tokens (1024): pass --max-tokens 3072 or "
     "more, or a smaller budget_tokens"),
    ("anthropic", "claude-sonnet-4-5", {"max_tokens": 2048}, THINKING,
     "Anthropic extended thinking needs budget_tokens (2048) below --max-tokens (2048)"),
    ("anthropic", "claude-sonnet-4-5", {}, {"thinking": {"type": "enabled", "budget_tokens": 512}},
     "Anthropic extended thinking needs budget_tokens >= 1024, got 512: raise it in --extra"),
    ("anthropic", "claude-sonnet-4-5", {}, {"thinking": {"type": "enabled"}},
     "Anthropic extended thinking needs an integer budget_tokens (at least 1024) in --extra's thinking object, "
     "got None"),
    ("anthropic", "claude-sonnet-4-5", {"temperature": 0.0}, THINKING,
     "Anthropic extended thinking works only at the default temperature, got 0.0: pass --temperature default "
     "(or --profile paper)"),
    ("anthropic", "claude-sonnet-4-5", {}, {**THINKING, "temperature": 0.2},  # through --extra counts too
     "Anthropic extended thinking works only at the default temperature, got 0.2"),
    ("anthropic", "claude-sonnet-4-5", {"temperature": 1.5}, {},
     "Anthropic takes a temperature within 0-1, got 1.5: pass --temperature 1 or less (or --temperature default)"),
    ("openai", "o3", {"temperature": 0.0}, {},
     "OpenAI reasoning model 'o3' rejects temperature: pass --temperature default (or --profile paper) and take "
     "temperature out of --extra"),
    ("openai", "o1", {}, {"temperature": 1},
     "OpenAI reasoning model 'o1' rejects temperature"),
    ("openai", "o4-mini", {"max_tokens_field": "max_tokens"}, {},
     "OpenAI reasoning model 'o4-mini' rejects max_tokens: pass --max-tokens-field max_completion_tokens (the "
     "default for this model) and take max_tokens out of --extra"),
    ("openai", "gpt-5-mini", {}, {"max_tokens": 100},
     "OpenAI reasoning model 'gpt-5-mini' rejects max_tokens"),
])
def test_combinations_a_provider_refuses_are_named_with_the_fix(provider, model, overrides, extra, message):
    settings = profiles.resolve("paper", provider, model, overrides, extra=extra)
    with pytest.raises(EvalError) as info:
        providers.get(provider).check(settings, model)
    assert str(info.value).startswith(message) and "\n" not in str(info.value)


@pytest.mark.parametrize("provider, model, overrides, extra", [
    ("anthropic", "claude-sonnet-4-5", {}, {"thinking": {"type": "enabled", "budget_tokens": 8192}}),
    ("anthropic", "claude-sonnet-4-5", {"max_tokens": 3072, "temperature": 1.0}, THINKING),  # 1 is the default
    ("anthropic", "claude-sonnet-4-5", {"max_tokens": 1024, "temperature": 0.0}, {"thinking": {"type": "disabled"}}),
    ("anthropic", "claude-3-5-sonnet-20241022", {"max_tokens": 8192, "temperature": 0.7}, {}),
    ("openai", "o3", {}, {"reasoning_effort": "high"}),
    ("openai", "gpt-4o", {"temperature": 0.0, "max_tokens_field": "max_tokens"}, {}),
    ("openai", "gpt-4o", {"temperature": 2.0}, {}),
    ("gemini", "gemini-2.5-pro", {"temperature": 0.0},
     {"generationConfig": {"thinkingConfig": {"thinkingBudget": 1024}}}),
])
def test_valid_combinations_pass(provider, model, overrides, extra):
    providers.get(provider).check(profiles.resolve("paper", provider, model, overrides, extra=extra), model)


def test_the_docs_thinking_examples_are_valid():
    """Every Anthropic `thinking` object in docs/evaluation.md passes the check with the settings of its command
    line (--profile, --max-tokens, --temperature where it gives them; else the paper profile's)."""
    text = (REPO / "docs" / "evaluation.md").read_text()
    found = 0
    for line in text.replace("\\\n", " ").splitlines():
        for extra in re.findall(r"'(\{\"thinking\".*?\})'", line):
            profile = re.search(r"--profile (\w+)", line)
            cap = re.search(r"--max-tokens (\d+)", line)
            temperature = re.search(r"--temperature (\S+)", line)
            overrides = {"max_tokens": int(cap.group(1))} if cap else {}
            if temperature:
                overrides["temperature"] = None if temperature.group(1) == "default" else float(temperature.group(1))
            settings = profiles.resolve(profile.group(1) if profile else "paper", "anthropic", "claude-sonnet-4-5",
                                        overrides, extra=json.loads(extra))
            providers.get("anthropic").check(settings, "claude-sonnet-4-5")
            found += 1
    assert found >= 2


@pytest.mark.parametrize("provider, model, flags, fragment", [
    ("anthropic", "claude-sonnet-4-5", ["--max-tokens", "1024", "--extra", json.dumps(THINKING)],
     "error: Anthropic extended thinking needs budget_tokens (2048) below --max-tokens (1024): pass --max-tokens "
     "3072 or more, or a smaller budget_tokens"),
    ("anthropic", "claude-sonnet-4-5", ["--profile", "deterministic", "--max-tokens", "4096", "--extra",
                                        json.dumps(THINKING)],
     "error: Anthropic extended thinking works only at the default temperature, got 0.0: pass --temperature "
     "default (or --profile paper)"),
    ("openai", "o3", ["--profile", "deterministic"],
     "error: OpenAI reasoning model 'o3' rejects temperature: pass --temperature default (or --profile paper)"),
    ("openai", "gpt-4o", ["--profile", "fast"], "error: argument --profile: invalid choice: 'fast'"),
])
def test_a_refused_combination_stops_the_cli_before_anything_is_sent(tmp_path, set_dir, frames, provider, model,
                                                                     flags, fragment):
    with ScriptedServer({f["frame_id"]: f["answer"] for f in frames}) as server:
        done = run(set_dir, server, tmp_path / "run", provider, model, *flags)
    if "--profile" in flags and "fast" in flags:  # argparse's own refusal: its usage line, then the error
        assert done.returncode == 2 and fragment in done.stderr and "Traceback" not in done.stderr
    else:
        assert error_line(done).startswith(fragment)
    assert server.log == []  # nothing was sent
    assert not (tmp_path / "run").exists()  # nothing was written


def test_a_valid_thinking_run_sends_the_thinking_object(tmp_path, set_dir, frames):
    extra = {"thinking": {"type": "enabled", "budget_tokens": 8192}}
    with ScriptedServer({f["frame_id"]: f["answer"] for f in frames}) as server:
        done = run(set_dir, server, tmp_path / "run", "anthropic", "claude-sonnet-4-5", "--extra", json.dumps(extra))
    assert done.returncode == 0, done.stderr
    assert [(r["body"]["max_tokens"], r["body"]["thinking"], "temperature" in r["body"]) for r in server.log] == \
        [(16384, extra["thinking"], False)] * 3
