"""server_rules.py APP WORKDIR LIBERGO SONAME - the dashboard's server without a browser: the
token (403 without it or with a wrong one), path traversal, oversized requests, a bad change
refused with the reason, changes of policy, the read-only mode, a busy port and a missing
libergo-dashboard (one warning each, the run goes on), and the JSON endpoints' content."""
import json
import os
import shutil
import socket
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from app import Run  # noqa: E402

app, work, libergo, soname = sys.argv[1:5]
fails = []


def check(cond, what):
    print(("ok: " if cond else "FAIL: ") + what, flush=True)
    if not cond:
        fails.append(what)


r = Run(app, os.path.join(work, "rw"), steps=40)  # no tuning model there: static cannot start
check(r.get("api/state", token=False)[0] == 403, "no token: 403")
check(r.get("", token=False)[0] == 403, "the page without the token: 403")
check(r.get("api/state", token="0" * 32)[0] == 403, "a wrong token: 403")
check(r.get("api/state", token=r.token[:-1])[0] == 403, "a truncated token: 403")
st, _ = r.get("api/state", token=False, headers={"X-Ergo-Token": r.token})
check(st in (200, 503), "the token in the X-Ergo-Token header: accepted (%d)" % st)
s = r.wait_step(2)
check(s["policy"] == "online" and s["objective"] == "energy@5%" and s["control"],
      "state: policy online, objective energy@5%%, control on (%s)" % s)
st, body = r.get("api/regions")
regions = json.loads(body) if st == 200 else []
paths = {x["path"] for x in regions}
check({"Global", "Global/Timestep", "Global/Timestep/FIND_HSML"} <= paths,
      "regions: the mini-app's tree (%d regions)" % len(paths))
check(any(x["tuned"] and x["setting"] for x in regions), "regions: tuned ones with their setting")
st, body = r.get("api/timeline")
tl = json.loads(body) if st == 200 else {}
check(st == 200 and len(tl.get("points", [])) >= 2 and tl["points"][-1]["power_w"] > 0,
      "timeline: one point per step with power")
st, body = r.get("api/nodes")
check(st == 200 and json.loads(body)[0]["ranks"] == 1, "nodes: one node, one rank")
st, body = r.get("api/ranks")
check(st == 200 and len(json.loads(body)) == 1, "ranks: this process alone")
check(r.get("api/../../etc/passwd")[0] in (400, 404), "path traversal: refused")
check(r.get("..%2f..%2fetc%2fpasswd")[0] in (400, 404), "escaped path traversal: refused")
check(r.get("chart.min.js")[0] == 200 and r.get("dashboard.js")[0] == 200, "the embedded files")
check(r.get("nosuch.js")[0] == 404, "an unknown file: 404")
check(r.get("api/state?x=" + "a" * 2000)[0] == 414, "a URL over 1024 bytes: 414")
check(r.get("api/control?objective=time", method="POST", data=b"x" * 10000)[0] == 413,
      "a body over 4096 bytes: 413")
check(r.get("api/control?objective=time", method="GET")[0] == 405, "a change by GET: 405")
st, body = r.get("api/control?objective=weighted:t=1,e=-2", method="POST", data=b"")
check(st == 400 and "weighted" in body, "a bad objective: 400 with the reason (%s)" % body)
st, body = r.get("api/control?policy=nosuch", method="POST", data=b"")
check(st == 400 and "nosuch" in body, "an unknown policy: 400 with the reason")
st, body = r.get("api/control?objective=time", method="POST", data=b"")
check(st == 200, "a change: accepted (%s)" % body)
s0 = s["step"]
s = r.wait_step(s0 + 3)
check(s["objective"] == "time" and "objective time" in s["last_change"],
      "the change in force at a later step (%s)" % s["last_change"])
st, body = r.get("api/control?policy=sweep", method="POST", data=b"")
s = r.wait_step(s["step"] + 2)
check(st == 200 and s["policy"] == "sweep", "a change of policy: sweep in force (%s)" % s["last_change"])
st, body = r.get("api/control?policy=static", method="POST", data=b"")
s = r.wait_step(s["step"] + 2)
check(s["policy"] == "monitor" and "refused" in s["last_change"] and "model" in s["last_change"],
      "a policy that cannot start: refused with the reason, monitor in force (%s)" % s["last_change"])
rc = r.finish()
check(rc == 0, "the run ends well (%d)" % rc)
check(sum("dashboard at http" in x for x in r.err) == 1, "the URL is printed once")

# Read-only: a change is refused with 403.
r = Run(app, os.path.join(work, "ro"), steps=6, env={"ERGO_DASHBOARD_CONTROL": "0"})
r.wait_step(1)
st, body = r.get("api/control?objective=time", method="POST", data=b"")
check(st == 403 and "read-only" in body, "ERGO_DASHBOARD_CONTROL=0: a change gets 403")
check(json.loads(r.get("api/state")[1])["control"] is False, "ERGO_DASHBOARD_CONTROL=0: state says so")
check(r.finish() == 0, "the read-only run ends well")

# A busy port: one warning, the run goes on.
sk = socket.socket()
sk.bind(("127.0.0.1", 0))
sk.listen(1)
port = sk.getsockname()[1]
r = Run(app, os.path.join(work, "busy"), steps=3, wait_url=False,
        env={"ERGO_DASHBOARD": "127.0.0.1:%d" % port, "ERGO_DASHBOARD_STEP_MS": "0"})
rc = r.finish()
sk.close()
warn = [x for x in r.err if "ERGO_DASHBOARD" in x and "warning" in x]
check(rc == 0 and len(warn) == 1 and "Address already in use" in warn[0],
      "a busy port: one warning, the run goes on (%s)" % "".join(warn).strip())

# No libergo-dashboard beside the libergo in use, nor on the library path: one warning.
alone = os.path.join(work, "alone")
shutil.rmtree(alone, ignore_errors=True)
os.makedirs(alone)
shutil.copy(libergo, os.path.join(alone, soname))
r = Run(app, os.path.join(work, "missing"), steps=3, wait_url=False,
        env={"LD_LIBRARY_PATH": alone, "ERGO_DASHBOARD_STEP_MS": "0"})
rc = r.finish()
warn = [x for x in r.err if "ERGO_DASHBOARD" in x and "warning" in x]
check(rc == 0 and len(warn) == 1 and "libergo-dashboard" in warn[0] and alone in warn[0],
      "no libergo-dashboard: one warning, the run goes on (%s)" % "".join(warn).strip())

if fails:
    print("FAIL: %d check(s) failed" % len(fails))
    sys.exit(1)
print("dashboard http: OK")
