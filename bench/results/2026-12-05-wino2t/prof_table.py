"""Summarises prof.sh's output: per layer, direction and thread count, each
thread's CPU ms per call in each phase (and its wall ms where it was
descheduled), and the bench's time."""
import re, sys
runs, cur = [], None
for line in open(sys.argv[1]):
    if line.startswith("== "):
        f = line.split()
        cur = {"layer": f[1], "dir": f[2], "t": int(f[4]), "ph": {}, "ms": None, "load": line.split("load average:")[1].split(",")[0].strip()}
        runs.append(cur)
    elif line.startswith("wprof"):
        f = line.split()
        cur["ph"][(int(f[2]), f[4])] = (int(f[6]), float(f[8]), float(f[10]))
    elif " ms " in line and cur is not None:
        cur["ms"] = float(line.split(" ms ")[0].split()[-1])
print("| layer | dir | thr | bench ms | calls | per call, thread: phase cpu ms (wall ms) | sum cpu per call | load |")
print("| --- | --- | ---: | ---: | ---: | --- | ---: | ---: |")
for r in runs:
    calls = [v[0] for (t, p), v in r["ph"].items() if p.endswith("_call")]
    n = calls[0] if calls else 1
    cells, tot = [], 0.0
    for t in sorted({t for t, _ in r["ph"]}):
        parts = []
        for (tt, p), (c, cpu, wall) in sorted(r["ph"].items()):
            if tt != t or p.endswith("_call"):
                continue
            tot += cpu / n
            parts.append("%s %.2f (%.2f)" % (p, cpu / n, wall / n))
        cells.append("T%d: " % t + ", ".join(parts))
    callwall = [v[2] / v[0] for (t, p), v in r["ph"].items() if p.endswith("_call")]
    print("| %s | %s | %d | %s | %d | %s | %.2f | %s |" % (r["layer"], r["dir"], r["t"], r["ms"], n, "; ".join(cells), tot, r["load"]))
