// fp32 GEMM by our own kernel: Goto/BLIS-style cache blocking, packed panels, and a register-blocked
// micro-kernel of broadcast FMAs written with at::vec::Vectorized<float>.
//
//   for jc (NC columns of B/C)          B panel KC x NC packed once per (jc, pc), shared by all threads
//     for pc (KC deep slices of K)
//       parallel over (ic, column group)  each task packs its MC x KC block of A (stays in L2); tasks
//                                          are handed out one at a time (parallel_tasks)
//         for jr (NR-wide micro-panels of B: kept in L1 across the ir loop)
//           for ir (MR-tall micro-panels of A)
//             micro-kernel: C[MR x NR] (+)= A[MR x KC] * B[KC x NR] in MR * NR/V vector registers
//
// Thin products (M <= 2 MR, B's rows contiguous) skip all of this: sgemm_row (one row) and
// sgemm_direct (up to 2 MR rows, in panels of MR) below read A and B in place.
//
// Packing reads A and B through their strides, so transposed or otherwise strided inputs need no
// copy; panels are zero-padded to MR / NR and 64-byte aligned.  The micro-kernel only ever computes a
// whole MR x NR tile: edge tiles go to a small buffer on the stack and the valid part is added to C.
// That keeps every accumulator in a register for the whole k loop: an accumulator indexed with a
// run-time row count (the old edge path) made g++ keep a memory copy of all of them and store it on
// every k step (12 extra stores per 12 FMAs: the AVX2 variant ran at 0.35x torch.matmul).
//
// Register blocks per variant:
//   AVX512 (32 zmm): 14 x 32 -> 28 accumulators + 2 B vectors + 1 broadcast = 31
//   AVX2   (16 ymm):  6 x 16 -> 12 accumulators + 2 B vectors + 1 broadcast = 15
//   DEFAULT on x86 (SSE2 intrinsics, 16 xmm of 4 floats, no FMA; not Vectorized<float>, whose generic
//                     form compiled to scalar code through the stack with torch 2.13.0's headers):
//                     5 x 8  -> 10 xmm accumulators + 2 xmm of B + 1 broadcast + 2 products = 15
//                     (6 x 8 spilled one accumulator: a multiply and an add need a temporary).
//                     Packed A stores each element 4 times, so the "broadcast" is a plain aligned load
//                     (no shufps on the FP pipes), and KC fits both micro-panels in L1d (model_blocking).
//   DEFAULT elsewhere (aarch64: 32 NEON registers; torch 2.14's Vectorized<float> there is one 4-float
//                     register): 6 x 8 -> 12 accumulators (not measured: no such CPU here)
// tests/test_ops_isa.py disassembles the built library and checks these loops: FMAs on ymm/zmm and
// no stack access (spill or reload) inside them.
// Compiled once per instruction set (kernels_impl.h); included once per translation unit.
#pragma once

#include <array>
#include <memory>
#include <utility>
#include <vector>

#include "ops/cpu/sgemm_kernel.h"

