// Softmax over the last dimension: y = exp(x - max) / sum(exp(x - max)), row by row.
// exp_u20 is ATen's fast exp (max error about 2 ulp, the one torch's own softmax kernel uses).
// Three passes over a row (max; exp and sum, writing exp to y; scale); a row is usually in L1/L2
// after the first pass, so memory traffic is about one read and one write.

void softmax_kernel(const float* x, float* y, int64_t rows, int64_t cols) {
  if (rows == 0 || cols == 0) return;
  // Group rows so that each task has at least ~kGrain elements.
  const int64_t grain = std::max<int64_t>(1, kGrain / cols);
  at::parallel_for(0, rows, grain, [&](int64_t r0, int64_t r1) {
    constexpr int64_t V = Vec::size();
    for (int64_t r = r0; r < r1; ++r) {
      const float* xr = x + r * cols;
      float* yr = y + r * cols;
      // pass 1: max
      float mx = -std::numeric_limits<float>::infinity();
      int64_t j = 0;
      if (cols >= V) {
        Vec m = Vec::loadu(xr);
        for (j = V; j + V <= cols; j += V) m = at::vec::maximum(m, Vec::loadu(xr + j));
        mx = at::vec::vec_reduce_all<float>([](Vec& a, Vec& b) { return at::vec::maximum(a, b); }, m);
      } else {
        j = 0;
      }
      for (; j < cols; ++j) mx = std::max(mx, xr[j]);
      // A row of all -inf would give nan from (-inf) - (-inf); torch gives nan there too, keep it.
      const Vec vmx(mx);
      // pass 2: e = exp(x - max), running sum
      Vec vs(0.f);
      j = 0;
      for (; j + V <= cols; j += V) {
        Vec e = (Vec::loadu(xr + j) - vmx).exp_u20();
        e.store(yr + j);
        vs = vs + e;
      }
      float s = at::vec::vec_reduce_all<float>([](Vec& a, Vec& b) { return a + b; }, vs);
      if (j < cols) {
        const int64_t cnt = cols - j;
        Vec e = (Vec::loadu(xr + j, cnt) - vmx).exp_u20();
        e.store(yr + j, cnt);
        __at_align__ float tmp[V];
        e.store(tmp);
        for (int64_t t = 0; t < cnt; ++t) s += tmp[t];
      }
      // pass 3: scale
      const Vec inv(1.0f / s);
      j = 0;
      for (; j + V <= cols; j += V) (Vec::loadu(yr + j) * inv).store(yr + j);
      if (j < cols) (Vec::loadu(yr + j, cols - j) * inv).store(yr + j, cols - j);
    }
  });
}
