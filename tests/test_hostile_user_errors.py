"""User errors that were tracebacks or hangs (issue 38, items 8 and 10), each through the real command line in a
subprocess: exit 2, one `error:` line, no traceback, and for a full disk a rerun that resumes exactly.

A full or read-only disk is a real tmpfs (mounted by the test when it runs as root; skipped otherwise); the
portable part of the same check runs everywhere through a wrapper that makes os.write fail with ENOSPC after a
number of bytes."""
from __future__ import annotations

import csv
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from eval_support import ScriptedServer, make_set, offline_run, standard_frames
from realitybench_addon.core.rng import FrameIdError, parse_frame_id

REPO = Path(__file__).resolve().parent.parent
NOISE = ("EGL Error", "Warning: ")  # headless bpy's own chatter on stderr


def cli(*args, timeout=120, env_extra=None, python_args=()):
    env = {**os.environ, **(env_extra or {})}
    return subprocess.run([sys.executable, *python_args, "-m", "realitybench_addon", *map(str, args)], cwd=REPO,
                          env=env, capture_output=True, text=True, timeout=timeout)


def error_line(done, *fragments) -> str:
    """Exit 2, no traceback, nothing on stdout, and one `error:` line (bpy's own chatter aside) holding each
    fragment."""
    assert done.returncode == 2, done.stderr[-3000:]
    assert "Traceback" not in done.stderr and done.stdout == ""
    errors = [line for line in done.stderr.splitlines() if line.startswith("error: ") or ": error: " in line]
    assert len(errors) == 1, done.stderr[-3000:]
    for fragment in fragments:
        assert fragment in errors[0], errors[0]
    return errors[0]


def can_mount() -> bool:
    return os.geteuid() == 0 and shutil.which("mount") is not None


@pytest.fixture
def tmpfs(tmp_path):
    """mount(size, ro=False) -> a fresh tmpfs folder; unmounted after the test."""
    mounted = []

    def mount(size: str, ro: bool = False) -> Path:
        if not can_mount():
            pytest.skip("needs root to mount a tmpfs")
        point = tmp_path / f"mnt{len(mounted)}"
        point.mkdir()
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}" + (",ro" if ro else ""), "tmpfs",
                               str(point)], capture_output=True, text=True)
        if done.returncode != 0:
            pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
        mounted.append(point)
        return point

    yield mount
    for point in mounted:
        subprocess.run(["umount", "-l", str(point)], capture_output=True)


def fill(folder: Path, leave: int) -> Path:
    """A filler file leaving about `leave` bytes free on the file system of `folder`."""
    filler = folder / "filler"
    with open(filler, "wb") as f:
        f.write(b"\0" * max(0, shutil.disk_usage(folder).free - leave))
    return filler


@pytest.fixture
def set_dir(tmp_path):
    return make_set(tmp_path / "set", standard_frames()[:6])


def answers():
    return {f["frame_id"]: f["answer"] for f in standard_frames()[:6]}


def run_argv(set_dir, server, out):
    return ["eval", "run", set_dir, "--provider", "openai", "--model", "m", "--base-url", server.url + "/v1",
            "--no-api-key", "--concurrency", "1", "--include-gray", "--out", out]


def reply_rows(run_dir):
    return [json.loads(line) for line in (Path(run_dir) / "replies.jsonl").read_bytes().decode().split("\n") if line]


# ---- a full disk during `eval run` and export, a read-only disk for `eval report` ---------------------------
@pytest.mark.parametrize("leave", [9_000, 14_000, 20_000], ids=["before-replies", "mid-run", "at-scoring"])
def test_a_full_disk_during_eval_run_is_one_line_and_the_rerun_resumes_exactly(tmp_path, tmpfs, set_dir, leave):
    disk = tmpfs("64k")
    filler = fill(disk, leave)
    with ScriptedServer(answers()) as server:
        done = cli(*run_argv(set_dir, server, disk / "run"))
        error_line(done, "no space left on the device", "rerun the same command")
        first = len(server.log)
        filler.unlink()
        again = cli(*run_argv(set_dir, server, disk / "run"))
        assert again.returncode == 0, again.stderr
        clean = cli(*run_argv(set_dir, server, tmp_path / "clean"))
        assert clean.returncode == 0, clean.stderr
    rows = reply_rows(disk / "run")
    assert sorted(r["frame_id"] for r in rows) == sorted(answers())  # each frame once: no torn or doubled line
    assert all(r["status"] == "ok" for r in rows)
    keep = lambda r: (r["frame_id"], r["request_hash"], r["reply_text"], r["usage"])  # noqa: E731
    assert sorted(map(keep, rows)) == sorted(map(keep, reply_rows(tmp_path / "clean")))
    summary = json.loads((disk / "run" / "summary.json").read_text())
    clean_summary = json.loads((tmp_path / "clean" / "summary.json").read_text())
    for key in ("items", "answered", "failed", "f1", "accuracy"):
        if key in clean_summary:
            assert summary[key] == clean_summary[key], key
    assert len(server.log) - first >= 6  # the rerun asked what had no stored reply, the clean run asked 6


