"""report_no_energy.py ERGO APP DIR - `ergo report --html` on runs no meter measured (the sim node
with ERGO_ENERGY=none): a model tuned on time, whose energies are null, and two runs with no
energy.  In headless Chromium the Pareto section and the comparison say no energy was measured
and draw no chart (before, every configuration sat at 0 J as if measured), with no console
error; the model's points have energy_j null, not 0.0."""
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import browser  # noqa: E402

ergo, app, work = sys.argv[1], sys.argv[2], sys.argv[3]
os.makedirs(work, exist_ok=True)
os.chdir(work)
env = dict(os.environ, ERGO_PLATFORM="sim", ERGO_ENERGY="none", ERGO_REPORT="none",
           ERGO_REPORT_STEPS="none", ERGO_BALANCE="none", ERGO_TUNE_PROGRESS="0")
for args in (["--policy", "monitor", "--report-json", "mon.json"],
             ["--policy", "online", "--objective", "time", "--model", "time-model.json",
              "--report-json", "online.json"]):
    out = subprocess.run([ergo, "run"] + args + ["--", app, "--steps", "60"], env=env,
                         capture_output=True, text=True)
    if out.returncode != 0:
        print(out.stdout + out.stderr + "FAIL: ergo run %s exited %d" % (args[1], out.returncode))
        sys.exit(1)
failures = []


def check(ok, what):
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok:
        failures.append(what)


with open("time-model.json") as f:
    model = json.load(f)
points = [p for r in model["regions"].values() for p in r["points"]]
check(points and all(p["energy_j"] is None for p in points) and
      all(r["baseline"]["energy_j"] is None for r in model["regions"].values()),
      "the model's %d points and its baselines have energy_j null" % len(points))
out = subprocess.run([ergo, "report", "--html", "ne.html", "mon.json", "time-model.json",
                      "online.json"], capture_output=True, text=True)
print(out.stdout + out.stderr, end="")
if out.returncode != 0:
    print("FAIL: ergo report --html exited %d" % out.returncode)
    sys.exit(1)
d = browser.start(width=1300, height=1000)
try:
    d.get("file://" + os.path.join(work, "ne.html"))
    for _ in range(100):
        if d.execute_script("return document.body.dataset.ready === '1'"):
            break
        time.sleep(0.1)
    check(d.execute_script("return document.body.dataset.ready === '1'"), "the page's script ran")
    errors = browser.console_errors(d)
    check(not errors, "no console error (%s)" % "; ".join(errors))
    drawn = d.execute_script("return window.ERGO_DRAWN")
    check(not [c for c in drawn if c.startswith("pareto") or c.startswith("compare")],
          "no Pareto plot or energy comparison drawn (%s)" % ", ".join(drawn))
    for sec in ("sec-pareto", "sec-compare"):
        text = d.execute_script("return document.getElementById('%s').innerText" % sec)
        check("No energy was measured" in text, "%s says no energy was measured" % sec)
finally:
    d.quit()
print("ergo report no energy: " + ("OK" if not failures else "FAILED (%d)" % len(failures)))
sys.exit(1 if failures else 0)
