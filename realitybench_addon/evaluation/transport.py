"""HTTP for the model APIs: timeouts, a deadline and a size cap per attempt, retries, a concurrency
limit and a requests-per-minute limit.

Each attempt has a deadline for all of it (connect, TLS, sending, headers, body): the connect and
read timeouts are clipped to the time left, and when it passes a timer shuts down the attempt's
sockets, which wakes a read blocked in any phase at once (a server sending a byte a second never
trips a read timeout). The reply is streamed and reading stops past `max_reply_bytes`; an
oversized 200 reply fails its item with `truncated` set and at most BODY_KEEP characters kept.

Retried: connection errors (refused, reset, dropped), timeouts, and HTTP 408, 409, 429 and 5xx.
A `Retry-After` (seconds or an HTTP date; `retry-after-ms` too) is honoured up to a cap; other
retries wait a jittered exponential backoff ("full jitter": uniform in [0, min(cap, base * 2^k))).
The jitter is a hash of the request and the attempt, not a global random source, so two
requests that failed together do not retry together, and a rerun waits the same.
No retry on any other 4xx (401, 403 and 404 stop the whole run: a wrong key, URL or model).

Every attempt (retries included) takes a slot from the rate limiter, which spaces request
starts at least 60/rpm seconds apart. The concurrency limit is the asking thread pool's size.
`requests` is imported here only: the scoring and reporting modules do not need it.
"""
from __future__ import annotations

import email.utils
import hashlib
import json
import socket
import threading
import time
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from typing import Any, Callable, Optional

import requests
import urllib3
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

RETRY_STATUS = frozenset({408, 409, 429})
FATAL_STATUS = frozenset({401, 403, 404})
BODY_KEEP = 4000  # characters of an error body kept in the run
KEPT_CHARS = BODY_KEEP + 1024  # returned: the run scrubs secrets, then cuts to BODY_KEEP (no half key kept)
CHUNK_BYTES = 65536  # the reply is read in pieces this large
DEFAULT_DEADLINE_S = 600.0
DEFAULT_MAX_REPLY_BYTES = 8 * 1024 * 1024  # model replies are kilobytes; this is far past any real one


@dataclass(frozen=True)
class TransportConfig:
    timeout_s: float = 120.0  # read timeout of one attempt
    connect_timeout_s: float = 10.0
    deadline_s: float = DEFAULT_DEADLINE_S  # the whole of one attempt: connect, headers, body
    max_reply_bytes: int = DEFAULT_MAX_REPLY_BYTES
    max_retries: int = 5  # attempts = max_retries + 1
    backoff_base_s: float = 1.0
    backoff_cap_s: float = 30.0
    retry_after_cap_s: float = 60.0
    concurrency: int = 4
    rpm: Optional[float] = None  # requests (attempts) per minute; None: unlimited

    def to_dict(self) -> dict:
        return asdict(self)


class RateLimiter:
    """Spaces request starts at least 60/rpm seconds apart, across threads."""

    def __init__(self, rpm: Optional[float], clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep):
        self.interval = 60.0 / rpm if rpm else 0.0
        self._next = 0.0
        self._lock = threading.Lock()
        self._clock, self._sleep = clock, sleep

    def acquire(self) -> float:
        """Block until this caller may start a request; returns the seconds waited."""
        if not self.interval:
            return 0.0
        with self._lock:
            now = self._clock()
            start = max(now, self._next)
            self._next = start + self.interval
        wait = start - now
        if wait > 0:
            self._sleep(wait)
        return wait


def retryable_status(status: int) -> bool:
    return status in RETRY_STATUS or 500 <= status <= 599


def retry_after_s(headers, now: Optional[datetime] = None) -> Optional[float]:
    """Seconds asked for by `retry-after-ms` or `Retry-After` (delta seconds or an HTTP date), or None."""
    ms = headers.get("retry-after-ms")
    if ms is not None:
        try:
            return max(0.0, float(ms) / 1000.0)
        except ValueError:
            pass
    value = headers.get("Retry-After")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, (when - (now or datetime.now(timezone.utc))).total_seconds())


