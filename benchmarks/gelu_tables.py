"""Fit and print the coefficient table of the AVX-512 GELU (csrc/ops/cpu/vec_math.h, kGeluR).

GELU(z) = z Phi(z) is computed there as z q or z - z q with q = Phi(-a) = exp(-a^2 / 2) R(a), a = |z|, and
R(a) = Phi(-a) exp(a^2 / 2) = erfc(a / sqrt 2) exp(a^2 / 2) / 2, a smooth function (0.5 at 0, about
1 / (a sqrt(2 pi)) for large a).  R is tabulated in 32 pieces of width 1/2 centred at a = i / 2
(i = round(2a), 0..31), each a polynomial of degree 5 in u = 2a - i on [-1/2, 1/2] (piece 0 on [0, 1/2]).
Each piece is fitted for relative error by iteratively reweighted least squares (Lawson's algorithm, which
converges toward the minimax fit) in float64, its coefficients rounded to float, and the error of the float
Horner evaluation (FMAs, as the kernel does them) measured on a dense grid.

    python benchmarks/gelu_tables.py            # prints the C table and the largest relative error
"""

from __future__ import annotations

import argparse
import math

import numpy as np

PIECES, WIDTH_INV = 32, 2  # pieces of width 1 / WIDTH_INV


def r_exact(a: np.ndarray) -> np.ndarray:
    """R(a) = Phi(-a) exp(a^2 / 2) in float64 (math.erfc keeps its relative accuracy in the tail)."""
    return np.array([0.5 * math.erfc(x / math.sqrt(2.0)) * math.exp(x * x / 2.0) for x in a])


def fit_piece(i: int, degree: int, iterations: int = 40) -> np.ndarray:
    # a little past [-1/2, 1/2]: the kernel's round(2a) may land on either side of a tie
    u = np.linspace(0.0 if i == 0 else -0.5 - 1e-3, 0.5 + 1e-3, 800)
    y = r_exact((i + u) / WIDTH_INV)
    v = np.vander(u, degree + 1, increasing=True) / y[:, None]
    weights = np.ones_like(u)
    for _ in range(iterations):
        sw = np.sqrt(weights)
        c = np.linalg.lstsq(v * sw[:, None], sw, rcond=None)[0]
        err = np.abs(v @ c - 1.0)
        weights = weights * err
        weights /= weights.sum()
    return c


def horner_float(c32: np.ndarray, u: np.ndarray) -> np.ndarray:
    """The kernel's evaluation: float coefficients, one rounding per FMA (emulated in float64: exact
    products of two floats, one rounding of the sum to float)."""
    p = np.full(u.shape, c32[-1], dtype=np.float32)
    for k in range(len(c32) - 2, -1, -1):
        p = (p.astype(np.float64) * u.astype(np.float64) + np.float64(c32[k])).astype(np.float32)
    return p


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--degree", type=int, default=5)
    args = ap.parse_args()
    table, worst = [], 0.0
    for i in range(PIECES):
        c32 = fit_piece(i, args.degree).astype(np.float32)
        u = np.linspace(0.0 if i == 0 else -0.5, 0.5, 4001).astype(np.float32)
        ref = r_exact((i + u.astype(np.float64)) / WIDTH_INV)
        worst = max(worst, float(np.max(np.abs(horner_float(c32, u) - ref) / ref)))
        table.append(c32)
    coef = np.array(table)
    print(f"// R(a) = Phi(-a) exp(a^2 / 2): {PIECES} pieces, degree {args.degree}; "
          f"largest relative error {worst:.3g} (float Horner)")
    print(f"alignas(64) constexpr float kGeluR[{args.degree + 1}][{PIECES}] = {{")
    for k in range(args.degree + 1):
        print("    {" + ", ".join(f"{v:.9e}f" for v in coef[:, k]) + "},")
    print("};")


if __name__ == "__main__":
    main()
