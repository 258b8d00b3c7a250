"""Hostile input to the rating tools: requests that used to crash, stall or fool the rating server,
import files it used to take, an export a spreadsheet would run, and a report that took minutes.

Every server case runs against the real server (rating/server.py) on 127.0.0.1, port 0, over
the real SQLite database; every CLI case runs `python -m realitybench_addon` in a subprocess.
Refused requests and imports are checked to leave every table of the database as it was."""
from __future__ import annotations

import csv
import hashlib
import hmac
import io
import json
import os
import queue
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
import requests

from rating_support import HOSTILE_FRAMES, database_snapshot, make_scored_set

from realitybench_addon.rating.errors import RatingsError
from realitybench_addon.rating.files import Rating
from realitybench_addon.rating.server import MAX_BODY, RatingServer, RatingSession
from realitybench_addon.rating.store import RatingStore
from realitybench_addon.rating.summary import RatedSet, summarize

ROOT = Path(__file__).resolve().parent.parent
FRAMES = HOSTILE_FRAMES
SLOPE = "slope_gauge-random-s0-000000"  # documentation keys: reading_deg (number), on_module (boolean)
PASSPHRASE = "correct horse battery"
ENV = "REALITYBENCH_RATING_PASSPHRASE"


def cli(*args, env=None, timeout=60):
    return subprocess.run([sys.executable, "-m", "realitybench_addon", *map(str, args)], cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout, env=env)


def assert_user_error(done, fragment):
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and fragment in lines[0], done.stderr
    assert done.stdout == ""


def store_of(set_dir) -> RatingStore:
    rows = [json.loads(line) for line in (Path(set_dir) / "metadata.jsonl").read_text().splitlines()]
    return RatingStore(set_dir, {r["frame_id"]: r["environment"] for r in rows})


def address(server):
    return server.httpd.server_address[:2]


def raw_request(server, data: bytes, timeout: float = 10.0):
    """(status, JSON body) of one hand-written request; (None, None) when the server hung up without a reply."""
    with socket.create_connection(address(server), timeout=timeout) as conn:
        conn.sendall(data)
        reply = b""
        while True:
            chunk = conn.recv(65536)
            if not chunk:
                break
            reply += chunk
    if not reply:
        return None, None
    head, _, body = reply.partition(b"\r\n\r\n")
    return int(head.split()[1]), (json.loads(body) if body else None)


def answer_body(server, rater="ann", position=0, **extra):
    shown = requests.get(server.url + "api/frame", params={"rater": rater, "position": position}, timeout=10).json()
    return {"rater": rater, "token": shown["frame"]["token"], "answer": "accept", **extra}


def closed_within(conn: socket.socket, seconds: float) -> bool:
    """Whether the server closes the connection (or answers and closes) within `seconds`."""
    conn.settimeout(seconds)
    try:
        while conn.recv(65536):
            pass
        return True
    except (TimeoutError, socket.timeout):
        return False
    except ConnectionError:
        return True


# ---- the server: malformed requests --------------------------------------------------------------------------

@pytest.mark.parametrize("token", [["a-token"], {"token": "x"}])
def test_a_list_or_object_as_token_is_a_400(serve, rated_set, token):
    server = serve()
    before = database_snapshot(rated_set)
    body = {**answer_body(server), "token": token}
    reply = requests.post(server.url + "api/answer", json=body, timeout=10)
    assert reply.status_code == 400 and reply.json() == {"error": "unknown frame token"}
    assert database_snapshot(rated_set) == before
    assert requests.get(server.url + "api/session", params={"rater": "ann"}, timeout=10).status_code == 200


@pytest.mark.parametrize("length, status, message", [
    ("abc", 400, "Content-Length 'abc' is not a number"),
    ("-5", 400, f"the request body must be 1 to {MAX_BODY} bytes"),
    (str(MAX_BODY + 1), 413, f"the request body is {MAX_BODY + 1} bytes; at most {MAX_BODY} are accepted"),
])
def test_a_bad_or_oversized_content_length_is_refused_with_a_reason(serve, rated_set, length, status, message):
    server = serve()
    before = database_snapshot(rated_set)
    host = "%s:%d" % address(server)  # the server's own address: any other Host is refused first
    got = raw_request(server, f"POST /api/answer HTTP/1.1\r\nHost: {host}\r\nContent-Length: {length}\r\n\r\n".encode())
    assert got == (status, {"error": message})
    assert database_snapshot(rated_set) == before


