# Summarises a bench/ab-layers.sh output: per layer, base / new / oneDNN medians and minima.
import sys, statistics as st, collections
d = collections.defaultdict(list)
for l in open(sys.argv[1]):
    if l.startswith('#'):
        continue
    w = l.split(); who, name = w[0], w[1]
    d[(name, who)].append(float(w[5]))
    if 'onednn' in w:
        d[(name, 'dnnl')].append(float(w[w.index('onednn') + 1]))
print("| layer | base ms (median / min) | new ms (median / min) | new / base (min) | oneDNN ms (median / min) | oneDNN / new (median, min/min) |")
print("| --- | ---: | ---: | ---: | ---: | ---: |")
for name in dict.fromkeys(k[0] for k in d):
    b = d[(name, 'base')]; a = d[(name, 'new')]; o = d[(name, 'dnnl')]
    print(f"| {name} | {st.median(b):.1f} / {min(b):.1f} | {st.median(a):.1f} / {min(a):.1f} | {min(a)/min(b):.2f} | "
          f"{st.median(o):.1f} / {min(o):.1f} | {st.median(o)/st.median(a):.2f}, {min(o)/min(a):.2f} |")
