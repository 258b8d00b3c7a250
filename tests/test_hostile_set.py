"""A set is a folder people pass around: hostile or damaged sets, two writers, sizes without bounds.

Issue 14, items 1, 2, 3, 7 (export sizes), 10 and 13. Every refusal is checked for its one-line
message, exit code 2, no traceback, and a set left exactly as it was.
"""
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SMALL = ["--resolution", "96x72", "--samples", "1", "--no-denoise"]
BASE = ["--env", "tape_gap", "--random", "3", "--positive", "1", "--seed", "11", *SMALL]


def cli(*args, timeout=600, **kwargs):
    return subprocess.run([sys.executable, "-m", "realitybench_addon", *map(str, args)], cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout, **kwargs)


def snapshot(directory: Path) -> dict:
    """Every file under `directory` (links not followed) with its bytes' hash; the lock file is the OS's."""
    return {str(p.relative_to(directory)): hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "link"
            for p in sorted(directory.rglob("*")) if p.is_file() or p.is_symlink()
            if p.name != ".realitybench.lock"}


def lines(directory: Path) -> list[bytes]:
    return (directory / "metadata.jsonl").read_bytes().splitlines(keepends=True)


def assert_refused(result, *fragments):
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    error = result.stderr.strip().splitlines()[-1]
    assert error.startswith("error: ")
    for fragment in fragments:
        assert fragment in error, error


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    pytest.importorskip("bpy")
    out = tmp_path_factory.mktemp("hostile") / "set"
    result = cli("export", *BASE, "--out", out)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["expected_frames"] == 4
    return out


@pytest.fixture
def copy_of(reference, tmp_path):
    def make(name="set"):
        target = tmp_path / name
        shutil.copytree(reference, target, symlinks=True)
        return target
    return make


def rewrite_row(directory: Path, number: int, change) -> None:
    """Replace line `number` (1-based) of metadata.jsonl with change(row) (a dict, or raw bytes)."""
    all_lines = lines(directory)
    new = change(json.loads(all_lines[number - 1]))
    all_lines[number - 1] = new if isinstance(new, bytes) else (json.dumps(new) + "\n").encode()
    (directory / "metadata.jsonl").write_bytes(b"".join(all_lines))


# 1. No reader follows a row out of the set --------------------------------------------------------

READERS = {
    "rescore": lambda d, tmp: ("rescore", d),
    "eval baseline": lambda d, tmp: ("eval", "baseline", d, "--kind", "always-accept", "--out", tmp / "run"),
    "ratings": lambda d, tmp: ("ratings", d),
    "rate": lambda d, tmp: ("rate", d, "--port", "0"),
    "export resume": lambda d, tmp: ("export", *BASE, "--out", d),
}


@pytest.mark.parametrize("reader", sorted(READERS))
@pytest.mark.parametrize("file_name", ["/etc/passwd", "../../../../etc/hostname", "tape_gap/../../../etc/hostname"])
def test_a_row_pointing_outside_the_set_is_refused(copy_of, tmp_path, reader, file_name):
    directory = copy_of()
    rewrite_row(directory, 2, lambda row: {**row, "file_name": file_name})
    before = snapshot(directory)
    result = cli(*READERS[reader](directory, tmp_path), timeout=120)
    assert_refused(result, "metadata.jsonl line 2", repr(file_name)[:40])
    assert snapshot(directory) == before
    assert not (tmp_path / "run").exists()


def test_a_link_that_leads_out_of_the_set_is_refused(copy_of, tmp_path):
    directory = copy_of()
    outside = tmp_path / "outside"
    shutil.copytree(directory / "tape_gap", outside)  # same names, but not the set's
    shutil.rmtree(directory / "tape_gap")
    (directory / "tape_gap").symlink_to(outside, target_is_directory=True)
    for reader in ("rescore", "eval baseline", "rate"):
        assert_refused(cli(*READERS[reader](directory, tmp_path), timeout=120), "metadata.jsonl line 1",
                       "leads outside the set")