namespace envcheck {
namespace CPU_CAPABILITY {
namespace {

// The micro-kernel's register type and the five operations it needs: __m128 on the DEFAULT variant
// on x86-64, Vectorized<float> elsewhere.  kNV registers of kLanes floats per row of the tile.
#if defined(ENVCHECK_SSE2_KERNELS)
using Reg = __m128;
constexpr int64_t kLanes = 4;
inline Reg reg_zero() { return _mm_setzero_ps(); }
inline Reg reg_loadu(const float* p) { return _mm_loadu_ps(p); }
inline Reg reg_broadcast(float x) { return _mm_set1_ps(x); }
inline Reg reg_madd(Reg a, Reg b, Reg acc) { return _mm_add_ps(acc, _mm_mul_ps(a, b)); }
inline Reg reg_add(Reg a, Reg b) { return _mm_add_ps(a, b); }
inline void reg_storeu(float* p, Reg v) { _mm_storeu_ps(p, v); }
// Packed A holds each element four times (one whole register), so that the micro-kernel loads it as it
// is: SSE2 has no broadcast load, and movss + shufps put a shuffle per row on the FP pipes beside the
// multiplies and adds (5 shuffles to 20 arithmetic instructions per k step).
constexpr int64_t kACopies = 4;
inline Reg reg_packed_a(const float* p) { return _mm_load_ps(p); }
inline void put_packed_a(float* p, float x) { _mm_store_ps(p, _mm_set1_ps(x)); }
constexpr int kMR = 5;
constexpr int kNV = 2;
#else
using Reg = Vec;
constexpr int64_t kLanes = Vec::size();
inline Reg reg_zero() { return Vec(0.f); }
inline Reg reg_loadu(const float* p) { return Vec::loadu(p); }
inline Reg reg_broadcast(float x) { return Vec(x); }
inline Reg reg_madd(const Reg& a, const Reg& b, const Reg& acc) { return at::vec::fmadd(a, b, acc); }
inline Reg reg_add(const Reg& a, const Reg& b) { return a + b; }
inline void reg_storeu(float* p, const Reg& v) { v.store(p); }
constexpr int64_t kACopies = 1;  // broadcast loads read packed A's single copies
inline Reg reg_packed_a(const float* p) { return Vec(*p); }
inline void put_packed_a(float* p, float x) { *p = x; }
#if defined(CPU_CAPABILITY_AVX512)
constexpr int kMR = 14;
#else
constexpr int kMR = 6;
#endif
constexpr int kNV = 2;
#endif
constexpr int kNR = kNV * kLanes;

#if defined(__GNUC__)
#define ENVCHECK_NOINLINE __attribute__((noinline))
#else
#define ENVCHECK_NOINLINE
#endif

// C[MR x NR] (ldc) = (accumulate ? C : 0) + A micro-panel (k-major, MR per step) * B micro-panel (k-major,
// NR per step).  A separate (not inlined) function, so that its loop can be found and checked in the
// disassembly, and so that the caller's loops cannot change how its registers are allocated.  One call
// does MR * NR * kc FMAs (AVX2, KC 256: 24576), so the call costs nothing.
template <int MR, int NV>
ENVCHECK_NOINLINE void micro_kernel(int64_t kc, const float* __restrict__ pa, const float* __restrict__ pb,
                                    float* __restrict__ c, int64_t ldc, bool accumulate) {
  constexpr int64_t NR = NV * kLanes;
  Reg acc[MR][NV];
#pragma GCC unroll 16
  for (int i = 0; i < MR; ++i) {
    // The tile of C is read (or written) right after the loop: start bringing it in now.
    __builtin_prefetch(c + i * ldc, 1);
    __builtin_prefetch(c + i * ldc + NR - 1, 1);
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) acc[i][v] = reg_zero();
  }
#pragma GCC unroll 4
  for (int64_t p = 0; p < kc; ++p) {
    Reg bv[NV];
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) bv[v] = reg_loadu(pb + v * kLanes);
#pragma GCC unroll 16
    for (int i = 0; i < MR; ++i) {
      const Reg av = reg_packed_a(pa + i * kACopies);
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) acc[i][v] = reg_madd(av, bv[v], acc[i][v]);
    }
    pa += MR * kACopies;
    pb += NR;
  }
#pragma GCC unroll 16
  for (int i = 0; i < MR; ++i)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) {
      float* cp = c + i * ldc + v * kLanes;
      reg_storeu(cp, accumulate ? reg_add(reg_loadu(cp), acc[i][v]) : acc[i][v]);
    }
}

// One tile of C: the micro-kernel straight into C when the tile is whole, else through a buffer.
inline void tile(int64_t kc, const float* pa, const float* pb, float* c, int64_t ldc, bool accumulate,
                 int64_t mr_valid, int64_t nr_valid) {
  if (mr_valid == kMR && nr_valid == kNR) {
    micro_kernel<kMR, kNV>(kc, pa, pb, c, ldc, accumulate);
    return;
  }
  alignas(64) float buf[kMR * kNR];
  micro_kernel<kMR, kNV>(kc, pa, pb, buf, kNR, false);
  for (int64_t i = 0; i < mr_valid; ++i)
    for (int64_t j = 0; j < nr_valid; ++j) c[i * ldc + j] = (accumulate ? c[i * ldc + j] : 0.f) + buf[i * kNR + j];
}

