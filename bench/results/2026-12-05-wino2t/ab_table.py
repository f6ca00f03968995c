"""ab.txt (run.sh) to a table: per layer and direction, base and new
1-thread CPU ms and 2-thread wall ms, median of the rounds (all values),
and the scaling wall(1)/wall(2) taken from the medians (the 1-thread
number is CPU time, so this reads the scaling on a quiet host only)."""
import re, sys, statistics as st
cur = None
vals = {}
loads = []
for line in open(sys.argv[1]):
    m = re.match(r"## round (\d) (base|new)", line)
    if m:
        who = m.group(2)
        continue
    m = re.match(r"# rep \d+ (\S+) (\S+)\s+.*load average: ([\d.]+)", line)
    if m:
        d, mode = m.group(1), m.group(2)
        loads.append(float(m.group(3)))
        continue
    f = line.split()
    if len(f) > 5 and f[1].startswith("mb="):
        vals.setdefault((f[0], d, who, mode), []).append(float(f[4]))
print("load average during the runs: %.1f - %.1f" % (min(loads), max(loads)))
print()
print("| layer | dir | base 1 thr CPU | new 1 thr CPU | base 2 thr wall | new 2 thr wall | base scaling | new scaling |")
print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
layers = sorted({k[0] for k in vals}, key=lambda s: int(re.search(r"res(\d)", s).group(1)))
for ly in layers:
    for d in ("fwd", "bwd_d", "bwd_w"):
        def cell(who, mode):
            v = vals.get((ly, d, who, mode), [])
            return (st.median(v), v) if v else (float("nan"), v)
        b1, b1v = cell("base", "1thr-cpu"); n1, n1v = cell("new", "1thr-cpu")
        b2, b2v = cell("base", "2thr-wall"); n2, n2v = cell("new", "2thr-wall")
        fmt = lambda m, v: "%.1f (%s)" % (m, ", ".join("%.1f" % x for x in v))
        print("| %s | %s | %s | %s | %s | %s | %.2fx | %.2fx |" % (ly.replace("r50_", ""), d, fmt(b1, b1v), fmt(n1, n1v), fmt(b2, b2v), fmt(n2, n2v), b1 / b2, n1 / n2))
