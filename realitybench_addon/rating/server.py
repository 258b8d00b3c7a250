"""The rating page's server: standard-library HTTP over one exported set.

A rater sees exactly what a model sees (the frame and its prompt), never the scorer's verdict, the
frame id or its stratum: frames travel under opaque tokens, HMAC(the database's own random secret,
frame id), so knowing the id scheme does not reveal a frame, and a token of one set means nothing
in another. Every answer goes straight to the ratings database (store.py), so raters can stop,
reload or come back another day.

    GET  /                          the page (page.html)
    POST /api/login                 {passphrase} -> an access cookie (only with a passphrase)
    GET  /api/session?rater=NAME    the rater's progress and the first frame they have not rated
    GET  /api/frame?rater=NAME&position=K   frame K of the rater's own shuffled order, with their answer
    POST /api/answer                {rater, token, answer, fields, seconds} -> progress and next position
    GET  /image/TOKEN               the frame's image

With a passphrase, every /api and /image request needs the access cookie from /api/login or the
passphrase in an X-Rating-Passphrase header; anything else is a 401. Every passphrase or cookie a
client offers goes through one check (`_Handler._check_secret`) behind one limiter (`GuessLimiter`,
per client address and for the whole server): past the limit the offer is not even compared, the
answer is a 429 with Retry-After.

A web page elsewhere cannot drive the server through the rater's browser (DNS rebinding, a form
posted from another site): a request whose Host is not an address the server answers to (loopback
names and the --host given, each with the bound port) is a 421, a POST whose Origin (or Referer,
without an Origin) is another origin is a 403, and no response carries a CORS header, so nothing
the server returns is readable from another origin.

An image is opened by the file layer (core/safefs.py) relative to the set folder's descriptor, one
component at a time, never through a link (O_NOFOLLOW), without blocking (a FIFO cannot hold the
thread), and served only if fstat says it is a regular file within the image cap; the bytes are
streamed from that descriptor, so a folder swapped between a check and the open cannot lead outside
the set.

A client cannot hold the server: each connection has READ_TIMEOUT_S per read and REQUEST_DEADLINE_S
for the whole request, at most MAX_CONNECTIONS are served at once (the next waits until one ends), a
body over MAX_BODY bytes is a 413, and one the input layer refuses (core/safe_parse.py: not UTF-8 JSON,
nested deeper than its MAX_DEPTH, an integer too long) a 400.
"""
from __future__ import annotations

import hashlib
import hmac
import ipaddress
import json
import math
import os
import re
import socket
import sys
import threading
import time
import traceback
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from io import BufferedReader
from pathlib import Path
from typing import Iterable, Optional
from urllib.parse import parse_qs, urlparse

from ..answers.items import load_set
from ..core import safe_parse, safefs
from .errors import RatingsError
from .files import check_rater, check_rating
from .split import rater_order, rating_sample
from .store import RatingStore

PAGE = Path(__file__).with_name("page.html")
MAX_BODY = 64 * 1024
STRATA = ("random", "positive", "all")
READ_TIMEOUT_S = 10.0
REQUEST_DEADLINE_S = 30.0
MAX_CONNECTIONS = 64
PASSPHRASE_HEADER = "X-Rating-Passphrase"
ACCESS_COOKIE = "rb_access"
MIN_PASSPHRASE = 8
MAX_PASSPHRASE = 200
LINGER_S, LINGER_BYTES = 1.0, 256 * 1024  # what is read and dropped before closing a connection
GUESS_BURST_CLIENT, GUESS_RATE_CLIENT = 5, 1.0  # failed passphrase offers per client address: burst, per second
GUESS_BURST_ALL, GUESS_RATE_ALL = 20, 4.0  # the same for the whole server, all clients together
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
SECURITY_HEADERS = (("X-Content-Type-Options", "nosniff"), ("Cross-Origin-Resource-Policy", "same-origin"),
                    ("X-Frame-Options", "DENY"), ("Content-Security-Policy", "frame-ancestors 'none'"))


def frame_token(secret: bytes, frame_id: str) -> str:
    return hmac.new(secret, f"frame:{frame_id}".encode(), hashlib.sha256).hexdigest()[:32]


