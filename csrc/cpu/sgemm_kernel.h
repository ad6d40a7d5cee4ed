// fp32 GEMM by our own kernel: Goto/BLIS-style cache blocking, packed panels, and a register-blocked
// micro-kernel of broadcast FMAs written with at::vec::Vectorized<float>.
//
//   for jc (NC columns of B/C)          B panel KC x NC packed once per (jc, pc), shared by all threads
//     for pc (KC deep slices of K)
//       parallel over (ic, column group)  each task packs its own MC x KC block of A (stays in L2)
//         for jr (NR-wide micro-panels of B: kept in L1 across the ir loop)
//           for ir (MR-tall micro-panels of A)
//             micro-kernel: C[MR x NR] (+)= A[MR x KC] * B[KC x NR] in MR * NR/V vector registers
//
// Packing reads A and B through their strides, so transposed or otherwise strided inputs need no
// copy; panels are zero-padded to MR / NR so the micro-kernel never branches on the edge.
// MR/NR per variant: AVX512 (32 zmm): 14 x 32 -> 28 accumulators + 2 B vectors + 1 broadcast;
// AVX2 (16 ymm): 6 x 16 -> 12 + 2 + 1; DEFAULT (emulated 8-wide): 6 x 16.

#if defined(CPU_CAPABILITY_AVX512)
constexpr int kMR = 14;
constexpr int kNV = 2;
#else
constexpr int kMR = 6;
constexpr int kNV = 2;
#endif
constexpr int kNR = kNV * Vec::size();
// Depth of a packed slice.  Measured on the Zen 4 this was tuned on (2048^3, 1 and 2 threads): KC 256
// -> 512 gave about +6%; the B micro-panel (KC*NR*4 = 64 KiB) and the A micro-panels then come from
// L2, whose bandwidth easily covers 2 vector loads + 14 broadcasts per 28 FMAs, and there are half
// as many passes over C and half as many parallel regions (barriers).  768 was within noise of 512.
constexpr int64_t kKC = 512;
constexpr int64_t kMC = 168;   // rows of A per task (multiple of every MR): MC*KC*4 = 336 KiB in L2
constexpr int64_t kNC = 3072;  // columns of B per packed panel: KC*NC*4 = 6 MiB in L3

template <int MR, int NV>
inline void micro_kernel(int64_t kc, const float* __restrict__ pa, const float* __restrict__ pb,
                         float* __restrict__ c, int64_t ldc, bool accumulate, int64_t mr_valid, int64_t nr_valid) {
  constexpr int64_t V = Vec::size();
  constexpr int64_t NR = NV * V;
  Vec acc[MR][NV];
#pragma GCC unroll 16
  for (int i = 0; i < MR; ++i)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) acc[i][v] = Vec(0.f);
  for (int64_t p = 0; p < kc; ++p) {
    Vec bv[NV];
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) bv[v] = Vec::loadu(pb + p * NR + v * V);
#pragma GCC unroll 16
    for (int i = 0; i < MR; ++i) {
      const Vec av(pa[p * MR + i]);
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) acc[i][v] = at::vec::fmadd(av, bv[v], acc[i][v]);
    }
  }
  if (mr_valid == MR && nr_valid == NR) {
#pragma GCC unroll 16
    for (int i = 0; i < MR; ++i)
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) {
        float* cp = c + i * ldc + v * V;
        (accumulate ? Vec::loadu(cp) + acc[i][v] : acc[i][v]).store(cp);
      }
    return;
  }
  for (int i = 0; i < MR; ++i) {
    if (i >= mr_valid) break;
    for (int v = 0; v < NV; ++v) {
      const int64_t cnt = std::min<int64_t>(V, nr_valid - v * V);
      if (cnt <= 0) break;
      float* cp = c + i * ldc + v * V;
      (accumulate ? Vec::loadu(cp, cnt) + acc[i][v] : acc[i][v]).store(cp, cnt);
    }
  }
}

// A block rows [i0, i0+mc) x depth [p0, p0+kc) -> micro-panels of MR rows, k-major, zero-padded.
inline void pack_a(const float* a, int64_t sa0, int64_t sa1, int64_t i0, int64_t mc, int64_t p0, int64_t kc,
                   float* dst) {
  for (int64_t ir = 0; ir < mc; ir += kMR) {
    const int64_t rows = std::min<int64_t>(kMR, mc - ir);
    const float* src = a + (i0 + ir) * sa0 + p0 * sa1;
    if (rows == kMR) {
      for (int64_t p = 0; p < kc; ++p)
#pragma GCC unroll 16
        for (int i = 0; i < kMR; ++i) dst[p * kMR + i] = src[i * sa0 + p * sa1];
    } else {
      for (int64_t p = 0; p < kc; ++p)
        for (int i = 0; i < kMR; ++i) dst[p * kMR + i] = i < rows ? src[i * sa0 + p * sa1] : 0.f;
    }
    dst += kc * kMR;
  }
}

