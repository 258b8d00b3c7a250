"""Protected defaults (issue 38, item 4): the shipped presets are never written (`ratings --apply-gray --presets-out`
into the package's presets folder, through a link or '..', and save_preset itself, which every writer uses), and
`eval run --extra` may not set the model, the messages, the image, the output cap or the temperature (a field the
run records separately). Each: exit 2, one `error:` line naming what was refused, nothing sent or written."""
from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from eval_support import ScriptedServer, make_set, standard_frames
from realitybench_addon.core.presets import (ShippedPresetsError, load_environment_preset, save_preset,
                                             shipped_presets_dir)

REPO = Path(__file__).resolve().parent.parent


def cli(*args, timeout=120):
    return subprocess.run([sys.executable, "-m", "realitybench_addon", *map(str, args)], cwd=REPO,
                          capture_output=True, text=True, timeout=timeout)


def one_error_line(done, *fragments) -> str:
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    return lines[0]


def shipped_hashes() -> dict:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(shipped_presets_dir().iterdir())}


@pytest.fixture
def a_set(tmp_path):
    frames = standard_frames()[:3]
    frames[2] = {**frames[2], "verdict": "reject", "gray": [], "failing": ["some_term"]}
    return frames, make_set(tmp_path / "set", frames)


@pytest.mark.parametrize("how", ["direct", "dotdot", "link", "inside"])
def test_apply_gray_into_the_shipped_presets_is_refused(tmp_path, a_set, how):
    _, set_dir = a_set
    shipped = shipped_presets_dir()
    if how == "direct":
        target = shipped
    elif how == "dotdot":
        target = shipped / ".." / shipped.name
    elif how == "inside":
        target = shipped / "sub"
    else:
        target = tmp_path / "looks_like_mine"
        target.symlink_to(shipped, target_is_directory=True)
    before = shipped_hashes()
    done = cli("ratings", set_dir, "--apply-gray", "car_view.car_unoccluded", "--presets-out", target)
    one_error_line(done, "--presets-out", "is the shipped presets folder", "never written")
    assert shipped_hashes() == before
    assert not (shipped / "sub").exists()


def test_save_preset_refuses_the_shipped_folder_for_every_writer(tmp_path):
    preset = load_environment_preset("tape_gap")
    before = shipped_hashes()
    with pytest.raises(ShippedPresetsError, match="shipped presets folder"):
        save_preset(preset, shipped_presets_dir() / "tape_gap.toml")
    link = tmp_path / "user_presets"
    link.symlink_to(shipped_presets_dir(), target_is_directory=True)
    with pytest.raises(ShippedPresetsError, match="shipped presets folder"):
        save_preset(preset, link / "tape_gap.toml")
    assert shipped_hashes() == before
    written = save_preset(preset, tmp_path / "mine" / "tape_gap.toml")  # another folder is fine
    assert load_environment_preset("tape_gap", [tmp_path / "mine"]).to_dict() == preset.to_dict()
    assert written == tmp_path / "mine" / "tape_gap.toml"


@pytest.mark.parametrize("provider, extra, key", [
    ("openai", {"model": "gpt-4o-mini"}, "model"),
    ("openai", {"messages": [{"role": "user", "content": "hi"}]}, "messages"),
    ("openai", {"max_tokens": 5}, "max_tokens"),
    ("openai", {"temperature": 1.5}, "temperature"),
    ("openai", {"stream": True}, "stream"),
    ("anthropic", {"model": "claude-3-haiku"}, "model"),
    ("anthropic", {"max_tokens": 10}, "max_tokens"),
    ("gemini", {"contents": []}, "contents"),
    ("gemini", {"generationConfig": {"maxOutputTokens": 5}}, "generationConfig.maxOutputTokens"),
    ("gemini", {"generationConfig": {"mediaResolution": "MEDIA_RESOLUTION_LOW"}}, "generationConfig.mediaResolution"),
], ids=lambda v: json.dumps(v) if isinstance(v, dict) else str(v))
def test_extra_may_not_set_a_field_the_run_records(tmp_path, a_set, provider, extra, key):
    frames, set_dir = a_set
    model = {"openai": "gpt-4o", "anthropic": "claude-sonnet-4-5", "gemini": "gemini-2.5-pro"}[provider]
    base = {"openai": "/v1", "anthropic": "", "gemini": "/v1beta"}[provider]
    with ScriptedServer({f["frame_id"]: f["answer"] for f in frames}) as server:
        done = cli("eval", "run", set_dir, "--provider", provider, "--model", model, "--base-url", server.url + base,
                   "--no-api-key", "--extra", json.dumps(extra), "--out", tmp_path / "run")
    one_error_line(done, f"--extra may not set {key!r}")
    assert server.log == [] and not (tmp_path / "run").exists()


def test_extra_still_adds_what_the_run_does_not_set(tmp_path, a_set):
    frames, set_dir = a_set
    with ScriptedServer({f["frame_id"]: f["answer"] for f in frames}) as server:
        done = cli("eval", "run", set_dir, "--provider", "openai", "--model", "gpt-4o", "--base-url",
                   server.url + "/v1", "--no-api-key", "--extra", '{"seed": 7, "reasoning_effort": "low"}',
                   "--out", tmp_path / "run")
    assert done.returncode == 0, done.stderr
    assert [(r["body"]["model"], r["body"]["seed"], r["body"]["reasoning_effort"]) for r in server.log] == \
        [("gpt-4o", 7, "low")] * 3
