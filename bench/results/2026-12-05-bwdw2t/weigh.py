# Per-step weight of each layer: run.sh outputs (minima) times how often the
# layer occurs in ResNet-50 (backward data of the stem is not run: its input
# is the image).  usage: weigh.py OUTFILE [OUTFILE...]
import sys, collections
count = {"r50_stem_7x7s2": 1, "r50_res2_1x1_64_64": 1, "r50_res2_1x1_64_256": 4, "r50_res2_1x1_256_64": 2,
         "r50_res3_1x1_256_128": 1, "r50_res3_3x3s2_128": 1, "r50_res3_1x1_128_512": 4,
         "r50_res3_1x1s2_256_512": 1, "r50_res3_1x1_512_128": 3, "r50_res4_1x1_512_256": 1,
         "r50_res4_3x3s2_256": 1, "r50_res4_1x1_256_1024": 6, "r50_res4_1x1s2_512_1024": 1,
         "r50_res4_1x1_1024_256": 5, "r50_res5_1x1_1024_512": 1, "r50_res5_3x3s2_512": 1,
         "r50_res5_1x1_512_2048": 3, "r50_res5_1x1s2_1024_2048": 1, "r50_res5_1x1_2048_512": 2}
for fn in sys.argv[1:]:
    d = collections.defaultdict(list)
    for l in open(fn):
        if l.startswith('#'):
            continue
        w = l.split()
        d[(w[1], w[0])].append(float(w[5]))
        if 'onednn' in w:
            d[(w[1], 'dnnl')].append(float(w[w.index('onednn') + 1]))
    tot = collections.Counter()
    print(f"{fn}: layer x count, ms per step from minima (base / new / oneDNN)")
    for name, c in count.items():
        if (name, 'base') not in d or ('bwd_d' in fn and 'stem' in name):
            continue
        row = {who: c * min(d[(name, who)]) for who in ('base', 'new', 'dnnl')}
        tot.update(row)
        print(f"  {name:28s} x{c}  {row['base']:7.1f} {row['new']:7.1f} {row['dnnl']:7.1f}  gap new-oneDNN {row['new']-row['dnnl']:+6.1f}")
    print(f"  {'total':32s} {tot['base']:7.1f} {tot['new']:7.1f} {tot['dnnl']:7.1f}  oneDNN/new {tot['dnnl']/tot['new']:.2f}  new/base {tot['new']/tot['base']:.3f}")
