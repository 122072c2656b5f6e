"""identical.py APP WORKDIR - a run's results are byte-identical with the dashboard on (and read
all the time by a client) and off, when nobody changes the tuner: the text, JSON and CSV
reports, the step and balance files and the tuning model, timestamps and ergo's real-time cost
aside."""
import os
import re
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from app import Run  # noqa: E402

app, work = sys.argv[1], sys.argv[2]
FILES = ["report.txt", "report.json", "report.csv", "model.json", "ergo-steps.txt",
         "ergo-balance.txt"]
env = {"ERGO_REPORT": "report.txt", "ERGO_REPORT_JSON": "report.json",
       "ERGO_REPORT_CSV": "report.csv", "ERGO_MODEL": "model.json"}
STEPS = 60


def normal(path):
    with open(path) as f:
        text = f.read()
    text = re.sub(r'"date": *"[^"]*"', '"date": "-"', text)
    text = re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", "-", text)
    return re.sub(r"ergo overhead: .*", "ergo overhead: -", text)


# On, with a client reading every endpoint while the run goes.
on = Run(app, os.path.join(work, "on"), steps=STEPS, env=dict(env, ERGO_DASHBOARD_STEP_MS="20"))
reads = [0]
stop = threading.Event()


def client():
    while not stop.is_set():
        for part in ("all", "state", "regions", "timeline", "nodes"):
            try:
                if on.get("api/" + part)[0] == 200:
                    reads[0] += 1
            except OSError:  # the run has ended
                return


t = threading.Thread(target=client, daemon=True)
t.start()
rc_on = on.finish()
stop.set()
t.join(10)
off = Run(app, os.path.join(work, "off"), steps=STEPS, wait_url=False,
          env=dict(env, ERGO_DASHBOARD=""))
rc_off = off.finish()
bad = 0
if rc_on or rc_off:
    print("FAIL: the runs ended with %d (on) and %d (off)" % (rc_on, rc_off))
    bad = 1
if reads[0] < 20:
    print("FAIL: the client read only %d snapshots during the run" % reads[0])
    bad = 1
if any("dashboard at" in x for x in off.err):
    print("FAIL: the run without ERGO_DASHBOARD started a dashboard")
    bad = 1
for f in FILES:
    a, b = os.path.join(work, "on", f), os.path.join(work, "off", f)
    if not (os.path.exists(a) and os.path.exists(b)):
        print("FAIL: %s is missing from a run" % f)
        bad = 1
    elif normal(a) != normal(b):
        print("FAIL: %s differs with the dashboard on and off" % f)
        bad = 1
    else:
        print("same: %s (%d bytes)" % (f, os.path.getsize(a)))
if bad:
    sys.exit(1)
print("the client read %d snapshots during the run" % reads[0])
print("dashboard identical: OK")
