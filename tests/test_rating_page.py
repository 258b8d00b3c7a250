"""The rating page in a real browser: Debian's chromium, headless, driven by Selenium.

The server is the real one (rating/server.py) on 127.0.0.1 over a scored set look-alike; every
check of what was saved reads the SQLite database itself.
"""
from __future__ import annotations

import json
import shutil
import sqlite3

import pytest

from rating_support import make_scored_set

from realitybench_addon.rating.server import RatingServer, RatingSession
from realitybench_addon.rating.split import rater_order

CHROMIUM, CHROMEDRIVER = shutil.which("chromium"), shutil.which("chromedriver")
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(CHROMIUM is None or CHROMEDRIVER is None,
                                 reason="needs Debian's chromium and chromium-driver (bash scripts/setup.sh --tests)")]

FRAMES = ([("rail_attachment", i, {"camera_distance": 0.6 + 0.25 * i}) for i in range(4)]
          + [("slope_gauge", i, {"view_angle": 10.0 + 20.0 * i}) for i in range(3)])


@pytest.fixture
def served(tmp_path):
    set_dir = make_scored_set(tmp_path / "set", FRAMES)
    session = RatingSession(set_dir)
    server = RatingServer(session, port=0).start()
    yield session, server
    server.stop()


def new_browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1400,900"):
        options.add_argument(arg)
    driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))
    driver.implicitly_wait(0)
    return driver


@pytest.fixture
def browser():
    driver = new_browser()
    yield driver
    driver.quit()


def wait_for(driver, condition, timeout=10):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout).until(lambda d: condition(d))


def by_id(driver, element_id):
    return driver.find_element("id", element_id)


def expect_frame(driver, token: str) -> None:
    """Wait until the frame with this token is on screen, its image loaded."""
    wait_for(driver, lambda d: d.execute_script(
        "const i = document.getElementById('frame-image');"
        "return i.src.endsWith('/' + arguments[0]) && i.complete && i.naturalWidth > 0", token))


def rated_count(driver, n, total):
    wait_for(driver, lambda d: f"{n} of {total} rated" in by_id(d, "progress-text").text)


def db_rows(session, rater=None):
    db = sqlite3.connect(session.store.path)
    try:
        query = "SELECT frame_id, rater, answer, fields, seconds FROM ratings"
        rows = db.execute(query + (" WHERE rater = ?" if rater else ""), (rater,) if rater else ()).fetchall()
    finally:
        db.close()
    return {(f, r): (a, None if fl is None else json.loads(fl), s) for f, r, a, fl, s in rows}


def start_as(driver, server, name):
    driver.get(server.url)
    by_id(driver, "rater-name").send_keys(name)
    by_id(driver, "start").click()


def press(driver, key):
    from selenium.webdriver.common.action_chains import ActionChains

    ActionChains(driver).send_keys(key).perform()


def test_mouse_keyboard_reload_and_back(served, browser):
    from selenium.webdriver.common.keys import Keys

    session, server = served
    total = len(FRAMES)
    order = rater_order(session.items, "ann")
    tokens = [session.token(f) for f in order]
    start_as(browser, server, "ann")

    # frame 1 of ann's own shuffled order, with exactly the prompt a model gets; no id, no verdict
    expect_frame(browser, tokens[0])
    assert by_id(browser, "prompt").text == session.items[order[0]].prompt.strip()
    page = browser.page_source
    assert not any(f in page for f in session.items) and "positive" not in page and "verdict" not in page

    by_id(browser, "accept").click()  # the mouse
    rated_count(browser, 1, total)
    expect_frame(browser, tokens[1])
    press(browser, "r")  # the keyboard
    rated_count(browser, 2, total)
    expect_frame(browser, tokens[2])
    press(browser, "3")
    rated_count(browser, 3, total)
    rows = db_rows(session)
    assert {f: rows[(f, "ann")][0] for f in order[:3]} == {order[0]: "accept", order[1]: "reject",
                                                           order[2]: "cant_tell"}
    assert all(rows[(f, "ann")][2] is not None and 0 <= rows[(f, "ann")][2] < 60 for f in order[:3])

    browser.refresh()  # mid-way: the page comes back to ann's first unrated frame
    expect_frame(browser, tokens[3])
    rated_count(browser, 3, total)
    browser.get(server.url)  # coming back another time: the same name carries on where ann stopped
    assert by_id(browser, "rater-name").get_attribute("value") == "ann"  # remembered in this browser
    by_id(browser, "start").click()
    expect_frame(browser, tokens[3])

    press(browser, Keys.ARROW_LEFT)  # back to frame 3, whose answer is marked
    expect_frame(browser, tokens[2])
    wait_for(browser, lambda d: "chosen" in by_id(d, "cant-tell").get_attribute("class"))
    press(browser, "a")  # a second answer replaces the first
    rated_count(browser, 3, total)
    expect_frame(browser, tokens[3])
    assert db_rows(session)[(order[2], "ann")][0] == "accept"
    assert len(db_rows(session)) == 3

    for n in range(4, total + 1):
        expect_frame(browser, tokens[n - 1])
        press(browser, "n")
        rated_count(browser, n, total)
    wait_for(browser, lambda d: by_id(d, "done").is_displayed())
    assert len(db_rows(session, "ann")) == total
    by_id(browser, "review").click()  # going back over the answers: each one steps on to the next frame
    expect_frame(browser, tokens[0])
    press(browser, "c")
    expect_frame(browser, tokens[1])
    assert db_rows(session)[(order[0], "ann")][0] == "cant_tell"


