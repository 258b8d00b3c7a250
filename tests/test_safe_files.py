"""The file layer (safefs.py, setio.py, setlock.py): links, pipes, huge files and races inside a received set.

Every case builds a real folder with real links, FIFOs and sparse files; "outside" is a folder beside the
set holding a file the user cares about, which must never be read, created, truncated or written.
"""
from __future__ import annotations

import json
import os
import shutil
import threading
import time
from pathlib import Path

import pytest

from realitybench_addon import setio
from realitybench_addon.core import safefs
from realitybench_addon.core.errors import RealityBenchError
from realitybench_addon.rating.errors import RatingsError
from realitybench_addon.rating.files import read_ratings_file
from realitybench_addon.rating.store import DB_NAME, RatingStore
from realitybench_addon.setlock import LOCK_FILE, SetLock, SetLocked

FID = "tape_gap-random-s0-000000"
INSIDE, SECRET = b"\xff\xd8inside\xff\xd9", b"the user's own file\n"


def one_line(exc: BaseException) -> str:
    assert isinstance(exc, RealityBenchError) and "\n" not in str(exc), repr(exc)
    return str(exc)


def make_set(tmp_path: Path) -> tuple[Path, Path, dict]:
    """A one-frame set and an `outside` folder with the same layout (so a followed link would find a file)."""
    out, outside = tmp_path / "set", tmp_path / "outside"
    row = {"file_name": f"tape_gap/{FID}.jpg", "frame_id": FID, "environment": "tape_gap", "stratum": "random",
           "slot": 0}
    (out / "tape_gap").mkdir(parents=True)
    (out / "tape_gap" / f"{FID}.jpg").write_bytes(INSIDE)
    (out / setio.METADATA).write_text(json.dumps(row) + "\n")
    outside.mkdir()
    (outside / f"{FID}.jpg").write_bytes(SECRET)
    (outside / "secret.txt").write_bytes(SECRET)
    return out, outside, row


def link_env(out: Path, outside: Path) -> None:
    os.rename(out / "tape_gap", out / "tape_gap.real")
    os.symlink(outside, out / "tape_gap")


# ---- the lock file ----------------------------------------------------------------------------------------

def test_a_linked_lock_file_truncates_nothing(tmp_path):
    out, outside, _ = make_set(tmp_path)
    os.symlink(outside / "secret.txt", out / LOCK_FILE)
    with pytest.raises(SetLocked, match="is a link or not a regular file") as info:
        SetLock(out, "export").acquire()
    one_line(info.value)
    assert (outside / "secret.txt").read_bytes() == SECRET  # before: truncated to the lock's JSON


def test_a_lock_linked_to_a_missing_path_creates_nothing(tmp_path):
    out, outside, _ = make_set(tmp_path)
    os.symlink(outside / "new.txt", out / LOCK_FILE)
    with pytest.raises(SetLocked):
        SetLock(out, "merge (reading)").acquire()
    assert not (outside / "new.txt").exists()  # before: created


def test_a_fifo_lock_is_refused_without_a_hang(tmp_path):
    out, _, _ = make_set(tmp_path)
    os.mkfifo(out / LOCK_FILE)
    with pytest.raises(SetLocked, match="not a regular file"):
        SetLock(out, "export").acquire()


def test_a_plain_lock_still_works(tmp_path):
    out, _, _ = make_set(tmp_path)
    with SetLock(out, "export"):
        with pytest.raises(SetLocked, match="being written by export"):
            SetLock(out, "merge").acquire()
    with SetLock(out, "merge"):
        pass


def test_a_merge_reading_a_shard_leaves_no_lock_file(tmp_path):
    """merge locks each input shard while it reads it; a lock file it made is removed again, one the shard
    already had stays, and a lock taken after the removal locks the file at the path, not a removed one."""
    out, _, _ = make_set(tmp_path)
    before = sorted(os.listdir(out))
    with SetLock(out, "merge (reading)", leave_no_trace=True):
        assert (out / LOCK_FILE).exists()
        with pytest.raises(SetLocked):
            SetLock(out, "export").acquire()
    assert sorted(os.listdir(out)) == before
    with SetLock(out, "export") as lock:
        assert os.fstat(lock.fd).st_ino == os.stat(out / LOCK_FILE).st_ino
    with SetLock(out, "merge (reading)", leave_no_trace=True):
        pass
    assert (out / LOCK_FILE).exists()  # the export's file, not the merge's: left alone


# ---- reading rows and images -------------------------------------------------------------------------------

