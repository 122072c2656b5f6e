"""app.py - the dashboard tests' mini-app run: ergo's sim mini-app (the one `ergo demo` runs)
with ERGO_DASHBOARD=127.0.0.1:0, its URL and token read from the line ergo prints once."""
import os
import re
import shutil
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request


class Run:
    def __init__(self, app, workdir, steps, env=None, wait_url=True, launcher=None):
        shutil.rmtree(workdir, ignore_errors=True)  # nothing from an earlier run
        os.makedirs(workdir)
        e = dict(os.environ)
        for k in list(e):
            if k.startswith("ERGO_"):
                del e[k]
        e.update({"ERGO_PLATFORM": "sim", "ERGO_POLICY": "online", "ERGO_TUNE_PROGRESS": "0",
                  "ERGO_REPORT": "none", "ERGO_DASHBOARD": "127.0.0.1:0",
                  "ERGO_DASHBOARD_STEP_MS": "150"})
        e.update(env or {})
        self.err = []
        self.proc = subprocess.Popen((launcher or []) + [app, "--steps", str(steps)], cwd=workdir, env=e,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        self._t = threading.Thread(target=self._read, daemon=True)
        self._t.start()
        self.url = self.base = self.token = None
        if wait_url:
            self.wait_url()

    def _read(self):
        for line in self.proc.stderr:
            self.err.append(line)

    def wait_url(self, timeout=30):
        end = time.time() + timeout
        while time.time() < end:
            for line in self.err:
                m = re.search(r"dashboard at (http://[0-9.:]+/)\?token=([0-9a-f]+)", line)
                if m:
                    self.base, self.token = m.group(1), m.group(2)
                    self.url = self.base + "?token=" + self.token
                    return
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        self.finish()
        sys.exit("FAIL: no dashboard URL on stderr:\n" + "".join(self.err))

    def get(self, path, token=True, method="GET", data=None, headers=None):
        """(status, body) of a request to path; token False leaves it out, a string replaces it."""
        url = self.base + path
        if token:
            url += ("&" if "?" in path else "?") + "token=" + (token if isinstance(token, str) else self.token)
        req = urllib.request.Request(url, method=method, data=data, headers=headers or {})
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                return r.status, r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode()

    def wait_step(self, step, timeout=60):
        import json
        end = time.time() + timeout
        while time.time() < end:
            st, body = self.get("api/state")
            if st == 200 and json.loads(body)["step"] >= step:
                return json.loads(body)
            time.sleep(0.1)
        sys.exit("FAIL: step %d never came" % step)

    def finish(self, timeout=120):
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self._t.join(5)
        return self.proc.returncode