def test_eval_run_sends_nothing_from_a_hostile_set(copy_of, tmp_path):
    """The model API is never asked about a file outside the set (a real local server counts requests)."""
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
    import threading

    hits = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802
            hits.append(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            self.send_response(500)
            self.end_headers()

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        directory = copy_of()
        rewrite_row(directory, 1, lambda row: {**row, "file_name": "/etc/hostname"})
        result = cli("eval", "run", directory, "--provider", "openai", "--model", "m", "--out", tmp_path / "run",
                     "--base-url", f"http://127.0.0.1:{server.server_port}/v1", timeout=120,
                     env={**os.environ, "OPENAI_API_KEY": "sk-test"})
    finally:
        server.shutdown()
    assert_refused(result, "metadata.jsonl line 1", "/etc/hostname")
    assert hits == []


def test_merge_refuses_a_shard_with_a_row_outside_it(copy_of, tmp_path):
    directory = copy_of()
    manifest = json.loads((directory / "manifest.json").read_text())
    assert manifest["complete"]
    rewrite_row(directory, 3, lambda row: {**row, "file_name": "/etc/passwd"})
    assert_refused(cli("merge", directory, "--out", tmp_path / "merged"), "line 3", "/etc/passwd")
    assert not (tmp_path / "merged").exists()


# 2. A damaged line in the middle is damage, not a crash: named, and repaired on request -----------

DAMAGE = {
    "not JSON": lambda row: b'{"file_name": "tape_gap/x.jpg", "fra\n',
    "empty object": lambda row: b"{}\n",
    "a list": lambda row: b"[1, 2]\n",
    "no slot": lambda row: {k: v for k, v in row.items() if k != "slot"},
    "invalid UTF-8": lambda row: b'{"file_name": "\xff\xfe"}\n',
}


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_a_damaged_middle_line_stops_every_reader_with_its_line_number(copy_of, tmp_path, damage):
    directory = copy_of()
    rewrite_row(directory, 2, DAMAGE[damage])
    before = snapshot(directory)
    for reader in ("export resume", "rescore", "eval baseline", "rate"):
        result = cli(*READERS[reader](directory, tmp_path), timeout=120)
        assert_refused(result, "metadata.jsonl line 2")
        if reader == "export resume":
            assert "--repair" in result.stderr
    assert snapshot(directory) == before, "a refused reader changed the set"


def test_repair_keeps_good_rows_byte_for_byte_and_rerenders_only_the_bad(reference, copy_of):
    directory = copy_of()
    good = lines(directory)
    positive_line = next(i for i, line in enumerate(good, 1) if json.loads(line)["stratum"] == "positive")
    rewrite_row(directory, 2, DAMAGE["not JSON"])
    rewrite_row(directory, positive_line, DAMAGE["empty object"])
    stale_image = {p: p.stat().st_mtime_ns for p in (directory / "tape_gap").iterdir()}
    result = cli("export", *BASE, "--out", directory, "--repair")
    assert result.returncode == 0, result.stderr
    assert "dropped metadata.jsonl line 2" in result.stderr
    repaired = lines(directory)
    kept = [line for i, line in enumerate(good, 1) if i not in (2, positive_line)]
    assert repaired[:len(kept)] == kept, "good rows must stay, in order, byte for byte"
    assert sorted(repaired) == sorted(good), "the re-rendered rows equal the lost ones"
    manifest = json.loads((directory / "manifest.json").read_text())
    assert manifest["complete"]
    assert [d["line"] for d in manifest["repairs"][0]["dropped"]] == [2, positive_line]
    reference_stats = json.loads((reference / "manifest.json").read_text())["stats"]
    assert manifest["stats"]["positive_search"] == reference_stats["positive_search"], "no double counting"
    assert manifest["stats"]["discards"] == reference_stats["discards"]
    # only the two lost frames were written again
    rewritten = [p.name for p, t in stale_image.items() if p.stat().st_mtime_ns != t]
    assert len(rewritten) == 2
    # and the set now reads cleanly
    assert cli("rescore", directory).returncode == 0


def test_repair_drops_duplicates_and_rows_whose_image_is_cut_short(copy_of):
    directory = copy_of()
    good = lines(directory)
    (directory / "metadata.jsonl").write_bytes(b"".join(good + [good[0]]))  # slot filled twice
    second = json.loads(good[1])
    image = directory / second["file_name"]
    image.write_bytes(image.read_bytes()[:100])  # cut short
    result = cli("export", *BASE, "--out", directory, "--repair")
    assert result.returncode == 0, result.stderr
    dropped = json.loads((directory / "manifest.json").read_text())["repairs"][0]["dropped"]
    assert [(d["line"], d["why"].split(" ")[0]) for d in dropped] == [(2, "image"), (5, "slot")]
    assert sorted(lines(directory)) == sorted(good)
    assert image.read_bytes()[-2:] == b"\xff\xd9"


def test_repair_with_other_options_is_refused_without_touching_the_log(copy_of):
    directory = copy_of()
    rewrite_row(directory, 2, DAMAGE["not JSON"])
    (directory / "manifest.json").write_text("{ damaged")
    before = snapshot(directory)
    other = [a if a != "11" else "12" for a in BASE]
    assert_refused(cli("export", *other, "--out", directory, "--repair"), "was made with these settings")
    assert snapshot(directory) == before


def test_a_damaged_manifest_is_named_and_rebuilt_by_repair(copy_of):
    directory = copy_of()
    good = lines(directory)
    (directory / "manifest.json").write_text("{ damaged")
    assert_refused(cli("export", *BASE, "--out", directory), "manifest.json is damaged", "--repair")
    result = cli("export", *BASE, "--out", directory, "--repair")
    assert result.returncode == 0, result.stderr
    assert lines(directory) == good and json.loads(result.stdout)["complete"]


# 3. One writer per folder ---------------------------------------------------------------------------

def _wait_for_lock(directory: Path, proc, timeout=120):
    lock = directory / ".realitybench.lock"
    deadline = time.time() + timeout
    while time.time() < deadline and proc.poll() is None:
        if lock.exists() and lock.read_text().strip():
            return json.loads(lock.read_text())
        time.sleep(0.05)
    raise AssertionError("the first export never took the lock")


def test_a_second_writer_is_refused_while_the_first_runs(tmp_path):
    pytest.importorskip("bpy")
    out = tmp_path / "set"
    args = [sys.executable, "-m", "realitybench_addon", "export", *BASE, "--out", str(out)]
    first = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    holder = _wait_for_lock(out, first)
    assert holder["pid"] == first.pid and holder["purpose"] == "export"
    second = cli("export", *BASE, "--out", out)
    repair = cli("export", *BASE, "--out", out, "--repair")
    _, err = first.communicate(timeout=600)
    assert first.returncode == 0, err
    for result in (second, repair):
        assert_refused(result, f"is being written by export (pid {first.pid} on")
    assert len(lines(out)) == 4 and len(set(lines(out))) == 4


def test_a_killed_writer_leaves_no_stale_lock(tmp_path):
    pytest.importorskip("bpy")
    out = tmp_path / "set"
    proc = subprocess.Popen([sys.executable, "-m", "realitybench_addon", "export", *BASE, "--out", str(out)],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    _wait_for_lock(out, proc)
    os.killpg(proc.pid, signal.SIGKILL)  # the export and its worker
    proc.wait()
    resumed = cli("export", *BASE, "--out", out)
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout)["complete"] and len(lines(out)) == 4


def test_the_lock_in_process(tmp_path):
    """The lock itself: exclusive, named holder, freed on release, shared with a worker through the fd."""
    from realitybench_addon.setlock import INHERITED_FD, SetLock, SetLocked

    with SetLock(tmp_path, "export") as held:
        with pytest.raises(SetLocked, match=r"is being written by export \(pid \d+ on .*, since"):
            SetLock(tmp_path, "merge").acquire()
        child = subprocess.run([sys.executable, "-c", (
            "import sys; from realitybench_addon.setlock import SetLock; "
            f"lock = SetLock({str(tmp_path)!r}, 'export').acquire(); print(lock.inherited)")],
            cwd=ROOT, capture_output=True, text=True, pass_fds=(held.fd,), env=held.child_env())
        assert child.stdout.strip() == "True", child.stderr
        stranger = subprocess.run([sys.executable, "-c", (
            "from realitybench_addon.setlock import SetLock; "
            f"SetLock({str(tmp_path)!r}, 'export').acquire()")],
            cwd=ROOT, capture_output=True, text=True, env={**os.environ, INHERITED_FD: "99"})
        assert "is being written by export" in stranger.stderr
    with SetLock(tmp_path, "merge"):
        pass


# 7. Sizes: refused before any work, in seconds, with nothing planned in memory ---------------------

@pytest.mark.parametrize("args, message", [
    (["--random", "1000000000"], "at most 10,000,000 frames per environment and stratum"),
    (["--positive", "20000000"], "at most 10,000,000 frames per environment and stratum"),
    (["--random", "9000000", "--positive", "0", "--resolution", "1600x1200"], "GB free"),
])
def test_sizes_that_cannot_fit_are_refused_at_once(tmp_path, args, message):
    pytest.importorskip("bpy")
    started = time.perf_counter()
    result = cli("export", "--env", "tape_gap", *args, "--out", tmp_path / "big", timeout=120)
    assert_refused(result, message)
    assert time.perf_counter() - started < 60
    assert not (tmp_path / "big" / "metadata.jsonl").exists()


def test_planned_work_streams_and_counts_agree():
    from realitybench_addon.core.presets import load_environment_preset
    from realitybench_addon.export import ExportConfig, expected_frames, planned_work

    presets = {env: load_environment_preset(env) for env in ("tape_gap", "horizon_peak")}
    for random, positive, shard in [(0, 0, (0, 1)), (5, 3, (0, 1)), (7, 2, (2, 3)), (1, 9, (3, 4))]:
        config = ExportConfig(("tape_gap", "horizon_peak"), random, positive, shard=shard)
        work = list(planned_work(config, presets))
        assert len(work) == expected_frames(config, presets) == len(set(work))
        assert all(slot % shard[1] == shard[0] for _, _, slot in work)
    huge = ExportConfig(("tape_gap",), 10_000_000, 10_000_000)
    assert expected_frames(huge, presets) == 20_000_000  # arithmetic, not a list
    assert next(iter(planned_work(huge, presets))) == ("tape_gap", "random", 0)


# 10. A refused merge leaves nothing a reader could take for a set -----------------------------------

@pytest.fixture(scope="module")
def shards(tmp_path_factory):
    pytest.importorskip("bpy")
    root = tmp_path_factory.mktemp("shards")
    made = []
    for k in range(2):
        out = root / f"shard{k}"
        result = cli("export", "--env", "tape_gap", "--random", "3", "--positive", "0", "--seed", "5", *SMALL,
                     "--shard", f"{k}/2", "--out", out)
        assert result.returncode == 0, result.stderr
        made.append(out)
    return made


def test_merge_refuses_a_repeated_shard_and_writes_nothing(shards, tmp_path):
    out = tmp_path / "merged"
    assert_refused(cli("merge", shards[0], shards[0], "--out", out), "repeated [(0, 2)]")
    assert not out.exists() and not list(tmp_path.glob(".merged*"))


def test_merge_refuses_a_shard_missing_a_row_and_writes_nothing(shards, tmp_path):
    cut = tmp_path / "cut"
    shutil.copytree(shards[0], cut)
    (cut / "metadata.jsonl").write_bytes(b"".join(lines(cut)[:-1]))
    out = tmp_path / "merged"
    assert_refused(cli("merge", cut, shards[1], "--out", out), "the shards hold 2 frames, the export expects 3")
    assert not out.exists() and not list(tmp_path.glob(".merged*"))
    eval_result = cli("eval", "baseline", out, "--kind", "always-accept", "--out", tmp_path / "run")
    assert_refused(eval_result, "does not exist")


def test_merge_into_a_folder_with_files_is_refused(shards, tmp_path):
    out = tmp_path / "merged"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    assert_refused(cli("merge", *shards, "--out", out), "already holds files")
    assert [p.name for p in out.iterdir()] == ["notes.txt"]


def test_merge_of_sound_shards_appears_whole(shards, tmp_path):
    out = tmp_path / "merged"
    out.mkdir()  # an empty folder is fine
    result = cli("merge", *shards, "--out", out)
    assert result.returncode == 0, result.stderr
    assert json.loads((out / "manifest.json").read_text())["complete"]
    assert len(lines(out)) == 3 and not list(tmp_path.glob(".merged*"))


# 13. The bpy extra pins, per Python, the wheel and the numpy it was built against ---------------------

def test_the_bpy_extra_pins_each_lines_numpy():
    import importlib.metadata
    import tomllib

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert sorted(extras["bpy"]) == sorted([
        "bpy==5.2.*; python_version >= '3.13'", "bpy==4.5.*; python_version < '3.13'",
        "numpy>=2; python_version >= '3.13'", "numpy>=1.26,<2; python_version < '3.13'"])
    import numpy

    try:
        bpy_version = importlib.metadata.version("bpy")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("no bpy wheel here")
    # What the tests' own venv resolved: numpy 1 beside the 4.5 wheel, numpy 2 beside 5.x.
    assert (int(numpy.__version__.split(".")[0]) >= 2) == (int(bpy_version.split(".")[0]) >= 5)


# 14. A positive stratum no pose can reach at the asked size is refused before any work -------------

def test_a_positive_stratum_out_of_reach_at_this_size_is_refused_at_once(tmp_path):
    pytest.importorskip("bpy")
    out = tmp_path / "set"
    result = cli("export", "--env", "breaker_label", "--random", "0", "--positive", "1", "--resolution", "64x48",
                 "--out", out, timeout=120)
    assert_refused(result, "breaker_label: no pose can pass text_row_px >= ", "at 64 px long side",
                   "use a larger --resolution", "--positive 0")
    assert not out.exists()
    # the same size without a positive stratum is fine to plan
    from realitybench_addon.api import export_config

    export_config("breaker_label", random=1, positive=0, long_side_px=64)


# The CLI with a shorter positive search: 100 candidates a slot instead of the export's 1000 (which took 213 s of
# the suite), so the same dry run, its message and its kept statistics cost a tenth.
SHORT_SEARCH = """import sys
from realitybench_addon import export
from realitybench_addon.__main__ import main
export.POSITIVE_BLOCK = 100  # in this process: --recycle-every 0 starts no worker
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.slow
def test_a_positive_search_that_runs_dry_is_one_line_saying_what_to_change(tmp_path):
    """breaker_label slot 2 at 320x240 (seed 0) has no accepted pose among its candidates."""
    pytest.importorskip("bpy")
    out = tmp_path / "set"
    result = subprocess.run([sys.executable, "-c", SHORT_SEARCH, "export", "--env", "breaker_label", "--random", "0",
                             "--positive", "3", "--shard", "2/3", "--resolution", "320x240", *SMALL[2:],
                             "--recycle-every", "0", "--out", str(out)],
                            cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert_refused(result, "breaker_label positive slot 2: no accepted frame among 100 candidates at 320 px",
                   "failing terms: glyph_px_min", "text_row_px", "a rerun fails the same way",
                   "use a larger --resolution")
    manifest = json.loads((out / "manifest.json").read_text())
    assert not manifest["complete"] and not (out / "metadata.jsonl").exists()
    assert manifest["stats"]["positive_search"]["breaker_label"]["candidates"] == 100  # what it tried is kept


# Fault injection: a kill inside each kind of write, then a resume, gives the uninterrupted set --------

KILL_INSIDE = r'''
import os, signal, sys
from pathlib import Path
from realitybench_addon import export, setio
from realitybench_addon.__main__ import main

point, nth = sys.argv[1], int(sys.argv[2])
calls = {"image": 0, "row": 0, "manifest": 0}
atomic_write, append_row = setio.atomic_write, export.append_row

def die_inside(kind, path, data):
    calls[kind] += 1
    if kind == point and calls[kind] == nth:
        with open(path, "ab") as fh:  # half the bytes land, then the process is gone
            fh.write(data[: len(data) // 2])
        os.kill(os.getpid(), signal.SIGKILL)

def killing_atomic_write(path, data, **kw):
    kind = "manifest" if Path(path).name == setio.MANIFEST else "image"
    die_inside(kind, Path(path).with_name(f".{Path(path).name}.partial"), data)
    atomic_write(path, data, **kw)

def killing_append_row(directory, row):
    import json
    line = (json.dumps(setio.jsonable(row), ensure_ascii=False, separators=(",", ":")) + "\n").encode()
    die_inside("row", Path(directory) / setio.METADATA, line)
    append_row(directory, row)

setio.atomic_write = export.atomic_write = killing_atomic_write
export.append_row = killing_append_row
sys.exit(main(sys.argv[3:]))
'''


@pytest.mark.slow
@pytest.mark.parametrize("point, nth", [("image", 2), ("row", 3), ("manifest", 4)])
def test_a_kill_inside_each_write_resumes_to_the_uninterrupted_set(reference, tmp_path, point, nth):
    out = tmp_path / "set"
    killed = subprocess.run([sys.executable, "-c", KILL_INSIDE, point, str(nth), "export", *BASE, "--out", str(out),
                             "--recycle-every", "0"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert len(lines(out)) < 4
    resumed = cli("export", *BASE, "--out", out)
    assert resumed.returncode == 0, resumed.stderr
    assert lines(out) == lines(reference) or sorted(lines(out)) == sorted(lines(reference))
    for row in map(json.loads, lines(out)):
        assert (out / row["file_name"]).read_bytes() == (reference / row["file_name"]).read_bytes()
    assert not list(out.rglob(".*partial"))
    got, want = (json.loads((d / "manifest.json").read_text()) for d in (out, reference))
    for manifest in (got, want):
        del manifest["stats"]["timings"]
    assert got["stats"] == want["stats"] and got["counts"] == want["counts"] and got["complete"]


def test_a_dead_holders_lingering_worker_is_waited_for_not_refused(tmp_path):
    """The export is SIGKILLed; its worker, which shares the lock, dies a moment later (the kernel's
    parent-death signal). The next writer waits for that instead of refusing."""
    from realitybench_addon.setlock import SetLock

    holder = subprocess.Popen([sys.executable, "-c", (
        "import os, signal, subprocess, sys; from realitybench_addon.setlock import SetLock; "
        f"lock = SetLock({str(tmp_path)!r}, 'export').acquire(); "
        "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(1.5)'], pass_fds=(lock.fd,)); "
        "os.kill(os.getpid(), signal.SIGKILL)")], cwd=ROOT)
    holder.wait()
    assert holder.returncode == -signal.SIGKILL
    started = time.monotonic()
    with SetLock(tmp_path, "export"):
        waited = time.monotonic() - started
    assert 0.3 < waited < 10, waited  # it waited for the worker, then took the lock
