"""Screenshot the rating page in headless chromium for docs/img/rating_page.png.

Run:  .venv/bin/python scripts/screenshot_rating_page.py out/set [--out docs/img/rating_page.png]
Serves SET with the real server on a free port, rates its first frame as "demo", opens the
documentation fields on the second, and saves the window. The set's ratings.sqlite gets that one
rating (rater "demo"); use a scratch copy of a set you care about.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from realitybench_addon.rating.server import RatingServer, RatingSession  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("set", help="an exported set")
    parser.add_argument("--out", default=str(ROOT / "docs" / "img" / "rating_page.png"))
    args = parser.parse_args()

    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.support.ui import WebDriverWait

    server = RatingServer(RatingSession(args.set, stratum="all"), port=0).start()
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1500,860"):
        options.add_argument(arg)
    driver = webdriver.Chrome(options=options, service=Service("/usr/bin/chromedriver"))
    try:
        driver.get(server.url)
        driver.find_element("id", "rater-name").send_keys("demo")
        driver.find_element("id", "start").click()
        loaded = "const i = document.getElementById('frame-image'); return i.complete && i.naturalWidth > 0"
        WebDriverWait(driver, 20).until(lambda d: d.execute_script(loaded))
        driver.find_element("id", "accept").click()
        WebDriverWait(driver, 20).until(lambda d: "1 of" in d.find_element("id", "progress-text").text)
        WebDriverWait(driver, 20).until(lambda d: d.execute_script(loaded))
        driver.execute_script("document.getElementById('fields-box').open = true")
        driver.save_screenshot(args.out)
        print(f"wrote {args.out}")
    finally:
        driver.quit()
        server.stop()


if __name__ == "__main__":
    main()
