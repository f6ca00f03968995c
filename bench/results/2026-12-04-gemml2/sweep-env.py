#!/usr/bin/env python3
# sweep-env.py ROUNDS "ENV=V ..." ... -- SHAPES: alternates one bench-gemm under several
# environment settings (a setting starting with BASE runs build-base/bench-gemm), prints the
# median / best %peak of fdnn_sgemm, 1 thread, CPU time.
import os, subprocess, sys, statistics, collections
argv=sys.argv[1:]; cut=argv.index("--"); cfgs=argv[1:cut]; shapes=argv[cut+1:]; R=int(argv[0])
B="build/tools/bench-gemm/bench-gemm"  # run from the worktree root
pct=collections.defaultdict(list)
for r in range(R):
    for c in cfgs:
        env=dict(os.environ)
        for kv in c.split():
            k,v=kv.split("="); env[k]=v
        bin_=B
        if c.startswith("BASE"): bin_="build-base/bench-gemm"
        out=subprocess.run([bin_,"--threads","1","--cpu-time","--min-time","0.1","--only","fdnn"]+shapes if not c.startswith("BASE") else [bin_,"--threads","1","--cpu-time","--min-time","0.1"]+shapes,env=env,capture_output=True,text=True).stdout
        for line in out.splitlines()[3:]:
            f=line.split(); pct[(c,"x".join(f[0:3]))].append(float(f[4].rstrip("%")))
print(os.popen("uptime").read().strip())
print("cfg".ljust(40)+"".join(s.rjust(16) for s in shapes))
for c in cfgs:
    print(c.ljust(40)+"".join(("%5.1f/%5.1f"%(statistics.median(pct[(c,s)]),max(pct[(c,s)]))).rjust(16) for s in shapes))
