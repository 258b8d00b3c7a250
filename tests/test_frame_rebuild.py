"""Any frame rebuilds from its id: `frame` (and `replay`, the sidebar's Check) make an exported frame the way
the export made it, so the same id with the same settings gives the same JPEG, byte for byte, the same term
values and the same verdict (issue 36: `frame` used to render without the export's denoising, and
breaker_label's field_contrast_min, 0.078 denoised, read 0.342 without it, flipping the verdict)."""
import inspect
import json
import subprocess
import sys
from pathlib import Path

import pytest

bpy = pytest.importorskip("bpy")

from realitybench_addon import api, pipeline  # noqa: E402
from realitybench_addon.__main__ import _frame_call, build_parser  # noqa: E402
from realitybench_addon.core.render_settings import RenderSettings  # noqa: E402
from realitybench_addon.export import ExportConfig  # noqa: E402
from realitybench_addon.setio import jsonable  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
ENV = "breaker_label"  # the environment: an image term (field contrast) that denoising moves
# A tiny set, denoised as a default export is (a second in all at 160 x 120 and 2 samples).
EXPORT = ["export", "--env", ENV, "--random", "1", "--positive", "0", "--resolution", "160x120", "--samples", "2",
          "--recycle-every", "0"]


def cli(*args, timeout=300):
    return subprocess.run([sys.executable, "-m", "realitybench_addon", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout)


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """The set (made in its own process, as a user would) and its one row."""
    out = tmp_path_factory.mktemp("rebuild") / "set"
    done = cli(*EXPORT, "--out", str(out))
    assert done.returncode == 0, done.stderr
    (line,) = (out / "metadata.jsonl").read_text().splitlines()
    row = json.loads(line)
    assert row["render"]["denoise"] is True and row["render"]["samples"] == 2
    assert sorted(row["render"]["resolution"]) == [120, 160]
    return out, row


def same_frame(record: dict, row: dict) -> None:
    """A `frame` record says what the set's row says: every term's value and outcome, every measurement, the
    verdict and its reasons, the render's settings."""
    record = jsonable(record)
    assert {t["name"]: {k: v for k, v in t.items() if k != "name"} for t in record["terms"]} == row["terms"]
    assert record["measurements"] == row["measurements"]
    for key in ("frame_id", "verdict", "failing_terms", "gray_terms", "unscored_reason", "ground_truth", "prompt",
                "camera", "render", "versions"):
        assert record[key] == row[key], key


def test_frame_from_the_set_is_the_exported_frame(exported, tmp_path):
    out, row = exported
    fid = row["frame_id"]
    done = cli("frame", "--id", fid, "--from-set", str(out), "--out", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert "warning" not in done.stderr  # same Blender, same preset
    assert json.loads(done.stdout)["verdict"] == row["verdict"]
    assert (tmp_path / f"{fid}.jpg").read_bytes() == (out / row["file_name"]).read_bytes()
    same_frame(json.loads((tmp_path / f"{fid}.json").read_text()), row)


def test_frame_with_the_same_options_is_the_exported_frame_and_without_denoising_is_not(exported, tmp_path):
    """In this process, through the API, with the export's options: the same frame. The export's denoising left
    out (what `frame` did before): another JPEG and other image-term values."""
    out, row = exported
    exported_jpeg = (out / row["file_name"]).read_bytes()
    seed, env, stratum, index = api.parse_frame_id(row["frame_id"])
    record = api.frame(env, seed, index, tmp_path / "same", stratum=stratum, long_side_px=160, samples=2)
    assert (tmp_path / "same" / record["file_name"]).read_bytes() == exported_jpeg
    same_frame(record, row)
    noisy = api.frame(env, seed, index, tmp_path / "noisy", stratum=stratum, long_side_px=160, samples=2,
                      denoise=False)
    assert (tmp_path / "noisy" / noisy["file_name"]).read_bytes() != exported_jpeg
    assert noisy["measurements"]["weber_contrast"] != row["measurements"]["weber_contrast"]
    assert noisy["render"]["denoise"] is False


def test_the_sidebar_check_at_the_frames_size_and_settings_reads_the_exported_terms(exported, tmp_path):
    """Check Acceptability renders and reads through the same path: at scale 1 with the set's settings, on the
    frame's own camera, its terms are the row's."""
    out, row = exported
    seed, env, stratum, index = api.parse_frame_id(row["frame_id"])
    api.frame(env, seed, index, tmp_path, stratum=stratum, long_side_px=160, render=False)  # build, place the phone
    settings = RenderSettings.from_dict(row["render"]["settings"])
    check = api.check_active(env, seed, index, stratum=stratum, resolution_scale=1.0, settings=settings)
    assert jsonable(check["measurements"]) == row["measurements"]
    assert check["verdict"] == row["verdict"] and check["failing_terms"] == row["failing_terms"]


def test_the_quick_check_scales_pixel_counts_back_to_the_frames_size(exported, tmp_path):
    """At half size a target covers a quarter of the pixels; the check reports them at the frame's size, as
    Suggest a Pose's confirming render does, so a pixel-count threshold means the same in both."""
    out, row = exported
    seed, env, stratum, index = api.parse_frame_id(row["frame_id"])
    api.frame(env, seed, index, tmp_path, stratum=stratum, long_side_px=160, render=False)
    settings = RenderSettings.from_dict(row["render"]["settings"])
    half = api.check_active(env, seed, index, stratum=stratum, resolution_scale=0.5, settings=settings)
    full = row["measurements"]["target_mask_pixels"]
    assert full > 100
    assert half["measurements"]["target_mask_pixels"] == pytest.approx(full, rel=0.15)


def test_replay_from_the_set_saves_the_frames_size_and_settings(exported, tmp_path):
    out, row = exported
    blend = tmp_path / "frame.blend"
    done = cli("replay", row["frame_id"], "--from-set", str(out), "--out", str(blend))
    assert done.returncode == 0, done.stderr
    replayed = json.loads(done.stdout)
    assert replayed["resolution"] == row["render"]["resolution"]
    assert replayed["render_settings"] == row["render"]["settings"]
    probe = subprocess.run([sys.executable, "-c", f"""
import bpy, json
bpy.ops.wm.open_mainfile(filepath={str(blend)!r})
s = bpy.context.scene
print(json.dumps([s.render.resolution_x, s.render.resolution_y, s.cycles.samples, s.cycles.use_denoising]))
"""], capture_output=True, text=True, timeout=120)
    saved = json.loads([ln for ln in probe.stdout.splitlines() if ln.startswith("[")][-1])
    assert saved == [*row["render"]["resolution"], 2, True]


def test_frame_defaults_are_a_default_exports():
    """`frame` with no options renders as `export` with none: 1600 px, 16 samples, denoised, on the CPU, with the
    export's Cycles settings; so does the API."""
    parser = build_parser()
    export_args = parser.parse_args(["export", "--env", ENV, "--out", "o"])
    config = ExportConfig((ENV,), long_side_px=api.parse_resolution(export_args.resolution),
                          samples=export_args.samples, denoise=not export_args.no_denoise, device=export_args.device)
    assert config.render_settings() == ExportConfig((ENV,)).render_settings() == RenderSettings()
    for argv in (["frame", "--env", ENV, "--seed", "0", "--index", "3", "--out", "o"],
                 ["frame", "--id", f"{ENV}-random-s0-000003", "--out", "o"]):
        function, positional, keywords = _frame_call(parser.parse_args(argv))
        assert function is api.frame and positional == (ENV, 0, 3, "o") and keywords["stratum"] == "random"
        assert keywords["long_side_px"] == config.long_side_px and keywords["device"] == config.device
        assert api.frame_settings(keywords["samples"], keywords["denoise"]) == config.render_settings()
    defaults = {k: p.default for k, p in inspect.signature(api.frame).parameters.items()}
    assert (defaults["long_side_px"], defaults["device"]) == (config.long_side_px, config.device)
    assert api.frame_settings(defaults["samples"], defaults["denoise"]) == config.render_settings()
    assert pipeline.DEFAULT_LONG_SIDE == config.long_side_px
    run_defaults = {k: p.default for k, p in inspect.signature(pipeline.run_frame).parameters.items()}
    assert run_defaults["long_side_px"] == config.long_side_px and run_defaults["settings"] is None  # -> RenderSettings()
    for samples, denoise in ((4, False), (16, True), (2, True)):
        assert api.frame_settings(samples, denoise) == ExportConfig((ENV,), samples=samples,
                                                                    denoise=denoise).render_settings()


@pytest.mark.parametrize("args, message", [
    (["--id", "breaker_label-random-s0-000042", "--from-set", "{set}"], "is not in"),
    (["--id", "breaker_label-random-s0-000000", "--from-set", "{missing}"], "no set at"),
    (["--id", "breaker_label-random-s0-000000", "--from-set", "{empty}"], "is not an exported set"),
    (["--from-set", "{set}"], "needs the frame's id"),
    (["--id", "breaker_label-random-s0-000000", "--from-set", "{set}", "--samples", "4"], "leave out --samples"),
    (["--id", "breaker_label-random-s0-000000", "--env", ENV], "leave out --env"),
    (["--env", ENV], "name the frame"),
    (["--id", "not-a-frame"], "malformed frame id"),
])
def test_bad_rebuilds_are_one_line_errors(exported, tmp_path, args, message):
    out, _ = exported
    (tmp_path / "empty").mkdir()
    places = {"set": str(out), "missing": str(tmp_path / "nowhere"), "empty": str(tmp_path / "empty")}
    done = cli("frame", *[a.format(**places) for a in args], "--out", str(tmp_path / "frames"))
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], done.stderr
    assert not (tmp_path / "frames").exists() or not any((tmp_path / "frames").iterdir())


def test_replay_of_a_frame_not_in_the_set_is_a_one_line_error(exported, tmp_path):
    out, _ = exported
    done = cli("replay", "breaker_label-random-s0-000042", "--from-set", str(out), "--out", str(tmp_path / "x.blend"))
    assert done.returncode == 2 and done.stderr.startswith("error: ") and "is not in" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and not (tmp_path / "x.blend").exists()


def test_frame_extras_are_the_exports_extras(tmp_path):
    """`frame --extras` writes the frame's target mask and debug overlay where and as `export --extras` does:
    rebuilt from the set, the same files byte for byte."""
    out = tmp_path / "set"
    done = cli(*EXPORT, "--extras", "--out", str(out))
    assert done.returncode == 0, done.stderr
    fid = json.loads((out / "metadata.jsonl").read_text().splitlines()[0])["frame_id"]
    done = cli("frame", "--id", fid, "--from-set", str(out), "--extras", "--out", str(tmp_path / "frame"))
    assert done.returncode == 0, done.stderr
    for kind, suffix in (("masks", "png"), ("overlays", "jpg")):
        made = tmp_path / "frame" / "extras" / kind / ENV / f"{fid}.{suffix}"
        assert made.read_bytes() == (out / "extras" / kind / ENV / f"{fid}.{suffix}").read_bytes(), kind
    assert (tmp_path / "frame" / "extras" / "masks" / ENV / f"{fid}.png").read_bytes()[:4] == b"\x89PNG"
    refused = cli("frame", "--id", fid, "--no-render", "--extras", "--out", str(tmp_path / "none"))
    assert refused.returncode == 2 and "--extras" in refused.stderr and "Traceback" not in refused.stderr
