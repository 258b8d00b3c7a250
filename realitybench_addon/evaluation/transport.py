"""HTTP for the model APIs: timeouts, a deadline and a size cap per attempt, retries that honour the
server's waits, a concurrency limit, and requests- and tokens-per-minute pacing.

Each attempt has a deadline for all of it (connect, TLS, sending, headers, body): the connect and
read timeouts are clipped to the time left, and when it passes a timer shuts down the attempt's
sockets, which wakes a read blocked in any phase at once (a server sending a byte a second never
trips a read timeout). The reply is streamed and reading stops past `max_reply_bytes`; an
oversized 200 reply fails its item with `truncated` set and at most BODY_KEEP characters kept.

The read timeout defaults to 600 s, the providers' SDKs' own: a reasoning model may think for minutes
before the first byte of a non-streamed reply. What became of an attempt with no HTTP reply is kept
apart (`kind`): `unreachable` (refused, DNS, connect timeout: nothing reached the server), `timeout`
("timed out after N s": the server took the request, which may be billed) and `dropped` (the
connection broke after sending; may be billed too). Only a request whose every attempt was
unreachable is "unreachable".

Retried: connection errors, timeouts, and HTTP 408, 409, 429 and 5xx. A wait the server asks for
is honoured whatever its length, within `max_wait_s` (--max-wait: all the waits of one request
together) and `max_run_wait_s` (--max-run-wait: all the waits of the whole run, every thread's, together): `retry-after-ms` / `Retry-After` (seconds or an HTTP date), Gemini's
google.rpc.RetryInfo `retryDelay` in the error body, Anthropic's `anthropic-ratelimit-*-reset`
times and OpenAI's `x-ratelimit-reset-*` durations (of the limits with nothing remaining). Such a
retry is not on the --retries count (at most MAX_ASKED_RETRIES of them); other retries are, and
wait a jittered exponential backoff ("full jitter": uniform in [0, min(cap, base * 2^k))). The
jitter is a hash of the request and the attempt, not a global random source, so two requests that
failed together do not retry together, and a rerun waits the same. A wait past what --max-wait
leaves fails the item at once, saying so. No retry on any other 4xx (401, 403 and 404 stop the
whole run: a wrong key, URL or model).

Every attempt (retries included) takes a slot from the rate limiter, which spaces request
starts at least 60/rpm seconds apart, and from the token limiter (--tpm: a request's estimated
tokens, its prompt and its output cap, hold the schedule for 60 T / tpm seconds). The concurrency
limit is the asking thread pool's size. The clock and the sleep are injectable (tests wait for no
rate limit).
`requests` is imported here only: the scoring and reporting modules do not need it.
"""
from __future__ import annotations

import email.utils
import hashlib
import json
import math
import re
import socket
import threading
import time
from dataclasses import asdict, dataclass, field
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
DEFAULT_TIMEOUT_S = 600.0  # the OpenAI and Anthropic SDKs' read timeout: a reasoning model may think for minutes
DEFAULT_DEADLINE_S = 900.0  # one attempt in all; the CLI makes it at least --timeout + 60 s
DEFAULT_MAX_WAIT_S = 3600.0  # all the waits of one request: a per-minute quota asks for up to a minute at a time
DEFAULT_MAX_RUN_WAIT_S = 6 * 3600.0  # all the waits of a run's requests together (a daily quota runs dry)
MAX_ASKED_RETRIES = 50  # waits the server asked for (Retry-After ...), per request; --retries counts the others
# what became of an attempt that got no HTTP reply
UNREACHABLE = "unreachable"  # no connection (refused, DNS, connect timeout): the request never reached the server
TIMEOUT = "timeout"  # the server took the request and no reply came in time: it may have been billed
DROPPED = "dropped"  # the connection broke after the request was sent: it may have been billed
DEFAULT_MAX_REPLY_BYTES = 8 * 1024 * 1024  # model replies are kilobytes; this is far past any real one


