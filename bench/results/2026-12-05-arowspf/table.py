# Per (layer, direction): base and new medians (and minima) over the rounds of run.sh's output, new / base.
import sys, statistics as st, collections
d = collections.defaultdict(list)
for l in open(sys.argv[1]):
    if l.startswith('#') or not l.strip():
        continue
    w = l.split()
    d[(w[1], w[3], w[0])].append(float(w[5]))
print("| layer | dir | base ms (median / min) | new ms (median / min) | new / base (median, min) |")
print("| --- | --- | ---: | ---: | ---: |")
tb = tn = 0
for name, dr in dict.fromkeys((k[0], k[1]) for k in d):
    b = d[(name, dr, 'base')]; a = d[(name, dr, 'new')]
    if not b or not a:
        continue
    tb += st.median(b); tn += st.median(a)
    print(f"| {name} | {dr} | {st.median(b):.2f} / {min(b):.2f} | {st.median(a):.2f} / {min(a):.2f} | "
          f"{st.median(a)/st.median(b):.2f}, {min(a)/min(b):.2f} |")
print(f"| sum | | {tb:.1f} | {tn:.1f} | {tn/tb:.3f} |")