def check_passphrase(passphrase: str) -> str:
    if not MIN_PASSPHRASE <= len(passphrase) <= MAX_PASSPHRASE:
        raise RatingsError(f"the rater passphrase must be {MIN_PASSPHRASE} to {MAX_PASSPHRASE} characters, "
                           f"not {len(passphrase)}")
    return passphrase


def is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


class GuessLimiter:
    """How often a passphrase (or the cookie that stands for it) may be checked: a token bucket per
    client address and one for the whole server. `reserve` takes a token from both before the offer is
    compared (so concurrent guesses cannot overtake the count); a right offer gives it back, so raters
    who know the passphrase are never slowed, while every wrong one costs a token."""

    MAX_CLIENTS = 4096  # buckets kept; full ones are forgotten first

    def __init__(self, burst_client: float = GUESS_BURST_CLIENT, rate_client: float = GUESS_RATE_CLIENT,
                 burst_all: float = GUESS_BURST_ALL, rate_all: float = GUESS_RATE_ALL, clock=time.monotonic):
        self._client_limit, self._all_limit = (burst_client, rate_client), (burst_all, rate_all)
        self._clock = clock
        self._lock = threading.Lock()
        self._clients: dict[str, list[float]] = {}
        self._all = [float(burst_all), clock()]

    @staticmethod
    def _fill(bucket: list[float], limit: tuple[float, float], now: float) -> None:
        burst, rate = limit
        bucket[0] = min(burst, bucket[0] + (now - bucket[1]) * rate)
        bucket[1] = now

    def reserve(self, client: str) -> float:
        """0.0 when a check may go ahead (a token taken from both buckets), else the seconds to wait."""
        with self._lock:
            now = self._clock()
            if client not in self._clients and len(self._clients) >= self.MAX_CLIENTS:
                for key, bucket in list(self._clients.items()):
                    self._fill(bucket, self._client_limit, now)
                    if bucket[0] >= self._client_limit[0]:
                        del self._clients[key]
                if len(self._clients) >= self.MAX_CLIENTS:  # the server-wide bucket still bounds them all
                    self._clients.clear()
            mine = self._clients.setdefault(client, [float(self._client_limit[0]), now])
            self._fill(mine, self._client_limit, now)
            self._fill(self._all, self._all_limit, now)
            if mine[0] >= 1 and self._all[0] >= 1:
                mine[0] -= 1
                self._all[0] -= 1
                return 0.0
            return max((1 - mine[0]) / self._client_limit[1] if mine[0] < 1 else 0.0,
                       (1 - self._all[0]) / self._all_limit[1] if self._all[0] < 1 else 0.0)

    def refund(self, client: str) -> None:
        with self._lock:
            if client in self._clients:
                self._clients[client][0] = min(self._client_limit[0], self._clients[client][0] + 1)
            self._all[0] = min(self._all_limit[0], self._all[0] + 1)