// A block rows [i0, i0+mc) x depth [p0, p0+kc) -> micro-panels of MR rows, k-major, zero-padded.
// Rows that are contiguous (sa1 == 1) are read 16 floats at a time from each of the MR rows into a small
// tile and written out k-major from there: whole-vector loads instead of one scalar load per element,
// and each row's cache line is used up at once rather than revisited across 16 steps.
inline void pack_a(const float* a, int64_t sa0, int64_t sa1, int64_t i0, int64_t mc, int64_t p0, int64_t kc,
                   float* dst) {
  constexpr int64_t kChunk = 16;
  for (int64_t ir = 0; ir < mc; ir += kMR) {
    const int64_t rows = std::min<int64_t>(kMR, mc - ir);
    const float* src = a + (i0 + ir) * sa0 + p0 * sa1;
    if (rows == kMR) {
      int64_t p = 0;
      if (sa1 == 1) {
        for (; p + kChunk <= kc; p += kChunk) {
          float t[kMR][kChunk];
#pragma GCC unroll 16
          for (int i = 0; i < kMR; ++i) std::memcpy(t[i], src + i * sa0 + p, sizeof(t[i]));
#pragma GCC unroll 16
          for (int q = 0; q < kChunk; ++q)
#pragma GCC unroll 16
            for (int i = 0; i < kMR; ++i) put_packed_a(dst + ((p + q) * kMR + i) * kACopies, t[i][q]);
        }
      }
      for (; p < kc; ++p)
#pragma GCC unroll 16
        for (int i = 0; i < kMR; ++i) put_packed_a(dst + (p * kMR + i) * kACopies, src[i * sa0 + p * sa1]);
    } else {
      for (int64_t p = 0; p < kc; ++p)
        for (int i = 0; i < kMR; ++i) put_packed_a(dst + (p * kMR + i) * kACopies, i < rows ? src[i * sa0 + p * sa1] : 0.f);
    }
    dst += kc * kMR * kACopies;
  }
}

// B panel depth [p0, p0+kc) x columns [j0 + jr0, j0 + jr1) (micro-panel aligned) -> micro-panels of
// NR columns, k-major, zero-padded.  The whole micro-panels of a row-contiguous B (sb1 == 1) are copied
// row by row, so that the reads run along B's rows: one stream within one page at a time.  Micro-panel
// by micro-panel, the reads would go down B's columns, NR floats from each of kc rows, a new page (and a
// TLB entry) for every row of a wide matrix: that took half as long again (2048 x 2048, AVX-512).
inline void pack_b(const float* b, int64_t sb0, int64_t sb1, int64_t p0, int64_t kc, int64_t j0, int64_t nc,
                   int64_t jr0, int64_t jr1, float* panel) {
  const int64_t jr_full = std::min<int64_t>(jr1, nc / kNR * kNR);
  if (sb1 == 1 && jr0 < jr_full) {
    for (int64_t p = 0; p < kc; ++p) {
      const float* src = b + (p0 + p) * sb0 + j0;
      for (int64_t jr = jr0; jr < jr_full; jr += kNR)
        std::memcpy(panel + jr * kc + p * kNR, src + jr, kNR * sizeof(float));
    }
    jr0 = jr_full;
  }
  for (int64_t jr = jr0; jr < jr1; jr += kNR) {
    float* dst = panel + jr * kc;
    const int64_t cols = std::min<int64_t>(kNR, nc - jr);
    const float* src = b + p0 * sb0 + (j0 + jr) * sb1;
    for (int64_t p = 0; p < kc; ++p)
      for (int64_t j = 0; j < kNR; ++j) dst[p * kNR + j] = j < cols ? src[p * sb0 + j * sb1] : 0.f;
  }
}

