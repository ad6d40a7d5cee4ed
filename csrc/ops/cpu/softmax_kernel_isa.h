// Softmax over the last dimension: y = exp(x - max) / sum(exp(x - max)), row by row, parallel over rows.
// exp: of x - max <= 0 only, so exp_nonpos_vf (vec_math.h: exp_vf's reduction and polynomial, within 0.91
// ulp, results below 2^-126 flushed to 0) on AVX2 / AVX-512, exp_nonpos_ps (sse2_math.h) in the DEFAULT
// variant on x86-64, ATen's exp_u20 elsewhere (the Lanes of rowwise_lanes.h).
//
// Memory sees one read of x and one write of y, and exp runs once per element, for rows of up to
// kCachedRowFloats (64 KiB; L2 holds a row and two rows of exps on every CPU this runs on):
//   1. the row's maximum, reading x from memory (while the previous row's passes ran, the hardware
//      and a software prefetch have brought most of it to cache);
//   2. e = exp(x - max) into one of two per-task scratch rows, with the sum: x and e are in L1/L2, and
//      the next row is prefetched meanwhile, so memory stays busy while the core computes;
//   3. y = e * (1 / sum), in the same loop as the next row's step 2 (software pipelining: one loop less
//      per row, and two independent chains per step), the task's last row alone: streamed to memory
//      (non-temporal stores) when the output is larger than the last-level cache, so y's lines are
//      neither read for ownership nor evicting x; plain stores otherwise (a small output is read again
//      soon, from cache).
// A longer row does not fit: one read pass keeps a running maximum and sum (chunk by chunk of
// kOnlineChunk floats, 8 KiB, each chunk's max then its exps from L1, the sum rescaled by
// exp(old max - new max) when the maximum grows), then one read + write pass y = exp(x - max) / sum:
// two reads of x, one write of y, exp twice per element.
//
// Special values (the rules of tests/_ops_helpers.py, the same in every variant and on CUDA): a masked
// (-inf) entry is exactly 0; a row with a nan is all nan (the max passes skip nans, the nan reaches the
// sum, and y = e * (1 / nan)); a row of only -inf is all nan ((-inf) - (-inf)); a row whose maximum is
// +inf takes the limit where there is one: one +inf -> one-hot at it, two or more +inf -> all nan.
// Compiled once per instruction set (kernels_impl.h); included once per translation unit.
#pragma once

#include "ops/cpu/rowwise_lanes.h"
#include "ops/cpu/softmax_kernel.h"

