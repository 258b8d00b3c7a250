"""The rating server's guards (issue 38), against the real server on 127.0.0.1 over the real database:

- Host and Origin: a request naming another host (DNS rebinding) is a 421, a POST from another
  origin a 403, and no response carries a CORS header;
- one limiter for every way a passphrase arrives (login form, X-Rating-Passphrase header, cookie);
- images opened through the file layer: a folder swapped for a link to outside the set while images
  are fetched never yields the outside file's bytes; a FIFO in an image's place is refused at once;
- a body nested 30,000 deep is a 400, not a 500;
- generated requests (Hypothesis, a fixed budget): every one gets a 2xx or 4xx, never a 5xx, a
  traceback or a hang.

Refused requests are checked to leave every table of the database as it was.
"""
from __future__ import annotations

import json
import os
import socket
import threading
import time
from pathlib import Path

import pytest
import requests
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rating_support import HOSTILE_FRAMES, database_snapshot

from realitybench_addon.core.safe_parse import MAX_DEPTH
from realitybench_addon.rating.server import (GUESS_BURST_CLIENT, GUESS_RATE_CLIENT, GuessLimiter, RatingServer,
                                              RatingSession)

FRAMES = HOSTILE_FRAMES
RAIL = "rail_attachment-random-s0-000000"
PASSPHRASE = "correct horse battery"


def port_of(server) -> int:
    return server.httpd.server_address[1]


def exchange(server, data: bytes, timeout: float = 15.0) -> tuple[int | None, bytes, bytes]:
    """(status, head, body) of one hand-written request (the connection closed by either side after
    it); status None when the server hung up without answering. Interim 100 Continue replies skipped."""
    with socket.create_connection(("127.0.0.1", port_of(server)), timeout=timeout) as conn:
        conn.sendall(data)
        try:
            conn.shutdown(socket.SHUT_WR)
        except OSError:
            pass
        reply = b""
        while True:
            try:
                chunk = conn.recv(65536)
            except ConnectionResetError:
                break
            if not chunk:
                break
            reply += chunk
    while reply.startswith(b"HTTP/1.1 100"):
        reply = reply.partition(b"\r\n\r\n")[2]
    if not reply:
        return None, b"", b""
    head, _, body = reply.partition(b"\r\n\r\n")
    return int(head.split()[1]), head, body


def answer(server, token, **headers):
    return requests.post(server.url + "api/answer", json={"rater": "ann", "token": token, "answer": "accept"},
                         headers=headers, timeout=10)


# ---- Host: DNS rebinding ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("host", ["evil.example:{port}", "evil.example", "127.0.0.1:{other}", "127.0.0.1",
                                  "localhost.evil.example:{port}", "127.0.0.1:{port}:{port}", "[::2]:{port}",
                                  "127.0.0.1:+{port}", "10.0.0.7:{port}", " "])
def test_a_host_that_is_not_this_server_is_refused(serve, rated_set, host):
    server = serve()
    port = port_of(server)
    host = host.format(port=port, other=port + 1 if port < 65535 else port - 1)
    token = server.session.token(RAIL)
    before = database_snapshot(rated_set)
    body = json.dumps({"rater": "ann", "token": token, "answer": "accept"}).encode()
    for request in (f"GET /api/session?rater=ann HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode(),
                    f"GET /image/{token} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode(),
                    f"POST /api/answer HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
                    f"Content-Length: {len(body)}\r\n\r\n".encode() + body):
        status, _, reply = exchange(server, request)
        assert status == 421, (host, reply)
        message = json.loads(reply)["error"]
        assert message.startswith(f"this rating server answers to 127.0.0.1, [::1], localhost on port {port}, not ")
        assert "\n" not in message
    assert database_snapshot(rated_set) == before


