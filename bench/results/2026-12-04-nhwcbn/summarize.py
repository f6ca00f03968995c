#!/usr/bin/env python3
"""Tables of the nhwcbn measurements (run from this folder after run.sh)."""
import glob, re, statistics

def layers(path):
    """{(layer, dir): (algo, ms, onednn ms or None)} of one freednn-bench output."""
    out = {}
    for line in open(path):
        m = re.match(r"(r50_\S+)\s+mb=\d+\s+(\w+)\s+algo=(\d+)\s+([\d.]+) ms", line)
        if not m:
            continue
        d = re.search(r"onednn\s+([\d.]+) ms", line, re.I)
        out[(m.group(1), m.group(2))] = (int(m.group(3)), float(m.group(4)), float(d.group(1)) if d else None)
    return out

def ab(prefix):
    sides = {}
    for side in ("base", "new"):
        runs = [layers(f) for f in sorted(glob.glob(f"{prefix}_{side}_*.txt"))]
        keys = runs[0].keys()
        sides[side] = {k: statistics.median(r[k][1] for r in runs if k in r) for k in keys}
        sides[side + "_algo"] = {k: runs[0][k][0] for k in keys}
    print("| layer (mb=32, NHWC) | dir | base algo | base ms | new algo | new ms | speedup |")
    print("| --- | --- | --- | ---: | --- | ---: | ---: |")
    tb = tn = 0.0
    for k in sides["base"]:
        b, n = sides["base"][k], sides["new"][k]
        tb += b
        tn += n
        print(f"| {k[0]} | {k[1]} | {sides['base_algo'][k]} | {b:.2f} | {sides['new_algo'][k]} | {n:.2f} | {b / n:.2f}x |")
    print(f"| **sum** | all | | {tb:.1f} | | {tn:.1f} | **{tb / tn:.2f}x** |")

def net(prefix):
    print("| run | step ms | conv (fwd + bwd data + bwd filter) ms | batch norm (fwd + bwd) ms | load before/after |")
    print("| --- | ---: | ---: | ---: | --- |")
    for rep in (1, 2, 3):
        for side in ("base", "new"):
            f = f"{prefix}_{side}_{rep}.txt"
            try:
                t = open(f).read()
            except OSError:
                continue
            prof = dict((k, float(v)) for k, v in re.findall(r"(\w+\.\w+)=([\d.]+)", t))
            step = re.search(r"FreeDNN NHWC: ([\d.]+) ms", t)
            loads = re.findall(r"load average: ([\d.]+)", t)
            conv = sum(v for k, v in prof.items() if k.startswith("conv."))
            bn = sum(v for k, v in prof.items() if k.startswith("bn."))
            print(f"| {side} {rep} | {step.group(1) if step else '?'} | {conv:.0f} | {bn:.0f} | {'/'.join(loads)} |")

def vs_onednn(path):
    rows = layers(path)
    print("| layer | dir | algo | FreeDNN ms | oneDNN ms | ratio |")
    print("| --- | --- | --- | ---: | ---: | ---: |")
    sums = {"fwd": [0.0, 0.0], "bwd": [0.0, 0.0]}
    for (name, d), (algo, ms, dn) in rows.items():
        if dn is None:
            continue
        print(f"| {name} | {d} | {algo} | {ms:.2f} | {dn:.2f} | {dn / ms:.2f} |")
        s = sums["fwd" if d == "fwd" else "bwd"]
        s[0] += ms
        s[1] += dn
    for k, (a, b) in sums.items():
        print(f"| **sum {k}** | | | {a:.1f} | {b:.1f} | **{b / a:.2f}** |")

if __name__ == "__main__":
    print("## Winograd A/B (3x3 stride-1 layers, medians of 3 runs' medians)\n")
    ab("wino_ab")
    print("\n## Training step\n")
    net("net_nhwc")
    import os
    if os.path.exists("layers_mb32_new.txt"):
        print("\n## ResNet-50 mb=32 set against oneDNN NHWC\n")
        vs_onednn("layers_mb32_new.txt")
