# SPDX-License-Identifier: Apache-2.0
"""libcublas.so.12 (compat/cublas) against numpy (the system BLAS) on random
shapes, through ctypes, as a program sees the library: column-major
matrices inside larger buffers (leading dimensions larger than the rows,
with the gaps checked untouched), every transpose, scalars by pointer.
Covers ?gemm, ?gemv, ?ger, ?geam, ?trsm, the level 1 functions and GemmEx
with FP16/BF16 operands.  usage: FDNN_CUBLAS=path/libcublas.so.12 python3 this"""
import ctypes as C
import os
import sys

import numpy as np

lib = C.CDLL(os.environ["FDNN_CUBLAS"])
rng = np.random.default_rng(2026)
failures = 0
checks = 0
OPS = {0: "N", 1: "T", 2: "C"}


def check(ok, what):
    global failures, checks
    checks += 1
    if not ok:
        failures += 1
        print("FAILED:", what)


def ptr(a):
    return a.ctypes.data_as(C.c_void_p)


def scalar(v, dt):
    return ptr(np.array([v], dtype=dt))


handle = C.c_void_p()
assert lib.cublasCreate_v2(C.byref(handle)) == 0


def embed(rows, cols, ld, dt, fill=None):
    """A column-major rows x cols matrix inside an ld x cols buffer; the
    buffer (flat, Fortran order) and the matrix view."""
    buf = np.full((ld, max(cols, 1)), 777.0 if fill is None else fill, dtype=dt, order="F")
    view = buf[:rows, :cols]
    return buf, view


def op(m, t):
    return m.T if t else m


def gemm_case(dt, name, eps):
    ta, tb = int(rng.integers(0, 3)), int(rng.integers(0, 3))
    m, n, k = (int(rng.integers(1, 90)) for _ in range(3))
    ar, ac = (k, m) if ta else (m, k)
    br, bc = (n, k) if tb else (k, n)
    lda, ldb, ldc = ar + int(rng.integers(0, 6)), br + int(rng.integers(0, 6)), m + int(rng.integers(0, 6))
    abuf, a = embed(ar, ac, lda, dt)
    bbuf, b = embed(br, bc, ldb, dt)
    cbuf, c = embed(m, n, ldc, dt)
    a[:] = rng.uniform(-1, 1, a.shape)
    b[:] = rng.uniform(-1, 1, b.shape)
    c[:] = rng.uniform(-1, 1, c.shape)
    alpha, beta = float(rng.uniform(-2, 2)), float(rng.choice([0.0, 1.0, rng.uniform(-2, 2)]))
    if beta == 0.0:
        c[:] = np.nan
    want = alpha * (op(a.astype(np.float64), ta) @ op(b.astype(np.float64), tb))
    if beta != 0.0:
        want += beta * c.astype(np.float64)
    mag = abs(alpha) * (np.abs(op(a, ta)).astype(np.float64) @ np.abs(op(b, tb)).astype(np.float64)) + 1e-30
    gap = cbuf[m:, :].copy()
    st = getattr(lib, name)(handle, ta, tb, m, n, k, scalar(alpha, dt), ptr(abuf), lda, ptr(bbuf), ldb,
                            scalar(beta, dt), ptr(cbuf), ldc)
    err = np.max(np.abs(cbuf[:m, :n] - want) / ((2 * k + 8) * eps * (mag + (abs(beta) * np.abs(want) if beta else 0))))
    check(st == 0 and err <= 1.0 and np.array_equal(gap, cbuf[m:, :]),
          f"{name} {OPS[ta]}{OPS[tb]} m={m} n={n} k={k} ld={lda},{ldb},{ldc} beta={beta} err={err:.3g} st={st}")


for _ in range(40):
    gemm_case(np.float32, "cublasSgemm_v2", 2.0**-24)
    gemm_case(np.float64, "cublasDgemm_v2", 2.0**-53)


def gemv_case(dt, name, eps):
    t = int(rng.integers(0, 2))
    m, n = int(rng.integers(1, 200)), int(rng.integers(1, 200))
    lda = m + int(rng.integers(0, 5))
    abuf, a = embed(m, n, lda, dt)
    a[:] = rng.uniform(-1, 1, a.shape)
    lx, ly = (m, n) if t else (n, m)
    incx, incy = int(rng.choice([1, 2, -1])), int(rng.choice([1, 3]))
    x = rng.uniform(-1, 1, lx * abs(incx)).astype(dt)
    y = rng.uniform(-1, 1, ly * incy).astype(dt)
    xs = x[:: abs(incx)][:lx] if incx > 0 else x[:: abs(incx)][:lx][::-1]
    alpha, beta = 0.5, -1.25
    want = alpha * (op(a.astype(np.float64), t) @ xs.astype(np.float64)) + beta * y[::incy].astype(np.float64)
    y_other = np.delete(y, np.arange(0, len(y), incy)).copy()
    st = getattr(lib, name)(handle, t, m, n, scalar(alpha, dt), ptr(abuf), lda, ptr(x), incx, scalar(beta, dt),
                            ptr(y), incy)
    err = np.max(np.abs(y[::incy] - want)) / (lx * eps * 8 + 1e-300)
    check(st == 0 and err <= 4.0 and np.array_equal(y_other, np.delete(y, np.arange(0, len(y), incy))),
          f"{name} {OPS[t]} m={m} n={n} incx={incx} incy={incy} err={err:.3g}")


