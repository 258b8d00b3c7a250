"""HTTP for the model APIs: timeouts, retries, a concurrency limit and a requests-per-minute limit.

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
import threading
import time
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from typing import Any, Callable, Optional

import requests

RETRY_STATUS = frozenset({408, 409, 429})
FATAL_STATUS = frozenset({401, 403, 404})
BODY_KEEP = 4000  # characters of an error body kept in the run


@dataclass(frozen=True)
class TransportConfig:
    timeout_s: float = 120.0  # read timeout of one attempt
    connect_timeout_s: float = 10.0
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


@dataclass
class Result:
    ok: bool
    status: Optional[int]  # the last HTTP status, None when no response came
    body: Any  # the parsed JSON body (ok) or the text of the last error body (kept short)
    error: Optional[str]  # why it failed (None when ok)
    attempts: list  # one dict per attempt: status, error, elapsed_s, wait_s (the wait after it)
    elapsed_s: float
    fatal: bool = False  # 401/403/404: stop the run


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
            try:
                response = self.session().post(url, data=data, headers=headers,
                                               timeout=(config.connect_timeout_s, config.timeout_s))
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
                if status == 200:
                    record.update(status=200, error=None, elapsed_s=round(time.monotonic() - t0, 4))
                    attempts.append(record)
                    try:
                        parsed = response.json()
                    except ValueError:
                        return Result(False, 200, response.text[:BODY_KEEP], "the response body is not JSON",
                                      attempts, time.monotonic() - t_start)
                    return Result(True, 200, parsed, None, attempts, time.monotonic() - t_start)
                last_body = response.text[:BODY_KEEP]
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