@pytest.mark.parametrize("host", ["127.0.0.1:{port}", "localhost:{port}", "LocalHost:{port}", "[::1]:{port}"])
def test_this_servers_own_names_are_served(serve, host):
    server = serve()
    request = f"GET /api/session?rater=ann HTTP/1.1\r\nHost: {host.format(port=port_of(server))}\r\n" \
              "Connection: close\r\n\r\n"
    status, _, reply = exchange(server, request.encode())
    assert status == 200 and json.loads(reply)["rater"] == "ann"


def test_no_host_is_a_400_in_http_1_1_and_served_in_http_1_0(serve):
    server = serve()
    status, _, reply = exchange(server, b"GET /api/session?rater=ann HTTP/1.1\r\nConnection: close\r\n\r\n")
    assert (status, json.loads(reply)) == (400, {"error": "the request needs a Host header"})
    status, _, reply = exchange(server, b"GET /api/session?rater=ann HTTP/1.0\r\n\r\n")
    assert status == 200 and json.loads(reply)["rater"] == "ann"


def test_a_host_given_with_host_is_served_and_others_are_not(rated_set):
    server = RatingServer(RatingSession(rated_set, stratum="all"), host="127.0.0.1", port=0,
                          allowed_hosts=["rating.lab.example"]).start()
    try:
        port = port_of(server)
        ok = exchange(server, f"GET /api/session?rater=ann HTTP/1.1\r\nHost: rating.lab.example:{port}\r\n"
                              "Connection: close\r\n\r\n".encode())
        assert ok[0] == 200
        other = exchange(server, f"GET /api/session?rater=ann HTTP/1.1\r\nHost: rating.lab.example.evil:{port}\r\n"
                                 "Connection: close\r\n\r\n".encode())
        assert other[0] == 421
    finally:
        server.stop()


# ---- Origin: answers only from this server's own page -----------------------------------------------------------

@pytest.mark.parametrize("headers", [{"Origin": "http://evil.example"}, {"Origin": "null"},
                                     {"Origin": "http://127.0.0.1:{other}"}, {"Origin": "https://127.0.0.1:{port}"},
                                     {"Origin": "http://127.0.0.1.evil.example:{port}"},
                                     {"Referer": "http://evil.example/page.html"},
                                     {"Origin": "http://evil.example", "Referer": "http://127.0.0.1:{port}/"}])
def test_a_post_from_another_origin_is_refused(serve, rated_set, headers):
    server = serve()
    port = port_of(server)
    headers = {k: v.format(port=port, other=port + 1) for k, v in headers.items()}
    before = database_snapshot(rated_set)
    reply = answer(server, server.session.token(RAIL), **headers)
    assert reply.status_code == 403
    assert reply.json()["error"].endswith("is refused: only this server's own page may send answers")
    assert database_snapshot(rated_set) == before
    login = requests.post(server.url + "api/login", json={"passphrase": "x" * 10}, headers=headers, timeout=10)
    assert login.status_code == 403


@pytest.mark.parametrize("headers", [{}, {"Origin": "http://127.0.0.1:{port}"}, {"Origin": "http://localhost:{port}"},
                                     {"Referer": "http://127.0.0.1:{port}/#rater=ann"}])
def test_a_post_from_this_servers_page_or_a_script_is_saved(serve, rated_set, headers):
    server = serve()
    headers = {k: v.format(port=port_of(server)) for k, v in headers.items()}
    reply = answer(server, server.session.token(RAIL), **headers)
    assert reply.status_code == 200 and reply.json()["rated"] == 1
    assert database_snapshot(rated_set)["ratings"][0][:3] == (RAIL, "ann", "accept")


