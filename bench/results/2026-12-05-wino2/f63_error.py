#!/usr/bin/python3
"""Float32 error of Winograd F(4x4,3x3) against F(6x6,3x3), against a float64
direct convolution, on random tiles with C input channels (the ResNet-50 3x3
channel counts).  The matrices are the Toom-Cook construction of
src/cpu/conv/conv_winograd_tf.h (computed exactly, rounded once to float32);
the transforms and the channel sums run in float32 (numpy), so the figures
are the method's rounding, not FreeDNN's exact operation order.  Printed per
C: the worst error in float ulps of sum |x w| behind an output (the metric
of tests/unit/test_conv.c, bound 128) and the worst |d| / max(1, |ref|)
(freednn-bench's err)."""
from fractions import Fraction as Fr
import numpy as np


def toom_cook(m, r, pts):
    n = m + r - 1
    assert len(pts) == n - 1
    at = [[Fr(0)] * n for _ in range(m)]
    g = [[Fr(0)] * r for _ in range(n)]
    bt = [[Fr(0)] * n for _ in range(n)]

    def poly_mul(a, b):
        out = [Fr(0)] * (len(a) + len(b) - 1)
        for i, x in enumerate(a):
            for j, y in enumerate(b):
                out[i + j] += x * y
        return out

    full = [Fr(1)]
    for p in pts:
        full = poly_mul(full, [-p, Fr(1)])
    for j, pj in enumerate(pts):
        mj = [Fr(1)]
        for l, pl in enumerate(pts):
            if l != j:
                mj = poly_mul(mj, [-pl, Fr(1)])
        nj = sum(c * pj ** k for k, c in enumerate(mj))
        for i in range(m):
            at[i][j] = pj ** i
        for k in range(r):
            g[j][k] = pj ** k / nj
        for k in range(n):
            bt[j][k] = mj[k] if k < len(mj) else Fr(0)
    at[m - 1][n - 1] = Fr(1)
    g[n - 1][r - 1] = Fr(1)
    for k in range(n):
        bt[n - 1][k] = full[k] if k < len(full) else Fr(0)
    f = lambda a: np.array([[float(x) for x in row] for row in a], dtype=np.float32)
    return f(at), f(g), f(bt)


def run(m, pts, c, k=8, tiles=512, seed=1):
    r = 3
    n = m + r - 1
    at, g, bt = toom_cook(m, r, pts)
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1, 1, (tiles, c, n, n)).astype(np.float32)
    w = rng.uniform(-1, 1, (k, c, r, r)).astype(np.float32)
    # float64 direct correlation and sum |products|
    x64, w64 = x.astype(np.float64), w.astype(np.float64)
    ref = np.zeros((tiles, k, m, m))
    mag = np.zeros((tiles, k, m, m))
    for i in range(m):
        for j in range(m):
            patch = x64[:, :, i:i + r, j:j + r]
            ref[:, :, i, j] = np.einsum('tcab,kcab->tk', patch, w64)
            mag[:, :, i, j] = np.einsum('tcab,kcab->tk', np.abs(patch), np.abs(w64))
    # float32 Winograd: U = G w G^T, V = B^T x B, M = sum_c U V, Y = A^T M A
    u = np.einsum('ia,kcab,jb->kcij', g, w, g).astype(np.float32)
    v = np.einsum('ia,tcab,jb->tcij', bt, x, bt).astype(np.float32)
    mm = np.zeros((tiles, k, n, n), dtype=np.float32)
    for ch in range(c):  # channel sums in float32, in order
        mm += (u[None, :, ch] * v[:, None, ch]).astype(np.float32)
    y = np.einsum('ia,tkab,jb->tkij', at, mm, at).astype(np.float32)
    d = np.abs(y.astype(np.float64) - ref)
    ulps = (d / (mag * 2.0 ** -24)).max()
    rel = (d / np.maximum(1, np.abs(ref))).max()
    return ulps, rel


if __name__ == '__main__':
    h = Fr(1, 2)
    sets = [
        ('F(4,3) 0,1,-1,1/2,-2 (FreeDNN)', 4, [Fr(0), Fr(1), Fr(-1), h, Fr(-2)]),
        ('F(4,3) 0,1,-1,2,-2', 4, [Fr(0), Fr(1), Fr(-1), Fr(2), Fr(-2)]),
        ('F(6,3) 0,1,-1,1/2,-1/2,2,-2', 6, [Fr(0), Fr(1), Fr(-1), h, -h, Fr(2), Fr(-2)]),
        ('F(6,3) 0,1,-1,1/2,-2,2,-1/2 (ext. order)', 6, [Fr(0), Fr(1), Fr(-1), h, Fr(-2), Fr(2), -h]),
        ('F(6,3) 0,1,-1,1/2,-1/2,1/4,-2', 6, [Fr(0), Fr(1), Fr(-1), h, -h, Fr(1, 4), Fr(-2)]),
    ]
    print('| tiles, points | C | worst ulps of sum abs(x w) | worst abs(d)/max(1,abs(ref)) |')
    print('| --- | ---: | ---: | ---: |')
    for name, m, pts in sets:
        for c in (64, 128, 256, 512):
            ulps, rel = run(m, pts, c, tiles=256 if c <= 128 else 96)
            print('| %s | %d | %.1f | %.2e |' % (name, c, ulps, rel))
