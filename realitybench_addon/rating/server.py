"""The rating page's server: standard-library HTTP over one exported set.

A rater sees exactly what a model sees (the frame and its prompt), never the scorer's verdict, the
frame id or its stratum: frames travel under opaque tokens. Every answer goes straight to the
ratings database (store.py), so raters can stop, reload or come back another day.

    GET  /                          the page (page.html)
    GET  /api/session?rater=NAME    the rater's progress and the first frame they have not rated
    GET  /api/frame?rater=NAME&position=K   frame K of the rater's own shuffled order, with their answer
    POST /api/answer                {rater, token, answer, fields, seconds} -> progress and next position
    GET  /image/TOKEN               the frame's image
"""
from __future__ import annotations

import hashlib
import json
import math
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Iterable, Optional
from urllib.parse import parse_qs, urlparse

from ..evaluation.items import load_set
from .errors import RatingsError
from .files import Rating, check_answer, check_rater, check_seconds
from .split import rater_order, rating_sample
from .store import RatingStore

PAGE = Path(__file__).with_name("page.html")
MAX_BODY = 64 * 1024
MAX_TEXT = 200
MAX_LIST = 100
STRATA = ("random", "positive", "all")


def frame_token(frame_id: str) -> str:
    return hashlib.sha256(f"realitybench-rating:{frame_id}".encode()).hexdigest()[:16]


class RatingSession:
    """What the page may ask of one set: frames to rate (filtered), each rater's order, answers."""

    def __init__(self, set_dir, environments: Optional[Iterable[str]] = None, stratum: str = "random",
                 ask_fields: bool = True, per_environment: Optional[int] = None):
        self.set_dir = Path(set_dir)
        if stratum not in STRATA:
            raise RatingsError(f"--stratum {stratum!r} is not one of {', '.join(STRATA)}")
        items = load_set(self.set_dir)
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
        self.by_token = {frame_token(f): f for f in self.items}
        self.ask_fields = ask_fields
        self._orders: dict[str, list[str]] = {}
        self._lock = threading.Lock()

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
        token = frame_token(ask.item.frame_id)
        return {**self.progress(rater, answers), "position": position,
                "frame": {"token": token, "image": f"/image/{token}", "prompt": ask.prompt,
                          "keys": [list(k) for k in ask.item.keys] if self.ask_fields else []},
                "answer": None if answer is None else {"answer": answer.answer, "fields": answer.fields}}

    def answer(self, body: dict) -> dict:
        if not isinstance(body, dict):
            raise RatingsError("the request body must be a JSON object")
        rater = check_rater(body.get("rater"))
        frame_id = self.by_token.get(body.get("token"))
        if frame_id is None:
            raise RatingsError("unknown frame token")
        fields = self.check_fields(frame_id, body.get("fields"))
        self.store.record(Rating(frame_id, rater, check_answer(body.get("answer")), check_seconds(body.get("seconds")),
                                 fields))
        order = self.order(rater)
        answers = self.store.answers_of(rater)
        here = order.index(frame_id)
        later = [k for k in list(range(here + 1, len(order))) + list(range(here)) if order[k] not in answers]
        if later:
            after = later[0]
        else:  # every frame rated: a rater going back over their answers steps on to the next one
            after = here + 1 if here + 1 < len(order) else None
        return {**self.progress(rater, answers), "next_position": after}

    def check_fields(self, frame_id: str, fields) -> Optional[dict]:
        """The documentation fields a rater filled in, checked against the frame's keys and types."""
        if fields in (None, {}):
            return None
        if not isinstance(fields, dict):
            raise RatingsError("fields must be an object")
        types = dict(self.items[frame_id].item.keys)
        for key, value in fields.items():
            if key not in types:
                raise RatingsError(f"field {key!r} is not asked for this frame")
            kind = types[key]
            ok = {"boolean": isinstance(value, bool),
                  "number": isinstance(value, (int, float)) and not isinstance(value, bool)
                  and math.isfinite(value),
                  "string": isinstance(value, str) and len(value) <= MAX_TEXT,
                  "array": isinstance(value, list) and len(value) <= MAX_LIST}[kind]
            if not ok:
                raise RatingsError(f"field {key!r} must be a {kind}" + (f" (at most {MAX_TEXT} characters)"
                                                                        if kind == "string" else ""))
        return fields


class _Handler(BaseHTTPRequestHandler):
    server_version = "RealityBenchRating/1"
    session: RatingSession  # set on the subclass made per server
    quiet = True

    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        if not self.quiet:
            sys.stderr.write("rate: " + format % args + "\n")

    def _send(self, status: int, body: bytes, content_type: str, cache: str = "no-store") -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", cache)
        self.end_headers()
        self.wfile.write(body)

    def _json(self, status: int, data) -> None:
        self._send(status, json.dumps(data).encode(), "application/json; charset=utf-8")

    def _query(self) -> tuple[str, dict]:
        url = urlparse(self.path)
        return url.path, {k: v[-1] for k, v in parse_qs(url.query).items()}

    def do_GET(self):  # noqa: N802 - http.server's name
        path, query = self._query()
        try:
            if path == "/":
                return self._send(200, PAGE.read_bytes(), "text/html; charset=utf-8")
            if path.startswith("/image/"):
                frame_id = self.session.by_token.get(path[len("/image/"):])
                if frame_id is None:
                    return self._json(404, {"error": "no such image"})
                image = self.session.items[frame_id].image_path.read_bytes()
                return self._send(200, image, "image/jpeg", cache="private, max-age=3600")
            if path == "/api/session":
                return self._json(200, self.session.progress(check_rater(query.get("rater"))))
            if path == "/api/frame":
                try:
                    position = int(query.get("position", ""))
                except ValueError:
                    raise RatingsError("position must be a whole number") from None
                return self._json(200, self.session.frame(check_rater(query.get("rater")), position))
            return self._json(404, {"error": f"no such page {path}"})
        except RatingsError as exc:
            return self._json(400, {"error": str(exc)})

    def do_POST(self):  # noqa: N802
        path, _ = self._query()
        if path != "/api/answer":
            return self._json(404, {"error": f"no such page {path}"})
        try:
            length = int(self.headers.get("Content-Length") or 0)
            if not 0 < length <= MAX_BODY:
                raise RatingsError(f"the request body must be 1 to {MAX_BODY} bytes")
            try:
                body = json.loads(self.rfile.read(length))
            except ValueError:
                raise RatingsError("the request body is not JSON") from None
            return self._json(200, self.session.answer(body))
        except RatingsError as exc:
            return self._json(400, {"error": str(exc)})


class RatingServer:
    """The rating page on host:port (port 0: any free port). `start()` serves from a thread;
    `serve_forever()` blocks (the CLI)."""

    def __init__(self, session: RatingSession, host: str = "127.0.0.1", port: int = 8765, quiet: bool = True):
        handler = type("Handler", (_Handler,), {"session": session, "quiet": quiet})
        try:
            self.httpd = ThreadingHTTPServer((host, port), handler)
        except OSError as exc:
            raise RatingsError(f"cannot serve on {host}:{port}: {exc.strerror or exc}") from None
        self.httpd.daemon_threads = True
        self.session = session
        self._thread: Optional[threading.Thread] = None

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}/"

    def start(self) -> "RatingServer":
        self._thread = threading.Thread(target=self.httpd.serve_forever, name="rating-server", daemon=True)
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        self.httpd.serve_forever()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        if self._thread is not None:
            self._thread.join()
