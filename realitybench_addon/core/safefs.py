"""The one file layer: every read and write inside a set, a shard or a ratings folder goes through here.

The folder the user names (ROOT) is opened as given (links in its own path are the user's choice);
every component below it comes from input and is opened relative to its parent's directory
descriptor with O_NOFOLLOW, so a link anywhere inside the set is refused, never followed:

- reads open the file once (O_NOFOLLOW | O_NONBLOCK, so a FIFO cannot hang the open), check the
  opened descriptor with fstat (a regular file, within the size cap of its kind), and read from that
  same descriptor: no check-then-open by path, so swapping a folder for a link mid-read gains nothing;
- writes create a new file (O_CREAT | O_EXCL | O_NOFOLLOW) beside the target and rename it over the
  target inside the same folder descriptor: readers see the old file or the whole new one, and
  nothing is ever written outside ROOT;
- appends (metadata.jsonl) open the existing file with O_NOFOLLOW and check it is a regular file.

Refusals are SetError (one line naming the path); a missing file stays FileNotFoundError, other
operating-system failures stay OSError, for the callers that already say what they mean.
"""
from __future__ import annotations

import errno
import fcntl
import os
import stat
from pathlib import Path

from .errors import RealityBenchError

# The most bytes read from one file of each kind: generous, but finite (a sparse 3 GB "image" is refused).
GiB, MiB = 1024 ** 3, 1024 ** 2
CAPS = {
    "metadata": 2 * GiB,   # metadata.jsonl of a set
    "manifest": 64 * MiB,  # manifest.json
    "image": 256 * MiB,    # a frame's JPEG, a mask or overlay
    "preset": 1 * MiB,     # a preset TOML
    "ratings": 256 * MiB,  # a ratings CSV or JSONL file
    "json": 64 * MiB,      # any other JSON document of a set or run
    "lock": 64 * 1024,     # .realitybench.lock
}
_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_READ = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


class SetError(RealityBenchError, ValueError):
    """A set on disk is damaged or hostile; the message names the file and the line."""


def _parts(relpath) -> list[str]:
    parts = str(relpath).split("/")
    for part in parts:
        if part in ("", ".", "..") or "\x00" in part:
            raise SetError(f"{str(relpath)[:200]!r} is not a plain path inside the set")
    return parts


def _refuse(root, shown: str, exc: OSError, dir_fd: int, name: str, what: str):
    """The SetError for an open that O_NOFOLLOW or O_DIRECTORY refused, or the OSError itself."""
    if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
        try:
            is_link = stat.S_ISLNK(os.lstat(name, dir_fd=dir_fd).st_mode)
        except OSError:
            is_link = False
        if is_link:
            return SetError(f"{Path(root) / shown} is a link; a set's {what} must be a real one inside the set, "
                            "never a link (links may lead outside the folder you named)")
        return SetError(f"{Path(root) / shown} is not a {what}")
    if exc.errno == errno.ENXIO:  # a FIFO without a writer, a socket
        return SetError(f"{Path(root) / shown} is not a regular {what} (a pipe, socket or device); refused")
    return exc


def open_root(root) -> int:
    """A descriptor of the folder the user named (links in its own path followed: that is the user's path)."""
    return os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)


