# bench/ab-layers.sh output -> per layer min / median of base, new, oneDNN (3 decimals).
import sys, statistics as st, collections
d = collections.defaultdict(list)
for l in open(sys.argv[1]):
    if l.startswith('#'):
        continue
    w = l.split(); who, name = w[0], w[1]
    d[(name, who)].append(float(w[5]))
    if 'onednn' in w:
        d[(name, 'dnnl')].append(float(w[w.index('onednn') + 1]))
print("| layer | base min / med | new min / med | new / base (min) | oneDNN min / med | oneDNN / new (min) |")
print("| --- | ---: | ---: | ---: | ---: | ---: |")
for name in dict.fromkeys(k[0] for k in d):
    b, a, o = d[(name, 'base')], d[(name, 'new')], d[(name, 'dnnl')]
    print(f"| {name} | {min(b):.3f} / {st.median(b):.3f} | {min(a):.3f} / {st.median(a):.3f} | {min(a)/min(b):.2f} | "
          f"{min(o):.3f} / {st.median(o):.3f} | {min(o)/min(a):.2f} |")