# ---- the server: clients that stall ---------------------------------------------------------------------------

def test_a_client_that_stops_sending_its_body_gets_a_408(serve, rated_set):
    server = serve(read_timeout=1.0, request_deadline=30.0)
    before = database_snapshot(rated_set)
    started = time.monotonic()
    status, body = raw_request(server, b"POST /api/answer HTTP/1.0\r\nContent-Length: 40\r\n\r\n{\"rater\"", timeout=8)
    assert (status, body) == (408, {"error": "the request body did not arrive in time"})
    assert time.monotonic() - started < 5
    assert database_snapshot(rated_set) == before


def test_a_client_that_stops_sending_its_headers_is_dropped(serve):
    server = serve(read_timeout=1.0, request_deadline=30.0)
    with socket.create_connection(address(server)) as conn:
        conn.sendall(b"GET /api/sess")
        assert closed_within(conn, 5)


def test_a_client_that_trickles_bytes_is_cut_at_the_request_deadline(serve):
    server = serve(read_timeout=1.0, request_deadline=2.0)
    started = time.monotonic()
    with socket.create_connection(address(server)) as conn:
        request = b"GET /api/session?rater=" + b"a" * 40
        for byte in request:  # one byte every 0.4 s: each read is in time, the request never ends
            try:
                conn.sendall(bytes([byte]))
            except OSError:
                break
            if closed_within(conn, 0.4):
                break
        took = time.monotonic() - started
    assert took < 5, f"the connection was held {took:.1f} s"


def test_stalled_clients_cannot_pile_up_threads(serve):
    server = serve(read_timeout=5.0, request_deadline=10.0, max_connections=8)
    threads_before = threading.active_count()
    stalled = []
    try:
        for _ in range(40):
            conn = socket.create_connection(address(server), timeout=10)
            conn.sendall(b"GET /api/sess")  # and nothing more
            stalled.append(conn)
        time.sleep(0.5)
        assert threading.active_count() <= threads_before + 8
    finally:
        for conn in stalled:
            conn.close()
    # the waiting connections are served as the stalled ones go: an honest request gets through
    reply = requests.get(server.url + "api/session", params={"rater": "ann"}, timeout=20)
    assert reply.status_code == 200 and reply.json()["rated"] == 0
    assert threading.active_count() <= threads_before + 8


# ---- the server: tokens ----------------------------------------------------------------------------------------

def test_frame_tokens_are_keyed_with_a_secret_made_once_per_database(serve, rated_set):
    server = serve()
    frame_id = "rail_attachment-random-s0-000001"
    guessed = hashlib.sha256(f"realitybench-rating:{frame_id}".encode()).hexdigest()[:16]  # the old bare hash
    reply = requests.get(server.url + f"image/{guessed}", timeout=10)
    assert reply.status_code == 404 and reply.json() == {"error": "no such image"}
    db = sqlite3.connect(rated_set / "ratings.sqlite")
    (secret,) = db.execute("SELECT value FROM meta WHERE key = 'token_secret'").fetchone()
    db.close()
    assert re.fullmatch(r"[0-9a-f]{64}", secret)
    keyed = hmac.new(bytes.fromhex(secret), f"frame:{frame_id}".encode(), hashlib.sha256).hexdigest()[:32]
    assert server.session.by_token[keyed] == frame_id
    assert requests.get(server.url + f"image/{keyed}", timeout=10).content == \
        (rated_set / "rail_attachment" / f"{frame_id}.jpg").read_bytes()
    assert RatingSession(rated_set, stratum="all").token(frame_id) == keyed  # made once, kept