@dataclass(frozen=True)
class TransportConfig:
    timeout_s: float = DEFAULT_TIMEOUT_S  # read timeout of one attempt (a whole non-streamed generation)
    connect_timeout_s: float = 10.0
    deadline_s: float = DEFAULT_DEADLINE_S  # the whole of one attempt: connect, headers, body
    max_reply_bytes: int = DEFAULT_MAX_REPLY_BYTES
    max_retries: int = 5  # retries after a failure the server gave no wait for (backoff)
    backoff_base_s: float = 1.0
    backoff_cap_s: float = 30.0
    max_wait_s: float = DEFAULT_MAX_WAIT_S  # all the waits of one request together (Retry-After, backoff)
    max_run_wait_s: float = DEFAULT_MAX_RUN_WAIT_S  # all the waits of every request of the run together
    concurrency: int = 4
    rpm: Optional[float] = None  # requests (attempts) per minute; None: unlimited
    tpm: Optional[float] = None  # estimated tokens (prompt + output cap) per minute; None: unlimited

    def to_dict(self) -> dict:
        return asdict(self)


def _utcnow() -> datetime:
    return datetime.now(timezone.utc)


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


class TokenLimiter:
    """Paces estimated tokens to `tpm` a minute, across threads: a request of T tokens holds the schedule for
    60 T / tpm seconds after its start (a leaky bucket without a burst: the first request goes at once)."""

    def __init__(self, tpm: Optional[float], clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep):
        self.tpm = tpm
        self._next = 0.0
        self._lock = threading.Lock()
        self._clock, self._sleep = clock, sleep

    def acquire(self, tokens: int) -> float:
        if not self.tpm or tokens <= 0:
            return 0.0
        with self._lock:
            now = self._clock()
            start = max(now, self._next)
            self._next = start + 60.0 * tokens / self.tpm
        wait = start - now
        if wait > 0:
            self._sleep(wait)
        return wait


def retryable_status(status: int) -> bool:
    return status in RETRY_STATUS or 500 <= status <= 599


def _seconds(text) -> Optional[float]:
    try:
        value = float(text)
    except (TypeError, ValueError):
        return None
    return max(0.0, value) if math.isfinite(value) else None


def retry_after_s(headers, now: Optional[datetime] = None) -> Optional[float]:
    """Seconds asked for by `retry-after-ms` or `Retry-After` (delta seconds or an HTTP date), or None."""
    ms = _seconds(headers.get("retry-after-ms"))
    if ms is not None:
        return ms / 1000.0
    value = headers.get("Retry-After")
    if value is None:
        return None
    seconds = _seconds(value)
    if seconds is not None:
        return seconds
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, (when - (now or _utcnow())).total_seconds())


_DURATION = re.compile(r"^\s*(?:(\d+(?:\.\d+)?)h)?(?:(\d+(?:\.\d+)?)m(?!s))?(?:(\d+(?:\.\d+)?)s)?"
                       r"(?:(\d+(?:\.\d+)?)ms)?\s*$")


def duration_s(text) -> Optional[float]:
    """A Google protobuf Duration ("20s", "1.5s") or an OpenAI reset ("6m0s", "1h2m3.5s", "250ms") in seconds."""
    if isinstance(text, dict):  # {"seconds": 20, "nanos": 500000000}
        s, n = _seconds(text.get("seconds", 0)), _seconds(text.get("nanos", 0))
        return None if s is None or n is None else s + n / 1e9
    if not isinstance(text, str) or not text.strip():
        return None
    m = _DURATION.match(text)
    if not m or not any(m.groups()):
        return None
    h, mi, s, ms = (float(g) if g else 0.0 for g in m.groups())
    return h * 3600 + mi * 60 + s + ms / 1000.0


def gemini_retry_delay_s(body_text_: str) -> Optional[float]:
    """Gemini's google.rpc.RetryInfo.retryDelay in an error body ({"error": {"details": [...]}}), or None."""
    try:
        body = json.loads(body_text_)
    except (TypeError, ValueError):
        return None
    error = body.get("error") if isinstance(body, dict) else None
    details = error.get("details") if isinstance(error, dict) else None
    for d in details if isinstance(details, list) else []:
        if isinstance(d, dict) and str(d.get("@type", "")).endswith("google.rpc.RetryInfo"):
            delay = duration_s(d.get("retryDelay"))
            if delay is not None:
                return delay
    return None