def test_a_bad_rater_name_is_explained_on_the_page(served, browser):
    session, server = served
    browser.get(server.url + "#rater=" + "x" * 41)  # a link with a name the server refuses
    wait_for(browser, lambda d: "must be 1-40 printable characters" in by_id(d, "name-status").text)
    assert by_id(browser, "name-form").is_displayed() and not by_id(browser, "rating").is_displayed()
    assert db_rows(session) == {}


def test_documentation_fields_are_checked_and_saved(served, browser):
    from selenium.webdriver.support.ui import Select

    session, server = served
    start_as(browser, server, "cy")
    order = rater_order(session.items, "cy")
    car = next(k for k, f in enumerate(order) if f.startswith("slope_gauge"))
    for k in range(car):  # skip to the first slope_gauge frame with "can't tell"
        expect_frame(browser, session.token(order[k]))
        press(browser, "c")
    expect_frame(browser, session.token(order[car]))
    press(browser, "f")  # opens the fields; the key is not typed into the first field
    inputs = {i.get_attribute("data-key"): i for i in browser.find_elements("css selector", "#fields [data-key]")}
    assert set(inputs) == {k for k, _ in session.items[order[car]].item.keys}
    assert inputs["reading_deg"].get_attribute("value") == ""
    Select(inputs["on_module"]).select_by_value("false")
    inputs["reading_deg"].send_keys("two")
    by_id(browser, "accept").click()
    wait_for(browser, lambda d: "must be a number" in by_id(d, "status").text)
    assert (order[car], "cy") not in db_rows(session)  # nothing saved from a form with a bad value
    inputs["reading_deg"].clear()
    inputs["reading_deg"].send_keys("22.5")
    by_id(browser, "accept").click()
    rated_count(browser, car + 1, len(FRAMES))
    assert db_rows(session)[(order[car], "cy")][:2] == ("accept", {"reading_deg": 22.5, "on_module": False})


def test_two_raters_at_once(served):
    session, server = served
    ann, bob = new_browser(), new_browser()
    try:
        start_as(ann, server, "ann")
        start_as(bob, server, "bob")
        orders = {name: rater_order(session.items, name) for name in ("ann", "bob")}
        assert orders["ann"] != orders["bob"]  # each rater has a shuffle of their own
        for n in range(1, len(FRAMES) + 1):  # interleaved: ann, bob, ann, bob, ...
            for name, driver, key in (("ann", ann, "a"), ("bob", bob, "r")):
                expect_frame(driver, session.token(orders[name][n - 1]))
                press(driver, key)
                rated_count(driver, n, len(FRAMES))
        rows = db_rows(session)
        assert len(rows) == 2 * len(FRAMES)
        assert {a for (f, r), (a, _, _) in rows.items() if r == "ann"} == {"accept"}
        assert {a for (f, r), (a, _, _) in rows.items() if r == "bob"} == {"reject"}
    finally:
        ann.quit()
        bob.quit()