WRAPPER = r"""
import errno, os, runpy, sys
budget = [int(os.environ["RB_ENOSPC_AFTER"])]
real_write = os.write
def write(fd, data):
    if fd > 2:
        if budget[0] <= 0:
            raise OSError(errno.ENOSPC, "No space left on device")
        data = bytes(data)[:budget[0]]
        budget[0] -= len(data)
    return real_write(fd, data)
os.write = write
sys.argv = ["realitybench_addon", *sys.argv[1:]]
sys.path.insert(0, os.getcwd())  # the checkout the test runs in, as `python -m` would import it
runpy.run_module("realitybench_addon", run_name="__main__", alter_sys=True)
"""


@pytest.mark.parametrize("after", [3_000, 6_000, 9_000])
def test_enospc_from_any_write_is_one_line_and_the_rerun_resumes_exactly(tmp_path, set_dir, after):
    """The same without root: os.write fails with ENOSPC after `after` bytes (a short write first, as a full disk
    does), wherever the run happens to be."""
    wrapper = tmp_path / "enospc.py"
    wrapper.write_text(WRAPPER)
    with ScriptedServer(answers()) as server:
        argv = [str(a) for a in run_argv(set_dir, server, tmp_path / "run")]
        done = subprocess.run([sys.executable, str(wrapper), *argv], cwd=REPO, capture_output=True, text=True,
                              timeout=120, env={**os.environ, "RB_ENOSPC_AFTER": str(after)})
        error_line(done, "no space left on the device")
        again = cli(*run_argv(set_dir, server, tmp_path / "run"))
        assert again.returncode == 0, again.stderr
    rows = reply_rows(tmp_path / "run")
    assert sorted(r["frame_id"] for r in rows) == sorted(answers()) and all(r["status"] == "ok" for r in rows)


def test_eval_report_into_a_read_only_folder_is_one_line(tmp_path, tmpfs, set_dir):
    run = offline_run(set_dir, tmp_path / "run", {})
    ro = tmpfs("1m", ro=True)
    for out in (ro, ro / "report"):
        error_line(cli("eval", "report", run, "--out", out, "--no-plots"), "the file system is read-only")


# ---- outputs that exist, ids and numbers that are not ----------------------------------------------------------
@pytest.mark.parametrize("command", [
    ["replay", "tape_gap-random-s0-000001", "--out", "{folder}"],
    ["suggest", "--env", "tape_gap", "--no-render", "--out", "{folder}"],
], ids=["replay", "suggest"])
def test_replay_and_suggest_refuse_an_existing_folder_before_any_work(tmp_path, command):
    folder = tmp_path / "existing"
    folder.mkdir()
    (folder / "keep.txt").write_text("mine")
    t0 = time.monotonic()
    done = cli(*[c.format(folder=folder) for c in command])
    error_line(done, f"--out {folder} is a folder")
    assert sorted(p.name for p in folder.iterdir()) == ["keep.txt"]
    assert time.monotonic() - t0 < 60


def test_replay_of_an_unknown_stratum_is_one_line():
    error_line(cli("replay", "tape_gap-bogus-s0-000001", "--out", "/nonexistent/x.blend"),
               "malformed frame id 'tape_gap-bogus-s0-000001'", "stratum 'bogus'")


@pytest.mark.parametrize("argv", [
    ["suggest", "--env", "tape_gap", "--index", "\u0663", "--no-render"],
    ["frame", "--env", "tape_gap", "--seed", "0", "--index", "\u0661", "--out", "{tmp}/f"],
    ["suggest", "--env", "tape_gap", "--seed", "\uff11", "--no-render"],
    ["suggest", "--env", "tape_gap", "--index", "1_0", "--no-render"],
    ["eval", "run", "{tmp}/set", "--provider", "openai", "--model", "m", "--concurrency", "\u0662", "--out", "{tmp}/r"],
    ["eval", "run", "{tmp}/set", "--provider", "openai", "--model", "m", "--timeout", "\u0661\u0660", "--out", "{tmp}/r"],
], ids=["arabic-index", "frame-arabic-index", "fullwidth-seed", "underscore", "arabic-concurrency", "arabic-timeout"])
def test_numbers_must_be_ascii_digits(tmp_path, argv):
    done = cli(*[a.format(tmp=tmp_path) for a in argv])
    line = error_line(done, "ASCII digits")
    assert line.startswith("python -m realitybench_addon") or line.startswith("error:")
    assert not (tmp_path / "f").exists() and not (tmp_path / "r").exists()