class RatingSession:
    """What the page may ask of one set: frames to rate (filtered), each rater's order, answers."""

    def __init__(self, set_dir, environments: Optional[Iterable[str]] = None, stratum: str = "random",
                 ask_fields: bool = True, per_environment: Optional[int] = None):
        self.set_dir = Path(set_dir)
        if stratum not in STRATA:
            raise RatingsError(f"--stratum {stratum!r} is not one of {', '.join(STRATA)}")
        items = load_set(self.set_dir)  # a SetError names a missing, damaged or hostile set
        self.store = RatingStore(self.set_dir, {a.item.frame_id: a.item.environment for a in items})
        known = sorted({a.item.environment for a in items})
        wanted = set(environments) if environments else set(known)
        unknown = sorted(wanted - set(known))
        if unknown:
            raise RatingsError(f"environment {unknown[0]!r} is not in the set; it holds {', '.join(known)}")
        self.items = {a.item.frame_id: a for a in items if a.item.environment in wanted
                      and (stratum == "all" or a.item.stratum == stratum)}
        if not self.items:
            raise RatingsError(f"no {'' if stratum == 'all' else stratum + ' '}frames of "
                               f"{', '.join(sorted(wanted))} in {self.set_dir}")
        if per_environment is not None:
            if per_environment < 1:
                raise RatingsError(f"--per-env {per_environment} must be at least 1")
            sample = rating_sample({f: a.item.environment for f, a in self.items.items()}, per_environment)
            self.items = {f: self.items[f] for f in sample}
        self.by_token = {self.token(f): f for f in self.items}
        self.ask_fields = ask_fields
        self._orders: dict[str, list[str]] = {}
        self._lock = threading.Lock()

    def token(self, frame_id: str) -> str:
        return frame_token(self.store.secret, frame_id)

    def frame_of(self, token) -> str:
        frame_id = self.by_token.get(token) if isinstance(token, str) else None
        if frame_id is None:
            raise RatingsError("unknown frame token")
        return frame_id

    def open_image(self, frame_id: str) -> tuple[int, int]:
        """(descriptor, size) of the frame's image, opened at the moment it is served by the file layer
        (safefs.open_regular: O_NOFOLLOW below the set folder, no blocking open, a regular file within
        the image cap, fstat of that very descriptor). A SetError or OSError when it cannot be."""
        fd = safefs.open_regular(self.set_dir, self.items[frame_id].item.file_name, "image")
        return fd, os.fstat(fd).st_size

    def order(self, rater: str) -> list[str]:
        with self._lock:
            if rater not in self._orders:
                self._orders[rater] = rater_order(self.items, rater)
            return self._orders[rater]

    def progress(self, rater: str, answers: Optional[dict] = None) -> dict:
        order = self.order(rater)
        answers = self.store.answers_of(rater) if answers is None else answers
        rated = [f in answers for f in order]
        first_open = rated.index(False) if not all(rated) else None
        return {"rater": rater, "total": len(order), "rated": sum(rated), "next_position": first_open}

    def frame(self, rater: str, position: int) -> dict:
        order = self.order(rater)
        if not 0 <= position < len(order):
            raise RatingsError(f"position {position} is outside 0..{len(order) - 1}")
        ask = self.items[order[position]]
        answers = self.store.answers_of(rater)
        answer = answers.get(ask.item.frame_id)
        token = self.token(ask.item.frame_id)
        return {**self.progress(rater, answers), "position": position,
                "frame": {"token": token, "image": f"/image/{token}", "prompt": ask.prompt,
                          "keys": [list(k) for k in ask.item.keys] if self.ask_fields else []},
                "answer": None if answer is None else {"answer": answer.answer, "fields": answer.fields}}

    def answer(self, body: dict) -> dict:
        if not isinstance(body, dict):
            raise RatingsError("the request body must be a JSON object")
        rater = check_rater(body.get("rater"))
        frame_id = self.frame_of(body.get("token"))
        self.store.record(check_rating(frame_id, self.items[frame_id].item.keys, rater, body.get("answer"),
                                       body.get("seconds"), body.get("fields")))
        order = self.order(rater)
        answers = self.store.answers_of(rater)
        here = order.index(frame_id)
        later = [k for k in list(range(here + 1, len(order))) + list(range(here)) if order[k] not in answers]
        if later:
            after = later[0]
        else:  # every frame rated: a rater going back over their answers steps on to the next one
            after = here + 1 if here + 1 < len(order) else None
        return {**self.progress(rater, answers), "next_position": after}


class _HttpError(Exception):
    def __init__(self, status: int, message: str, headers: Iterable[tuple[str, str]] = (), **extra):
        super().__init__(message)
        self.status, self.extra, self.headers = status, extra, tuple(headers)


class _DeadlineReader(socket.SocketIO):
    """The request's socket for reading: no read waits past READ_TIMEOUT_S, nor past the request's
    deadline, so a client that trickles bytes cannot hold its thread for longer than that."""

    def __init__(self, sock: socket.socket, read_timeout: float, deadline: float):
        super().__init__(sock, "rb")
        self._read_timeout, self._deadline = read_timeout, deadline

    def readinto(self, buffer):
        left = self._deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("the request took too long")
        self._sock.settimeout(min(left, self._read_timeout))
        return super().readinto(buffer)


