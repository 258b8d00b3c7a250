"""One writer per set: an exclusive lock on the output folder for export, merge and repair.

The lock is the kernel's (`flock` on `DIR/.realitybench.lock`), so it is freed the moment its
holder dies, however it dies: a killed export never leaves a stale lock behind. The file itself
says who holds it (pid, host, command, since when) for the second writer's error message; a
file left by a dead holder is simply taken over. When the named holder is dead but the lock is
still held, its worker (which shares the lock) is being killed with it: the next writer waits
for that, up to ORPHAN_WAIT_S, instead of refusing.

Worker processes of one export (`--recycle-every`) inherit the parent's open lock file through
REALITYBENCH_LOCK_FD and so share its lock instead of competing for it.

A set is a folder people pass around, so the lock file is opened without following a link
(O_NOFOLLOW, relative to the folder's descriptor) and must be a regular file: a `.realitybench.lock`
that is a link (to a file the user can write, or to a missing path) is refused with one line, and
neither its target nor anything else outside the set is created or truncated.
"""
from __future__ import annotations

import errno
import fcntl
import json
import os
import socket
import stat
import sys
import time
from pathlib import Path

from .core.errors import RealityBenchError

LOCK_FILE = ".realitybench.lock"
INHERITED_FD = "REALITYBENCH_LOCK_FD"


class SetLocked(RealityBenchError, RuntimeError):
    """Another process is writing the set; the message names it."""


ORPHAN_WAIT_S = 15.0


def _read_info(path: Path) -> dict:
    """The lock file's JSON, read without following a link (a link or odd file reads as nothing)."""
    from .core.safefs import read_bytes
    return json.loads(read_bytes(path.parent, path.name, "lock"))


def _holder_is_dead_here(path: Path) -> bool:
    """The lock file names a process on this host that no longer exists."""
    try:
        info = _read_info(path)
        if info["host"] != socket.gethostname():
            return False
        os.kill(int(info["pid"]), 0)
    except ProcessLookupError:
        return True
    except (OSError, ValueError, KeyError, TypeError, RecursionError):
        return False
    return False


def _holder(path: Path) -> str:
    try:
        info = _read_info(path)
        since = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(info["since"]))
        return f"{info['purpose']} (pid {info['pid']} on {info['host']}, since {since})"
    except (OSError, ValueError, KeyError, TypeError, RecursionError):
        return "another process"


class SetLock:
    """`with SetLock(directory, "export"):` holds the folder's lock or raises SetLocked at once.

    `leave_no_trace=True` (a merge reading its input shards) removes the lock file on release when this
    lock made it, so a folder only read is left as it was. Every acquire checks, once it holds the lock,
    that the file it locked is still the one at the path (a holder may have removed it meanwhile), and
    starts again if not: two writers never hold locks on two different files."""

    def __init__(self, directory, purpose: str, *, leave_no_trace: bool = False):
        self.path = Path(directory) / LOCK_FILE
        self.purpose = purpose
        self.fd: int | None = None
        self.inherited = False
        self.leave_no_trace = leave_no_trace
        self.created = False

    def _inherited_fd(self) -> int | None:
        """The parent's lock file descriptor, when this process is a worker of the export that holds it."""
        text = os.environ.get(INHERITED_FD)
        if not text or not text.isdigit():
            return None
        fd = int(text)
        try:
            held, here = os.fstat(fd), os.stat(self.path, follow_symlinks=False)
        except OSError:
            return None
        return fd if (held.st_dev, held.st_ino) == (here.st_dev, here.st_ino) else None

    def acquire(self) -> "SetLock":
        inherited = self._inherited_fd()
        if inherited is not None:
            self.fd, self.inherited = inherited, True
            return self
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = self._open()
        deadline = time.monotonic() + ORPHAN_WAIT_S
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                if self._still_at_path(fd):
                    break
                fcntl.flock(fd, fcntl.LOCK_UN)  # locked a file its holder removed on release: open the new one
                os.close(fd)
                fd = self._open()
                continue
            except BlockingIOError:
                # A holder that died on this host leaves the lock to its worker, which the kernel kills
                # right after it (PR_SET_PDEATHSIG): wait for that instead of refusing.
                if _holder_is_dead_here(self.path) and time.monotonic() < deadline:
                    time.sleep(0.1)
                    continue
                os.close(fd)
                raise SetLocked(f"{self.path.parent} is being written by {_holder(self.path)}; "
                                "wait for it to finish or stop it, then run again") from None
        info = {"purpose": self.purpose, "pid": os.getpid(), "host": socket.gethostname(), "since": time.time(),
                "command": " ".join(sys.argv)[:500]}
        os.ftruncate(fd, 0)
        os.pwrite(fd, (json.dumps(info) + "\n").encode(), 0)
        self.fd = fd
        return self

    def _still_at_path(self, fd: int) -> bool:
        try:
            here = os.stat(self.path, follow_symlinks=False)
        except FileNotFoundError:
            return False
        held = os.fstat(fd)
        return (held.st_dev, held.st_ino) == (here.st_dev, here.st_ino)

    def _open(self) -> int:
        """The lock file, opened relative to the folder without following a link, and a regular file."""
        folder = os.open(self.path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        flags = os.O_RDWR | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
        try:
            while True:
                try:  # an existing lock file, else a new one that this lock made (so may remove)
                    fd = os.open(LOCK_FILE, flags, dir_fd=folder)
                    self.created = False
                    break
                except FileNotFoundError:
                    try:
                        fd = os.open(LOCK_FILE, flags | os.O_CREAT | os.O_EXCL, 0o644, dir_fd=folder)
                        self.created = True
                        break
                    except FileExistsError:
                        continue  # another process made it just now: open that one
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.ENXIO, errno.EISDIR, errno.ENOTDIR):
                raise SetLocked(f"{self.path} is a link or not a regular file; a set's lock file is never followed "
                                "outside the folder: remove it and run again") from None
            raise
        finally:
            os.close(folder)
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise SetLocked(f"{self.path} is not a regular file (a pipe or device); remove it and run again")
        return fd

    def release(self) -> None:
        if self.fd is None:
            return
        if not self.inherited:
            os.ftruncate(self.fd, 0)  # no holder named any more
            if self.leave_no_trace and self.created:  # removed while still held; see acquire's check
                try:
                    os.unlink(self.path)
                except OSError:
                    pass
            fcntl.flock(self.fd, fcntl.LOCK_UN)
            os.close(self.fd)
        self.fd = None

    def child_env(self) -> dict:
        """Environment for a worker process that writes under this lock (pass `pass_fds=(lock.fd,)`)."""
        return {**os.environ, INHERITED_FD: str(self.fd)}

    def __enter__(self) -> "SetLock":
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()
