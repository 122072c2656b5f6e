"""mpi.py APP WORKDIR MPIEXEC [ARGS...] - the dashboard under MPI: 4 ranks on 2 pretend nodes
(ERGO_NODE_SPLIT=2); rank 0 alone serves (the URL is printed once), the node view has both nodes
with their ranks, whose lines reach rank 0 at each ergo_step, and a change of objective reaches
the whole job at a step."""
import json
import os
import sys
import time

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
sys.path.insert(0, os.path.join(here, "..", "browser"))
from app import Run  # noqa: E402

app, work, launcher = sys.argv[1], sys.argv[2], sys.argv[3:]
fails = []


def check(cond, what):
    print(("ok: " if cond else "FAIL: ") + what, flush=True)
    if not cond:
        fails.append(what)


r = Run(app, work, steps=60, launcher=launcher,
        env={"ERGO_NODE_SPLIT": "2", "OMP_NUM_THREADS": "1", "ERGO_DASHBOARD_STEP_MS": "150",
             "ERGO_STATE_DIR": os.path.join(work, "state"), "ERGO_REPORT_JSON": "report.json",
             "ERGO_REPORT_RANKS": "1"})
s = r.wait_step(3)
check(s["ranks"] == 4 and s["nodes"] == 2, "state: 4 ranks on 2 nodes (%d, %d)" % (s["ranks"], s["nodes"]))
nodes = json.loads(r.get("api/nodes")[1])
check([n["ranks"] for n in nodes] == [2, 2], "nodes: 2 ranks each (%s)" % nodes)
check(all(n["step_time_s"] > 0 and n["power_w"] > 0 for n in nodes),
      "nodes: each with its step time and power")
one = json.loads(r.get("api/all")[1])  # one snapshot
total = sum(n["energy_j"] for n in one["nodes"])
check(abs(one["state"]["energy_j"] - total) < 1e-6 * total and
      abs(one["timeline"]["points"][-1]["energy_j"] - sum(n["step_energy_j"] for n in one["nodes"]))
      < 1e-6 * total, "state and timeline: the job's energy, the nodes' sum")
check(len(one["timeline"]["points"][-1]["node_power_w"]) == 2, "timeline: each node's power")
ranks = json.loads(r.get("api/ranks")[1])
check([(x["rank"], x["node"]) for x in ranks] == [(0, 0), (1, 0), (2, 1), (3, 1)],
      "ranks: 4, two per node (%s)" % [(x["rank"], x["node"]) for x in ranks])
# The node view in a browser, where there is one (dashboard_browser checks the rest).
try:
    import browser  # noqa: E402
    driver = browser.start(1400, 900)
except SystemExit:
    driver = None
    print("no browser here: the node view's screenshot is left out")
if driver:
    try:
        driver.get(r.url)
        driver.find_element("id", "tab-nodes").click()
        end = time.time() + 30
        while time.time() < end and len(driver.find_elements("css selector", "#ranks tbody tr")) < 4:
            time.sleep(0.2)
        time.sleep(0.7)
        rows = len(driver.find_elements("css selector", "#nodes tbody tr"))
        check(rows == 2, "the node view lists 2 nodes (%d)" % rows)
        shot = os.path.join(work, "..", "dashboard-nodes-mpi.png")
        driver.save_screenshot(shot)
        check(os.path.getsize(shot) > 10000, "screenshot %s" % os.path.abspath(shot))
    finally:
        driver.quit()
at = json.loads(r.get("api/state")[1])["step"]
st, body = r.get("api/control?objective=time", method="POST", data=b"")
check(st == 200, "a change: accepted")
s = r.wait_step(at + 4)
check(s["objective"] == "time", "the change in force on rank 0 (%s)" % s["last_change"])
rc = r.finish()
check(rc == 0, "the job ends well (%d)" % rc)
check(sum("dashboard at http" in x for x in r.err) == 1, "rank 0 alone prints the URL")
# Every node's leader tunes under the new objective: the job's model says so.
model = json.load(open(os.path.join(work, "ergo-model.json")))
check(model.get("objective") == "time", "the job's model has the objective in force at the end")
# Rank 2 leads node 1: its own report says the objective it tuned under at the end.
facts = json.load(open(os.path.join(work, "report.rank2.json"))).get("run", {})
check(facts.get("objective") == "time", "node 1's leader (rank 2) took the change (%s)"
      % facts.get("objective"))
# A search the short job's end cut short (a first one, or one started again after its work
# changed) is said in a warning: the job is short by design.
odd = [x for x in r.err if ("warning" in x or "error" in x) and "did not converge" not in x
       and "did not end their search started again" not in x
       and "did not end its search started again" not in x]
check(not odd, "no other warning or error: %s" % odd)
if fails:
    print("FAIL: %d check(s) failed" % len(fails))
    sys.exit(1)
print("dashboard mpi: OK")