def _reset_at(value, now: datetime) -> Optional[float]:
    """Seconds until an RFC 3339 time (Anthropic's anthropic-ratelimit-*-reset)."""
    try:
        when = datetime.fromisoformat(str(value).strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, (when - now).total_seconds())


def server_wait(headers, body: str, now: Optional[datetime] = None) -> tuple[Optional[float], Optional[str]]:
    """(seconds the server asked to wait, where it said so) of a retryable reply, or (None, None).

    In this order: `retry-after-ms` / `Retry-After` (any provider); Gemini's RetryInfo.retryDelay in the error
    body; Anthropic's `anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-reset` (RFC 3339), the
    latest of the limits with nothing remaining (of all of them when none says); OpenAI's
    `x-ratelimit-reset-{requests,tokens}` ("6m0s") of the limits with nothing remaining."""
    now = now or _utcnow()
    asked = retry_after_s(headers, now)
    if asked is not None:
        return asked, "retry-after-ms" if headers.get("retry-after-ms") is not None else "Retry-After"
    delay = gemini_retry_delay_s(body)
    if delay is not None:
        return delay, "RetryInfo"
    for prefix, parse in (("anthropic-ratelimit-", lambda v: _reset_at(v, now)), ("x-ratelimit-", duration_s)):
        limits = {}
        for name in ("requests", "tokens", "input-tokens", "output-tokens"):
            reset = headers.get(f"{prefix}{name}-reset" if prefix.startswith("anthropic") else f"{prefix}reset-{name}")
            seconds = parse(reset) if reset is not None else None
            if seconds is not None:
                limits[name] = (seconds, headers.get(f"{prefix}{name}-remaining" if prefix.startswith("anthropic")
                                                     else f"{prefix}remaining-{name}"))
        if limits:
            spent = [s for s, left in limits.values() if str(left).strip() == "0"]
            source = "anthropic-ratelimit-*-reset" if prefix.startswith("anthropic") else "x-ratelimit-reset-*"
            return max(spent or [s for s, _ in limits.values()]), source
    return None, None


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
    unreachable: bool = False  # no attempt got a connection (refused, DNS, connect timeout)

    @property
    def timeouts(self) -> int:
        return sum(1 for a in self.attempts if a.get("kind") == TIMEOUT)


def _causes(exc):
    """The exception, its arguments and its causes, depth first (urllib3 wraps the socket error twice)."""
    seen, todo = set(), [exc]
    while todo:
        e = todo.pop()
        if e is None or id(e) in seen:
            continue
        seen.add(id(e))
        yield e
        todo.extend([getattr(e, "reason", None), e.__cause__, e.__context__,
                     *(a for a in getattr(e, "args", ()) if isinstance(a, BaseException))])


def _never_connected(exc) -> bool:
    """Whether a connection error came before any connection (refused, DNS): nothing reached the server."""
    for e in _causes(exc):
        if isinstance(e, (urllib3.exceptions.NewConnectionError, urllib3.exceptions.NameResolutionError,
                          ConnectionRefusedError, socket.gaierror)):
            return True
    return False


def _connect_reason(exc) -> str:
    for e in _causes(exc):
        if isinstance(e, (urllib3.exceptions.NameResolutionError, socket.gaierror)):
            return "the host name does not resolve"
        if isinstance(e, ConnectionRefusedError) or "refused" in str(e).lower():
            return "connection refused"
    return type(exc).__name__


@dataclass
class _Request:
    """One POST across its attempts: what is sent, and what the attempts have found so far."""
    url: str
    headers: dict
    data: bytes
    key: str  # seeds the jitter
    t_start: float = field(default_factory=time.monotonic)
    attempts: list = field(default_factory=list)
    status: Optional[int] = None  # the last HTTP status, None when no response came
    last_body: Any = None
    error: str = "no attempt made"
    retries: int = 0  # retries on the --retries count (a wait the server asked for is not on it)
    asked_retries: int = 0
    waited: float = 0.0
    asked: Optional[float] = None  # the wait the last attempt's server asked for

    def result(self, ok: bool, body: Any, error: Optional[str], **kw) -> Result:
        return Result(ok, self.status, body, error, self.attempts, time.monotonic() - self.t_start, **kw)