def test_no_response_is_readable_from_another_origin(serve):
    server = serve(passphrase=PASSPHRASE)
    evil = {"Origin": "http://evil.example"}
    login = requests.post(server.url + "api/login", json={"passphrase": PASSPHRASE}, timeout=10)
    cookies = login.cookies
    replies = [requests.get(server.url, headers=evil, timeout=10),
               requests.get(server.url + "api/session", params={"rater": "ann"}, headers=evil, cookies=cookies,
                            timeout=10),
               requests.get(server.url + "image/" + server.session.token(RAIL), headers=evil, cookies=cookies,
                            timeout=10),
               requests.options(server.url + "api/session", headers={**evil, "Access-Control-Request-Method": "GET"},
                                timeout=10),
               login]
    assert [r.status_code for r in replies] == [200, 200, 200, 405, 200]
    for reply in replies:
        assert not [h for h in reply.headers if h.lower().startswith("access-control-")], reply.headers
        assert reply.headers["Cross-Origin-Resource-Policy"] == "same-origin"
        assert reply.headers["X-Content-Type-Options"] == "nosniff"
    assert "SameSite=Strict" in login.headers["Set-Cookie"] and "HttpOnly" in login.headers["Set-Cookie"]


# ---- one limiter for every way a passphrase arrives ------------------------------------------------------------

def test_the_limiter_counts_per_client_and_for_the_whole_server():
    now = [0.0]
    limiter = GuessLimiter(burst_client=3, rate_client=1.0, burst_all=5, rate_all=2.0, clock=lambda: now[0])
    assert [limiter.reserve("a") for _ in range(4)] == [0.0, 0.0, 0.0, 1.0]  # a's burst of 3, then a second's wait
    assert [limiter.reserve("b") for _ in range(3)] == [0.0, 0.0, 0.5]  # the server's 5 are spent: 1/2 s
    limiter.refund("b")  # a right passphrase costs nothing
    assert limiter.reserve("c") == 0.0
    now[0] = 1.0  # a second later: a has one more, the server two more
    assert limiter.reserve("a") == 0.0 and limiter.reserve("a") == 1.0
    assert limiter.reserve("c") == 0.0 and limiter.reserve("c") == pytest.approx(0.5)


def guesses_in(server, seconds: float, send) -> tuple[int, int, float]:
    """(wrong offers compared, offers refused unread, elapsed) over `seconds` of back-to-back guesses;
    stops by itself after the time or 5,000 requests."""
    checked = refused = 0
    connection = requests.Session()
    start = time.monotonic()
    for n in range(5000):
        if time.monotonic() - start >= seconds:
            break
        reply = send(connection, f"wrong guess {n}")
        if reply.status_code == 401:
            checked += 1
        else:
            assert reply.status_code == 429, reply.text
            assert reply.json() == {"error": f"too many wrong passphrases; try again in {reply.headers['Retry-After']} s",
                                    "passphrase_required": True}
            refused += 1
    return checked, refused, time.monotonic() - start


SENDERS = {
    "form": lambda s, url, g: s.post(url + "api/login", json={"passphrase": g}, timeout=10),
    "header": lambda s, url, g: s.get(url + "api/session", params={"rater": "ann"},
                                      headers={"X-Rating-Passphrase": g}, timeout=10),
    "cookie": lambda s, url, g: s.get(url + "api/session", params={"rater": "ann"},
                                      headers={"Cookie": f"rb_access={g}"}, timeout=10),
}


@pytest.mark.parametrize("how", sorted(SENDERS))
def test_guesses_are_limited_the_same_way_whichever_way_they_arrive(serve, how):
    """The header used to bypass the login's delay: 381 guesses/s against 4/s (1,515/s measured here)."""
    server = serve(passphrase=PASSPHRASE)
    checked, refused, elapsed = guesses_in(server, 2.0, lambda s, g: SENDERS[how](s, server.url, g))
    assert 1 <= checked <= GUESS_BURST_CLIENT + GUESS_RATE_CLIENT * elapsed + 1, (checked, elapsed)
    assert refused > checked  # the rest were turned away without being compared


@pytest.mark.parametrize("how", sorted(SENDERS))
def test_the_limit_is_one_for_all_ways_in(serve, how):
    """Wrong guesses spent one way leave none for the others, not even for the right passphrase."""
    server = serve(passphrase=PASSPHRASE, limiter=GuessLimiter(burst_client=3, rate_client=0.001))
    assert [SENDERS[how](requests, server.url, f"guess {n}").status_code for n in range(3)] == [401] * 3
    for way in SENDERS:
        reply = SENDERS[way](requests, server.url, PASSPHRASE if way != "cookie" else "0" * 64)
        assert reply.status_code == 429 and int(reply.headers["Retry-After"]) >= 1


