"""mpi.py APP WORKDIR MPIEXEC [ARGS...] - the dashboard under MPI: 4 ranks on 2 pretend nodes
(ERGO_NODE_SPLIT=2); rank 0 alone serves (the URL is printed once), the node view has both nodes
with their ranks, whose lines reach rank 0 at each ergo_step, and a change of objective reaches
the whole job at a step."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from app import Run  # noqa: E402

app, work, launcher = sys.argv[1], sys.argv[2], sys.argv[3:]
fails = []


def check(cond, what):
    print(("ok: " if cond else "FAIL: ") + what, flush=True)
    if not cond:
        fails.append(what)


r = Run(app, work, steps=30, launcher=launcher,
        env={"ERGO_NODE_SPLIT": "2", "OMP_NUM_THREADS": "1", "ERGO_DASHBOARD_STEP_MS": "150",
             "ERGO_STATE_DIR": os.path.join(work, "state"), "ERGO_REPORT_JSON": "report.json",
             "ERGO_REPORT_RANKS": "1"})
s = r.wait_step(3)
check(s["ranks"] == 4 and s["nodes"] == 2, "state: 4 ranks on 2 nodes (%d, %d)" % (s["ranks"], s["nodes"]))
nodes = json.loads(r.get("api/nodes")[1])
check([n["ranks"] for n in nodes] == [2, 2], "nodes: 2 ranks each (%s)" % nodes)
check(all(n["step_time_s"] > 0 and n["power_w"] > 0 for n in nodes),
      "nodes: each with its step time and power")
st, body = r.get("api/control?objective=time", method="POST", data=b"")
check(st == 200, "a change: accepted")
at = s["step"]
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
odd = [x for x in r.err if ("warning" in x or "error" in x) and "did not converge" not in x]
check(not odd, "no other warning or error: %s" % odd)
if fails:
    print("FAIL: %d check(s) failed" % len(fails))
    sys.exit(1)
print("dashboard mpi: OK")