// B panel depth [p0, p0+kc) x columns [j0 + jr0, j0 + jr1) (micro-panel aligned) -> micro-panels of
// NR columns, k-major, zero-padded.
inline void pack_b(const float* b, int64_t sb0, int64_t sb1, int64_t p0, int64_t kc, int64_t j0, int64_t nc,
                   int64_t jr0, int64_t jr1, float* panel) {
  constexpr int64_t V = Vec::size();
  for (int64_t jr = jr0; jr < jr1; jr += kNR) {
    float* dst = panel + jr * kc;
    const int64_t cols = std::min<int64_t>(kNR, nc - jr);
    const float* src = b + p0 * sb0 + (j0 + jr) * sb1;
    if (cols == kNR && sb1 == 1) {
      for (int64_t p = 0; p < kc; ++p)
#pragma GCC unroll 4
        for (int v = 0; v < kNV; ++v) Vec::loadu(src + p * sb0 + v * V).store(dst + p * kNR + v * V);
    } else {
      for (int64_t p = 0; p < kc; ++p)
        for (int64_t j = 0; j < kNR; ++j) dst[p * kNR + j] = j < cols ? src[p * sb0 + j * sb1] : 0.f;
    }
  }
}

void sgemm_kernel(const float* a, int64_t sa0, int64_t sa1, const float* b, int64_t sb0, int64_t sb1, float* c,
                  int64_t m, int64_t n, int64_t k) {
  if (m == 0 || n == 0) return;
  if (k == 0) {
    std::fill(c, c + m * n, 0.f);
    return;
  }
  const int64_t threads = at::get_num_threads();
  // Rows per task: about kMC, but balanced so the number of row blocks is a multiple of the
  // thread count where that is possible (2048 rows on 2 threads: 14 blocks of 147 -> 154 rows).
  int64_t n_ic = (m + kMC - 1) / kMC;
  if (n_ic > 1 && threads > 1) n_ic = (n_ic + threads - 1) / threads * threads;
  int64_t mc_blk = (m + n_ic - 1) / n_ic;
  mc_blk = (mc_blk + kMR - 1) / kMR * kMR;
  n_ic = (m + mc_blk - 1) / mc_blk;

  const int64_t nc_max = std::min<int64_t>(kNC, (n + kNR - 1) / kNR * kNR);
  const int64_t kc_max = std::min<int64_t>(kKC, k);
  std::vector<float> bpanel_store(static_cast<size_t>(nc_max * kc_max) + 64);
  // 64-byte alignment for the vector loads from the panel.
  float* bpanel = reinterpret_cast<float*>((reinterpret_cast<uintptr_t>(bpanel_store.data()) + 63) & ~uintptr_t(63));

  for (int64_t jc = 0; jc < n; jc += kNC) {
    const int64_t nc = std::min<int64_t>(kNC, n - jc);
    const int64_t n_panels = (nc + kNR - 1) / kNR;
    // Few row blocks (small M): also split the columns so every thread has work.
    const int64_t n_jg = std::min<int64_t>(n_panels, std::max<int64_t>(1, (threads + n_ic - 1) / n_ic));
    const int64_t panels_per_group = (n_panels + n_jg - 1) / n_jg;
    for (int64_t pc = 0; pc < k; pc += kKC) {
      const int64_t kc = std::min<int64_t>(kKC, k - pc);
      at::parallel_for(0, n_panels, 1, [&](int64_t q0, int64_t q1) {
        pack_b(b, sb0, sb1, pc, kc, jc, nc, q0 * kNR, std::min<int64_t>(q1 * kNR, n_panels * kNR), bpanel);
      });
      at::parallel_for(0, n_ic * n_jg, 1, [&](int64_t t0, int64_t t1) {
        std::vector<float> abuf_store(static_cast<size_t>(mc_blk * kc) + 64);
        float* abuf = reinterpret_cast<float*>((reinterpret_cast<uintptr_t>(abuf_store.data()) + 63) & ~uintptr_t(63));
        int64_t packed_ic = -1;
        for (int64_t t = t0; t < t1; ++t) {
          const int64_t icb = t / n_jg, jg = t % n_jg;
          const int64_t ic = icb * mc_blk;
          const int64_t mc = std::min<int64_t>(mc_blk, m - ic);
          if (packed_ic != ic) {
            pack_a(a, sa0, sa1, ic, mc, pc, kc, abuf);
            packed_ic = ic;
          }
          const int64_t jr_begin = jg * panels_per_group * kNR;
          const int64_t jr_end = std::min<int64_t>(nc, (jg + 1) * panels_per_group * kNR);
          for (int64_t jr = jr_begin; jr < jr_end; jr += kNR) {
            const float* pb = bpanel + jr * kc;
            const int64_t nr_valid = std::min<int64_t>(kNR, nc - jr);
            for (int64_t ir = 0; ir < mc; ir += kMR) {
              micro_kernel<kMR, kNV>(kc, abuf + ir * kc, pb, c + (ic + ir) * n + jc + jr, n, pc > 0,
                                     std::min<int64_t>(kMR, mc - ir), nr_valid);
            }
          }
        }
      });
    }
  }
}
