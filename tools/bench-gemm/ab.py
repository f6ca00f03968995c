#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Compare bench-gemm builds on a noisy machine: alternate them.

    tools/bench-gemm/ab.py [--rounds R] [--threads T] OLD NEW [-- bench-gemm args]

Runs `OLD`, then `NEW` (any number of bench-gemm binaries, e.g. a copy of the
previous build), R times over, each with `--cpu-time --min-time 0.1` and the
given arguments (shapes, --isa ...), and prints per shape the median and the
best %peak of each binary.  With --threads 1 (default) the single-thread
column is compared; otherwise the T-thread column (wall clock, % of T times
the peak).  Alternating spreads the machine's slow phases over all binaries,
so their medians can be compared where one run each could not.  With
--dnnl (1 thread), each binary's column also gives the median %peak of
dnnl_sgemm measured in the same runs (after the slash-separated pair).
"""
import argparse
import collections
import statistics
import subprocess
import sys


def main():
    argv = sys.argv[1:]
    extra = []
    if "--" in argv:
        cut = argv.index("--")
        argv, extra = argv[:cut], argv[cut + 1:]
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--dnnl", action="store_true", help="also the median %%peak of dnnl_sgemm in the same runs")
    ap.add_argument("binaries", nargs="+")
    opt = ap.parse_args(argv)
    column = 4 if opt.threads == 1 else 6  # "%peak" of the 1-thread or T-thread column
    pct = collections.defaultdict(list)
    dnnl = collections.defaultdict(list)
    shapes = []
    for _ in range(opt.rounds):
        for b in opt.binaries:
            cmd = [b, "--threads", str(opt.threads), "--cpu-time", "--min-time", "0.1"] + extra
            out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
            peak = float(out.splitlines()[1].split("GFLOP/s")[0].split()[-1])  # "... loop) P GFLOP/s per core"
            for line in out.splitlines()[3:]:  # after the CPU, ISA and header lines
                f = line.split()
                shape = "x".join(f[0:3])
                if shape not in shapes:
                    shapes.append(shape)
                pct[(b, shape)].append(float(f[column].rstrip("%")))
                if opt.dnnl and opt.threads == 1 and len(f) > 8:  # built with oneDNN
                    dnnl[(b, shape)].append(100 * float(f[7]) / peak)
    print("%%peak, median / best of %d alternating runs, %d thread(s)" % (opt.rounds, opt.threads))
    width = 30 if opt.dnnl else 22
    print("shape".ljust(14) + "".join(b[-width + 2:].rjust(width) for b in opt.binaries))
    for s in shapes:
        cells = ["%5.1f / %5.1f" % (statistics.median(pct[(b, s)]), max(pct[(b, s)])) +
                 (" | %5.1f" % statistics.median(dnnl[(b, s)]) if dnnl[(b, s)] else "") for b in opt.binaries]
        print(s.ljust(14) + "".join(c.rjust(width) for c in cells))


if __name__ == "__main__":
    main()