ENVCHECK_ROWWISE_SCHEDULE_BEGIN
namespace envcheck {
namespace CPU_CAPABILITY {
namespace {

constexpr int64_t kCachedRowFloats = 16384;
constexpr int64_t kOnlineChunk = 2048;
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// A row whose maximum is +inf: rare, so scalar.  A nan anywhere makes it all nan.
inline void softmax_row_posinf(const float* xr, float* yr, int64_t cols) {
  int64_t n_inf = 0;
  bool nan = false;
  for (int64_t j = 0; j < cols; ++j) {
    n_inf += xr[j] == kInf;
    nan = nan || std::isnan(xr[j]);
  }
  const float hit = n_inf == 1 && !nan ? 1.0f : kNaN;
  const float miss = n_inf == 1 && !nan ? 0.0f : kNaN;
  for (int64_t j = 0; j < cols; ++j) yr[j] = xr[j] == kInf ? hit : miss;
}

// The maximum of p[0..n), nans skipped (x86; ATen's generic maximum keeps them, which gives a nan row too).
inline float softmax_max(const float* p, int64_t n) {
  using L = Lanes;
  constexpr int64_t N = L::N;
  L::V m0 = L::set(-kInf), m1 = m0, m2 = m0, m3 = m0;
  int64_t j = 0;
  for (; j + 4 * N <= n; j += 4 * N) {
    m0 = L::max_keep(L::load(p + j), m0);
    m1 = L::max_keep(L::load(p + j + N), m1);
    m2 = L::max_keep(L::load(p + j + 2 * N), m2);
    m3 = L::max_keep(L::load(p + j + 3 * N), m3);
  }
  for (; j + N <= n; j += N) m0 = L::max_keep(L::load(p + j), m0);
  if (j < n) m0 = L::max_keep(lanes_load_part(p + j, n - j, -kInf), m0);
  return lanes_hmax(L::max_keep(L::max_keep(m0, m1), L::max_keep(m2, m3)));
}

// sum of exp(p[j] - mx) over p[0..n) (the online path's chunks).
inline float softmax_exp_sum(const float* p, int64_t n, float mx) {
  using L = Lanes;
  constexpr int64_t N = L::N;
  const L::V vm = L::set(mx);
  L::V s0 = L::set(0.f), s1 = s0, s2 = s0, s3 = s0;
  int64_t j = 0;
  for (; j + 4 * N <= n; j += 4 * N) {
    s0 = L::add(s0, L::exp_nonpos(L::sub(L::load(p + j), vm)));
    s1 = L::add(s1, L::exp_nonpos(L::sub(L::load(p + j + N), vm)));
    s2 = L::add(s2, L::exp_nonpos(L::sub(L::load(p + j + 2 * N), vm)));
    s3 = L::add(s3, L::exp_nonpos(L::sub(L::load(p + j + 3 * N), vm)));
  }
  for (; j < n; j += N) {
    // the lanes past the row are -inf: exp(-inf - mx) = 0 adds nothing
    const L::V v = j + N <= n ? L::load(p + j) : lanes_load_part(p + j, n - j, -kInf);
    s0 = L::add(s0, L::exp_nonpos(L::sub(v, vm)));
  }
  return lanes_hsum(L::add(L::add(s0, s1), L::add(s2, s3)));
}

// The cached rows' second pass, software-pipelined: the exps of this row (e = exp(x - mx) into e, their
// sum returned) and, in the same loop, the previous row's last pass, yp = ep * inv (with Scale).  Each
// loop step then holds two independent chains (the exps' and the scaling's loads and stores) and the
// previous row's e is read from L1 / L2 once, not by a loop of its own.  The steps follow yp's streaming
// alignment (lanes_head); x and e take unaligned loads and stores (e has room for n + N floats).
template <bool Stream, bool Scale>
inline float softmax_exp_sum_scale(const float* p, float* e, int64_t n, float mx, const float* pf,
                                   const float* ep, float* yp, Lanes::V inv) {
  using L = Lanes;
  constexpr int64_t N = L::N;
  const bool stream = Stream && Scale && reinterpret_cast<uintptr_t>(yp) % sizeof(float) == 0;
  const L::V vm = L::set(mx);
  const auto put = [stream](float* q, L::V v) {
    if (stream)
      L::stream(q, v);
    else
      L::store(q, v);
  };
  // a part of a vector (c < N floats) at j: the lanes past it are -inf, whose exp adds 0 to the sum
  const auto part = [&](int64_t j, int64_t c) ENVCHECK_INLINE_LAMBDA {
    const L::V ev = L::exp_nonpos(L::sub(lanes_load_part(p + j, c, -kInf), vm));
    L::store(e + j, ev);
    if (Scale) lanes_store_part(yp + j, L::mul(lanes_load_part(ep + j, c, 0.f), inv), c);
    return ev;
  };
  L::V s0 = L::set(0.f), s1 = s0, s2 = s0, s3 = s0;
  int64_t j = stream ? lanes_head(yp, n) : 0;
  if (j > 0) s0 = part(0, j);
  for (; j + 4 * N <= n; j += 4 * N) {
    if (pf != nullptr)
      for (int64_t q = 0; q < 4 * N; q += 16) prefetch_read(pf + j + q);
    const L::V e0 = L::exp_nonpos(L::sub(L::load(p + j), vm));
    const L::V e1 = L::exp_nonpos(L::sub(L::load(p + j + N), vm));
    const L::V e2 = L::exp_nonpos(L::sub(L::load(p + j + 2 * N), vm));
    const L::V e3 = L::exp_nonpos(L::sub(L::load(p + j + 3 * N), vm));
    if (Scale) {
      put(yp + j, L::mul(L::load(ep + j), inv));
      put(yp + j + N, L::mul(L::load(ep + j + N), inv));
      put(yp + j + 2 * N, L::mul(L::load(ep + j + 2 * N), inv));
      put(yp + j + 3 * N, L::mul(L::load(ep + j + 3 * N), inv));
    }
    L::store(e + j, e0);
    L::store(e + j + N, e1);
    L::store(e + j + 2 * N, e2);
    L::store(e + j + 3 * N, e3);
    s0 = L::add(s0, e0);
    s1 = L::add(s1, e1);
    s2 = L::add(s2, e2);
    s3 = L::add(s3, e3);
  }
  for (; j + N <= n; j += N) {
    const L::V ev = L::exp_nonpos(L::sub(L::load(p + j), vm));
    if (Scale) put(yp + j, L::mul(L::load(ep + j), inv));
    L::store(e + j, ev);
    s0 = L::add(s0, ev);
  }
  if (j < n) s0 = L::add(s0, part(j, n - j));
  return lanes_hsum(L::add(L::add(s0, s1), L::add(s2, s3)));
}

// y = e * inv over a row (the last row of a task, or the row before a +inf row, whose pass has no next
// row's exps to go with).
template <bool Stream>
inline void softmax_scale_row(float* yr, const float* e, int64_t cols, Lanes::V inv) {
  rowwise_map<Stream>(yr, cols, [&](int64_t j, int64_t c) ENVCHECK_INLINE_LAMBDA { return Lanes::mul(load_or_part(e + j, c, 0.f), inv); });
}

// Rows r0..r1 of at most kCachedRowFloats each: per row its max (memory), then its exps into one of two
// scratch rows together with the previous row's y = e * (1 / sum) (see softmax_exp_sum_scale).
template <bool Stream>
inline void softmax_rows_cached(const float* x, float* y, int64_t r0, int64_t r1, int64_t cols) {
  const int64_t stride = cols + Lanes::N;
  std::vector<float> scratch(static_cast<size_t>(2 * stride));
  float* pending_y = nullptr;  // the previous row's output, still to be scaled from pending_e
  const float* pending_e = nullptr;
  Lanes::V pending_inv = Lanes::set(0.f);
  for (int64_t r = r0; r < r1; ++r) {
    const float* xr = x + r * cols;
    float* yr = y + r * cols;
    float* e = scratch.data() + ((r - r0) & 1) * stride;
    const float mx = softmax_max(xr, cols);
    if (mx == kInf) {
      if (pending_y != nullptr) softmax_scale_row<Stream>(pending_y, pending_e, cols, pending_inv);
      pending_y = nullptr;
      softmax_row_posinf(xr, yr, cols);
      continue;
    }
    const float* pf = Stream && r + 1 < r1 ? xr + cols : nullptr;
    const float sum = pending_y != nullptr
                          ? softmax_exp_sum_scale<Stream, true>(xr, e, cols, mx, pf, pending_e, pending_y, pending_inv)
                          : softmax_exp_sum_scale<Stream, false>(xr, e, cols, mx, pf, nullptr, nullptr, pending_inv);
    pending_y = yr;
    pending_e = e;
    pending_inv = Lanes::set(1.0f / sum);
  }
  if (pending_y != nullptr) softmax_scale_row<Stream>(pending_y, pending_e, cols, pending_inv);
}

// A longer row: running max and sum in one read pass, then y = exp(x - max) / sum (see the top).
template <bool Stream>
inline void softmax_row_online(const float* xr, float* yr, int64_t cols) {
  float mx = -kInf, s = 0.f;
  for (int64_t c0 = 0; c0 < cols; c0 += kOnlineChunk) {
    const int64_t n = std::min(kOnlineChunk, cols - c0);
    const float* p = xr + c0;
    const float cm = softmax_max(p, n);
    if (cm == kInf) return softmax_row_posinf(xr, yr, cols);
    if (cm > mx) {
      if (mx != -kInf) s *= std::exp(mx - cm);
      mx = cm;
    }
    if (mx == -kInf) {  // nothing but -inf (and perhaps nan) so far: exp(x - mx) would be nan
      for (int64_t t = 0; t < n; ++t)
        if (std::isnan(p[t])) {
          std::fill(yr, yr + cols, kNaN);
          return;
        }
      continue;
    }
    s += softmax_exp_sum(p, n, mx);
  }
  const Lanes::V vm = Lanes::set(mx), inv = Lanes::set(1.0f / s);
  rowwise_map<Stream>(yr, cols, [&](int64_t j, int64_t c) ENVCHECK_INLINE_LAMBDA {
    return Lanes::mul(Lanes::exp_nonpos(Lanes::sub(load_or_part(xr + j, c, -kInf), vm)), inv);
  });
}

template <bool Stream>
void softmax_rows(const float* x, float* y, int64_t rows, int64_t cols) {
  // Group rows so that each task has at least ~kGrain elements.
  const int64_t grain = std::max<int64_t>(1, kGrain / cols);
  at::parallel_for(0, rows, grain, [&](int64_t r0, int64_t r1) {
    if (cols <= kCachedRowFloats) {
      softmax_rows_cached<Stream>(x, y, r0, r1, cols);
    } else {
      for (int64_t r = r0; r < r1; ++r) softmax_row_online<Stream>(x + r * cols, y + r * cols, cols);
    }
    if (Stream) Lanes::fence();
  });
}

void softmax_kernel(const float* x, float* y, int64_t rows, int64_t cols) {
  if (rows == 0 || cols == 0) return;
  if (stream_output(rows * cols * static_cast<int64_t>(sizeof(float))))
    softmax_rows<true>(x, y, rows, cols);
  else
    softmax_rows<false>(x, y, rows, cols);
}

const cpu_op::softmax softmax_kernels{.run = softmax_kernel};

}  // namespace
}  // namespace CPU_CAPABILITY
}  // namespace envcheck
ENVCHECK_ROWWISE_SCHEDULE_END