// Cache blocking from the CPU's cache sizes (cpu_cache_sizes(): sysfs, sysconf, or assumed):
//   KC: the depth of a packed slice.  The B micro-panel (KC x NR floats) is reused by every MR-row step
//       of the ir loop; it is sized to L1d (AVX2, 32 KiB: KC = 512; AVX-512 with 32 KiB: 512 too), so that
//       it stays in L1d or, partly evicted by the A micro-panels streaming past, in L2.  AVX-512's 32-wide
//       micro-panel is sized as a 16-wide one (KC 512 with 32 KiB: twice L1d, read from L2).  Half of L1d
//       (BLIS's analytical model) measured slower on the machines we tried: 2048^3 on 2 threads, Zen 3
//       AVX2, KC 256 vs 512 (see BENCHMARKS.md); Zen 4 AVX-512 (an earlier kernel), 256 vs 512: 6% slower;
//       the current one measured the other way round (see l1_floats_per_k below).
//       A deeper slice means fewer passes over C (each pass reads and writes all of C) and fewer
//       parallel regions.
//   MC: the packed A block (MC x KC) is reused for every B micro-panel from the core's own L2: half of
//       L2, rounded down to a multiple of MR.  (512 KiB L2, KC 512: MC = 126.)
//   NC: the packed B panel (KC x NC) is shared by all threads and read from L3: half of L3, a multiple
//       of NR.  (32 MiB: 8192.)
// Clamped to sane ranges so a misreported cache size cannot make a block absurd.
// TORCH_ENVCHECK_SGEMM_BLOCKING=MC,KC,NC overrides the three (for tuning on another CPU); MC and NC
// are rounded up to multiples of MR and NR.
GemmBlocking model_blocking() {
  const CacheSizes& cs = cpu_cache_sizes();
  constexpr int64_t fb = sizeof(float);
  // Where packed A holds each element four times (SSE2), its micro-panel (MR x 4 floats per k step) is
  // larger than B's and the two share L1d: KC fits both.
  // Wider than 16 floats (AVX-512's 32), the micro-panel is sized as a 16-wide one: KC 512 with 32 KiB,
  // a 64 KiB micro-panel read from L2 (2 zmm loads per 28 FMAs, far below L2's rate) and half the passes
  // over C of KC 256.  Zen 4, 2048^3, one thread by CPU time, the two alternating process by process
  // (loaded): KC 512 / MC 252 median 91-100 GFLOP/s, KC 256 / MC 504 82-94; one pass of the micro-kernel
  // over a packed block alone: 90% of the FMA peak against 82-85%.
  const int64_t l1_floats_per_k = kACopies > 1 ? kNR + kMR * kACopies : std::min<int64_t>(kNR, 16);
  int64_t kc = std::clamp<int64_t>(cs.l1d / (l1_floats_per_k * fb) / 16 * 16, 64, 1024);
  int64_t mc = std::clamp<int64_t>(cs.l2 / 2 / (kc * fb * kACopies) / kMR * kMR, kMR, 4096 / kMR * kMR);
  int64_t nc = std::clamp<int64_t>(cs.l3 / 2 / (kc * fb) / kNR * kNR, 4 * kNR, 65536);
  return {mc, kc, nc, "model"};
}

GemmBlocking make_blocking() {
  const char* env = std::getenv("TORCH_ENVCHECK_SGEMM_BLOCKING");
  if (env == nullptr || *env == '\0') return model_blocking();
  long long v[3] = {0, 0, 0};
  char tail = 0;
  const int got = std::sscanf(env, "%lld,%lld,%lld%c", &v[0], &v[1], &v[2], &tail);
  TORCH_CHECK(got == 3 && v[0] > 0 && v[1] > 0 && v[2] > 0 && v[0] <= (1 << 20) && v[1] <= (1 << 20) &&
                  v[2] <= (1 << 24),
              "envcheck::sgemm: TORCH_ENVCHECK_SGEMM_BLOCKING must be three positive integers MC,KC,NC "
              "(e.g. 252,256,16384), got '", env, "'");
  const int64_t mc = (v[0] + kMR - 1) / kMR * kMR, nc = (v[2] + kNR - 1) / kNR * kNR;
  return {mc, static_cast<int64_t>(v[1]), nc, "TORCH_ENVCHECK_SGEMM_BLOCKING"};
}

GemmBlocking sgemm_blocking() {
  static const GemmBlocking blocking = make_blocking();
  return blocking;
}

// 64-byte aligned float storage without value-initialising it (std::vector would zero it each time).
struct AlignedFloats {
  explicit AlignedFloats(int64_t n) : raw(new float[static_cast<size_t>(n) + 16]) {
    ptr = reinterpret_cast<float*>((reinterpret_cast<uintptr_t>(raw.get()) + 63) & ~uintptr_t(63));
  }
  std::unique_ptr<float[]> raw;
  float* ptr;
};