def test_a_token_from_another_set_is_refused(serve, rated_set, tmp_path):
    server = serve()
    other = RatingSession(make_scored_set(tmp_path / "other", FRAMES), stratum="all")  # the same frame ids
    token = other.frame("ann", 0)["frame"]["token"]
    assert other.by_token[token] in server.session.items
    before = database_snapshot(rated_set)
    reply = requests.post(server.url + "api/answer", json={"rater": "ann", "token": token, "answer": "accept"},
                          timeout=10)
    assert reply.status_code == 400 and reply.json() == {"error": "unknown frame token"}
    assert requests.get(server.url + f"image/{token}", timeout=10).status_code == 404
    assert database_snapshot(rated_set) == before


def test_an_image_that_leads_outside_the_set_is_not_served(serve, rated_set, tmp_path):
    server = serve()
    outside = tmp_path / "private.jpg"
    outside.write_bytes(b"\xff\xd8 not for raters")
    token = answer_body(server)["token"]
    image = server.session.items[server.session.by_token[token]].image_path
    image.unlink()
    image.symlink_to(outside)  # swapped in after the set was read
    reply = requests.get(server.url + f"image/{token}", timeout=10)
    assert reply.status_code == 404 and reply.json() == {"error": "no such image"}


# ---- the server: a passphrase ----------------------------------------------------------------------------------

def test_with_a_passphrase_every_api_call_needs_it(serve, rated_set):
    server = serve(passphrase=PASSPHRASE)
    token = server.session.token(SLOPE)
    before = database_snapshot(rated_set)
    page = requests.get(server.url, timeout=10)
    assert page.status_code == 200 and 'id="passphrase"' in page.text  # the page asks for it
    needed = {"error": "this rating page needs the raters' passphrase", "passphrase_required": True}
    for reply in (requests.get(server.url + "api/session", params={"rater": "ann"}, timeout=10),
                  requests.get(server.url + "api/frame", params={"rater": "ann", "position": 0}, timeout=10),
                  requests.get(server.url + f"image/{token}", timeout=10),
                  requests.post(server.url + "api/answer", json={"rater": "ann", "token": token, "answer": "accept"},
                                timeout=10),
                  requests.get(server.url + "api/session", params={"rater": "ann"}, timeout=10,
                               headers={"X-Rating-Passphrase": PASSPHRASE + "x"}),
                  requests.get(server.url + "api/session", params={"rater": "ann"}, timeout=10,
                               cookies={"rb_access": hashlib.sha256(PASSPHRASE.encode()).hexdigest()})):
        assert (reply.status_code, reply.json()) == (401, needed)
    wrong = requests.post(server.url + "api/login", json={"passphrase": "guess guess"}, timeout=10)
    assert (wrong.status_code, wrong.json()) == (401, {"error": "wrong passphrase", "passphrase_required": True})
    assert "rb_access" not in wrong.cookies
    assert database_snapshot(rated_set) == before

    rater = requests.Session()
    assert rater.post(server.url + "api/login", json={"passphrase": PASSPHRASE}, timeout=10).status_code == 200
    assert rater.get(server.url + "api/session", params={"rater": "ann"}, timeout=10).status_code == 200
    assert rater.get(server.url + f"image/{token}", timeout=10).status_code == 200
    saved = rater.post(server.url + "api/answer", json={"rater": "ann", "token": token, "answer": "reject"}, timeout=10)
    assert saved.status_code == 200 and saved.json()["rated"] == 1
    scripted = requests.get(server.url + "api/session", params={"rater": "ann"}, timeout=10,
                            headers={"X-Rating-Passphrase": PASSPHRASE})
    assert scripted.status_code == 200 and scripted.json()["rated"] == 1
    assert [(r.frame_id, r.rater, r.answer) for r in store_of(rated_set).ratings()] == [(SLOPE, "ann", "reject")]


def rate_process(set_dir, *args, env=None):
    """A `rate` process on port 0: (process, its port, the stderr line after the address or "")."""
    proc = subprocess.Popen([sys.executable, "-m", "realitybench_addon", "rate", str(set_dir), "--port", "0", *args],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in proc.stderr], daemon=True).start()
    first = lines.get(timeout=60)
    port = int(re.search(r"rating page: http://[\d.]+:(\d+)/", first).group(1))
    try:
        second = lines.get(timeout=10)
    except queue.Empty:
        second = ""
    return proc, port, second