def test_the_right_passphrase_is_never_slowed(serve):
    server = serve(passphrase=PASSPHRASE)
    rater = requests.Session()
    replies = [rater.get(server.url + "api/session", params={"rater": "ann"},
                         headers={"X-Rating-Passphrase": PASSPHRASE}, timeout=10) for _ in range(3 * GUESS_BURST_CLIENT)]
    assert {r.status_code for r in replies} == {200}
    assert rater.post(server.url + "api/login", json={"passphrase": PASSPHRASE}, timeout=10).status_code == 200
    assert {rater.get(server.url + "api/session", params={"rater": "ann"}, timeout=10).status_code
            for _ in range(3 * GUESS_BURST_CLIENT)} == {200}  # the cookie, again and again


# ---- images: opened through the file layer ---------------------------------------------------------------------

class FolderSwapper:
    """Swaps SET/ENV between the real folder and a link to OUTSIDE, as fast as it can, until stopped:
    the race harness of a check-then-open reader."""

    def __init__(self, set_dir: Path, environment: str, outside: Path):
        self.env, self.aside, self.link = set_dir / environment, set_dir / f".{environment}.real", set_dir / ".link"
        self.link.symlink_to(outside, target_is_directory=True)
        self.swaps = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        while not self._stop.is_set():
            os.rename(self.env, self.aside)
            os.rename(self.link, self.env)  # ENV is now the link to outside
            time.sleep(0)
            os.rename(self.env, self.link)
            os.rename(self.aside, self.env)  # ENV is the real folder again
            self.swaps += 1
            time.sleep(0)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join(10)


def test_a_folder_swapped_for_a_link_during_fetches_never_serves_the_outside_file(serve, rated_set, tmp_path):
    """Check-then-open served the outside file in 1,467 of 12,270 fetches (147 of 3,000 measured here)."""
    server = serve()
    token = server.session.token(RAIL)
    real = (rated_set / "rail_attachment" / f"{RAIL}.jpg").read_bytes()
    outside = tmp_path / "outside"
    outside.mkdir()
    secret = b"\xff\xd8 SECRET BYTES FROM OUTSIDE THE SET " * 20
    (outside / f"{RAIL}.jpg").write_bytes(secret)
    counts = {"real": 0, "refused": 0, "secret": 0, "other": 0}
    connection = requests.Session()
    start = time.monotonic()
    with FolderSwapper(rated_set, "rail_attachment", outside) as swapper:
        for _ in range(1500):
            if time.monotonic() - start > 20:
                break
            reply = connection.get(server.url + f"image/{token}", timeout=10)
            kind = ("secret" if b"SECRET" in reply.content else "real" if reply.content == real
                    else "refused" if reply.status_code == 404 and reply.json() == {"error": "no such image"}
                    else "other")
            counts[kind] += 1
    assert counts["secret"] == 0 and counts["other"] == 0, counts
    assert counts["real"] > 0 and counts["refused"] > 0 and swapper.swaps > 10, (counts, swapper.swaps)


def test_a_fifo_in_place_of_an_image_is_refused_at_once(serve, rated_set):
    """A FIFO used to hold the request's thread until the deadline (and `rate` with it)."""
    server = serve()
    image = rated_set / "rail_attachment" / f"{RAIL}.jpg"
    image.unlink()
    os.mkfifo(image)
    start = time.monotonic()
    reply = requests.get(server.url + "image/" + server.session.token(RAIL), timeout=10)
    assert (reply.status_code, reply.json()) == (404, {"error": "no such image"})
    assert time.monotonic() - start < 2.0
    other = requests.get(server.url + "image/" + server.session.token("rail_attachment-random-s0-000001"), timeout=10)
    assert other.status_code == 200 and other.content.startswith(b"\xff\xd8")