// The packed panels of A and B, kept by the calling thread from one call to the next.  Allocated afresh, a
// multi-megabyte buffer comes from mmap and every 4 KiB page of it faults on first touch: perf on a 2048^3
// product (Intel Xeon, AVX-512, 1 thread) put the kernel's page-fault handling at about 5% of the call.
// Buffers above kKeepFloats (a wide B panel) are still allocated per call, so that an odd large product does
// not pin that memory for the life of the thread.
constexpr int64_t kKeepFloats = int64_t(16) << 20;  // 64 MiB
struct PackBuffers {
  std::vector<std::unique_ptr<AlignedFloats>> kept;
  std::vector<int64_t> kept_n;
  std::vector<std::unique_ptr<AlignedFloats>> once;  // this call's buffers too large to keep
  float* get(size_t slot, int64_t n) {
    if (n > kKeepFloats) {
      once.push_back(std::make_unique<AlignedFloats>(n));
      return once.back()->ptr;
    }
    if (kept.size() <= slot) {
      kept.resize(slot + 1);
      kept_n.resize(slot + 1, 0);
    }
    if (kept_n[slot] < n) {
      kept[slot] = std::make_unique<AlignedFloats>(n);
      kept_n[slot] = n;
    }
    return kept[slot]->ptr;
  }
};

// Runs fn(task) for task in [0, n) on at::parallel_for's threads, each thread taking the next task
// when it is done with its last one.  A static split (at::parallel_for's own) hands each thread a fixed
// half of the work: when another process takes one of the cores for a while (a shared machine, a VM),
// the other thread then waits at the end.  Here it takes over the remaining tasks instead.
template <typename F>
void parallel_tasks(int64_t n, int64_t threads, const F& fn) {
  std::atomic<int64_t> next{0};
  at::parallel_for(0, std::min(threads, n), 1, [&](int64_t, int64_t) {
    for (int64_t t = next.fetch_add(1, std::memory_order_relaxed); t < n; t = next.fetch_add(1, std::memory_order_relaxed))
      fn(t);
  });
}

// Few rows (M <= 2 MR), B with contiguous rows: no packing.  Packing B would read it, write a copy and
// read that again, three passes over a matrix that is used only M times: a 1 x 4096 x 4096 product is a
// matrix-vector product bound by reading B once (it ran at 0.13-0.5x torch.matmul through the packed
// path).  Here C[R x NR] (+)= A rows (strides sa0/sa1) * B columns (row stride sb0) straight from the
// inputs, R <= MR rows at a time in R * NV accumulators; the k loop is cut into KC slices, so that a
// task's columns of B are walked slice by slice (the rows of one slice share their pages across the
// tiles of a task).  Each k step reads NR floats of a new row of B, a new page, which the hardware's
// stride prefetchers do not follow across pages: the tile's lines kDirectPrefetchRows rows ahead are
// prefetched.  Measured single-thread on a Zen 5 (shared machine, ratios to torch.matmul, three processes
// each): AVX2 6 x 4096 x 4096 0.76-0.84x without, 1.05-1.22x with 16 rows ahead, 12 rows 0.60-0.70x
// against 0.81-0.89x (48 rows ahead alike, 96 worse); AVX-512 14 rows 1.58-1.96x against 2.20-2.45x.
constexpr int64_t kDirectPrefetchRows = 16;
template <int R, int NV>
ENVCHECK_NOINLINE void direct_kernel(int64_t kc, const float* __restrict__ a, int64_t sa0, int64_t sa1,
                                     const float* __restrict__ b, int64_t sb0, float* __restrict__ c, int64_t ldc,
                                     bool accumulate) {
  Reg acc[R][NV];
#pragma GCC unroll 16
  for (int i = 0; i < R; ++i)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) acc[i][v] = reg_zero();