def _connection_failure(exc, deadline: Deadline, config: TransportConfig) -> tuple[str, str]:
    """(kind, error) of a connection that failed or broke: the deadline passed, it never connected, or dropped."""
    if deadline.passed:
        return TIMEOUT, f"timed out after {config.deadline_s:g} s (the deadline of the whole attempt)"
    if _never_connected(exc):
        return UNREACHABLE, f"cannot connect ({_connect_reason(exc)})"
    return DROPPED, f"connection dropped ({type(exc).__name__})"


class Transport:
    def __init__(self, config: TransportConfig, sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.monotonic, now: Callable[[], datetime] = _utcnow):
        """`sleep`, `clock` and `now` (the wall clock, for HTTP dates and reset times) are injectable: a test waits
        for no rate limit."""
        self.config = config
        self.limiter = RateLimiter(config.rpm, clock=clock, sleep=sleep)
        self.tokens = TokenLimiter(config.tpm, clock=clock, sleep=sleep)
        self._local = threading.local()
        self._sleep = sleep
        self._now = now
        self._run_waited = 0.0  # every wait of this run's requests, summed across threads (--max-run-wait)
        self._run_wait_lock = threading.Lock()

    def _take_run_wait(self, wait: float) -> bool:
        """Book `wait` seconds against the run's wait budget; False (nothing booked) when it would overrun."""
        with self._run_wait_lock:
            if self._run_waited + wait > self.config.max_run_wait_s:
                return False
            self._run_waited += wait
            return True

    def session(self) -> requests.Session:
        s = getattr(self._local, "session", None)
        if s is None:
            s = requests.Session()
            for prefix in ("http://", "https://"):
                s.mount(prefix, _DeadlineAdapter())
            self._local.session = s
        return s

    def post_json(self, url: str, headers: dict, body: dict, key: str, tokens: int = 0) -> Result:
        """POST `body` as JSON, retrying as the module says. `key` seeds the jitter (the request hash); `tokens`
        is the request's estimated size for the --tpm pacing (prompt + the output cap)."""
        req = _Request(url, {"Content-Type": "application/json", **headers},
                       json.dumps(body, ensure_ascii=False).encode("utf-8"), key)
        for attempt in range(1, 10_000):
            paced = self.limiter.acquire() + self.tokens.acquire(tokens)
            record: dict = {"attempt": attempt}
            if paced > 0:
                record["paced_s"] = round(paced, 4)
            finished = self._attempt(req, record)
            if finished is not None:
                return finished
            if not self._wait_to_retry(req, record):
                break
        n = len(req.attempts)
        kinds = {a.get("kind") for a in req.attempts}
        return req.result(False, req.last_body, f"{req.error} after {n} attempt{'s' if n != 1 else ''}",
                          unreachable=kinds == {UNREACHABLE})

    def _attempt(self, req: _Request, record: dict) -> Optional[Result]:
        """One attempt under its own deadline, recorded in `record` and `req.attempts`: the request's Result
        when it is over (a reply, or an error not worth a retry), else None (`req.asked`: the wait the server
        asked for, if any)."""
        config = self.config
        t0 = time.monotonic()
        req.asked, kind = None, "http"
        deadline = Deadline(config.deadline_s)
        _current.deadline = deadline
        try:
            left = deadline.remaining()
            response = self.session().post(req.url, data=req.data, headers=req.headers, stream=True,
                                           timeout=(min(config.connect_timeout_s, left), min(config.timeout_s, left)))
            try:
                body_bytes, truncated = read_capped(response, config.max_reply_bytes, deadline)
            finally:
                response.close()  # a reply not read to its end must not go back to the pool
            if deadline.passed:  # the shut socket may have looked like the end of the body
                raise requests.ReadTimeout("deadline")
        except requests.ConnectTimeout:  # before Timeout: the server never took the request
            req.status, kind = None, UNREACHABLE
            req.error = f"cannot connect: no connection within {min(config.connect_timeout_s, left):g} s"
        except requests.Timeout:
            req.status, kind = None, TIMEOUT
            req.error = (f"timed out after {config.deadline_s:g} s (the deadline of the whole attempt)"
                         if deadline.passed else
                         f"timed out after {min(config.timeout_s, left):g} s waiting for the reply (--timeout)")
        except (requests.ConnectionError, requests.exceptions.ChunkedEncodingError) as exc:
            req.status = None
            kind, req.error = _connection_failure(exc, deadline, config)
        except requests.RequestException as exc:  # invalid URL and the like: not retryable
            record.update(status=None, kind="invalid", error=f"{type(exc).__name__}: {exc}",
                          elapsed_s=round(time.monotonic() - t0, 4))
            req.attempts.append(record)
            return Result(False, None, None, record["error"], req.attempts, time.monotonic() - req.t_start, fatal=True)
        else:
            finished = self._on_reply(req, record, t0, response, body_bytes, truncated)
            if finished is not None:
                return finished
        finally:
            deadline.finish()
            _current.deadline = None
        record.update(status=req.status, kind=kind, error=req.error, elapsed_s=round(time.monotonic() - t0, 4))
        if kind in (TIMEOUT, DROPPED):
            record["may_be_billed"] = True  # the server took the request; it may have charged for it
        req.attempts.append(record)
        return None

    def _on_reply(self, req: _Request, record: dict, t0: float, response, body_bytes: bytes,
                  truncated: bool) -> Optional[Result]:
        """A reply came: the Result when it ends the request (200, too large, a status not retried), else None
        with the wait the server asked for in `req.asked` and `record`."""
        config = self.config
        status = req.status = response.status_code
        if truncated:  # not retried: the same request would get the same reply
            req.error = (f"the reply is larger than the {config.max_reply_bytes}-byte limit (--max-reply-bytes); "
                         f"the rest was not read")
            record.update(status=status, kind="http", error=req.error, truncated=True,
                          elapsed_s=round(time.monotonic() - t0, 4))
            req.attempts.append(record)
            return req.result(False, body_text(body_bytes, response)[:KEPT_CHARS], req.error, truncated=True)
        if status == 200:
            record.update(status=200, kind="ok", error=None, elapsed_s=round(time.monotonic() - t0, 4))
            req.attempts.append(record)
            try:
                parsed = json.loads(body_bytes)
            except ValueError:
                return req.result(False, body_text(body_bytes, response)[:KEPT_CHARS], "the response body is not JSON")
            return req.result(True, parsed, None)
        req.last_body = body_text(body_bytes, response)[:KEPT_CHARS]
        req.error = f"HTTP {status}"
        if not retryable_status(status):
            record.update(status=status, kind="http", error=req.error, elapsed_s=round(time.monotonic() - t0, 4))
            req.attempts.append(record)
            return req.result(False, req.last_body, req.error, fatal=status in FATAL_STATUS)
        req.asked, source = server_wait(response.headers, body_text(body_bytes, response), self._now())
        if req.asked is not None:
            record["retry_after_s"] = round(req.asked, 4)
            record["retry_after_from"] = source
        return None

    def _wait_to_retry(self, req: _Request, record: dict) -> bool:
        """Wait before the next attempt (the server's asked wait, else the backoff) and note it in `record`;
        False, with the reason in `req.error`, when the retries or the waits are used up."""
        config = self.config
        asked = req.asked
        if asked is not None:
            req.asked_retries += 1
            if req.asked_retries > MAX_ASKED_RETRIES:
                req.error = f"{req.error}: still asked to wait after {MAX_ASKED_RETRIES} waits"
                return False
            wait = asked
        else:
            req.retries += 1
            if req.retries > config.max_retries:
                return False
            wait = backoff_s(config, req.key, req.retries - 1)
        if req.waited + wait > config.max_wait_s:
            req.error = (f"{req.error}: the server asked to wait {wait:g} s, past what --max-wait "
                         f"({config.max_wait_s:g} s a request) leaves ({config.max_wait_s - req.waited:g} s)"
                         if asked is not None else
                         f"{req.error}: the next retry would wait past --max-wait ({config.max_wait_s:g} s a request)")
            return False
        if not self._take_run_wait(wait):
            req.error = (f"{req.error}: the run's waits have used up --max-run-wait ({config.max_run_wait_s:g} s "
                         f"for all requests together); rerun the same command later to resume")
            return False
        record["wait_s"] = round(wait, 4)
        req.waited += wait
        self._sleep(wait)
        return True