def test_a_folder_or_a_link_inside_the_set_in_place_of_an_image_is_refused(serve, rated_set):
    server = serve()
    folder = rated_set / "rail_attachment"
    (folder / f"{RAIL}.jpg").unlink()
    (folder / f"{RAIL}.jpg").mkdir()
    other = "rail_attachment-random-s0-000001"
    (folder / f"{other}.jpg").unlink()
    (folder / f"{other}.jpg").symlink_to(folder / "rail_attachment-random-s0-000002.jpg")  # inside, still a link
    for frame in (RAIL, other):
        reply = requests.get(server.url + "image/" + server.session.token(frame), timeout=10)
        assert (reply.status_code, reply.json()) == (404, {"error": "no such image"})


# ---- bodies: depth -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("path", ["api/answer", "api/login"])
def test_a_deeply_nested_body_is_a_400(serve, rated_set, path):
    """30,000 nested arrays used to be a RecursionError and a 500."""
    server = serve(passphrase=PASSPHRASE) if path == "api/login" else serve()
    before = database_snapshot(rated_set)
    for body in (b"[" * 30000 + b"]" * 30000, b'{"a":' * 10000 + b"1" + b"}" * 10000):
        reply = requests.post(server.url + path, data=body, headers={"Content-Type": "application/json"}, timeout=10)
        assert (reply.status_code, reply.json()) == (400, {"error": f"the request body: nested more than "
                                                                    f"{MAX_DEPTH} arrays or objects deep"})
    huge = requests.post(server.url + path, data=b'{"seconds": ' + b"9" * 5000 + b"}", timeout=10)
    assert huge.status_code == 400
    assert huge.json()["error"].startswith("the request body: holds a number too long to read")
    for bad in (b"\xff\xfe{}", '{"rater": "\\ud800"}'.encode()):
        reply = requests.post(server.url + path, data=bad, timeout=10)
        assert reply.status_code == 400 and reply.json()["error"].startswith("the request body: "), reply.text
    assert database_snapshot(rated_set) == before


# ---- generated requests -----------------------------------------------------------------------------------------

_TEXT = st.text(st.characters(min_codepoint=0x20, max_codepoint=0xFF, exclude_characters="\x7f"), max_size=60)
_JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | _TEXT,
                     lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_TEXT, inner, max_size=4),
                     max_leaves=12)
_PATHS = ["/", "/api/session", "/api/frame", "/api/answer", "/api/login", "/image/", "/api/", "/favicon.ico",
          "/image/../metadata.jsonl", "/%2e%2e/ratings.sqlite", "//etc/passwd"]


def _often(draw, value, otherwise, one_in: int = 4):
    """`value` most of the time, `otherwise` (a strategy) about one time in `one_in`."""
    return draw(otherwise) if draw(st.integers(0, one_in - 1)) == one_in - 1 else value  # Hypothesis leans to 0