#pragma GCC unroll 2
  for (int64_t p = 0; p < kc; ++p) {
    // a prefetch past the end of B is harmless (it never faults)
#pragma GCC unroll 4
    for (int64_t off = 0; off < NV * kLanes; off += 64 / static_cast<int64_t>(sizeof(float)))
      __builtin_prefetch(b + kDirectPrefetchRows * sb0 + off);
    Reg bv[NV];
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) bv[v] = reg_loadu(b + v * kLanes);
#pragma GCC unroll 16
    for (int i = 0; i < R; ++i) {
      const Reg av = reg_broadcast(a[i * sa0]);
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) acc[i][v] = reg_madd(av, bv[v], acc[i][v]);
    }
    a += sa1;
    b += sb0;
  }
#pragma GCC unroll 16
  for (int i = 0; i < R; ++i)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) {
      float* cp = c + i * ldc + v * kLanes;
      reg_storeu(cp, accumulate ? reg_add(reg_loadu(cp), acc[i][v]) : acc[i][v]);
    }
}

using DirectKernel = void (*)(int64_t, const float*, int64_t, int64_t, const float*, int64_t, float*, int64_t, bool);

template <int... Rs>
constexpr std::array<DirectKernel, sizeof...(Rs)> direct_kernels(std::integer_sequence<int, Rs...>) {
  return {&direct_kernel<Rs + 1, kNV>...};
}

// One row of A (a vector-matrix product), B row-contiguous: c += a[p] * B[p, :] for each p, so that B
// is read along its rows, as one sequential stream per thread.  The register kernel below reads B down
// its columns (NR floats of each row, every row a new page) and, with one row, has too little arithmetic
// per byte to hide that: on a Zen 5 core a 1 x 4096 x 4096 product read B at 12 GB/s that way and at
// 24-28 GB/s along whole rows (MKL: 27 GB/s); cutting the rows into 2 KiB pieces per task lost most of
// that again.  So the threads split K, not N: each sums its own contiguous run of B's rows into a
// partial row of C (columns in blocks that stay in L1), and the partial rows are added at the end.  With
// two or more rows of A each element of B feeds as many FMAs from registers, and the column walk
// measured faster there.
void sgemm_row(const float* a, int64_t sa1, const float* b, int64_t sb0, float* c, int64_t n, int64_t k,
               int64_t threads) {
  constexpr int64_t kCols = 4096;  // 16 KiB of C per block
  // Runs of at least 256 rows; up to two per thread, so that a thread slowed by another process's
  // work hands some of its share to the other.
  const int64_t tasks = std::clamp<int64_t>(k / 256, 1, 2 * threads);
  const int64_t rows_per = (k + tasks - 1) / tasks;
  AlignedFloats partial(tasks * n);
  parallel_tasks(tasks, threads, [&](int64_t t) {
    const int64_t p0 = t * rows_per, p1 = std::min<int64_t>(k, p0 + rows_per);
    float* ct = partial.ptr + t * n;
    std::fill(ct, ct + n, 0.f);
    for (int64_t j0 = 0; j0 < n; j0 += kCols) {
      const int64_t j1 = std::min<int64_t>(n, j0 + kCols), jv = j0 + (j1 - j0) / kLanes * kLanes;
      for (int64_t p = p0; p < p1; ++p) {
        const float ap = a[p * sa1];
        const float* __restrict__ bp = b + p * sb0;
        const Reg av = reg_broadcast(ap);
        for (int64_t j = j0; j < jv; j += kLanes)
          reg_storeu(ct + j, reg_madd(av, reg_loadu(bp + j), reg_loadu(ct + j)));
        for (int64_t j = jv; j < j1; ++j) ct[j] += ap * bp[j];
      }
    }
  });
  std::copy(partial.ptr, partial.ptr + n, c);
  for (int64_t t = 1; t < tasks; ++t)
    for (int64_t j = 0; j < n; ++j) c[j] += partial.ptr[t * n + j];
}

// Rows of A up to which the unpacked path runs: two row panels (the second reads B from L2, see
// sgemm_direct), where packing B would still cost more passes over it than the products use.
constexpr int64_t kDirectRows = 2 * kMR;

