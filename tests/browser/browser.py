"""browser.py - headless Chromium for the browser tests (tests/browser/*.py), shared by the
dashboard's and the HTML report's tests.

start() returns a selenium WebDriver on Debian's chromium + chromium-driver, or prints
"SKIPPED: <why>" and exits 77 (ctest's skip code in these tests) when one of them is absent:
the only reason such a test may skip.  Pages are loaded from loopback or file:// only; the
driver refuses every other host, so a page that reaches for the network fails its test.
"""
import os
import shutil
import sys

SKIP = 77


def skip(why):
    print("SKIPPED: " + why, flush=True)
    sys.exit(SKIP)


def start(width=1400, height=1000):
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        skip("python3-selenium is not installed (apt-get install python3-selenium)")
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    driver_bin = shutil.which("chromedriver") or "/usr/bin/chromedriver"
    if not os.access(chromium, os.X_OK):
        skip("Chromium is not installed (apt-get install chromium chromium-driver)")
    if not os.access(driver_bin, os.X_OK):
        skip("ChromeDriver is not installed (apt-get install chromium-driver)")
    opts = webdriver.ChromeOptions()
    opts.binary_location = chromium
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
              "--window-size=%d,%d" % (width, height),
              # Anything but loopback fails to resolve: no page may use the network.
              "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost"):
        opts.add_argument(a)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(driver_bin), options=opts)


def console_errors(driver):
    """The page's console messages at SEVERE level (JavaScript errors, failed loads)."""
    try:
        return [e["message"] for e in driver.get_log("browser") if e.get("level") == "SEVERE"]
    except Exception:  # a driver without the log endpoint: nothing to report
        return []
