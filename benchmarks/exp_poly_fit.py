"""Fit and print the polynomial of the AVX2 / AVX-512 exp (csrc/ops/cpu/vec_math.h, exp_reduced_vf).

After the Cody-Waite reduction x = n ln2 + r, |r| <= ln2 / 2, the kernel computes
    e^r ~ 1 + r (1 + r (c2 + r (c3 + r (c4 + r (c5 + r c6)))))
in Horner form, one FMA per degree (6 FMAs; the Cephes form before it, 1 + r + r^2 P(r) with P of degree 5,
took 5 FMAs, a multiply, an add and a last FMA).  c0 = c1 = 1 are kept exact, so the last two FMAs round
next to 1; c2..c6 are fitted for relative error by iteratively reweighted least squares (Lawson's algorithm,
which converges toward the minimax fit) in float64 on Chebyshev nodes, rounded to float, and the float
Horner evaluation (one rounding per FMA, emulated in float64) is measured on a dense grid, in ulp of the
correctly rounded e^r.  benchmarks/exp_ulp_sweep.py then measures the kernel itself over every float.

    python benchmarks/exp_poly_fit.py            # prints the coefficients and the errors
"""

from __future__ import annotations

import argparse
import math

import numpy as np

HALF_LN2 = math.log(2.0) / 2


def fit(degree: int, iterations: int = 60, nodes: int = 2000) -> np.ndarray:
    """c2..c_degree minimising max |(1 + r + r^2 Q(r)) / e^r - 1| over |r| <= ln2 / 2 (a little past it: the
    reduction's r may overshoot by an ulp or so)."""
    k = np.arange(nodes)
    r = (HALF_LN2 * 1.001) * np.cos(np.pi * (k + 0.5) / nodes)
    y = np.exp(r)
    # relative error: (1 + r + r^2 Q) / e^r - 1 = (r^2 / e^r) Q - (e^r - 1 - r) / e^r
    a = np.vander(r, degree - 1, increasing=True) * (r * r / y)[:, None]
    b = (np.expm1(r) - r) / y
    w = np.ones_like(r) / nodes
    for _ in range(iterations):
        sw = np.sqrt(w)
        c = np.linalg.lstsq(a * sw[:, None], b * sw, rcond=None)[0]
        err = np.abs(a @ c - b)
        w = w * err
        w /= w.sum()
    return c


def horner_float(c32: np.ndarray, r: np.ndarray) -> np.ndarray:
    """The kernel's evaluation: float coefficients, one rounding per FMA (products of two floats are exact in
    float64; the sum is rounded once to float)."""
    rd = r.astype(np.float64)
    p = np.full(r.shape, c32[-1], dtype=np.float32)
    for ck in list(c32[-2::-1]) + [np.float32(1.0), np.float32(1.0)]:
        p = (p.astype(np.float64) * rd + np.float64(ck)).astype(np.float32)
    return p


def ulp_error(p: np.ndarray, r: np.ndarray) -> np.ndarray:
    exact = np.exp(r.astype(np.float64))
    ulp = np.ldexp(1.0, np.frexp(exact.astype(np.float32).astype(np.float64))[1] - 24)
    return np.abs(p.astype(np.float64) - exact) / ulp


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--degree", type=int, default=6)
    args = ap.parse_args()
    c = fit(args.degree)
    k = np.arange(2, args.degree + 1)
    r = np.linspace(-HALF_LN2, HALF_LN2, 2_000_001)
    rel = np.abs((1 + r + r * r * np.polyval(c[::-1], r)) / np.exp(r) - 1).max()
    c32 = c.astype(np.float32)
    r32 = r.astype(np.float32)
    err = ulp_error(horner_float(c32, r32), r32)
    for i, ci in zip(k, c32):
        print(f"c{i} = {float(ci):.10e}f   (1/{i}! = {1 / math.factorial(i):.10e})")
    print(f"relative error of the float64 fit: {rel:.3e} ({rel / 2**-24:.4f} ulp of 2^-24)")
    print(f"float Horner, {r32.size} points on |r| <= ln2/2: max {err.max():.4f} ulp at r = {float(r32[err.argmax()]):.6g}")


if __name__ == "__main__":
    main()