for _ in range(20):
    gemv_case(np.float32, "cublasSgemv_v2", 2.0**-24)
    gemv_case(np.float64, "cublasDgemv_v2", 2.0**-53)

# ger, geam, trsm, level 1 in both precisions.
for dt, p, eps in ((np.float32, "S", 2.0**-24), (np.float64, "D", 2.0**-53)):
    for _ in range(10):
        m, n = int(rng.integers(1, 60)), int(rng.integers(1, 60))
        lda = m + 3
        abuf, a = embed(m, n, lda, dt)
        a[:] = rng.uniform(-1, 1, a.shape)
        x, y = rng.uniform(-1, 1, m).astype(dt), rng.uniform(-1, 1, 2 * n).astype(dt)
        want = a.astype(np.float64) + 0.75 * np.outer(x, y[::2]).astype(np.float64)
        st = getattr(lib, f"cublas{p}ger_v2")(handle, m, n, scalar(0.75, dt), ptr(x), 1, ptr(y), 2, ptr(abuf), lda)
        check(st == 0 and np.allclose(abuf[:m, :n], want, rtol=0, atol=8 * eps) and np.all(abuf[m:, :] == 777),
              f"{p}ger m={m} n={n}")

        ta, tb = int(rng.integers(0, 2)), int(rng.integers(0, 2))
        abuf, a = embed(*((n, m) if ta else (m, n)), (n if ta else m) + 2, dt)
        bbuf, b = embed(*((n, m) if tb else (m, n)), (n if tb else m) + 1, dt)
        cbuf, c = embed(m, n, m + 4, dt)
        a[:] = rng.uniform(-1, 1, a.shape)
        b[:] = rng.uniform(-1, 1, b.shape)
        st = getattr(lib, f"cublas{p}geam")(handle, ta, tb, m, n, scalar(2.0, dt), ptr(abuf), abuf.shape[0],
                                            scalar(-0.5, dt), ptr(bbuf), bbuf.shape[0], ptr(cbuf), cbuf.shape[0])
        want = 2.0 * op(a.astype(np.float64), ta) - 0.5 * op(b.astype(np.float64), tb)
        check(st == 0 and np.allclose(cbuf[:m, :n], want, rtol=0, atol=8 * eps) and np.all(cbuf[m:, :] == 777),
              f"{p}geam {ta}{tb} m={m} n={n}")

        side, uplo, t, diag = (int(v) for v in rng.integers(0, 2, 4))
        order = n if side else m
        abuf, a = embed(order, order, order + 2, dt)
        tri = np.tril(rng.uniform(-0.5, 0.5, (order, order)) / order, -1) + np.diag(rng.uniform(1, 2, order))
        if uplo:
            tri = tri.T
        a[:] = tri
        eff = tri.copy()
        if diag:
            np.fill_diagonal(eff, 1.0)
        bbuf, b = embed(m, n, m + 1, dt)
        b[:] = rng.uniform(-1, 1, b.shape)
        b0 = b.astype(np.float64).copy()
        st = getattr(lib, f"cublas{p}trsm_v2")(handle, side, uplo, t, diag, m, n, scalar(1.5, dt), ptr(abuf),
                                               abuf.shape[0], ptr(bbuf), bbuf.shape[0])
        opa = op(eff, t)
        want = np.linalg.solve(opa, 1.5 * b0) if side == 0 else np.linalg.solve(opa.T, 1.5 * b0.T).T
        check(st == 0 and np.allclose(bbuf[:m, :n], want, rtol=0, atol=64 * order * eps) and np.all(bbuf[m:, :] == 777),
              f"{p}trsm side={side} uplo={uplo} t={t} diag={diag} m={m} n={n}")

    nn = 1000
    x, y = rng.uniform(-1, 1, 2 * nn).astype(dt), rng.uniform(-1, 1, nn).astype(dt)
    res = np.zeros(1, dtype=dt)
    idx = np.zeros(1, dtype=np.int32)
    lib[f"cublas{p}dot_v2"](handle, nn, ptr(x), 2, ptr(y), 1, ptr(res))
    check(abs(res[0] - np.dot(x[::2].astype(np.float64), y)) <= nn * eps, f"{p}dot")
    lib[f"cublas{p}nrm2_v2"](handle, nn, ptr(x), 2, ptr(res))
    check(abs(res[0] - np.linalg.norm(x[::2].astype(np.float64))) <= nn * eps * res[0], f"{p}nrm2")
    lib[f"cublas{p}asum_v2"](handle, nn, ptr(x), 2, ptr(res))
    check(abs(res[0] - np.sum(np.abs(x[::2].astype(np.float64)))) <= nn * eps * res[0], f"{p}asum")
    lib[f"cublasI{p.lower()}amax_v2"](handle, nn, ptr(x), 2, ptr(idx))
    check(idx[0] == np.argmax(np.abs(x[::2])) + 1, f"I{p.lower()}amax")
    lib[f"cublasI{p.lower()}amin_v2"](handle, nn, ptr(x), 2, ptr(idx))
    check(idx[0] == np.argmin(np.abs(x[::2])) + 1, f"I{p.lower()}amin")
    y0 = y.copy()
    lib[f"cublas{p}axpy_v2"](handle, nn, scalar(-0.5, dt), ptr(x), 2, ptr(y), 1)
    check(np.array_equal(y, (y0 + dt(-0.5) * x[::2]).astype(dt)), f"{p}axpy")
    lib[f"cublas{p}scal_v2"](handle, nn, scalar(3.0, dt), ptr(y), 1)
    check(np.allclose(y, 3.0 * (y0 - 0.5 * x[::2]), rtol=4 * eps, atol=0), f"{p}scal")

