// xpose-bench peer: NPP nppiTranspose_<type>_C<n>R_Ctx, compiled only when NPP was found at configure time
// (XPOSE_BENCH_HAS_NPP; the functions live in libnppidei). Without NPP the factory says so and the peer's
// column reads "n/a (NPP not found at build time)".
//
// A pixel of 1, 2, 3, 4, 6, 8, 12 or 16 bytes is one of NPP's (type, channels) pairs:
//   1 8u_C1R   2 16u_C1R   3 8u_C3R   4 32f_C1R   6 16u_C3R   8 16u_C4R   12 32f_C3R   16 32f_C4R
// Transposes are pure data movement (no arithmetic), so every pixel type is bit-exact.
// NPP takes int extents (oSrcROI = {width = cols, height = rows}) and int byte steps (row strides in bytes):
// cases beyond them, batches larger than max_peer_loop (a loop of calls) and other element sizes are n/a.
// The calls are stream-ordered through an NppStreamContext filled for the run's stream and device.
#include "peers.hpp"

#if XPOSE_BENCH_HAS_NPP
#include <npp.h>

#include <algorithm>
#include <climits>
#include <utility>
#endif

namespace xpose::bench {

#if XPOSE_BENCH_HAS_NPP

namespace {

using transpose_fn = NppStatus (*)(const unsigned char* in, int in_step, unsigned char* out, int out_step,
                                   NppiSize src_roi, NppStreamContext ctx);

// Adapts a typed nppiTranspose_* to byte pointers.
template <class T, NppStatus (*F)(const T*, int, T*, int, NppiSize, NppStreamContext)>
NppStatus typed(const unsigned char* in, int in_step, unsigned char* out, int out_step, NppiSize roi,
                NppStreamContext ctx) {
  return F(reinterpret_cast<const T*>(in), in_step, reinterpret_cast<T*>(out), out_step, roi, ctx);
}

struct npp_function {
  std::int64_t elem_bytes;
  const char* name;
  transpose_fn fn;
};

constexpr npp_function npp_functions[] = {
    {1, "nppiTranspose_8u_C1R_Ctx", &typed<Npp8u, nppiTranspose_8u_C1R_Ctx>},
    {2, "nppiTranspose_16u_C1R_Ctx", &typed<Npp16u, nppiTranspose_16u_C1R_Ctx>},
    {3, "nppiTranspose_8u_C3R_Ctx", &typed<Npp8u, nppiTranspose_8u_C3R_Ctx>},
    {4, "nppiTranspose_32f_C1R_Ctx", &typed<Npp32f, nppiTranspose_32f_C1R_Ctx>},
    {6, "nppiTranspose_16u_C3R_Ctx", &typed<Npp16u, nppiTranspose_16u_C3R_Ctx>},
    {8, "nppiTranspose_16u_C4R_Ctx", &typed<Npp16u, nppiTranspose_16u_C4R_Ctx>},
    {12, "nppiTranspose_32f_C3R_Ctx", &typed<Npp32f, nppiTranspose_32f_C3R_Ctx>},
    {16, "nppiTranspose_32f_C4R_Ctx", &typed<Npp32f, nppiTranspose_32f_C4R_Ctx>},
};

std::string npp_status_text(NppStatus s) {
  switch (s) {
    case NPP_NOT_SUPPORTED_MODE_ERROR: return "NPP_NOT_SUPPORTED_MODE_ERROR";
    case NPP_INVALID_DEVICE_POINTER_ERROR: return "NPP_INVALID_DEVICE_POINTER_ERROR";
    case NPP_ALIGNMENT_ERROR: return "NPP_ALIGNMENT_ERROR";
    case NPP_CUDA_KERNEL_EXECUTION_ERROR: return "NPP_CUDA_KERNEL_EXECUTION_ERROR";
    case NPP_STREAM_CTX_ERROR: return "NPP_STREAM_CTX_ERROR";
    case NPP_NOT_EVEN_STEP_ERROR: return "NPP_NOT_EVEN_STEP_ERROR";
    case NPP_STRIDE_ERROR: return "NPP_STRIDE_ERROR";
    case NPP_STEP_ERROR: return "NPP_STEP_ERROR";
    case NPP_DATA_TYPE_ERROR: return "NPP_DATA_TYPE_ERROR";
    case NPP_MEMORY_ALLOCATION_ERR: return "NPP_MEMORY_ALLOCATION_ERR";
    case NPP_NULL_POINTER_ERROR: return "NPP_NULL_POINTER_ERROR";
    case NPP_RANGE_ERROR: return "NPP_RANGE_ERROR";
    case NPP_SIZE_ERROR: return "NPP_SIZE_ERROR";
    case NPP_BAD_ARGUMENT_ERROR: return "NPP_BAD_ARGUMENT_ERROR";
    case NPP_NO_MEMORY_ERROR: return "NPP_NO_MEMORY_ERROR";
    case NPP_NOT_IMPLEMENTED_ERROR: return "NPP_NOT_IMPLEMENTED_ERROR";
    case NPP_ERROR: return "NPP_ERROR";
    default: return "NppStatus " + std::to_string(static_cast<int>(s));
  }
}

// The stream context NPP's _Ctx functions take, filled from the device and the stream (NPP's documented
// application-managed context; the reserved field stays 0).
std::string make_stream_context(cudaStream_t stream, NppStreamContext& ctx) {
  ctx = NppStreamContext{};
  ctx.hStream = stream;
  int dev = 0, smem = 0;
  cudaError_t e = cudaGetDevice(&dev);
  ctx.nCudaDeviceId = dev;
  const std::pair<int*, cudaDeviceAttr> attrs[] = {
      {&ctx.nMultiProcessorCount, cudaDevAttrMultiProcessorCount},
      {&ctx.nMaxThreadsPerMultiProcessor, cudaDevAttrMaxThreadsPerMultiProcessor},
      {&ctx.nMaxThreadsPerBlock, cudaDevAttrMaxThreadsPerBlock},
      {&smem, cudaDevAttrMaxSharedMemoryPerBlock},
      {&ctx.nCudaDevAttrComputeCapabilityMajor, cudaDevAttrComputeCapabilityMajor},
      {&ctx.nCudaDevAttrComputeCapabilityMinor, cudaDevAttrComputeCapabilityMinor},
  };
  for (const auto& [value, attr] : attrs)
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(value, attr, dev);
  ctx.nSharedMemPerBlock = static_cast<size_t>(smem);
  if (e == cudaSuccess) e = cudaStreamGetFlags(stream, &ctx.nStreamFlags);
  if (e != cudaSuccess) return std::string("NppStreamContext: ") + cudaGetErrorName(e);
  return {};
}

class npp_peer final : public peer {
 public:
  npp_peer(const matrix_view& v, const npp_function& f, const NppStreamContext& ctx) : v_(v), f_(f), ctx_(ctx) {
    variant = f.name;
  }

