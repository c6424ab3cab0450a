#!/usr/bin/env python3
"""Checks ops/llama/sdpa_blas_order.cpp against the BLAS the official runtime's custom_sdpa
calls in the Python package (Intel MKL inside torch's libtorch_cpu.so), bit for bit.

    .venv/bin/python scripts/mkl_gemv_order.py [--tree K]

It compiles sdpa_blas_order.cpp into a temporary shared library (g++, -ffp-contract=off),
then for random inputs compares
  - blas_gemv1_dot (scalar and AVX-512) with sgemm_('T', 'N', m, 1, k) (one query row's q.k^T),
  - blas_gemv1_value (scalar and AVX-512) with sgemm_('N', 'N', D, 1, L) (its p.V),
  - blas_gemm2_dot (scalar and AVX-512) with sgemm_('T', 'N', m, 2, k) (two query rows),
over head dims and key counts where MKL runs on one thread (torch.set_num_threads(1)).
--tree K prints MKL's summation tree of q.k^T for head dim K (each key kernel), found by
placing +2^100 / -2^100 at two positions among ones: the result counts the ones outside
the smallest partial sum holding both (how the orders were found).
"""
import argparse
import ctypes
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parent.parent
MKL = ctypes.CDLL(os.path.join(os.path.dirname(torch.__file__), "lib", "libtorch_cpu.so"))
F32 = np.float32


def _i(v):
    return ctypes.byref(ctypes.c_int(v))


def _f(v):
    return ctypes.byref(ctypes.c_float(v))


def sgemm(ta, tb, m, n, k, a, lda, b, ldb, c, ldc):
    MKL.sgemm_(ctypes.c_char_p(ta), ctypes.c_char_p(tb), _i(m), _i(n), _i(k), _f(1.0), ctypes.c_void_p(a.ctypes.data),
               _i(lda), ctypes.c_void_p(b.ctypes.data), _i(ldb), _f(0.0), ctypes.c_void_p(c.ctypes.data), _i(ldc))


def mkl_dot(A, lda, m, k, q):
    c = np.zeros(m, F32)
    sgemm(b"T", b"N", m, 1, k, A, lda, q, k, c, m)
    return c


def mkl_value(V, ldv, D, L, p):
    c = np.zeros(D, F32)
    sgemm(b"N", b"N", D, 1, L, V, ldv, p, L, c, D)
    return c


def build_ours(tmp):
    so = Path(tmp) / "order.so"
    subprocess.run(["g++", "-std=c++20", "-O2", "-ffp-contract=off", "-fPIC", "-shared", f"-I{ROOT}",
                    str(ROOT / "ops/llama/sdpa_blas_order.cpp"), "-o", str(so)], check=True)
    lib = ctypes.CDLL(str(so))
    L = ctypes.c_int64
    dots, vals, dots2 = {}, {}, {}
    for name, sym in [("scalar", "_ZN3pte14blas_gemm2_dotEPKfS1_l"), ("avx512", "_ZN3pte21blas_gemm2_dot_avx512EPKfS1_l")]:
        f = getattr(lib, sym)
        f.restype, f.argtypes = ctypes.c_float, [ctypes.c_void_p, ctypes.c_void_p, L]
        dots2[name] = f
    for name, sym in [("scalar", "_ZN3pte14blas_gemv1_dotEPKfS1_lll"), ("avx512", "_ZN3pte21blas_gemv1_dot_avx512EPKfS1_lll")]:
        f = getattr(lib, sym)
        f.restype, f.argtypes = ctypes.c_float, [ctypes.c_void_p, ctypes.c_void_p, L, L, L]
        dots[name] = f
    for name, sym in [("scalar", "_ZN3pte16blas_gemv1_valueEPKflS1_llPf"), ("avx512", "_ZN3pte23blas_gemv1_value_avx512EPKflS1_llPf")]:
        f = getattr(lib, sym)
        f.argtypes = [ctypes.c_void_p, L, ctypes.c_void_p, L, L, ctypes.c_void_p]
        vals[name] = f
    return lib, dots, vals, dots2