@st.composite
def http_requests(draw, token: str, port: int) -> bytes:
    """One raw request: mostly a well-formed call of a real route (the page, a session, a frame, an image,
    an answer, a login) with one or two things bent, sometimes anything at all."""
    route = draw(st.sampled_from(["session", "frame", "image", "answer", "login", "page", "junk"]))
    posting = route in ("answer", "login")
    method = _often(draw, "POST" if posting else "GET",
                    st.sampled_from(["GET", "POST", "HEAD", "PUT", "DELETE", "OPTIONS", "PATCH"]),
                    one_in=2 if route == "junk" else 8)
    rater = _often(draw, "ann", st.sampled_from(["bob", "", " ann ", "x" * 41, "a\x85b", "%00", "&rater=b"]) | _TEXT)
    position = _often(draw, draw(st.sampled_from(["0", "1", "6"])),
                      st.sampled_from(["7", "-1", "x", "\u0661", "1e3", "99999999999999999999"]) | _TEXT)
    path = {"session": f"/api/session?rater={rater}",
            "frame": f"/api/frame?rater={rater}&position={position}",
            "image": "/image/" + _often(draw, token, st.sampled_from(["", token[:-1], token.upper(), "../x"]) | _TEXT),
            "answer": "/api/answer", "login": "/api/login",
            "page": draw(st.sampled_from(_PATHS)),
            "junk": draw(_TEXT.map(lambda t: "/" + t))}[route]
    path = path.replace(" ", "%20").replace("#", "%23")
    headers = []
    host = draw(st.integers(0, 9))  # 0-7 this server, 8 another name, 9 none
    if host < 9:
        headers.append(("Host", f"127.0.0.1:{port}" if host < 8 else draw(_TEXT)))
    for name in draw(st.lists(st.sampled_from(["Origin", "Referer", "Cookie", "X-Rating-Passphrase", "Content-Type",
                                                "Expect", "Transfer-Encoding", "X-Other"]), max_size=3, unique=True)):
        value = draw(st.sampled_from([f"http://127.0.0.1:{port}", "http://evil.example", "null",
                                      "rb_access=" + "0" * 64, "application/json", "100-continue", "chunked"]) | _TEXT)
        headers.append((name, value.strip() or "x"))
    good = {"answer": {"rater": "ann", "token": token, "answer": "accept"},
            "login": {"passphrase": "correct horse battery"}}.get(route, {})
    kind = _often(draw, "good" if posting else "none", st.sampled_from(["json", "bent", "bytes", "deep", "none"]),
                  one_in=2)
    body = {"none": lambda: b"",
            "good": lambda: json.dumps(good).encode(),
            "json": lambda: json.dumps(draw(_JSON)).encode(),
            "bent": lambda: json.dumps({**good, draw(st.sampled_from(["rater", "token", "answer", "seconds", "fields",
                                                                       "passphrase"])): draw(_JSON)}).encode(),
            "bytes": lambda: draw(st.binary(max_size=200)),
            "deep": lambda: b"[" * draw(st.integers(30, 40000))}[kind]()
    if method in ("POST", "PUT", "PATCH") or body:
        length = _often(draw, str(len(body)), st.sampled_from(["", str(max(0, len(body) - 1)), "-1", "abc", "1e3",
                                                                " 12", "99999999999"]), one_in=6)
        if length:
            headers.append(("Content-Length", length))
    head = f"{method} {path} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers) + "Connection: close\r\n\r\n"
    return head.encode("latin-1") + body


def check_generated_requests(server, examples: int, capfd) -> int:
    token = server.session.token(RAIL)
    seen = []

    @settings(max_examples=examples, deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(http_requests(token, port_of(server)))
    def property_holds(request):
        seen.append(request)
        status, head, body = exchange(server, request, timeout=15)
        assert status is not None, request[:300]  # answered, not hung up on
        assert 200 <= status < 500, (status, request[:300], body[:300])
        if body and b"application/json" in head:
            message = json.loads(body).get("error") if status >= 400 else None
            assert message is None or (isinstance(message, str) and "\n" not in message)

    property_holds()
    err = capfd.readouterr().err
    assert "Traceback" not in err, err[-2000:]
    still = requests.get(server.url + "api/session", params={"rater": "ann"},
                         headers={"X-Rating-Passphrase": PASSPHRASE}, timeout=10)
    assert still.status_code in (200, 429)  # the server still answers at once
    print(f"generated requests: {len(seen)}")
    return len(seen)


def test_generated_requests_get_a_2xx_or_4xx_never_a_5xx_or_a_hang(serve, capfd):
    server = serve(read_timeout=1.0, request_deadline=5.0)
    assert check_generated_requests(server, 100, capfd) == 100


def test_generated_requests_to_a_passphrase_server_likewise(serve, capfd):
    server = serve(passphrase=PASSPHRASE, read_timeout=1.0, request_deadline=5.0)
    assert check_generated_requests(server, 50, capfd) == 50