  std::string run(const unsigned char* in, unsigned char* out) override {
    const NppiSize roi{static_cast<int>(v_.cols), static_cast<int>(v_.rows)};  // width = cols, height = rows
    const int in_step = static_cast<int>(v_.in_ld * v_.elem_bytes);
    const int out_step = static_cast<int>(v_.out_ld * v_.elem_bytes);
    for (std::int64_t b = 0; b < v_.batch; ++b) {
      const NppStatus s = f_.fn(in + b * v_.in_batch_stride * v_.elem_bytes, in_step,
                                out + b * v_.out_batch_stride * v_.elem_bytes, out_step, roi, ctx_);
      if (s < NPP_SUCCESS) return std::string(f_.name) + ": " + npp_status_text(s);  // > 0: warnings
    }
    return {};
  }

  int launches_per_run() const override { return static_cast<int>(v_.batch); }

 private:
  matrix_view v_;
  npp_function f_;
  NppStreamContext ctx_;
};

}  // namespace

bool npp_built() { return true; }

peer_setup make_npp_peer(const bench_case& c, const peer_handles& h) {
  peer_setup s;
  matrix_view v;
  const npp_function* f = nullptr;
  for (const auto& candidate : npp_functions)
    if (candidate.elem_bytes == c.elem_bytes) f = &candidate;
  if (std::string why = as_matrix_view(c, v); !why.empty()) {
    s.why = "NPP: " + why;
  } else if (f == nullptr) {
    s.why = "NPP: no nppiTranspose for " + std::to_string(v.elem_bytes) +
            "-byte pixels (1, 2, 3, 4, 6, 8, 12, 16 B: 8u/16u/32f x C1R/C3R/C4R)";
  } else if (v.batch > max_peer_loop) {
    s.why = "NPP: batched (" + std::to_string(v.batch) + " matrices): no batched nppiTranspose, and a loop of " +
            "calls is not a peer";
  } else if (v.rows > INT_MAX || v.cols > INT_MAX) {
    s.why = "NPP: extents exceed NppiSize's int";
  } else if (v.in_ld * v.elem_bytes > INT_MAX || v.out_ld * v.elem_bytes > INT_MAX) {
    s.why = "NPP: a row exceeds the int byte step (" + std::to_string(std::max(v.in_ld, v.out_ld) * v.elem_bytes) +
            " B)";
  } else {
    NppStreamContext ctx;
    if (std::string e = make_stream_context(h.stream, ctx); !e.empty()) s.error = "NPP: " + e;
    else s.p = std::make_unique<npp_peer>(v, *f, ctx);
  }
  return s;
}

#else  // !XPOSE_BENCH_HAS_NPP

bool npp_built() { return false; }

peer_setup make_npp_peer(const bench_case&, const peer_handles&) {
  peer_setup s;
  s.why = "NPP not found at build time";
  return s;
}

#endif

}  // namespace xpose::bench