def stop(proc):
    """SIGTERM the `rate` process: it must exit 0 within 40 s (a request in flight gets the 30 s deadline)
    and print its summary. A process that does not exit is killed, so a hang fails this test only."""
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=40)  # its summary is a few hundred bytes: the stdout pipe cannot fill and block it
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        pytest.fail("the rate process did not exit within 40 s of SIGTERM")
    assert proc.returncode == 0
    return json.loads(proc.stdout.read())


def test_sigterm_the_moment_the_address_is_printed_still_stops_cleanly(rated_set):
    """The address line is the signal that the page is up: a SIGTERM sent on reading it (before the first
    request, perhaps before the serve loop runs) must still end the process with its summary."""
    for _ in range(3):
        proc = subprocess.Popen([sys.executable, "-m", "realitybench_addon", "rate", str(rated_set), "--port", "0"],
                                cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert proc.stderr.readline().startswith("rating page: http://127.0.0.1:")
        assert stop(proc)["ratings"] == 0


def test_stopping_a_server_that_never_started_returns(rated_set):
    server = RatingServer(RatingSession(rated_set, stratum="all"), port=0)
    finished = threading.Event()
    threading.Thread(target=lambda: (server.stop(), finished.set()), daemon=True).start()
    assert finished.wait(5), "stop() on a server whose loop never ran hung"


def test_a_network_address_is_warned_about_on_stderr(rated_set):
    proc, port, warning = rate_process(rated_set, "--host", "0.0.0.0")
    try:
        assert warning.startswith("warning: --host 0.0.0.0 opens the rating page to the network with no passphrase: "
                                  f"anyone who reaches 0.0.0.0:{port} can see the set's frames and write ratings")
        assert f"set ${ENV} or --passphrase-file FILE" in warning
        assert requests.get(f"http://127.0.0.1:{port}/api/session", params={"rater": "ann"}, timeout=10).ok
    finally:
        stop(proc)


def test_a_passphrase_from_the_environment_guards_a_network_page(rated_set):
    proc, port, warning = rate_process(rated_set, "--host", "0.0.0.0", env={**os.environ, ENV: PASSPHRASE})
    try:
        assert warning.startswith("warning: --host 0.0.0.0 opens the rating page to the network over plain HTTP: "
                                  "only raters with the passphrase get in")
        url = f"http://127.0.0.1:{port}/api/session"
        assert requests.get(url, params={"rater": "ann"}, timeout=10).status_code == 401
        assert requests.get(url, params={"rater": "ann"}, headers={"X-Rating-Passphrase": PASSPHRASE},
                            timeout=10).status_code == 200
    finally:
        summary = stop(proc)
    assert summary["ratings"] == 0


def test_a_passphrase_from_a_file_is_its_first_line(rated_set, tmp_path):
    (tmp_path / "pass.txt").write_text(PASSPHRASE + "\nignored\n")
    proc, port, _ = rate_process(rated_set, "--passphrase-file", tmp_path / "pass.txt")
    try:
        url = f"http://127.0.0.1:{port}/api/session"
        assert requests.get(url, params={"rater": "ann"}, timeout=10).status_code == 401
        assert requests.get(url, params={"rater": "ann"}, headers={"X-Rating-Passphrase": PASSPHRASE},
                            timeout=10).status_code == 200
    finally:
        stop(proc)


@pytest.mark.parametrize("how, fragment", [
    ("env-short", f"${ENV}: the rater passphrase must be 8 to 200 characters, not 5"),
    ("file-missing", "cannot read --passphrase-file"),
    ("both", f"--passphrase-file and ${ENV} are both given: use one"),
])
def test_a_bad_passphrase_setting_is_a_one_line_error(rated_set, tmp_path, how, fragment):
    (tmp_path / "pass.txt").write_text(PASSPHRASE + "\n")
    env = {k: v for k, v in os.environ.items() if k != ENV}
    args = ["rate", rated_set, "--port", "0"]
    if how == "env-short":
        env[ENV] = "short"
    elif how == "file-missing":
        args += ["--passphrase-file", tmp_path / "nowhere.txt"]
    else:
        env[ENV] = PASSPHRASE
        args += ["--passphrase-file", tmp_path / "pass.txt"]
    assert_user_error(cli(*args, env=env, timeout=30), fragment)
    assert not (rated_set / "ratings.sqlite").exists()  # refused before anything was opened


# ---- the database: opened by many at once ----------------------------------------------------------------------

def test_many_openers_of_a_new_database_all_get_in(tmp_path):
    """Servers, imports and reports starting together on a set with no database yet: SQLite reports
    the switch to WAL as locked at once, without waiting (about 1 opener in 70 failed)."""
    frames = {f"rail_attachment-random-s0-{i:06d}": "rail_attachment" for i in range(5)}
    errors = []

    def open_store(folder):
        try:
            RatingStore(folder, frames)
        except Exception as exc:  # collected and asserted below
            errors.append(exc)

    for trial in range(60):
        folder = tmp_path / f"set{trial}"
        folder.mkdir()
        threads = [threading.Thread(target=open_store, args=(folder,)) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert errors == []
    for trial in range(60):  # one secret per database, whoever made it
        meta = dict(database_snapshot(tmp_path / f"set{trial}")["meta"])
        assert re.fullmatch(r"[0-9a-f]{64}", meta["token_secret"])


# ---- ratings import: checked exactly like the page ------------------------------------------------------------

def jsonl(path: Path, *rows) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


@pytest.mark.parametrize("fields, fragment", [
    ({"bogus_key": [1, 2]}, "field 'bogus_key' is not asked for this frame"),
    ({"reading_deg": "not a number"}, "field 'reading_deg' must be a number"),
    ({"reading_deg": float("inf")}, "field 'reading_deg' must be a number"),
    ({"on_module": "yes"}, "field 'on_module' must be a boolean"),
])
def test_import_refuses_the_fields_the_page_refuses(rated_set, tmp_path, fields, fragment):
    store = store_of(rated_set)
    store.record(Rating("rail_attachment-random-s0-000000", "bob", "reject"))
    before = database_snapshot(rated_set)
    row = {"frame_id": SLOPE, "rater": "ann", "rating": "accept", "fields": fields}
    path = jsonl(tmp_path / "in.jsonl", {"frame_id": "rail_attachment-random-s0-000001", "rater": "ann",
                                         "rating": "accept"}, row)
    assert_user_error(cli("ratings", rated_set, "--import", path), f"in.jsonl: line 2: {fragment}")
    assert database_snapshot(rated_set) == before
    if isinstance(fields, dict):  # the page's server refuses the same fields with the same words
        session = RatingSession(rated_set, stratum="all")
        with pytest.raises(RatingsError) as refused:
            session.answer({"rater": "ann", "token": session.token(SLOPE), "answer": "accept", "fields": fields})
        assert str(refused.value) == fragment
        assert database_snapshot(rated_set) == before


def test_import_refuses_bad_fields_in_a_csv_too(rated_set, tmp_path):
    store_of(rated_set)
    before = database_snapshot(rated_set)
    path = tmp_path / "in.csv"
    path.write_text('frame_id,rater,rating,fields\n'
                    f'{SLOPE},ann,accept,"{{""bogus_key"": [1, 2], ""reading_deg"": ""not a number""}}"\n')
    assert_user_error(cli("ratings", rated_set, "--import", path),
                      "in.csv: line 2: field 'bogus_key' is not asked for this frame")
    assert database_snapshot(rated_set) == before


@pytest.mark.parametrize("rated_at, fragment", [
    ("yesterday-ish", "rated_at 'yesterday-ish' is not an ISO 8601 time (e.g. 2026-11-29T20:01:02Z)"),
    ("2026-13-01T00:00:00Z", "rated_at '2026-13-01T00:00:00Z' is not an ISO 8601 time"),
    (1764460800, "rated_at '1764460800' must be an ISO 8601 time"),
])
def test_import_refuses_a_rated_at_that_is_not_iso_8601(rated_set, tmp_path, rated_at, fragment):
    store_of(rated_set)
    before = database_snapshot(rated_set)
    path = jsonl(tmp_path / "in.jsonl", {"frame_id": SLOPE, "rater": "ann", "rating": "accept", "rated_at": rated_at})
    assert_user_error(cli("ratings", rated_set, "--import", path), f"in.jsonl: line 1: {fragment}")
    assert database_snapshot(rated_set) == before
    good = jsonl(tmp_path / "good.jsonl", {"frame_id": SLOPE, "rater": "ann", "rating": "accept",
                                           "rated_at": "2026-11-29T20:01:02+01:00"})
    assert cli("ratings", rated_set, "--import", good).returncode == 0
    assert [r.rated_at for r in store_of(rated_set).ratings()] == ["2026-11-29T20:01:02+01:00"]  # kept as written


def test_a_conflict_in_the_fields_alone_says_so(rated_set, tmp_path):
    store_of(rated_set).record(Rating(SLOPE, "bob", "accept", fields={"on_module": True}))
    before = database_snapshot(rated_set)
    path = jsonl(tmp_path / "in.jsonl", {"frame_id": SLOPE, "rater": "bob", "rating": "accept",
                                         "fields": {"on_module": False}})
    assert_user_error(cli("ratings", rated_set, "--import", path),
                      f"in.jsonl: rater 'bob' gave {SLOPE} the fields {{\"on_module\": false}}, but the database "
                      f"holds {{\"on_module\": true}}; nothing was imported")
    path = jsonl(tmp_path / "bare.jsonl", {"frame_id": SLOPE, "rater": "bob", "rating": "accept"})
    assert_user_error(cli("ratings", rated_set, "--import", path),
                      f"bare.jsonl: rater 'bob' gave {SLOPE} the fields none, but the database holds "
                      f"{{\"on_module\": true}}; nothing was imported")
    assert database_snapshot(rated_set) == before


# ---- ratings export: no formulas for a spreadsheet -------------------------------------------------------------

NAMES = ['=HYPERLINK("http://x.example","click")', "+cmd|' /C calc'!A0", "-2+3", "@SUM(1+1)", "'quoted",
         "plain"]


def test_a_csv_export_quotes_cells_a_spreadsheet_would_evaluate_and_imports_back(rated_set, tmp_path):
    store = store_of(rated_set)
    for k, name in enumerate(NAMES):
        store.record(Rating(SLOPE, name, "accept" if k % 2 else "reject", 1.5, {"reading_deg": 22.5}))
    done = cli("ratings", rated_set, "--export", tmp_path / "out.csv")
    assert done.returncode == 0, done.stderr
    rows = list(csv.reader(io.StringIO((tmp_path / "out.csv").read_text())))
    cells = [cell for row in rows[1:] for cell in row]
    assert not [c for c in cells if c[:1] in ("=", "+", "-", "@", "\t", "\r")]
    assert sorted(row[1] for row in rows[1:]) == sorted("'" + n if n[0] in "=+-@'" else n for n in NAMES)

    copy = make_scored_set(tmp_path / "copy", FRAMES)  # the export imports back as the same names
    done = cli("ratings", copy, "--import", tmp_path / "out.csv")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["imported"] == {"added": len(NAMES), "already_held": 0}
    assert sorted(r.rater for r in store_of(copy).ratings()) == sorted(NAMES)
    again = json.loads(cli("ratings", rated_set, "--import", tmp_path / "out.csv").stdout)
    assert again["imported"] == {"added": 0, "already_held": len(NAMES)}


# ---- the report at scale --------------------------------------------------------------------------------------

def test_the_report_on_many_raters_per_frame_is_fast(tmp_path):
    """400 raters on each of 300 frames: the report used to compare every rater with every other on
    every frame (10 s here, and quadratic in the raters per frame); it now counts each frame once."""
    set_dir = make_scored_set(tmp_path / "set", [("rail_attachment", i, {"camera_distance": 0.5 + 0.01 * i})
                                                  for i in range(300)])
    rated = RatedSet(set_dir)
    with rated.store.connect(write=True) as db:
        db.executemany("INSERT INTO ratings VALUES (?, ?, ?, NULL, 1.0, '2026-01-01T00:00:00Z', 'test')",
                       [(f, f"r{k:03d}", "reject" if (n * 7 + k) % 5 == 0 else "accept")
                        for n, f in enumerate(sorted(rated.store.frames)) for k in range(400)])
    started = time.perf_counter()
    report = summarize(RatedSet(set_dir))
    took = time.perf_counter() - started
    env = report["environments"]["rail_attachment"]
    assert (report["ratings"], env["frames"], env["raters"], env["rating_pairs"]) == (120000, 300, 400,
                                                                                       300 * 400 * 399 // 2)
    # per frame 80 rejects of 400: agreeing pairs C(320, 2) + C(80, 2) of C(400, 2)
    assert env["raw_agreement"] == pytest.approx((320 * 319 + 80 * 79) / (400 * 399))
    # r000 rejects every fifth frame, where the others' majority accepts
    assert env["rater_vs_others"]["r000"] == {"agreement": pytest.approx(0.8), "frames": 300}
    assert report["per_rater"]["r000"]["ratings"] == 300
    assert took < 3.0, f"the report took {took:.1f} s"


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_linear_agreement_equals_the_pairwise_definitions(seed):
    """The per-frame counts give what rater pairs and the raters x frames table gave (stats.py)."""
    from realitybench_addon.answers import stats
    from realitybench_addon.rating.agreement import rater_agreement, strict_majority

    rng = np.random.default_rng(seed)
    raters = [f"r{k}" for k in range(12)]
    votes = {f"f{n}": {r: ("accept" if rng.random() < 0.3 + 0.4 * (n % 2) else "reject")
                       for r in raters if rng.random() < 0.6} for n in range(60)}
    votes = {f: v for f, v in votes.items() if v}
    got = rater_agreement(votes)
    frames = sorted(f for f, v in votes.items() if len(v) >= 2)
    matrix = [[votes[f].get(r) for f in frames] for r in raters]
    raw, pairs = stats.pairwise_agreement(matrix)
    assert (got["raw_agreement"], got["rating_pairs"]) == (pytest.approx(raw), pairs)
    assert got["alpha"] == pytest.approx(stats.krippendorff_alpha_nominal(matrix), abs=1e-12)
    for rater in raters:  # each rater against the others' strict majority, frame by frame
        mine = [(v[rater], strict_majority([a for r, a in v.items() if r != rater]))
                for v in votes.values() if rater in v and len(v) >= 3]
        mine = [(a, m) for a, m in mine if m is not None]
        assert got["rater_vs_others"][rater] == {"agreement": (sum(a == m for a, m in mine) / len(mine)) if mine
                                                 else None, "frames": len(mine)}


@pytest.mark.slow
def test_the_page_asks_for_the_passphrase_and_then_rates(serve, rated_set):
    """In Debian's chromium: the page shows the passphrase field when the server asks for it, logs in,
    and rates; a wrong passphrase is explained and saves nothing."""
    page = pytest.importorskip("test_rating_page")
    if page.CHROMIUM is None or page.CHROMEDRIVER is None:
        pytest.skip("needs Debian's chromium and chromium-driver (bash scripts/setup.sh --tests)")
    server = serve(passphrase=PASSPHRASE)
    browser = page.new_browser()
    try:
        page.start_as(browser, server, "ann")
        page.wait_for(browser, lambda d: page.by_id(d, "passphrase").is_displayed())
        assert "needs the raters' passphrase" in page.by_id(browser, "name-status").text
        page.by_id(browser, "passphrase").send_keys("not the phrase")
        page.by_id(browser, "start").click()
        page.wait_for(browser, lambda d: "wrong passphrase" in page.by_id(d, "name-status").text)
        assert store_of(rated_set).ratings() == []
        page.by_id(browser, "passphrase").clear()
        page.by_id(browser, "passphrase").send_keys(PASSPHRASE)
        page.by_id(browser, "start").click()
        first = server.session.order("ann")[0]
        page.expect_frame(browser, server.session.token(first))  # the image came through the cookie
        page.press(browser, "a")
        page.rated_count(browser, 1, len(FRAMES))
    finally:
        browser.quit()
    assert [(r.frame_id, r.rater, r.answer) for r in store_of(rated_set).ratings()] == [(first, "ann", "accept")]