@pytest.mark.parametrize("fid", ["tape_gap-random-s0-\u0660\u0660\u0660\u0660\u0660\u0661",
                                 "tape_gap-random-s\u0663-000001", "tape_gap-random-s0-00_001"])
def test_frame_ids_take_ascii_digits_only(fid):
    with pytest.raises(FrameIdError):
        parse_frame_id(fid)
    error_line(cli("replay", fid, "--out", "/nonexistent/x.blend"), "malformed frame id")


# ---- labels in report tables --------------------------------------------------------------------------------
def test_labels_cannot_inject_formulas_into_csv_or_break_markdown_tables(tmp_path, set_dir):
    evil = '=HYPERLINK("http://x","y")|cell\nrow'
    offline_run(set_dir, tmp_path / "a", {}, label=evil, model="a")
    offline_run(set_dir, tmp_path / "b", {}, label="@SUM(A1)", model="b")
    offline_run(set_dir, tmp_path / "c", {}, label="-2+3", model="c")
    done = cli("eval", "report", tmp_path / "a", tmp_path / "b", tmp_path / "c", "--out", tmp_path / "rep",
               "--no-plots")
    assert done.returncode == 0, done.stderr
    seen = 0
    for path in sorted((tmp_path / "rep").glob("*.csv")):
        with open(path, newline="", encoding="utf-8") as f:
            for row in csv.reader(f):
                for cell in row:
                    assert not cell.startswith(("=", "+", "@")) and not (cell.startswith("-") and not
                                                                          cell.lstrip("-").replace(".", "").isdigit())
                    seen += cell in ("'" + evil, "'@SUM(A1)", "'-2+3")
    assert seen >= 3
    md = (tmp_path / "rep" / "report.md").read_text().split("\n")
    blocks, current = [], []
    for line in md + [""]:  # each Markdown table: consecutive lines starting with '|'
        if line.startswith("|"):
            current.append(line)
        elif current:
            blocks.append(current)
            current = []
    assert blocks
    for block in blocks:  # every row of a table has its header's number of cells: no label split a row or a cell
        counts = {line.replace("\\|", "").count("|") for line in block}
        assert len(counts) == 1, block
    assert any("=HYPERLINK" in line and "\\|cell row" in line for block in blocks for line in block)


def test_eval_run_refuses_a_label_with_a_line_break(tmp_path, set_dir):
    for label in ("two\nlines", "cr\rhere", "tab\x1bescape"):
        done = cli("eval", "run", set_dir, "--provider", "openai", "--model", "m", "--no-api-key", "--label", label,
                   "--out", tmp_path / "r")
        error_line(done, "--label")
        assert not (tmp_path / "r").exists()


