"""steer.py APP OUTDIR - the dashboard in headless Chromium on a running sim mini-app with the
online policy: every view draws its charts (non-empty canvases), the region table lists the
mini-app's regions, moving the energy-weight slider changes the objective the API reports and the
tuner's later decisions; a screenshot of each view goes to OUTDIR (dashboard-<view>.png).
Skipped (77) only where Chromium, ChromeDriver or selenium is absent."""
import json
import os
import sys
import time

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
sys.path.insert(0, os.path.join(here, "..", "browser"))
import browser  # noqa: E402
from app import Run  # noqa: E402

app, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
driver = browser.start(1400, 1000)  # SKIPPED before the run starts when there is no browser
fails = []


def check(cond, what):
    print(("ok: " if cond else "FAIL: ") + what, flush=True)
    if not cond:
        fails.append(what)


def wait(cond, what, timeout=60):
    end = time.time() + timeout
    while time.time() < end:
        v = cond()
        if v:
            return v
        time.sleep(0.2)
    check(False, "timed out waiting for " + what)
    return None


# Start on time alone: the online searches keep the fastest setting (the baseline); an energy
# weight then makes them trade time for energy.
STEPS = 200  # the run outlives the checks: ~20 s at 100 ms a step
r = Run(app, os.path.join(out, "dashboard-run"), steps=STEPS,
        env={"ERGO_OBJECTIVE": "weighted:t=1,e=0,r=0", "ERGO_DASHBOARD_STEP_MS": "100"})
try:
    check(r.get("", token=False)[0] == 403, "the page without the token: 403")
    driver.get(r.url)
    wait(lambda: int(driver.execute_script("return document.body.dataset.step || 0")) >= 3,
         "the page to show step 3")

    # Non-transparent pixels of a canvas: a chart that drew something has many.
    INK = ("const c = document.getElementById(arguments[0]);"
           "if (!c || !c.width || !c.height) return 0;"
           "const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;"
           "let n = 0; for (let i = 3; i < d.length; i += 4) if (d[i]) n++; return n;")
    views = {"global": ["chart-power", "chart-time", "chart-node-power"],
             "regions": ["chart-regions"], "nodes": ["chart-nodes"],
             "knobs": ["chart-knob-core_khz", "chart-knob-uncore_khz", "chart-knob-threads"]}

    def shoot(suffix=""):
        for view, canvases in views.items():
            driver.find_element("id", "tab-" + view).click()
            time.sleep(0.7)  # the next poll redraws what the tab showed
            for cv in canvases:
                ink = driver.execute_script(INK, cv)
                check(ink > 2000, "%s view: %s is drawn (%d pixels)" % (view, cv, ink))
            path = os.path.join(out, "dashboard-%s%s.png" % (view, suffix))
            driver.save_screenshot(path)
            check(os.path.getsize(path) > 10000, "screenshot %s" % path)
        driver.find_element("id", "tab-global").click()

    shoot()
    badge = driver.execute_script("const b = document.getElementById('platform');"
                                  "return b && !b.hidden ? b.textContent : ''")
    check(badge == "SIMULATED", "the page labels the sim node's figures SIMULATED (%r)" % badge)
    driver.find_element("id", "tab-regions").click()
    rows = driver.execute_script(
        "return Array.from(document.querySelectorAll('#regions tbody tr')).map(r => r.dataset.path)")
    want = ["Global/Timestep", "Global/Timestep/FIND_HSML", "Global/Timestep/HYDRO_ACCEL",
            "Global/Timestep/COMPUTE_UNIFIED_GRADIENTS", "Global/Timestep/DRIFT",
            "Global/Timestep/DOMAIN/PEANO"]
    check(all(w in rows for w in want), "the region table lists the mini-app's regions (%d rows)"
          % len(rows))
    driver.find_element("id", "tab-global").click()

    def decisions():
        regs = json.loads(r.get("api/regions")[1])
        return {x["path"]: (json.dumps(x["best"]), json.dumps(x["setting"])) for x in regs
                if x["tuned"]}

    # The time-only searches are over by step 45 (40 executions at most).
    s = r.wait_step(45)
    check(s["objective"] == "weighted:t=1,e=0,r=0", "the API reports the starting objective")
    before = decisions()
    at = s["step"]
    slider = driver.find_element("id", "w-energy")
    slider.click()
    slider.send_keys("\ue010")  # End: the slider to its maximum, 4 (one change event)
    wait(lambda: json.loads(r.get("api/state")[1])["objective"] == "weighted:t=1,e=4,r=0",
         "the API to report the slider's objective")
    s = json.loads(r.get("api/state")[1])
    check(s["objective"] == "weighted:t=1,e=4,r=0",
          "moving the energy slider changed the objective in force (%s)" % s["last_change"])
    wait(lambda: "e=4" in driver.find_element("id", "objective-now").text,
         "the page to show the new objective")
    s = r.wait_step(105, timeout=120)
    after = decisions()
    changed = [p for p in before if p in after and before[p] != after[p]]
    check(len(changed) >= 3, "later decisions changed in %d tuned regions after step %d (%s)"
          % (len(changed), at, ", ".join(changed[:4])))
    tl = json.loads(r.get("api/timeline")[1])
    check(len(tl["points"]) >= 100 and tl["tracked"], "the knob timeline follows %d regions"
          % len(tl["tracked"]))
    shoot("-after")
    errors = [e for e in browser.console_errors(driver) if "favicon" not in e]
    if r.proc.poll() is not None:
        # The run ended before the checks did (a slow machine, a sanitizer): the page's polls
        # after its server closed are refused: the run's end, not the page's error (a run that
        # crashed fails "the run ends well" below).
        gone = [e for e in errors if "/api/" in e and "ERR_CONNECTION_REFUSED" in e]
        if gone:
            print("note: the run ended before the console was read; %d refused poll(s) after its "
                  "server closed are left out" % len(gone))
        errors = [e for e in errors if e not in gone]
    check(not errors, "no console errors (%s)" % errors)
finally:
    driver.quit()
    rc = r.finish()
check(rc == 0, "the run ends well (%d)" % rc)
if fails:
    print("FAIL: %d check(s) failed" % len(fails))
    sys.exit(1)
print("dashboard steer: OK")