class _Handler(BaseHTTPRequestHandler):
    server_version = "RealityBenchRating/1"
    session: RatingSession  # these are set on the subclass made per server
    quiet = True
    timeout = READ_TIMEOUT_S
    deadline_s = REQUEST_DEADLINE_S
    passphrase: Optional[str] = None
    access: Optional[str] = None  # the cookie value that stands for the passphrase
    limiter: GuessLimiter
    host_names: frozenset = frozenset(LOOPBACK_NAMES)  # what the Host header may name (lower case)
    any_ip_host = False  # bound to every interface: any IP literal is this server too
    port = 0

    def setup(self):
        super().setup()
        self.rfile.close()  # replaced by one that keeps to the deadline
        self.rfile = BufferedReader(_DeadlineReader(self.connection, self.timeout,
                                                    time.monotonic() + self.deadline_s))

    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        if not self.quiet:
            sys.stderr.write("rate: " + format % args + "\n")

    def _head(self, status: int, length: int, content_type: str, cache: str = "no-store",
              headers: Iterable[tuple[str, str]] = ()) -> None:
        """The status line and headers; never a CORS header, so no other origin can read a reply."""
        self.connection.settimeout(self.timeout)  # reads near the deadline may have left it short
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(length))
        self.send_header("Cache-Control", cache)
        for name, value in (*SECURITY_HEADERS, *headers):
            self.send_header(name, value)
        self.end_headers()

    def _send(self, status: int, body: bytes, content_type: str, cache: str = "no-store",
              headers: Iterable[tuple[str, str]] = ()) -> None:
        self._head(status, len(body), content_type, cache, headers)
        if self.command != "HEAD":
            self.wfile.write(body)

    def _send_image(self, fd: int, size: int) -> None:
        """Stream `size` bytes from the descriptor that was checked; a file cut short meanwhile ends the
        connection (the client sees a short body, never other bytes)."""
        self._head(200, size, "image/jpeg", cache="private, max-age=3600")
        left = size
        while left > 0 and self.command != "HEAD":
            chunk = os.read(fd, min(left, 256 * 1024))
            if not chunk:
                self.close_connection = True
                return
            self.wfile.write(chunk)
            left -= len(chunk)

    def _json(self, status: int, data, headers: Iterable[tuple[str, str]] = ()) -> None:
        self._send(status, json.dumps(data).encode(), "application/json; charset=utf-8", headers=headers)

    def _query(self) -> tuple[str, dict]:
        url = urlparse(self.path)
        return url.path, {k: v[-1] for k, v in parse_qs(url.query).items()}

    # ---- who may ask: the address named, the origin, the passphrase -------------------------------------------

    def _host_allowed(self, value: str) -> bool:
        """Whether HOST[:PORT] names this server: a name it answers to (loopback, --host) and its port."""
        value = value.strip().lower()
        if value.startswith("["):  # an IPv6 literal
            host, bracket, rest = value.partition("]")
            host += bracket
        else:
            host, colon, port = value.partition(":")
            rest = colon + port
        if not rest:
            port_number = 80
        elif rest[0] == ":" and rest[1:].isascii() and rest[1:].isdigit() and len(rest) <= 6:
            port_number = int(rest[1:])
        else:
            return False
        if port_number != self.port:
            return False
        if host in self.host_names:
            return True
        if self.any_ip_host:
            try:
                ipaddress.ip_address(host[1:-1] if host.startswith("[") else host)
                return True
            except ValueError:
                return False
        return False

    def _check_address(self) -> None:
        """DNS rebinding: a page of another site whose name now points here still sends its own name as
        Host, so anything but this server's names is refused (421). A POST must also come from this
        server's own page: another Origin (or Referer, when there is no Origin) is refused (403)."""
        host = self.headers.get("Host")
        if host is None:
            if self.request_version != "HTTP/1.0":  # HTTP/1.1 requires a Host (RFC 9112 3.2)
                raise _HttpError(400, "the request needs a Host header")
        elif not self._host_allowed(host):
            raise _HttpError(421, f"this rating server answers to {self._served()}, not {host.strip()[:80]!r}")
        if self.command != "POST":
            return
        origin, header = self.headers.get("Origin"), "Origin"
        if origin is None and self.headers.get("Referer") is not None:
            url = urlparse(self.headers["Referer"].strip())
            origin, header = f"{url.scheme}://{url.netloc}", "Referer"
        if origin is None:
            return  # not a browser (browsers send Origin with every POST): a script, as allowed
        url = urlparse(origin.strip())
        if not (url.scheme == "http" and url.netloc and "@" not in url.netloc and self._host_allowed(url.netloc)):
            raise _HttpError(403, f"a POST from {origin.strip()[:80]!r} ({header}) is refused: "
                                  f"only this server's own page may send answers")

    def _served(self) -> str:
        names = sorted(self.host_names) + (["any IP address"] if self.any_ip_host else [])
        return f"{', '.join(names)} on port {self.port}"

    def _check_secret(self, given: str, expected: Optional[str]) -> bool:
        """The one passphrase check, for every way it arrives (login form, X-Rating-Passphrase header,
        access cookie): one limiter per client address and for the whole server, taken before comparing;
        over the limit the offer is refused unread (429)."""
        client = self.client_address[0] if isinstance(self.client_address, tuple) else str(self.client_address)
        wait = self.limiter.reserve(client)
        if wait > 0:
            seconds = max(1, math.ceil(wait))
            raise _HttpError(429, f"too many wrong passphrases; try again in {seconds} s",
                             headers=[("Retry-After", str(seconds))], passphrase_required=True)
        if _same(given, expected):
            self.limiter.refund(client)
            return True
        return False

    def _authorized(self) -> bool:
        if self.passphrase is None:
            return True
        given = self.headers.get(PASSPHRASE_HEADER)
        if given is not None:
            return self._check_secret(given, self.passphrase)
        cookies = dict(part.strip().split("=", 1) for part in self.headers.get("Cookie", "").split(";")
                       if "=" in part)
        if ACCESS_COOKIE in cookies:
            return self._check_secret(cookies[ACCESS_COOKIE], self.access)
        return False  # nothing offered: nothing to count

    def _require_access(self) -> None:
        if not self._authorized():
            raise _HttpError(401, "this rating page needs the raters' passphrase", passphrase_required=True)

    def _body(self):
        """The request's JSON body: 400 for a bad length or bad JSON, 413 for one over MAX_BODY, 408 for
        a client that stops sending."""
        text = self.headers.get("Content-Length")
        if text is None:
            raise _HttpError(411, "the request needs a Content-Length")
        try:
            length = int(text.strip())
        except ValueError:
            raise _HttpError(400, f"Content-Length {text[:40]!r} is not a number") from None
        if length > MAX_BODY:
            self.close_connection = True  # the body is not read
            raise _HttpError(413, f"the request body is {length} bytes; at most {MAX_BODY} are accepted")
        if length <= 0:
            raise _HttpError(400, f"the request body must be 1 to {MAX_BODY} bytes")
        try:
            data = self.rfile.read(length)
        except (TimeoutError, OSError):
            self.close_connection = True
            raise _HttpError(408, "the request body did not arrive in time") from None
        self._body_read = True
        try:  # the input layer: UTF-8, depth, integer size; one line saying what is wrong
            return safe_parse.loads_json(data, max_bytes=MAX_BODY)
        except safe_parse.InputError as exc:
            raise _HttpError(400, f"the request body: {exc}") from None

    def _serve(self, route) -> None:
        """Run one route; a user's mistake is a 4xx with a one-line message, a bug a 500 (logged).
        The address and origin are checked first, for every route."""
        self._body_read = False
        try:
            self._check_address()
            route()
        except _HttpError as exc:
            if self.command == "POST" and not self._body_read:
                self.close_connection = True  # the unread body must not be taken for the next request
            self._json(exc.status, {"error": str(exc), **exc.extra}, headers=exc.headers)
        except RatingsError as exc:
            self._json(400, {"error": str(exc)})
        except (ConnectionError, TimeoutError):
            self.close_connection = True  # the client left or stalled; nobody to answer
        except Exception:  # a bug: tell the client, keep the server, show the traceback to whoever runs it
            traceback.print_exc(file=sys.stderr)
            self._json(500, {"error": "internal error in the rating server (see its log)"})

    def do_GET(self):  # noqa: N802 - http.server's name
        self._serve(self._get)

    def do_POST(self):  # noqa: N802
        self._serve(self._post)

    def do_HEAD(self):  # noqa: N802
        self._serve(self._not_allowed)

    do_PUT = do_DELETE = do_PATCH = do_OPTIONS = do_HEAD  # noqa: N815 - 405, with no CORS preflight answer

    def _not_allowed(self) -> None:
        if self.command in ("PUT", "PATCH", "DELETE"):
            self.close_connection = True  # a body we do not read
        raise _HttpError(405, f"{self.command} is not served here (GET and POST are)", headers=[("Allow", "GET, POST")])

    def _get(self) -> None:
        path, query = self._query()
        if path == "/":
            return self._send(200, PAGE.read_bytes(), "text/html; charset=utf-8")
        if not (path.startswith("/api/") or path.startswith("/image/")):
            raise _HttpError(404, f"no such page {path[:100]}")
        self._require_access()
        if path.startswith("/image/"):
            frame_id = self.session.by_token.get(path[len("/image/"):])
            if frame_id is None:
                raise _HttpError(404, "no such image")
            try:
                fd, size = self.session.open_image(frame_id)
            except (safefs.SetError, OSError) as exc:  # gone, a link, a FIFO, a folder, too big
                if not self.quiet:
                    sys.stderr.write(f"rate: image of {frame_id} refused: {exc}\n")
                raise _HttpError(404, "no such image") from None
            try:
                return self._send_image(fd, size)
            finally:
                os.close(fd)
        if path == "/api/session":
            return self._json(200, self.session.progress(check_rater(query.get("rater"))))
        if path == "/api/frame":
            text = query.get("position", "")
            if not re.fullmatch(r"-?[0-9]{1,9}", text):  # ASCII digits only (int() also reads other scripts')
                raise RatingsError("position must be a whole number")
            position = int(text)
            return self._json(200, self.session.frame(check_rater(query.get("rater")), position))
        raise _HttpError(404, f"no such page {path[:100]}")

    def _post(self) -> None:
        path, _ = self._query()
        if path == "/api/login":
            return self._login()
        if path != "/api/answer":
            raise _HttpError(404, f"no such page {path[:100]}")
        self._require_access()
        self._json(200, self.session.answer(self._body()))

    def _login(self) -> None:
        if self.passphrase is None:
            return self._json(200, {"passphrase_required": False})
        body = self._body()
        given = body.get("passphrase") if isinstance(body, dict) else None
        if not isinstance(given, str) or not self._check_secret(given, self.passphrase):
            raise _HttpError(401, "wrong passphrase", passphrase_required=True)
        self._json(200, {"passphrase_required": True},
                   headers=[("Set-Cookie", f"{ACCESS_COOKIE}={self.access}; Path=/; HttpOnly; SameSite=Strict")])