def jitter_fraction(key: str, attempt: int) -> float:
    digest = hashlib.sha256(f"{key}:{attempt}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2.0 ** 64


def backoff_s(config: TransportConfig, key: str, attempt: int) -> float:
    """Full jitter: uniform in [0, min(cap, base * 2^attempt)) (attempt counts from 0)."""
    return jitter_fraction(key, attempt) * min(config.backoff_cap_s, config.backoff_base_s * 2.0 ** attempt)


# ---- the deadline of one attempt ------------------------------------------------------------------
_current = threading.local()  # the calling thread's attempt deadline (requests is synchronous)


class Deadline:
    """One attempt's deadline. `watch` registers each socket the attempt uses; when the deadline passes, a
    timer shuts them down, so a read blocked in the TLS handshake, the headers or the body returns at once."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        self.at = time.monotonic() + seconds
        self.passed = False
        self._sockets: list = []
        self._done = False
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True
        self._timer.start()

    def remaining(self) -> float:
        return max(0.001, self.at - time.monotonic())

    def watch(self, sock) -> None:
        with self._lock:
            if self._done:
                return
            self._sockets.append(sock)
            if self.passed:
                _shut(sock)

    def _expire(self) -> None:
        with self._lock:  # under the lock: once `finish` returns, no socket of a finished attempt is shut
            if self._done:
                return
            self.passed = True
            for sock in self._sockets:
                _shut(sock)

    def finish(self) -> None:
        self._timer.cancel()
        with self._lock:
            self._done = True
            self._sockets.clear()


def _shut(sock) -> None:
    try:  # the plain socket's shutdown, also for a TLS socket: wakes its reader with end-of-file
        socket.socket.shutdown(sock, socket.SHUT_RDWR)
    except OSError:  # already closed
        pass


def _watch(sock) -> None:
    deadline = getattr(_current, "deadline", None)
    if deadline is not None and sock is not None:
        deadline.watch(sock)


class _Watched:
    """A urllib3 connection whose sockets the current attempt's deadline can shut: a new one as it is made
    (before TLS), a kept-alive one when it is used again."""

    def _new_conn(self):
        sock = super()._new_conn()
        _watch(sock)
        return sock

    def request(self, *args, **kwargs):
        _watch(self.sock)
        return super().request(*args, **kwargs)


class _HTTPConnection(_Watched, urllib3.connection.HTTPConnection):
    pass


class _HTTPSConnection(_Watched, urllib3.connection.HTTPSConnection):
    pass


class _HTTPPool(HTTPConnectionPool):
    ConnectionCls = _HTTPConnection


class _HTTPSPool(HTTPSConnectionPool):
    ConnectionCls = _HTTPSConnection


_POOLS = {"http": _HTTPPool, "https": _HTTPSPool}


class _DeadlineAdapter(requests.adapters.HTTPAdapter):
    def init_poolmanager(self, *args, **kwargs):
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = _POOLS

    def proxy_manager_for(self, proxy, **proxy_kwargs):
        manager = super().proxy_manager_for(proxy, **proxy_kwargs)
        if isinstance(manager, urllib3.ProxyManager):  # a SOCKS proxy keeps its own connections
            manager.pool_classes_by_scheme = _POOLS
        return manager


def read_capped(response: requests.Response, cap: int, deadline: Optional[Deadline] = None) -> tuple[bytes, bool]:
    """(at most `cap` bytes of the body, whether there was more); stops reading past the cap."""
    data = bytearray()
    for chunk in response.iter_content(CHUNK_BYTES):
        data += chunk
        if len(data) > cap:
            return bytes(data[:cap]), True
        if deadline is not None and deadline.passed:
            break  # the caller reports the deadline
    return bytes(data), False


def body_text(data: bytes, response: requests.Response) -> str:
    try:
        return data.decode(response.encoding or "utf-8", errors="replace")
    except LookupError:  # a charset Python does not know
        return data.decode("utf-8", errors="replace")


@dataclass
class Result:
    ok: bool
    status: Optional[int]  # the last HTTP status, None when no response came
    body: Any  # the parsed JSON body (ok) or the text of the last error body (kept short)
    error: Optional[str]  # why it failed (None when ok)
    attempts: list  # one dict per attempt: status, error, elapsed_s, wait_s (the wait after it)
    elapsed_s: float
    fatal: bool = False  # 401/403/404: stop the run
    truncated: bool = False  # the reply was larger than max_reply_bytes; reading stopped there


class Transport:
    def __init__(self, config: TransportConfig, sleep: Callable[[float], None] = time.sleep):
        self.config = config
        self.limiter = RateLimiter(config.rpm)
        self._local = threading.local()
        self._sleep = sleep

    def session(self) -> requests.Session:
        s = getattr(self._local, "session", None)
        if s is None:
            s = requests.Session()
            for prefix in ("http://", "https://"):
                s.mount(prefix, _DeadlineAdapter())
            self._local.session = s
        return s

    def post_json(self, url: str, headers: dict, body: dict, key: str) -> Result:
        """POST `body` as JSON, retrying as the module says. `key` seeds the jitter (the request hash)."""
        config = self.config
        data = json.dumps(body, ensure_ascii=False).encode("utf-8")
        headers = {"Content-Type": "application/json", **headers}
        attempts: list[dict] = []
        t_start = time.monotonic()
        status: Optional[int] = None
        last_body: Any = None
        error = "no attempt made"
        for attempt in range(config.max_retries + 1):
            self.limiter.acquire()
            t0 = time.monotonic()
            record: dict = {"attempt": attempt + 1}
            wait: Optional[float] = None
            deadline = Deadline(config.deadline_s)
            _current.deadline = deadline
            try:
                left = deadline.remaining()
                response = self.session().post(url, data=data, headers=headers, stream=True,
                                               timeout=(min(config.connect_timeout_s, left),
                                                        min(config.timeout_s, left)))
                try:
                    body_bytes, truncated = read_capped(response, config.max_reply_bytes, deadline)
                finally:
                    response.close()  # a reply not read to its end must not go back to the pool
                if deadline.passed:  # the shut socket may have looked like the end of the body
                    raise requests.Timeout("deadline")
            except requests.Timeout as exc:
                status, error = None, f"timeout ({type(exc).__name__})"
            except (requests.ConnectionError, requests.exceptions.ChunkedEncodingError) as exc:
                status, error = None, f"connection error ({type(exc).__name__})"
            except requests.RequestException as exc:  # invalid URL and the like: not retryable
                record.update(status=None, error=f"{type(exc).__name__}: {exc}",
                              elapsed_s=round(time.monotonic() - t0, 4))
                attempts.append(record)
                return Result(False, None, None, record["error"], attempts, time.monotonic() - t_start, fatal=True)
            else:
                status = response.status_code
                if truncated:  # not retried: the same request would get the same reply
                    error = (f"the reply is larger than the {config.max_reply_bytes}-byte limit (--max-reply-bytes); "
                             f"the rest was not read")
                    record.update(status=status, error=error, truncated=True,
                                  elapsed_s=round(time.monotonic() - t0, 4))
                    attempts.append(record)
                    return Result(False, status, body_text(body_bytes, response)[:KEPT_CHARS], error, attempts,
                                  time.monotonic() - t_start, truncated=True)
                if status == 200:
                    record.update(status=200, error=None, elapsed_s=round(time.monotonic() - t0, 4))
                    attempts.append(record)
                    try:
                        parsed = json.loads(body_bytes)
                    except ValueError:
                        return Result(False, 200, body_text(body_bytes, response)[:KEPT_CHARS],
                                      "the response body is not JSON", attempts, time.monotonic() - t_start)
                    return Result(True, 200, parsed, None, attempts, time.monotonic() - t_start)
                last_body = body_text(body_bytes, response)[:KEPT_CHARS]
                error = f"HTTP {status}"
                if not retryable_status(status):
                    record.update(status=status, error=error, elapsed_s=round(time.monotonic() - t0, 4))
                    attempts.append(record)
                    return Result(False, status, last_body, error, attempts, time.monotonic() - t_start,
                                  fatal=status in FATAL_STATUS)
                asked = retry_after_s(response.headers)
                if asked is not None:
                    wait = min(asked, config.retry_after_cap_s)
                    record["retry_after_s"] = asked
            finally:
                deadline.finish()
                _current.deadline = None
            if deadline.passed and status is None:
                error = f"timeout (the {config.deadline_s:g} s deadline of the whole request passed)"
            record.update(status=status, error=error, elapsed_s=round(time.monotonic() - t0, 4))
            if attempt == config.max_retries:
                attempts.append(record)
                break
            if wait is None:
                wait = backoff_s(config, key, attempt)
            record["wait_s"] = round(wait, 4)
            attempts.append(record)
            self._sleep(wait)
        n = len(attempts)
        return Result(False, status, last_body, f"{error} after {n} attempt{'s' if n != 1 else ''}", attempts,
                      time.monotonic() - t_start)