def _walk(root, root_fd: int, folders: list[str], create: bool) -> int:
    """A new descriptor of ROOT/folders..., each component opened with O_NOFOLLOW (made when `create`)."""
    fd = os.dup(root_fd)
    for i, name in enumerate(folders):
        try:
            try:
                nxt = os.open(name, _DIR, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise
                try:
                    os.mkdir(name, 0o755, dir_fd=fd)
                except FileExistsError:
                    pass
                nxt = os.open(name, _DIR, dir_fd=fd)
        except OSError as exc:
            err = _refuse(root, "/".join(folders[: i + 1]), exc, fd, name, "folder")
            os.close(fd)
            raise err from None
        os.close(fd)
        fd = nxt
    return fd


def _folder_of(root, parts: list[str], create: bool) -> int:
    """A descriptor of the folder that holds ROOT/parts (see _walk). The caller closes it."""
    root_fd = open_root(root)
    try:
        return _walk(root, root_fd, parts[:-1], create=create)
    finally:
        os.close(root_fd)


def _open_in(root, relpath, flags: int, *, create_folders: bool = False, mode: int = 0o644) -> int:
    """A descriptor of ROOT/relpath opened with `flags` | O_NOFOLLOW, no link followed below ROOT."""
    parts = _parts(relpath)
    dir_fd = _folder_of(root, parts, create_folders)
    try:
        return os.open(parts[-1], flags | os.O_NOFOLLOW | os.O_CLOEXEC, mode, dir_fd=dir_fd)
    except OSError as exc:
        raise _refuse(root, str(relpath), exc, dir_fd, parts[-1], "file") from None
    finally:
        os.close(dir_fd)


def _checked_regular(fd: int, shown, kind: str | None, doing: str = "") -> int:
    """`fd` if it is a regular file (within CAPS[kind] when given), made blocking; else closed and refused."""
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise SetError(f"{shown} is not a regular file (a folder, pipe or device); refused{doing}")
        if kind is not None and info.st_size > CAPS[kind]:
            raise SetError(f"{shown} is {info.st_size:,} bytes; a {kind} file may hold at most {CAPS[kind]:,}")
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
    os.fsync(fd)


def open_regular(root, relpath, kind: str) -> int:
    """A blocking read descriptor of ROOT/relpath, a regular file within CAPS[kind], reached without
    following any link below ROOT. The caller closes it."""
    return _checked_regular(_open_in(root, relpath, _READ), Path(root) / relpath, kind)


def read_fd(fd: int, cap: int, shown) -> bytes:
    """Everything `fd` holds, refusing more than `cap` bytes (a file can grow after its fstat)."""
    chunks, total = [], 0
    while True:
        chunk = os.read(fd, min(1 << 22, cap + 1 - total))
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        total += len(chunk)
        if total > cap:
            raise SetError(f"{shown} grew past {cap:,} bytes while it was read; refused")


def read_bytes(root, relpath, kind: str) -> bytes:
    """The bytes of ROOT/relpath (see open_regular), read from the descriptor that was checked."""
    fd = open_regular(root, relpath, kind)
    try:
        return read_fd(fd, CAPS[kind], Path(root) / relpath)
    finally:
        os.close(fd)


def open_file(root, relpath, kind: str):
    """ROOT/relpath as a binary file object (see open_regular): for a server streaming an image."""
    return os.fdopen(open_regular(root, relpath, kind), "rb")


def read_path(path, kind: str) -> bytes:
    """A file the user named directly (a preset, a ratings file): its folder as given, the file itself
    not a link-followed FIFO or device, and within the cap of its kind."""
    path = Path(path)
    fd = _checked_regular(os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC), path, kind)
    try:
        return read_fd(fd, CAPS[kind], path)
    finally:
        os.close(fd)


def read_json_object(path, what: str) -> dict:
    """A JSON object from a file the user named (`read_path`'s checks, the "json" cap, strict JSON); a
    RealityBenchError naming the file and `what` it should have been otherwise."""
    from .safe_parse import InputError, loads_json

    try:
        value = loads_json(read_path(path, "json"), max_bytes=CAPS["json"])
    except (OSError, InputError) as err:
        raise RealityBenchError(f"{path}: not {what} ({err})") from None
    if not isinstance(value, dict):
        raise RealityBenchError(f"{path}: not {what} (a JSON object is expected)")
    return value


def write_atomic(root, relpath, data: bytes) -> None:
    """ROOT/relpath replaced by `data`: a new temporary file (O_EXCL, no link followed) fsynced and renamed
    over it inside the same folder. Missing folders are made; a folder that is a link is refused."""
    parts = _parts(relpath)
    Path(root).mkdir(parents=True, exist_ok=True)
    dir_fd = _folder_of(root, parts, create=True)
    name = parts[-1]
    tmp = f".{name}.partial"
    try:
        try:
            os.unlink(tmp, dir_fd=dir_fd)  # a left-over (or planted link): unlink removes the name, not a target
        except FileNotFoundError:
            pass
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644,
                     dir_fd=dir_fd)
        try:
            _write_all(fd, data)
        finally:
            os.close(fd)
        try:
            os.rename(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        except IsADirectoryError:
            raise SetError(f"{Path(root) / relpath} is a folder; refused to replace it") from None
    except BaseException:
        try:
            os.unlink(tmp, dir_fd=dir_fd)
        except OSError:
            pass
        raise
    finally:
        os.close(dir_fd)


def append(root, relpath, data: bytes) -> None:
    """`data` appended to ROOT/relpath (made if missing) and fsynced; a link or non-regular file is refused."""
    fd = _checked_regular(_open_in(root, relpath, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK,
                                   create_folders=True), Path(root) / relpath, None, "; refused to append to it")
    try:
        _write_all(fd, data)
    finally:
        os.close(fd)


def truncate(root, relpath, length: int) -> None:
    """ROOT/relpath cut to `length` bytes (a torn last line), through an O_NOFOLLOW descriptor."""
    fd = _checked_regular(_open_in(root, relpath, os.O_WRONLY | os.O_NONBLOCK), Path(root) / relpath, None)
    try:
        os.ftruncate(fd, length)
    finally:
        os.close(fd)


def copy_into(src_root, src_rel, dst_root, dst_rel, kind: str) -> None:
    """SRC_ROOT/src_rel copied to DST_ROOT/dst_rel, both ends without following links below their roots."""
    write_atomic(dst_root, dst_rel, read_bytes(src_root, src_rel, kind))
