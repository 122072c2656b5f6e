"""report.py ERGO DIR - `ergo report --html` on the runs of tests/tools/report_runs.sh (in DIR): a
sweep model and the oracle, the mini-app's monitor, static and online runs on the sim node, a real
run's power timeline and the online run's balance lines.  The page is opened in headless Chromium from
file:// (no host resolves): every chart is drawn (a canvas with painted pixels, an SVG with
coloured boxes), there is no console error, every section that shows a simulated run says
SIMULATED, and a screenshot PNG of each section is kept in DIR/shots/ (section-*.png)."""
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import browser  # noqa: E402

ergo, work = sys.argv[1], sys.argv[2]
os.chdir(work)
out = subprocess.run([ergo, "report", "--html", "report.html", "monitor.json", "sweep-model.json",
                      "power.csv", "online-balance.txt", "oracle.json", "static.json",
                      "online.json"],
                     capture_output=True, text=True)
print(out.stdout + out.stderr, end="")
if out.returncode != 0:
    print("FAIL: ergo report --html exited %d" % out.returncode)
    sys.exit(1)

shots = os.path.join(work, "shots")
os.makedirs(shots, exist_ok=True)
failures = []


def check(ok, what):
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok:
        failures.append(what)


d = browser.start(width=1300, height=1000)
try:
    d.get("file://" + os.path.join(work, "report.html"))
    for _ in range(100):
        if d.execute_script("return document.body.dataset.ready === '1'"):
            break
        time.sleep(0.1)
    check(d.execute_script("return document.body.dataset.ready === '1'"), "the page's script ran")
    errors = browser.console_errors(d)
    check(not errors, "no console error (%s)" % "; ".join(errors))
    drawn = d.execute_script("return window.ERGO_DRAWN")
    print("charts drawn: %d: %s" % (len(drawn), ", ".join(drawn)))
    import json
    with open("sweep-model.json") as f:
        regions = sorted(json.load(f)["regions"])
    want = ["tree-time", "tree-energy", "compare", "compare-regions", "power", "balance"] + \
        ["pareto:" + r for r in regions]
    check(sorted(drawn) == sorted(want),
          "every chart drawn: tree by time and energy, %d Pareto plots (one per region of the "
          "model), compare (totals and per region), power, balance" % len(regions))
    # A canvas has painted pixels; an SVG has coloured boxes (not just its white background).
    canvases = d.execute_script("""
        return [...document.querySelectorAll('canvas[data-chart]')].map(c => {
          const x = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
          let n = 0; for (let i = 3; i < x.length; i += 4) if (x[i]) n++;
          return [c.dataset.chart, c.width, c.height, n]; });""")
    for name, w, h, n in canvases:
        check(n > 0.01 * w * h, "canvas %s (%dx%d) painted: %d pixels" % (name, w, h, n))
    svgs = d.execute_script("""
        return [...document.querySelectorAll('svg[data-chart]')].map(s => [s.dataset.chart,
          [...s.querySelectorAll('rect')].filter(r => r.getAttribute('fill') !== '#ffffff' &&
            r.getBBox().width > 0).length]);""")
    for name, n in svgs:
        check(n >= 10, "svg %s drawn: %d coloured boxes" % (name, n))
    check(len(canvases) + len(svgs) == len(want), "one canvas or SVG per chart")
    # The regions of the mini-app are in the tree; every simulated figure says so.
    tree_text = d.execute_script(
        "return [...document.querySelectorAll('#sec-tree svg title')].map(t => t.textContent)"
        ".join('\\n')")
    check("FIND_HSML" in tree_text and "HYDRO_ACCEL" in tree_text,
          "the tree shows the mini-app's regions (FIND_HSML, HYDRO_ACCEL)")
    for sec in ("sec-tree", "sec-pareto", "sec-compare", "sec-balance"):
        n = d.execute_script(
            "return document.querySelectorAll('#%s .badge.SIMULATED').length" % sec)
        check(n > 0, "%s says SIMULATED (%d badges)" % (sec, n))
    power_label = d.execute_script(
        "return [...document.querySelectorAll('#sec-power .badge')].map(b => b.textContent)")
    check(power_label == ["ESTIMATE"], "the power timeline (estimate meter) says ESTIMATE")
    oracles = d.execute_script("""
        return [...document.querySelectorAll('#sec-pareto canvas')].filter(c =>
          Chart.getChart(c).data.datasets.some(s => /^oracle.*\\[SIMULATED\\]/.test(s.label)))
          .length""")
    with open("oracle.json") as f:
        in_oracle = set(json.load(f)["regions"]) & set(regions)
    check(oracles == len(in_oracle) and len(in_oracle) >= len(regions) - 2,
          "every Pareto plot of a region the oracle knows marks it, SIMULATED (%d of %d; %d "
          "regions in both files)" % (oracles, len(regions), len(in_oracle)))
    savings = d.execute_script("return document.querySelector('#sec-compare table').innerText")
    check("monitor.json" in savings and "ref" in savings and "%" in savings,
          "the comparison has monitor.json as reference and the others' savings")
    # A screenshot of each section (the window as tall as the page, so none is cut), and of the
    # first Pareto plot alone.
    height = d.execute_script("return document.documentElement.scrollHeight")
    d.set_window_size(1300, min(height + 200, 16000))
    time.sleep(0.5)
    for sec in ("sec-tree", "sec-pareto", "sec-compare", "sec-power", "sec-balance"):
        path = os.path.join(shots, "section-%s.png" % sec[4:])
        el = d.find_element("id", sec)
        d.execute_script("arguments[0].scrollIntoView()", el)
        ok = el.screenshot(path)
        size = os.path.getsize(path) if ok and os.path.exists(path) else 0
        check(size > 5000, "screenshot %s (%d bytes)" % (path, size))
    cell = d.find_element("css selector", "#sec-pareto .cell")
    d.execute_script("arguments[0].scrollIntoView()", cell)
    cell.screenshot(os.path.join(shots, "pareto-cell.png"))
finally:
    d.quit()
print("ergo report html: " + ("OK" if not failures else "FAILED (%d)" % len(failures)))
sys.exit(1 if failures else 0)