# ---- images that are not images ----------------------------------------------------------------------------
@pytest.mark.parametrize("command", ["baseline", "run"])
@pytest.mark.parametrize("kind", ["fifo", "sparse-3GB"])
def test_a_fifo_or_huge_sparse_image_is_refused_without_hanging_or_memory(tmp_path, set_dir, command, kind):
    image = sorted(set_dir.rglob("*.jpg"))[0]
    image.unlink()
    if kind == "fifo":
        os.mkfifo(image)
    else:
        with open(image, "wb") as f:
            f.truncate(3 * 1024 ** 3)
    argv = (["eval", "baseline", set_dir, "--kind", "always-accept", "--out", tmp_path / "out"] if command == "baseline"
            else ["eval", "run", set_dir, "--provider", "openai", "--model", "m", "--base-url", "http://127.0.0.1:9/v1",
                  "--no-api-key", "--out", tmp_path / "out"])
    t0 = time.monotonic()
    done = subprocess.run(["/usr/bin/time", "-f", "RSS_KB=%M", sys.executable, "-m", "realitybench_addon",
                           *map(str, argv)], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert time.monotonic() - t0 < 30
    rss = int(done.stderr.strip().splitlines()[-1].removeprefix("RSS_KB="))
    done.stderr = "\n".join(done.stderr.strip().splitlines()[:-1])
    error_line(done, str(image), "pipe" if kind == "fifo" else "3,221,225,472 bytes")
    assert rss < 400_000  # kB: the 3 GB file is never read


# ---- Blender: export on a full disk, merge of read-only shards, measure of a NaN vertex ---------------------
SMALL = ["--resolution", "96x72", "--samples", "1", "--no-denoise"]
EXPORT = ["export", "--env", "tape_gap", "--random", "3", "--positive", "0", "--seed", "7", *SMALL]


def set_snapshot(directory: Path) -> dict:
    """Every file of a set with its bytes' hash, metadata.jsonl as its rows without the timing fields."""
    out = {}
    for p in sorted(directory.rglob("*")):
        if not p.is_file() or p.name in (".realitybench.lock", "filler"):
            continue
        rel = str(p.relative_to(directory))
        if p.name == "metadata.jsonl":
            rows = [json.loads(line) for line in p.read_text().split("\n") if line]
            out[rel] = sorted((r["frame_id"], r["image_sha256"] if "image_sha256" in r else r.get("file_name"),
                               r.get("verdict")) for r in rows)
        elif p.suffix == ".jpg":
            out[rel] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def test_a_full_disk_during_export_is_one_line_and_the_rerun_is_the_same_set(tmp_path, tmpfs):
    pytest.importorskip("bpy")
    disk = tmpfs("40k")
    done = cli(*EXPORT, "--out", disk / "set", timeout=600)
    error_line(done, "no space left on the device", "rerun the same command")
    subprocess.run(["mount", "-o", "remount,size=20m", str(disk)], check=True)
    again = cli(*EXPORT, "--out", disk / "set", timeout=600)
    assert again.returncode == 0, again.stderr[-2000:]
    clean = cli(*EXPORT, "--out", tmp_path / "clean", timeout=600)
    assert clean.returncode == 0, clean.stderr[-2000:]
    assert json.loads(again.stdout)["complete"] and json.loads(again.stdout)["counts"] == \
        json.loads(clean.stdout)["counts"]
    assert set_snapshot(disk / "set") == set_snapshot(tmp_path / "clean")


def test_merge_reads_read_only_shards_and_leaves_nothing_in_them(tmp_path, tmpfs):
    pytest.importorskip("bpy")
    disk = tmpfs("20m")
    for k in range(2):
        done = cli("export", "--env", "tape_gap", "--random", "2", "--positive", "0", "--seed", "5", *SMALL,
                   "--shard", f"{k}/2", "--out", disk / f"shard{k}", timeout=600)
        assert done.returncode == 0, done.stderr[-2000:]
        (disk / f"shard{k}" / ".realitybench.lock").unlink(missing_ok=True)
    before = {k: sorted(p.name for p in (disk / f"shard{k}").rglob("*")) for k in range(2)}
    done = cli("merge", disk / "shard0", disk / "shard1", "--out", tmp_path / "merged")
    assert done.returncode == 0, done.stderr[-2000:]
    assert {k: sorted(p.name for p in (disk / f"shard{k}").rglob("*")) for k in range(2)} == before  # no lock left
    subprocess.run(["mount", "-o", "remount,ro", str(disk)], check=True)
    done = cli("merge", disk / "shard0", disk / "shard1", "--out", tmp_path / "merged_ro")
    assert done.returncode == 0, done.stderr[-2000:]
    assert set_snapshot(tmp_path / "merged_ro") == set_snapshot(tmp_path / "merged")


NAN_BLEND = r"""
import sys, bpy
bpy.ops.wm.read_factory_settings(use_empty=True)
mesh = bpy.data.meshes.new("M")
mesh.from_pydata([(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0)], [], [(0, 1, 2, 3)])
mesh.vertices[2].co = (float(sys.argv[-2]), 1.0, 0.0)
obj = bpy.data.objects.new("Target", mesh)
bpy.context.scene.collection.objects.link(obj)
cam = bpy.data.objects.new("Cam", bpy.data.cameras.new("C"))
cam.location = (0.5, 0.5, 3)
bpy.context.scene.collection.objects.link(cam)
bpy.context.scene.camera = cam
bpy.ops.wm.save_as_mainfile(filepath=sys.argv[-1])
"""


@pytest.mark.parametrize("value", ["nan", "-nan"])  # Blender clamps an infinite coordinate to FLT_MAX itself
def test_measure_refuses_a_vertex_that_is_not_a_finite_number(tmp_path, value):
    pytest.importorskip("bpy")
    script = tmp_path / "make.py"
    script.write_text(NAN_BLEND)
    blend = tmp_path / "nan.blend"
    made = subprocess.run([sys.executable, str(script), value, str(blend)], capture_output=True, text=True, timeout=120)
    assert made.returncode == 0 and blend.is_file(), made.stderr[-2000:]
    done = cli("measure", "--target", "Target", "--camera", "Cam", "--blend", blend)
    error_line(done, "object 'Target' has 1 vertex(es) with a coordinate that is not a finite number",
               "the first vertex 2")