def test_an_environment_folder_linked_outside_is_never_read(tmp_path):
    out, outside, row = make_set(tmp_path)
    assert setio.read_image(out, row) == INSIDE
    link_env(out, outside)
    with pytest.raises(setio.SetError, match="tape_gap is a link") as info:
        setio.read_image(out, row)
    one_line(info.value)
    with pytest.raises(setio.SetError, match="leads outside the set"):
        setio.read_rows(out)


@pytest.mark.timeout(20)
@pytest.mark.parametrize("what", ["image", "metadata", "manifest"])
def test_a_fifo_is_refused_not_waited_on(tmp_path, what):
    out, _, row = make_set(tmp_path)
    target = {"image": out / row["file_name"], "metadata": out / setio.METADATA,
              "manifest": out / setio.MANIFEST}[what]
    target.unlink(missing_ok=True)
    os.mkfifo(target)
    with pytest.raises(setio.SetError, match="not a regular file") as info:
        {"image": lambda: setio.read_image(out, row), "metadata": lambda: setio.read_rows(out),
         "manifest": lambda: setio.read_manifest(out)}[what]()
    one_line(info.value)


def test_a_sparse_3_gb_image_is_refused_before_reading(tmp_path):
    out, _, row = make_set(tmp_path)
    os.truncate(out / row["file_name"], 3 * 1024 ** 3)  # sparse: no disk used
    with pytest.raises(setio.SetError, match=r"3,221,225,472 bytes; a image file may hold at most 268,435,456"):
        setio.read_image(out, row)


def test_a_linked_metadata_file_is_refused(tmp_path):
    out, outside, _ = make_set(tmp_path)
    (outside / "rows.jsonl").write_bytes((out / setio.METADATA).read_bytes())
    (out / setio.METADATA).unlink()
    os.symlink(outside / "rows.jsonl", out / setio.METADATA)
    with pytest.raises(setio.SetError, match="metadata.jsonl is a link"):
        setio.read_rows(out)
    with pytest.raises(setio.SetError, match="metadata.jsonl is a link"):
        setio.append_row(out, {"frame_id": "x"})
    assert (outside / "rows.jsonl").read_bytes().count(b"\n") == 1  # nothing appended through the link


# ---- writing ------------------------------------------------------------------------------------------------

def test_export_writes_never_pass_a_linked_environment_folder(tmp_path):
    """export (resume, --repair) writes each image with atomic_write(out / env / name, root=out)."""
    out, outside, _ = make_set(tmp_path)
    link_env(out, outside)
    with pytest.raises(setio.SetError, match="tape_gap is a link") as info:
        setio.atomic_write(out / "tape_gap" / f"{FID}.jpg", b"new frame", root=out)
    one_line(info.value)
    assert (outside / f"{FID}.jpg").read_bytes() == SECRET and sorted(os.listdir(outside)) == sorted([
        f"{FID}.jpg", "secret.txt"])  # before: overwritten through the link
    setio.atomic_write(out / "extras" / "masks" / "tape_gap" / "m.png", b"png", root=out)  # folders are made
    assert (out / "extras" / "masks" / "tape_gap" / "m.png").read_bytes() == b"png"


def test_a_planted_partial_link_is_replaced_not_followed(tmp_path):
    out, outside, _ = make_set(tmp_path)
    os.symlink(outside / "secret.txt", out / f".{setio.MANIFEST}.partial")
    setio.write_manifest(out, {"complete": False})
    assert (outside / "secret.txt").read_bytes() == SECRET
    assert setio.read_manifest(out) == {"complete": False} and not (out / f".{setio.MANIFEST}.partial").exists()


def test_remove_partials_does_not_enter_links(tmp_path):
    out, outside, _ = make_set(tmp_path)
    (outside / ".keep.partial").write_bytes(SECRET)
    (out / "tape_gap" / ".x.jpg.partial").write_bytes(b"half")
    os.symlink(outside, out / "elsewhere")
    assert setio.remove_partials(out) == 1
    assert (outside / ".keep.partial").read_bytes() == SECRET


# ---- the ratings database and files ----------------------------------------------------------------------

@pytest.mark.parametrize("name", [DB_NAME, DB_NAME + "-wal"])
def test_a_linked_ratings_database_is_refused(tmp_path, name):
    out, outside, _ = make_set(tmp_path)
    os.symlink(outside / "secret.txt", out / name)
    with pytest.raises(RatingsError, match="is a link or not a regular file") as info:
        RatingStore(out, {FID: "tape_gap"})
    one_line(info.value)
    assert (outside / "secret.txt").read_bytes() == SECRET