// The depth of the K slices for a product of depth k: the fewest slices of at most kc_blk, all about
// as deep (a multiple of 8 where kc_blk allows, so that packed micro-panels of A start 32-byte aligned).
// Cutting k into whole kc_blk slices plus the rest leaves a last slice as short as a few steps (K 1027,
// KC 256: 256 x 4 + 3), which still reads and writes its whole share of C and whose k loop is too short
// to hide the C tile's fetch behind its FMAs; evening the slices out costs no extra pass.
inline int64_t slice_depth(int64_t k, int64_t kc_blk) {
  const int64_t slices = (k + kc_blk - 1) / kc_blk;
  const int64_t even = (k + slices - 1) / slices;
  return std::min<int64_t>(kc_blk, (even + 7) / 8 * 8);
}

// The direct path: M <= kDirectRows rows, B row-contiguous (sb1 == 1).  Parallel over groups of NR-wide column
// tiles; the last, partial tile goes through a zero-padded copy of its columns (kc x NR) and a buffer.
void sgemm_direct(const float* a, int64_t sa0, int64_t sa1, const float* b, int64_t sb0, float* c, int64_t m,
                  int64_t n, int64_t k, int64_t kc_blk, int64_t threads) {
  static constexpr auto kernels = direct_kernels(std::make_integer_sequence<int, kMR>{});
  const int64_t tiles = (n + kNR - 1) / kNR, full = n / kNR;
  // Tiles per task: enough work per task to pay for the hand-out, and several tasks per thread.
  const int64_t per_task = std::max<int64_t>(1, std::min<int64_t>(16, tiles / (4 * threads)));
  parallel_tasks((tiles + per_task - 1) / per_task, threads, [&](int64_t t) {
    const int64_t t0 = t * per_task, t1 = std::min<int64_t>(tiles, t0 + per_task);
    for (int64_t pc = 0; pc < k; pc += kc_blk) {
      const int64_t kc = std::min<int64_t>(kc_blk, k - pc);
      // Row panels inside the slice: the second one finds this task's slice of B in L2.
      for (int64_t i0 = 0; i0 < m; i0 += kMR) {
        const int64_t rows = std::min<int64_t>(kMR, m - i0);
        const DirectKernel kern = kernels[rows - 1];
        const float* ap = a + i0 * sa0 + pc * sa1;
        float* cp = c + i0 * n;
        for (int64_t q = t0; q < std::min(t1, full); ++q)
          kern(kc, ap, sa0, sa1, b + pc * sb0 + q * kNR, sb0, cp + q * kNR, n, pc > 0);
        if (t1 > full) {  // the partial last tile
          const int64_t j0 = full * kNR, cols = n - j0;
          AlignedFloats bt(kc * kNR);
          for (int64_t p = 0; p < kc; ++p)
            for (int64_t j = 0; j < kNR; ++j) bt.ptr[p * kNR + j] = j < cols ? b[(pc + p) * sb0 + j0 + j] : 0.f;
          alignas(64) float buf[kMR * kNR];
          kern(kc, ap, sa0, sa1, bt.ptr, kNR, buf, kNR, false);
          for (int64_t i = 0; i < rows; ++i)
            for (int64_t j = 0; j < cols; ++j)
              cp[i * n + j0 + j] = (pc > 0 ? cp[i * n + j0 + j] : 0.f) + buf[i * kNR + j];
        }
      }
    }
  });
}

