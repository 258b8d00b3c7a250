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
passphrase in an X-Rating-Passphrase header; anything else is a 401. A client cannot hold the
server: each connection has READ_TIMEOUT_S per read and REQUEST_DEADLINE_S for the whole request,
at most MAX_CONNECTIONS are served at once (the next waits until one ends), and a body over
MAX_BODY bytes is a 413.
"""
from __future__ import annotations

import hashlib
import hmac
import ipaddress
import json
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

from .. import setio
from ..answers.items import load_set
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
FAILED_LOGIN_DELAY_S = 0.25


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

    def image_path(self, frame_id: str) -> Optional[Path]:
        """The frame's image, checked again at the moment it is served; None when it resolves (through a
        link swapped in since the set was loaded) outside the set folder."""
        try:
            return setio.image_path(self.set_dir, {"file_name": self.items[frame_id].item.file_name,
                                                   "frame_id": frame_id})
        except setio.SetError:
            return None

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
    def __init__(self, status: int, message: str, **extra):
        super().__init__(message)
        self.status, self.extra = status, extra


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

    def setup(self):
        super().setup()
        self.rfile.close()  # replaced by one that keeps to the deadline
        self.rfile = BufferedReader(_DeadlineReader(self.connection, self.timeout,
                                                    time.monotonic() + self.deadline_s))

    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        if not self.quiet:
            sys.stderr.write("rate: " + format % args + "\n")

    def _send(self, status: int, body: bytes, content_type: str, cache: str = "no-store",
              headers: Iterable[tuple[str, str]] = ()) -> None:
        self.connection.settimeout(self.timeout)  # reads near the deadline may have left it short
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", cache)
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def _json(self, status: int, data, headers: Iterable[tuple[str, str]] = ()) -> None:
        self._send(status, json.dumps(data).encode(), "application/json; charset=utf-8", headers=headers)

    def _query(self) -> tuple[str, dict]:
        url = urlparse(self.path)
        return url.path, {k: v[-1] for k, v in parse_qs(url.query).items()}

    def _authorized(self) -> bool:
        if self.passphrase is None:
            return True
        given = self.headers.get(PASSPHRASE_HEADER)
        if given is not None:
            return _same(given, self.passphrase)
        cookies = dict(part.strip().split("=", 1) for part in self.headers.get("Cookie", "").split(";")
                       if "=" in part)
        return _same(cookies.get(ACCESS_COOKIE, ""), self.access)

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
        try:
            return json.loads(data)
        except ValueError:
            raise _HttpError(400, "the request body is not JSON") from None

    def _serve(self, route) -> None:
        """Run one route; a user's mistake is a 4xx with a one-line message, a bug a 500 (logged)."""
        try:
            route()
        except _HttpError as exc:
            self._json(exc.status, {"error": str(exc), **exc.extra})
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

    def _get(self) -> None:
        path, query = self._query()
        if path == "/":
            return self._send(200, PAGE.read_bytes(), "text/html; charset=utf-8")
        if not (path.startswith("/api/") or path.startswith("/image/")):
            raise _HttpError(404, f"no such page {path[:100]}")
        self._require_access()
        if path.startswith("/image/"):
            frame_id = self.session.by_token.get(path[len("/image/"):])
            image = None if frame_id is None else self.session.image_path(frame_id)
            try:
                data = None if image is None else image.read_bytes()
            except OSError:
                data = None
            if data is None:
                raise _HttpError(404, "no such image")
            return self._send(200, data, "image/jpeg", cache="private, max-age=3600")
        if path == "/api/session":
            return self._json(200, self.session.progress(check_rater(query.get("rater"))))
        if path == "/api/frame":
            try:
                position = int(query.get("position", ""))
            except ValueError:
                raise RatingsError("position must be a whole number") from None
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
        if not isinstance(given, str) or not _same(given, self.passphrase):
            with _FAILED_LOGINS:  # wrong guesses are served one at a time, each slowly
                time.sleep(FAILED_LOGIN_DELAY_S)
            raise _HttpError(401, "wrong passphrase", passphrase_required=True)
        self._json(200, {"passphrase_required": True},
                   headers=[("Set-Cookie", f"{ACCESS_COOKIE}={self.access}; Path=/; HttpOnly; SameSite=Strict")])


_FAILED_LOGINS = threading.Lock()


def _same(given: str, expected: Optional[str]) -> bool:
    """Constant-time equality (of the digests, so the length does not show either)."""
    if expected is None:
        return False
    return hmac.compare_digest(hashlib.sha256(given.encode("utf-8", "surrogatepass")).digest(),
                               hashlib.sha256(expected.encode("utf-8", "surrogatepass")).digest())


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

    def handle_error(self, request, client_address):
        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):  # a client that left is no news
            super().handle_error(request, client_address)


class RatingServer:
    """The rating page on host:port (port 0: any free port). `start()` serves from a thread;
    `serve_forever()` blocks (the CLI). With a passphrase, only raters who give it get in."""

    def __init__(self, session: RatingSession, host: str = "127.0.0.1", port: int = 8765, quiet: bool = True,
                 passphrase: Optional[str] = None, read_timeout: float = READ_TIMEOUT_S,
                 request_deadline: float = REQUEST_DEADLINE_S, max_connections: int = MAX_CONNECTIONS):
        access = None
        if passphrase is not None:
            check_passphrase(passphrase)
            access = hmac.new(session.store.secret, f"access:{passphrase}".encode("utf-8", "surrogatepass"),
                              hashlib.sha256).hexdigest()
        handler = type("Handler", (_Handler,), {"session": session, "quiet": quiet, "timeout": read_timeout,
                                                "deadline_s": request_deadline, "passphrase": passphrase,
                                                "access": access})
        try:
            self.httpd = _BoundedHTTPServer((host, port), handler, max_connections)
        except (OSError, OverflowError) as exc:
            raise RatingsError(f"cannot serve on {host}:{port}: {getattr(exc, 'strerror', None) or exc}") from None
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
