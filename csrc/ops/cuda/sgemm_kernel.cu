// envcheck::sgemm on CUDA: float32 C = A * B by our own kernel (no cuBLAS).
//
// Classic shared-memory tiling with register blocking: a block of 256 threads computes a 128 x 128
// tile of C, walking K in slices of 8.  Each slice of A (128 x 8, stored transposed) and B (8 x 128)
// goes to shared memory; each thread keeps an 8 x 8 sub-tile of C in registers (rows ty*4 + {0..3}
// and 64 + ty*4 + {0..3}, the same for columns, so the float4 shared-memory reads of a warp are
// conflict free) and does 64 FMAs per 16 shared-memory loads.  Two shared buffers: the next slice is
// loaded from global memory into registers while the current one is used (software pipelining).
// Edges are zero-filled on load and masked on store, so any M, N, K works; indices are 64-bit.
// Checks and op registration: csrc/ops/cuda/sgemm_glue.cpp.
#include "ops/cuda/common.cuh"
#include "ops/cuda/sgemm_kernel.h"

namespace envcheck {
namespace cuda {
namespace {

constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;
static_assert(BM == kSgemmTileRows, "the glue's grid-limit check uses kSgemmTileRows");
constexpr int kGemmThreads = (BM / TM) * (BN / TN);  // 256
constexpr int kPad = 4;                              // keeps float4 alignment, spreads the transposed stores

__global__ void __launch_bounds__(kGemmThreads, 2)
    sgemm_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int64_t M,
                 int64_t N, int64_t K) {
  __shared__ __align__(16) float As[2][BK][BM + kPad];
  __shared__ __align__(16) float Bs[2][BK][BN + kPad];

  const int tid = threadIdx.x;
  const int tx = tid % 16, ty = tid / 16;
  const int64_t row0 = static_cast<int64_t>(blockIdx.y) * BM;
  const int64_t col0 = static_cast<int64_t>(blockIdx.x) * BN;

  // Global -> register mapping: A tile 128 x 8, each thread 4 consecutive k of one row;
  // B tile 8 x 128, each thread 4 consecutive columns of one k row.
  const int a_row = tid / 2, a_k = (tid % 2) * 4;
  const int b_k = tid / 32, b_col = (tid % 32) * 4;

  float a_reg[4], b_reg[4];
  auto load_global = [&](int64_t k0) {
    const int64_t ar = row0 + a_row;
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      const int64_t ak = k0 + a_k + q;
      a_reg[q] = (ar < M && ak < K) ? __ldg(A + ar * K + ak) : 0.f;
    }
    const int64_t bk = k0 + b_k;
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      const int64_t bc = col0 + b_col + q;
      b_reg[q] = (bk < K && bc < N) ? __ldg(B + bk * N + bc) : 0.f;
    }
  };
  auto store_shared = [&](int buf) {
#pragma unroll
    for (int q = 0; q < 4; ++q) As[buf][a_k + q][a_row] = a_reg[q];
    *reinterpret_cast<float4*>(&Bs[buf][b_k][b_col]) = make_float4(b_reg[0], b_reg[1], b_reg[2], b_reg[3]);
  };

  float acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = 0.f;

  load_global(0);
  store_shared(0);
  __syncthreads();

  int buf = 0;
  for (int64_t k0 = 0; k0 < K; k0 += BK) {
    const bool has_next = k0 + BK < K;
    if (has_next) load_global(k0 + BK);
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      float a[TM], b[TN];
      const float4 a0 = *reinterpret_cast<const float4*>(&As[buf][k][ty * 4]);
      const float4 a1 = *reinterpret_cast<const float4*>(&As[buf][k][64 + ty * 4]);
      const float4 b0 = *reinterpret_cast<const float4*>(&Bs[buf][k][tx * 4]);
      const float4 b1 = *reinterpret_cast<const float4*>(&Bs[buf][k][64 + tx * 4]);
      a[0] = a0.x; a[1] = a0.y; a[2] = a0.z; a[3] = a0.w;
      a[4] = a1.x; a[5] = a1.y; a[6] = a1.z; a[7] = a1.w;
      b[0] = b0.x; b[1] = b0.y; b[2] = b0.z; b[3] = b0.w;
      b[4] = b1.x; b[5] = b1.y; b[6] = b1.z; b[7] = b1.w;
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    if (has_next) {
      // The other buffer was last read before the previous __syncthreads(): safe to overwrite.
      store_shared(buf ^ 1);
      __syncthreads();
      buf ^= 1;
    }
  }

#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int64_t r = row0 + (i < 4 ? ty * 4 + i : 64 + ty * 4 + (i - 4));
    if (r >= M) continue;
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      const int64_t c = col0 + (j < 4 ? tx * 4 + j : 64 + tx * 4 + (j - 4));
      if (c < N) C[r * N + c] = acc[i][j];
    }
  }
}

}  // namespace

void sgemm_launch(const float* a, const float* b, float* c, int64_t m, int64_t n, int64_t k, cudaStream_t stream) {
  const dim3 grid(static_cast<unsigned>((n + BN - 1) / BN), static_cast<unsigned>((m + BM - 1) / BM));
  sgemm_kernel<<<grid, kGemmThreads, 0, stream>>>(a, b, c, m, n, k);
}

}  // namespace cuda
}  // namespace envcheck
