import sys,statistics as st,collections
d=collections.defaultdict(list); o=collections.defaultdict(list)
for l in open(sys.argv[1]):
    if l.startswith('#'): continue
    f=l.split()
    if len(f)<12: continue
    who,name,dr=f[0],f[1],f[3]; ms=float(f[5]); on=float(f[11])
    d[(name,dr,who)].append(ms); o[(name,dr)].append(on)
names=[]
for (n,dr,w) in d:
    if (n,dr) not in names: names.append((n,dr))
print("| layer | dir | base min / med | new min / med | new/base (min) | oneDNN min / med | oneDNN/new (min) |")
print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
for n,dr in names:
    b=d[(n,dr,'base')]; w=d[(n,dr,'new')]; on=o[(n,dr)]
    print(f"| {n} | {dr} | {min(b):.3f} / {st.median(b):.3f} | {min(w):.3f} / {st.median(w):.3f} | {min(w)/min(b):.2f} | {min(on):.3f} / {st.median(on):.3f} | {min(on)/min(w):.2f} |")