def _same(given: str, expected: Optional[str]) -> bool:
    """Constant-time equality (of the digests, so the length does not show either)."""
    if expected is None:
        return False
    return hmac.compare_digest(hashlib.sha256(given.encode("utf-8", "surrogatepass")).digest(),
                               hashlib.sha256(expected.encode("utf-8", "surrogatepass")).digest())


def _names_of(host: str, bound: str, extra: Iterable[str]) -> tuple[frozenset, bool]:
    """The names a Host header may give for a server started with `host` and bound to `bound`: the
    loopback names, both of those, and `extra`; bound to every interface (0.0.0.0, ::), also the
    machine's name and any IP literal (an IP names no other site, so it cannot be rebound)."""
    def bracket(name: str) -> str:
        return f"[{name}]" if ":" in name and not name.startswith("[") else name

    names = set(LOOPBACK_NAMES) | {bracket(n.strip().lower()) for n in (host, bound, *extra) if n and n.strip()}
    wildcard = False
    try:
        wildcard = ipaddress.ip_address(bound).is_unspecified
    except ValueError:
        pass
    if wildcard:
        names.add(socket.gethostname().lower())
    return frozenset(names), wildcard


class _BoundedHTTPServer(ThreadingHTTPServer):
    """A thread per connection, at most `max_connections` at once: the next connection is accepted
    when a thread comes free (clients wait, as in a queue), so stalled clients cannot pile up threads;
    each holds its thread for the request deadline at most."""

    daemon_threads = True

    def __init__(self, address, handler, max_connections: int):
        self._slots = threading.BoundedSemaphore(max_connections)
        self.stopping = False
        super().__init__(address, handler)

    def process_request(self, request, client_address):
        while not self._slots.acquire(timeout=0.2):
            if self.stopping:
                self.shutdown_request(request)
                return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._slots.release()
            raise

    def process_request_thread(self, request, client_address):
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()

    def shutdown_request(self, request):
        """Close after a lingering read: a client whose body was not read (a refused request) gets the
        reply instead of a connection reset, which would discard it. At most LINGER_BYTES over LINGER_S."""
        try:
            request.shutdown(socket.SHUT_WR)
        except OSError:
            pass
        else:
            deadline, drained = time.monotonic() + LINGER_S, 0
            try:
                while drained < LINGER_BYTES and (left := deadline - time.monotonic()) > 0:
                    request.settimeout(left)
                    chunk = request.recv(65536)
                    if not chunk:
                        break
                    drained += len(chunk)
            except OSError:  # a timeout or a reset: nothing more to wait for
                pass
        self.close_request(request)

    def handle_error(self, request, client_address):
        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):  # a client that left is no news
            super().handle_error(request, client_address)