@pytest.mark.timeout(20)
def test_a_fifo_ratings_file_is_refused(tmp_path):
    os.mkfifo(tmp_path / "ratings.csv")
    with pytest.raises(RatingsError, match="not a regular file") as info:
        read_ratings_file(tmp_path / "ratings.csv", [FID])
    one_line(info.value)


# ---- the race harness ---------------------------------------------------------------------------------------

def test_swapping_a_folder_for_a_link_during_reads_and_writes_never_leaks(tmp_path):
    """One thread swaps tape_gap between the real folder and a link to outside, as fast as it can, while this
    thread reads the frame's image and writes a new file through the layer: no read returns the outside
    bytes, no write lands outside. Bounded: 3000 reads and writes, then the swapper stops."""
    out, outside, row = make_set(tmp_path)
    real, env = out / "tape_gap.real", out / "tape_gap"
    stop, swaps, failed = threading.Event(), [0], []

    def retry(step):  # the writer may make a new tape_gap/ while the name is free: clear it and retry
        while True:
            try:
                return step()
            except OSError:
                shutil.rmtree(env, ignore_errors=True)

    def swapper():
        try:
            while not stop.is_set():
                os.rename(env, real)
                retry(lambda: os.symlink(outside, env))
                os.unlink(env)
                retry(lambda: os.rename(real, env))
                swaps[0] += 1
                time.sleep(0)  # let the reader in while the real folder is in place too
        except BaseException as exc:  # noqa: BLE001 (reported by the assertion below)
            failed.append(exc)

    thread = threading.Thread(target=swapper, daemon=True)
    thread.start()
    results = {"inside": 0, "refused": 0, "missing": 0}
    try:
        for i in range(3000):
            try:
                data = setio.read_image(out, row)
                assert data == INSIDE, data
                results["inside"] += 1
            except setio.SetError:
                results["refused"] += 1
            except FileNotFoundError:
                results["missing"] += 1
            try:
                setio.atomic_write(env / f"w{i % 7}.jpg", b"written", root=out)
            except (setio.SetError, FileNotFoundError):
                pass
    finally:
        stop.set()
        thread.join(timeout=10)
    assert not thread.is_alive() and not failed, failed
    assert sorted(os.listdir(outside)) == sorted([f"{FID}.jpg", "secret.txt"])  # nothing written outside
    assert (outside / f"{FID}.jpg").read_bytes() == SECRET
    assert sum(results.values()) == 3000 and results["refused"] > 0 and swaps[0] > 100, (results, swaps)
    print("race:", results, "swaps:", swaps[0])


def test_safefs_refuses_paths_that_leave_the_root(tmp_path):
    for bad in ("../x", "a/../../x", "/etc/passwd", "a//b", "."):
        with pytest.raises(setio.SetError, match="not a plain path"):
            safefs.read_bytes(tmp_path, bad, "json")


@pytest.mark.timeout(20)
def test_repair_and_the_card_never_wait_on_a_pipe_or_follow_a_link(tmp_path):
    """export --repair checks each image (_whole_jpeg) and the card reads README.md's head: a FIFO is
    refused at once (before: `export --repair` hung on it), a link is not followed."""
    from realitybench_addon import dataset_card, export
    out, outside, row = make_set(tmp_path)
    assert export._whole_jpeg(out, row["file_name"])
    (out / row["file_name"]).unlink()
    os.mkfifo(out / row["file_name"])
    assert not export._whole_jpeg(out, row["file_name"])
    (out / row["file_name"]).unlink()
    os.symlink(outside / f"{FID}.jpg", out / row["file_name"])
    (outside / f"{FID}.jpg").write_bytes(INSIDE)  # a whole JPEG, but outside the set
    assert not export._whole_jpeg(out, row["file_name"])
    os.mkfifo(out / dataset_card.CARD)
    assert dataset_card.write_dataset_card(out, {"complete": True}, []) is None  # left alone, no hang


def test_blind_pair_answers_deep_or_huge_are_one_line_errors(tmp_path):
    from realitybench_addon.rating.blind_pairs import read_answers
    for text in ('{"answers": ' + "[" * 50_000 + "]" * 50_000 + "}", '{"answers": {}, "x": ' + "9" * 5000 + "}"):
        (tmp_path / "answers.json").write_text(text)
        with pytest.raises(RatingsError, match="not a JSON answers file") as info:
            read_answers(tmp_path / "answers.json", [])
        one_line(info.value)