# GemmEx: FP16 and BF16 operands, FP32 compute, FP32 or 16-bit output.
CUDA_R_16F, CUDA_R_32F, CUDA_R_16BF, COMPUTE_32F = 2, 0, 14, 68


def to_bf16(a):
    """float32 -> bfloat16 bits (uint16), nearest even; and its value."""
    u = a.astype(np.float32).view(np.uint32).astype(np.uint64)
    r = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    return r, (r.astype(np.uint32) << 16).view(np.float32)


for _ in range(20):
    m, n, k = (int(rng.integers(1, 70)) for _ in range(3))
    ta, tb = int(rng.integers(0, 2)), int(rng.integers(0, 2))
    kind = [CUDA_R_16F, CUDA_R_16BF][int(rng.integers(0, 2))]
    ctype = [CUDA_R_32F, kind][int(rng.integers(0, 2))]
    a = rng.uniform(-1, 1, (k, m) if ta else (m, k)).astype(np.float32)
    b = rng.uniform(-1, 1, (n, k) if tb else (k, n)).astype(np.float32)
    if kind == CUDA_R_16F:
        a16, b16 = np.asfortranarray(a.astype(np.float16)), np.asfortranarray(b.astype(np.float16))
        av, bv = a16.astype(np.float64), b16.astype(np.float64)
    else:
        (a16, av), (b16, bv) = to_bf16(np.asfortranarray(a)), to_bf16(np.asfortranarray(b))
        a16, b16 = np.asfortranarray(a16), np.asfortranarray(b16)
        av, bv = av.astype(np.float64), bv.astype(np.float64)
    want = op(av, ta) @ op(bv, tb)
    cdt = np.float32 if ctype == CUDA_R_32F else (np.float16 if ctype == CUDA_R_16F else np.uint16)
    c = np.zeros((m, n), dtype=cdt, order="F")
    st = lib.cublasGemmEx(handle, ta, tb, m, n, k, scalar(1.0, np.float32), ptr(a16), kind, a16.shape[0], ptr(b16),
                          kind, b16.shape[0], scalar(0.0, np.float32), ptr(c), ctype, m, COMPUTE_32F, -1)
    got = c.astype(np.float64) if ctype != CUDA_R_16BF else (c.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    out_eps = {CUDA_R_32F: 2.0**-24, CUDA_R_16F: 2.0**-11, CUDA_R_16BF: 2.0**-8}[ctype]
    mag = np.abs(op(av, ta)) @ np.abs(op(bv, tb))
    ok = np.all(np.abs(got - want) <= (2 * k + 8) * 2.0**-24 * mag + out_eps * np.abs(want) + 1e-30)
    check(st == 0 and ok, f"GemmEx in={kind} out={ctype} {ta}{tb} m={m} n={n} k={k} st={st}")

lib.cublasDestroy_v2(handle)
print(f"test_cublas_numpy: {checks - failures} passed, {failures} failed")
sys.exit(1 if failures else 0)
