# Per-thread work of the NHWC 1x1 backward filter in place at 2 threads, old (tasks = threads,
# each a range of B strips over all positions, each packing all of the small operand) vs new
# (12/6/4/2 position chunks): the busiest thread's share of the kernel work and its bytes read.
import math
def tile(ns, nl):
    pa = lambda m, n, mr, nr: math.ceil(m / mr) * mr * math.ceil(n / nr) * nr
    if nl <= 16: return 28, 16
    if ns <= 8 or pa(ns, nl, 8, 48) < pa(ns, nl, 14, 32) * 0.97: return 8, 48
    return 14, 32
def chunks(rows):
    for c in (12, 6, 4, 2):
        if rows >= c * 256: return c
    return 1
layers = [("mbv2_16_96",16,96,112),("mbv2_32_16",32,16,112),("mbv2_24_144",24,144,56),("mbv2_144_24",144,24,56),
          ("mbv2_192_32",192,32,28),("mbv2_32_192",32,192,28),("r50_64_64",64,64,56),("r50_64_256",64,256,56),
          ("r50_256_64",256,64,56),("r50_256_128",256,128,56),("r50_128_512",128,512,28),("r50_512_128",512,128,28)]
print("| layer | ns x nl | tile | strips | old: busiest thread's kernel share | old: bytes read per thread (busiest), MB | new: chunks | new: busiest share | new: bytes per thread, MB |")
print("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
for name, c, k, hw in layers:
    rows = 32 * hw * hw
    ns, nl = min(c, k), max(c, k)
    if ns > 128 or nl > 512: continue
    mr, nr = tile(ns, nl)
    S = math.ceil(nl / nr)
    t0 = S - S // 2  # strips of the busier task
    old_share = t0 / S
    old_bytes = rows * 4 * (ns + min(nl, t0 * nr)) / 1e6
    ch = chunks(rows); busiest = math.ceil(ch / 2)
    new_share = busiest / ch
    new_bytes = rows * 4 * (ns + nl) * busiest / ch / 1e6
    print(f"| {name} | {ns} x {nl} | {mr}x{nr} | {S} | {old_share:.2f} | {old_bytes:.0f} | {ch} | {new_share:.2f} | {new_bytes:.0f} |")