void sgemm_kernel(const float* a, int64_t sa0, int64_t sa1, const float* b, int64_t sb0, int64_t sb1, float* c,
                  int64_t m, int64_t n, int64_t k) {
  if (m == 0 || n == 0) return;
  if (k == 0) {
    std::fill(c, c + m * n, 0.f);
    return;
  }
  const GemmBlocking blk = sgemm_blocking();
  const int64_t threads = at::get_num_threads();
  if (m == 1 && sb1 == 1) {
    sgemm_row(a, sa1, b, sb0, c, n, k, threads);
    return;
  }
  if (m <= kDirectRows && sb1 == 1) {
    sgemm_direct(a, sa0, sa1, b, sb0, c, m, n, k, slice_depth(k, blk.kc), threads);
    return;
  }
  // Row blocks: about MC rows each, a multiple of the thread count so that the dynamic hand-out above
  // can balance the load, and as even as whole MR-row panels allow: block b holds panels
  // [b * panels / n_ic, (b + 1) * panels / n_ic), so two blocks differ by one panel at most.  Rounding
  // the block height up to MR instead left the last block short (2048 rows, 8 blocks: 7 of 266 and one
  // of 186), and with 2 threads one waited for the other at the end of every K slice.
  const int64_t panels = (m + kMR - 1) / kMR;
  int64_t n_ic = (m + blk.mc - 1) / blk.mc;
  if (n_ic > 1 && threads > 1) n_ic = (n_ic + threads - 1) / threads * threads;
  n_ic = std::min(n_ic, panels);
  const int64_t mc_blk = (panels + n_ic - 1) / n_ic * kMR;  // the tallest block (buffer size)
  auto ic_begin = [&](int64_t b) { return std::min(m, b * panels / n_ic * kMR); };

  const int64_t nc_blk = std::min<int64_t>(blk.nc, (n + kNR - 1) / kNR * kNR);
  const int64_t kc_blk = slice_depth(k, blk.kc);
  const int64_t kc_max = std::min<int64_t>(kc_blk, k);
  thread_local PackBuffers buffers;
  buffers.once.clear();
  float* const bpanel = buffers.get(0, nc_blk * kc_max);
  // One A buffer per thread, and which (row block, K slice) it holds.
  std::vector<float*> abufs(threads);
  for (int64_t i = 0; i < threads; ++i) abufs[i] = buffers.get(1 + i, mc_blk * kc_max * kACopies);
  std::vector<int64_t> abuf_ic(threads, -1), abuf_pc(threads, -1);

  for (int64_t jc = 0; jc < n; jc += nc_blk) {
    const int64_t nc = std::min<int64_t>(nc_blk, n - jc);
    const int64_t n_panels = (nc + kNR - 1) / kNR;
    // Few row blocks (small M): also split the columns so every thread has work.
    const int64_t n_jg = std::min<int64_t>(n_panels, std::max<int64_t>(1, 2 * threads / n_ic));
    const int64_t panels_per_group = (n_panels + n_jg - 1) / n_jg;
    for (int64_t pc = 0; pc < k; pc += kc_blk) {
      const int64_t kc = std::min<int64_t>(kc_blk, k - pc);
      constexpr int64_t kPanelsPerTask = 8;
      parallel_tasks((n_panels + kPanelsPerTask - 1) / kPanelsPerTask, threads, [&](int64_t q) {
        const int64_t q0 = q * kPanelsPerTask, q1 = std::min<int64_t>(n_panels, q0 + kPanelsPerTask);
        pack_b(b, sb0, sb1, pc, kc, jc, nc, q0 * kNR, q1 * kNR, bpanel);
      });
      parallel_tasks(n_ic * n_jg, threads, [&](int64_t t) {
        const int64_t tid = std::min<int64_t>(at::get_thread_num(), threads - 1);
        const int64_t icb = t / n_jg, jg = t % n_jg;
        const int64_t ic = ic_begin(icb);
        const int64_t mc = ic_begin(icb + 1) - ic;
        float* abuf = abufs[tid];
        // Consecutive tasks of one thread often share the row block (column groups): pack it once.
        if (abuf_ic[tid] != ic || abuf_pc[tid] != pc) {
          pack_a(a, sa0, sa1, ic, mc, pc, kc, abuf);
          abuf_ic[tid] = ic, abuf_pc[tid] = pc;
        }
        const int64_t jr_begin = jg * panels_per_group * kNR;
        const int64_t jr_end = std::min<int64_t>(nc, (jg + 1) * panels_per_group * kNR);
        for (int64_t jr = jr_begin; jr < jr_end; jr += kNR) {
          const float* pb = bpanel + jr * kc;
          const int64_t nr_valid = std::min<int64_t>(kNR, nc - jr);
          for (int64_t ir = 0; ir < mc; ir += kMR) {
            tile(kc, abuf + ir * kc * kACopies, pb, c + (ic + ir) * n + jc + jr, n, pc > 0, std::min<int64_t>(kMR, mc - ir),
                 nr_valid);
          }
        }
      });
    }
  }
}

const cpu_op::sgemm sgemm_kernels{.run = sgemm_kernel, .mr = kMR, .nr = kNR, .blocking = sgemm_blocking};

}  // namespace
}  // namespace CPU_CAPABILITY
}  // namespace envcheck
