// xpose-bench peer: cuBLAS S/D/Zgeam (4, 8, 16-byte elements).
//
// Row-major rows x cols -> cols x rows is, in cuBLAS's column-major terms, C (m = rows, n = cols, ldc = the
// output's row stride) = 1 * A^T (A: cols x rows, lda = the input's row stride) + 0 * B, with B = C (ldb = ldc,
// op N: cuBLAS's documented in-place form for B). The oracle's pattern keeps every fp32/fp64 word finite and
// normal, so 1*a + 0*b is exact. A batch is a loop of calls (at most max_peer_loop).
#include <climits>

#include "peers.hpp"

namespace xpose::bench {

namespace {

class geam_peer final : public peer {
 public:
  geam_peer(const matrix_view& v, cublasHandle_t h) : v_(v), h_(h) {
    variant = v.elem_bytes == 4 ? "cublasSgeam" : v.elem_bytes == 8 ? "cublasDgeam" : "cublasZgeam";
  }

  std::string run(const unsigned char* in, unsigned char* out) override {
    const int m = static_cast<int>(v_.rows), n = static_cast<int>(v_.cols);
    const int lda = static_cast<int>(v_.in_ld), ldc = static_cast<int>(v_.out_ld);
    for (std::int64_t b = 0; b < v_.batch; ++b) {
      const void* a = in + b * v_.in_batch_stride * v_.elem_bytes;
      void* c = out + b * v_.out_batch_stride * v_.elem_bytes;
      cublasStatus_t s = CUBLAS_STATUS_NOT_SUPPORTED;
      if (v_.elem_bytes == 4) {
        const float one = 1.0f, zero = 0.0f;
        s = cublasSgeam(h_, CUBLAS_OP_T, CUBLAS_OP_N, m, n, &one, static_cast<const float*>(a), lda, &zero,
                        static_cast<const float*>(c), ldc, static_cast<float*>(c), ldc);
      } else if (v_.elem_bytes == 8) {
        const double one = 1.0, zero = 0.0;
        s = cublasDgeam(h_, CUBLAS_OP_T, CUBLAS_OP_N, m, n, &one, static_cast<const double*>(a), lda, &zero,
                        static_cast<const double*>(c), ldc, static_cast<double*>(c), ldc);
      } else {
        const cuDoubleComplex one = make_cuDoubleComplex(1.0, 0.0), zero = make_cuDoubleComplex(0.0, 0.0);
        s = cublasZgeam(h_, CUBLAS_OP_T, CUBLAS_OP_N, m, n, &one, static_cast<const cuDoubleComplex*>(a), lda, &zero,
                        static_cast<const cuDoubleComplex*>(c), ldc, static_cast<cuDoubleComplex*>(c), ldc);
      }
      if (s != CUBLAS_STATUS_SUCCESS) return variant + ": " + cublasGetStatusString(s);
    }
    return {};
  }

  int launches_per_run() const override { return static_cast<int>(v_.batch); }

 private:
  matrix_view v_;
  cublasHandle_t h_;
};

}  // namespace

peer_setup make_geam_peer(const bench_case& c, const peer_handles& h) {
  peer_setup s;
  matrix_view v;
  if (std::string why = as_matrix_view(c, v); !why.empty()) {
    s.why = "geam: " + why;
  } else if (v.elem_bytes != 4 && v.elem_bytes != 8 && v.elem_bytes != 16) {
    s.why = "geam: no cuBLAS geam for " + std::to_string(v.elem_bytes) + "-byte elements";
  } else if (v.batch > max_peer_loop) {
    s.why = "geam: batched (" + std::to_string(v.batch) + " matrices): a loop of geam calls is not a peer";
  } else if (v.rows > INT_MAX || v.cols > INT_MAX || v.in_ld > INT_MAX || v.out_ld > INT_MAX) {
    s.why = "geam: extents or leading dimensions exceed cuBLAS's int";
  } else {
    s.p = std::make_unique<geam_peer>(v, h.cublas);
  }
  return s;
}

}  // namespace xpose::bench