def check(rng, dots, vals, dots2):
    bad = 0
    for k in [48, 64, 96, 128]:
        for m in [2, 3, 4, 5, 9, 17, 34, 60]:
            lda = 3 * k
            A = rng.standard_normal(lda * m + k).astype(F32)
            q = rng.standard_normal(2 * k).astype(F32)
            ref = np.zeros(2 * m, F32)
            sgemm(b"T", b"N", m, 2, k, A, lda, q, k, ref, m)
            for name, f in dots2.items():
                ours = np.array([f(A.ctypes.data + 4 * j * lda, q.ctypes.data + 4 * c * k, k) for c in range(2)
                                 for j in range(m)], F32)
                w = int((ours != ref).sum())
                if w:
                    print(f"q.k^T two rows {name}: head dim {k}, {m} keys: {w} scores differ")
                bad += w
    for k in [8, 16, 17, 32, 33, 48, 64, 80, 96, 128]:
        for m in [1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 30, 63, 64, 65, 90]:
            lda = 3 * k
            A = rng.standard_normal(lda * m + k).astype(F32)
            q = rng.standard_normal(k).astype(F32)
            ref = mkl_dot(A, lda, m, k, q)
            for name, f in dots.items():
                ours = np.array([f(A.ctypes.data + 4 * j * lda, q.ctypes.data, k, j, m) for j in range(m)], F32)
                w = int((ours != ref).sum())
                if w:
                    print(f"q.k^T {name}: head dim {k}, {m} keys: {w} scores differ")
                bad += w
    for D in [3, 8, 16, 20, 24, 32, 40, 64, 128]:
        for L in [1, 2, 5, 7, 8, 9, 15, 16, 17, 24, 31, 33, 60, 90]:
            ldv = 3 * D
            V = rng.standard_normal(ldv * L + D).astype(F32)
            p = np.abs(rng.standard_normal(L)).astype(F32)
            ref = mkl_value(V, ldv, D, L, p)
            for name, f in vals.items():
                out = np.zeros(D, F32)
                f(V.ctypes.data, ldv, p.ctypes.data, L, D, out.ctypes.data)
                w = int((out != ref).sum())
                if w:
                    print(f"p.V {name}: head dim {D}, {L} keys: {w} outputs differ")
                bad += w
    return bad


def tree(k, m=5):
    big = F32(2.0 ** 100)
    lda = 3 * k
    S = np.zeros((m, k, k), np.int32)
    ones = np.ones(k, F32)
    for a in range(k):
        for b in range(a + 1, k):
            A = np.ones(lda * m + k, F32)
            for j in range(m):
                A[j * lda + a], A[j * lda + b] = big, -big
            S[:, a, b] = S[:, b, a] = k - np.rint(mkl_dot(A, lda, m, k, ones)).astype(np.int32)

    def build(Sj):
        node = {i: i for i in range(k)}
        rep = list(range(k))
        for size in sorted(set(Sj[np.triu_indices(k, 1)].tolist())):
            groups = {}
            for a in range(k):
                for b in range(a + 1, k):
                    if Sj[a, b] == size and rep[a] != rep[b]:
                        ra, rb = rep[a], rep[b]
                        lo = min(ra, rb)
                        groups.setdefault(lo, {ra, rb}).update({ra, rb})
                        for i in range(k):
                            if rep[i] in (ra, rb):
                                rep[i] = lo
            for lo, members in groups.items():
                node[lo] = tuple(node[x] for x in sorted(members))
        return node[0]

    for j in range(m):
        print(f"key {j} of {m}:", build(S[j]))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tree", type=int, default=0, help="print MKL's q.k^T summation tree for this head dim")
    args = ap.parse_args()
    torch.set_num_threads(1)
    if args.tree:
        tree(args.tree)
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        _, dots, vals, dots2 = build_ours(tmp)
        bad = check(np.random.default_rng(0), dots, vals, dots2)
    print("all equal to MKL" if bad == 0 else f"{bad} values differ from MKL")
    return 0 if bad == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
