"""report_png.py ERGO DIR - `ergo report --png` and `--svg` on the runs of
tests/tools/report_runs.sh (in DIR): a Pareto plot as a PNG of the page's size with a drawn chart
in it, and the region tree as a standalone SVG (parsed as XML: the regions' boxes, SIMULATED in
its title).  Skipped, with the reason, only where Chromium is absent."""
import os
import shutil
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET

ergo, work = sys.argv[1], sys.argv[2]
os.chdir(work)
if not any(shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome")):
    print("SKIPPED: Chromium is not installed (apt-get install chromium): ergo report --png "
          "renders with it")
    sys.exit(77)
failures = []


def check(ok, what):
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok:
        failures.append(what)


def ergo_report(*args):
    out = subprocess.run([ergo, "report"] + list(args), capture_output=True, text=True)
    print(out.stdout + out.stderr, end="")
    return out.returncode


region = "Global/Timestep/HYDRO_ACCEL/HYDRO_COMM"
for f in ("pareto.png", "tree.svg"):
    if os.path.exists(f):
        os.unlink(f)
rc = ergo_report("--png", "pareto.png", "--chart", "pareto:" + region, "monitor.json",
                 "sweep-model.json", "oracle.json")
check(rc == 0, "ergo report --png exited 0")
with open("pareto.png", "rb") as f:
    png = f.read()
check(png[:8] == b"\x89PNG\r\n\x1a\n", "pareto.png is a PNG")
w, h = struct.unpack(">II", png[16:24])
check((w, h) == (1000, 640), "pareto.png is the page's size, 1000x640 (%dx%d)" % (w, h))
# A blank page of that size compresses to a few kB; a scatter plot with its labels does not.
check(len(png) > 20000, "pareto.png has a chart drawn in it (%d bytes)" % len(png))

rc = ergo_report("--svg", "tree.svg", "--chart", "tree", "monitor.json")
check(rc == 0, "ergo report --svg exited 0")
root = ET.parse("tree.svg").getroot()
ns = "{http://www.w3.org/2000/svg}"
check(root.tag == ns + "svg", "tree.svg is an SVG document (%s)" % root.tag)
rects = root.findall(".//" + ns + "rect")
titles = " ".join(t.text or "" for t in root.findall(".//" + ns + "title"))
check(len(rects) > 20, "tree.svg has the regions' boxes (%d)" % len(rects))
check("HYDRO_ACCEL" in titles, "tree.svg names the mini-app's regions")
texts = " ".join(t.text or "" for t in root.findall(".//" + ns + "text"))
check("[SIMULATED]" in texts, "tree.svg says SIMULATED")
print("ergo report png: " + ("OK" if not failures else "FAILED (%d)" % len(failures)))
sys.exit(1 if failures else 0)
