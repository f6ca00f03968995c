import sys,collections,statistics as st
d=collections.defaultdict(list); o=collections.defaultdict(list)
for l in open(sys.argv[1]):
    f=l.split()
    if len(f)<8 or f[6]=='ms': pass
    try:
        b=f[0]; layer=f[2]; dr=f[4]; t=float(f[6]); 
        d[(layer,dr,b)].append(t)
        if 'onednn' in f: o[(layer,dr)].append(float(f[f.index('onednn')+1]))
    except Exception as e: pass
bins=sorted({k[2] for k in d})
print("layer dir "+" ".join(f"{b}(min/med)" for b in bins)+" onednn(min/med)")
for (layer,dr) in sorted({(k[0],k[1]) for k in d}):
    row=[f"{min(d[(layer,dr,b)]):.2f}/{st.median(d[(layer,dr,b)]):.2f}" for b in bins]
    oo=o[(layer,dr)]
    print(layer,dr," ".join(row), f"{min(oo):.2f}/{st.median(oo):.2f}" if oo else "")
