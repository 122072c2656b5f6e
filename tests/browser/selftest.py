"""selftest.py - the browser harness itself: a file:// page's script runs and draws a Chart.js
canvas from the embedded copy, and a request to another host fails (no network from a page)."""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import browser  # noqa: E402

chartjs = sys.argv[1]
d = browser.start()
try:
    with tempfile.TemporaryDirectory() as tmp:
        page = os.path.join(tmp, "t.html")
        with open(chartjs) as f:
            lib = f.read()
        with open(page, "w") as f:
            f.write("<html><body><canvas id=c width=200 height=100></canvas><script>" + lib +
                    "</script><script>new Chart(document.getElementById('c'),{type:'bar',"
                    "data:{labels:['a'],datasets:[{data:[1]}]},options:{animation:false}});"
                    "fetch('http://example.org/').then(()=>document.title='net',"
                    "()=>document.title='nonet');</script></body></html>")
        d.get("file://" + page)
        import time
        for _ in range(50):
            if d.title:
                break
            time.sleep(0.1)
        drawn = d.execute_script(
            "const c=document.getElementById('c');const x=c.getContext('2d')"
            ".getImageData(0,0,c.width,c.height).data;let n=0;"
            "for(let i=3;i<x.length;i+=4) if(x[i]) n++; return n;")
        print("title=%s drawn_pixels=%d" % (d.title, drawn))
        ok = d.title == "nonet" and drawn > 100
        print("browser harness: " + ("OK" if ok else "FAILED"))
        sys.exit(0 if ok else 1)
finally:
    d.quit()