class RatingServer:
    """The rating page on host:port (port 0: any free port). `start()` serves from a thread;
    `serve_forever()` blocks (the CLI). With a passphrase, only raters who give it get in."""

    def __init__(self, session: RatingSession, host: str = "127.0.0.1", port: int = 8765, quiet: bool = True,
                 passphrase: Optional[str] = None, read_timeout: float = READ_TIMEOUT_S,
                 request_deadline: float = REQUEST_DEADLINE_S, max_connections: int = MAX_CONNECTIONS,
                 allowed_hosts: Iterable[str] = (), limiter: Optional[GuessLimiter] = None):
        access = None
        if passphrase is not None:
            check_passphrase(passphrase)
            access = hmac.new(session.store.secret, f"access:{passphrase}".encode("utf-8", "surrogatepass"),
                              hashlib.sha256).hexdigest()
        handler = type("Handler", (_Handler,), {"session": session, "quiet": quiet, "timeout": read_timeout,
                                                "deadline_s": request_deadline, "passphrase": passphrase,
                                                "access": access, "limiter": limiter or GuessLimiter()})
        try:
            self.httpd = _BoundedHTTPServer((host, port), handler, max_connections)
        except (OSError, OverflowError) as exc:
            raise RatingsError(f"cannot serve on {host}:{port}: {getattr(exc, 'strerror', None) or exc}") from None
        handler.port = self.httpd.server_address[1]
        handler.host_names, handler.any_ip_host = _names_of(host, self.httpd.server_address[0], allowed_hosts)
        self.session = session
        self.passphrase = passphrase
        self._thread: Optional[threading.Thread] = None

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}/"

    @property
    def open_to_network(self) -> bool:
        return not is_loopback(self.httpd.server_address[0])

    def start(self) -> "RatingServer":
        self._thread = threading.Thread(target=self.httpd.serve_forever, name="rating-server", daemon=True)
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        self.httpd.serve_forever()

    def stop(self) -> None:
        self.httpd.stopping = True  # a request waiting for a free thread gives up
        if self._thread is not None:  # shutdown() waits for a serve loop, so it would hang on one never started
            self.httpd.shutdown()
            self._thread.join()
            self._thread = None
        self.httpd.server_close()  # waits for requests in flight, each bounded by the request deadline
