#!/usr/bin/env python3
"""min / median ms per layer of run.sh outputs: base, new, oneDNN (both runs)."""
import statistics, sys
for f in sys.argv[1:]:
    d = {}
    for line in open(f):
        if line.startswith('#') or not line.strip():
            continue
        w = line.split()
        who, layer, ms, dnnl = w[0], w[1], float(w[5]), float(w[11])
        d.setdefault(layer, {}).setdefault(who, []).append(ms)
        d[layer].setdefault('onednn', []).append(dnnl)
    print(f"{f}: ms, min / median of rounds")
    print("| layer | base | new | new/base (min) | oneDNN | oneDNN/new (min) |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for layer, v in d.items():
        s = {k: (min(x), statistics.median(x)) for k, x in v.items()}
        print(f"| {layer} | {s['base'][0]:.1f} / {s['base'][1]:.1f} | {s['new'][0]:.1f} / {s['new'][1]:.1f} | "
              f"{s['new'][0] / s['base'][0]:.2f} | {s['onednn'][0]:.1f} / {s['onednn'][1]:.1f} | "
              f"{s['onednn'][0] / s['new'][0]:.2f} |")
    print()
