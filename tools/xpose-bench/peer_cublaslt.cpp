// xpose-bench peer: cublasLtMatrixTransform, C = alpha * op(A) + beta * op(B) with op(A) = A^T, alpha 1,
// beta 0 and no B (B and its layout null, as cuBLASLt allows when beta is 0).
//
// Both matrices are described as stored, in cuBLASLt's default column-major order (CUBLASLT_ORDER_COL) with
// swapped dims, as for geam: the row-major rows x cols input is a column-major cols x rows matrix A with
// ld = the input's row stride (elements); the row-major cols x rows output is a column-major rows x cols
// matrix C with ld = the output's row stride; C = A^T. A batch is one call: CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT
// and STRIDED_BATCH_OFFSET (elements) on both layouts. The layouts and the operation descriptor are made once
// per case, outside the timed loop.
//
// Types: int8 (CUDA_R_8I), fp16 (CUDA_R_16F), fp32 (CUDA_R_32F) with scale type fp32, fp64 (CUDA_R_64F) with
// scale type fp64. The values pass through alpha * a in the scale type: exact for int8 and for the finite,
// normal fp32/fp64 words of the oracle's pattern; fp16 NaN inputs may come out as another NaN (see
// peer::fp16_nan_payloads_may_change).
#include <climits>

#include "peers.hpp"

namespace xpose::bench {

namespace {

std::string status_text(cublasStatus_t s) { return cublasGetStatusString(s); }

class cublaslt_peer final : public peer {
 public:
  cublaslt_peer(const matrix_view& v, const peer_handles& h) : v_(v), h_(h) {}
  cublaslt_peer(const cublaslt_peer&) = delete;
  cublaslt_peer& operator=(const cublaslt_peer&) = delete;
  ~cublaslt_peer() override {
    if (a_ != nullptr) (void)cublasLtMatrixLayoutDestroy(a_);
    if (c_ != nullptr) (void)cublasLtMatrixLayoutDestroy(c_);
    if (op_ != nullptr) (void)cublasLtMatrixTransformDescDestroy(op_);
  }

  // Creates the descriptors. Returns "" or the failing call.
  std::string setup() {
    cudaDataType data = CUDA_R_32F, scale = CUDA_R_32F;
    switch (v_.elem_bytes) {
      case 1: data = CUDA_R_8I; variant = "cublasLtMatrixTransform CUDA_R_8I"; break;
      case 2: data = CUDA_R_16F; variant = "cublasLtMatrixTransform CUDA_R_16F"; break;
      case 4: data = CUDA_R_32F; variant = "cublasLtMatrixTransform CUDA_R_32F"; break;
      default: data = scale = CUDA_R_64F; variant = "cublasLtMatrixTransform CUDA_R_64F"; break;
    }
    fp16_nan_payloads_may_change = data == CUDA_R_16F;
    double_scale_ = scale == CUDA_R_64F;
    if (auto s = cublasLtMatrixTransformDescCreate(&op_, scale); s != CUBLAS_STATUS_SUCCESS)
      return "cublasLtMatrixTransformDescCreate: " + status_text(s);
    const std::int32_t trans = CUBLAS_OP_T;
    if (auto s = cublasLtMatrixTransformDescSetAttribute(op_, CUBLASLT_MATRIX_TRANSFORM_DESC_TRANSA, &trans,
                                                         sizeof trans);
        s != CUBLAS_STATUS_SUCCESS)
      return "cublasLtMatrixTransformDescSetAttribute(TRANSA): " + status_text(s);
    // Column-major: A is cols x rows (ld >= cols), C is rows x cols (ld >= rows).
    if (std::string e = make_layout(a_, data, v_.cols, v_.rows, v_.in_ld, v_.in_batch_stride); !e.empty())
      return "A: " + e;
    if (std::string e = make_layout(c_, data, v_.rows, v_.cols, v_.out_ld, v_.out_batch_stride); !e.empty())
      return "C: " + e;
    return {};
  }

  std::string run(const unsigned char* in, unsigned char* out) override {
    const float one_f = 1.0f, zero_f = 0.0f;
    const double one_d = 1.0, zero_d = 0.0;
    const void* alpha = double_scale_ ? static_cast<const void*>(&one_d) : static_cast<const void*>(&one_f);
    const void* beta = double_scale_ ? static_cast<const void*>(&zero_d) : static_cast<const void*>(&zero_f);
    const cublasStatus_t s =
        cublasLtMatrixTransform(h_.cublaslt, op_, alpha, in, a_, beta, nullptr, nullptr, out, c_, h_.stream);
    if (s != CUBLAS_STATUS_SUCCESS) return "cublasLtMatrixTransform: " + status_text(s);
    return {};
  }

  // One strided-batch call; 2 leaves room for a library that splits the work.
  int launches_per_run() const override { return 2; }

 private:
  std::string make_layout(cublasLtMatrixLayout_t& layout, cudaDataType type, std::int64_t rows, std::int64_t cols,
                          std::int64_t ld, std::int64_t batch_stride) {
    if (auto s = cublasLtMatrixLayoutCreate(&layout, type, static_cast<std::uint64_t>(rows),
                                            static_cast<std::uint64_t>(cols), ld);
        s != CUBLAS_STATUS_SUCCESS)
      return "cublasLtMatrixLayoutCreate: " + status_text(s);
    if (v_.batch > 1) {
      const auto count = static_cast<std::int32_t>(v_.batch);
      const std::int64_t offset = batch_stride;
      if (auto s = cublasLtMatrixLayoutSetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof count);
          s != CUBLAS_STATUS_SUCCESS)
        return "cublasLtMatrixLayoutSetAttribute(BATCH_COUNT): " + status_text(s);
      if (auto s = cublasLtMatrixLayoutSetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &offset,
                                                    sizeof offset);
          s != CUBLAS_STATUS_SUCCESS)
        return "cublasLtMatrixLayoutSetAttribute(STRIDED_BATCH_OFFSET): " + status_text(s);
    }
    return {};
  }

  matrix_view v_;
  peer_handles h_;
  bool double_scale_ = false;
  cublasLtMatrixTransformDesc_t op_ = nullptr;
  cublasLtMatrixLayout_t a_ = nullptr, c_ = nullptr;
};

}  // namespace

peer_setup make_cublaslt_peer(const bench_case& c, const peer_handles& h) {
  peer_setup s;
  matrix_view v;
  if (std::string why = as_matrix_view(c, v); !why.empty()) {
    s.why = "cublasLt: " + why;
  } else if (v.elem_bytes != 1 && v.elem_bytes != 2 && v.elem_bytes != 4 && v.elem_bytes != 8) {
    s.why = "cublasLt: no transform type for " + std::to_string(v.elem_bytes) +
            "-byte elements (int8, fp16, fp32, fp64)";
  } else if (v.rows > INT_MAX || v.cols > INT_MAX || v.batch > INT_MAX) {
    s.why = "cublasLt: extents or batch count exceed int32";
  } else {
    auto p = std::make_unique<cublaslt_peer>(v, h);
    if (std::string e = p->setup(); !e.empty()) s.error = "cublasLt: " + e;
    else s.p = std::move(p);
  }
  return s;
}

}  // namespace xpose::bench
