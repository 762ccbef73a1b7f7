// xpose-bench: the peers — other libraries' transposes, timed and verified next to xpose on the same case
// (DESIGN §5). Only built with CUDA.
//
//   cuBLAS geam               4, 8, 16-byte elements (S/D/Zgeam with alpha 1, beta 0); batches of <= 64 as a loop
//   cublasLtMatrixTransform   int8, fp16, fp32, fp64 (1, 2, 4, 8 B); batches as one strided-batch call
//   NPP nppiTranspose         1, 2, 3, 4, 6, 8, 12, 16-byte pixels (C1R/C3R/C4R of 8u/16u/32f); batches of
//                             <= 64 as a loop; only when NPP was found at configure time (XPOSE_BENCH_HAS_NPP)
//
// Every peer takes a 2-D transpose, possibly batched and pitched (matrix_view, suites.hpp). A factory returns
// the peer, set up once per case (handles, descriptors, stream context) outside the timed loop, or why it
// does not apply to the case: that reason is what the peer's column says ("n/a").
#pragma once

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <memory>
#include <string>

#include "suites.hpp"

namespace xpose::bench {

/// One library's transpose of one case.
class peer {
 public:
  virtual ~peer() = default;
  /// Enqueues one transpose of the case from `in` to `out` (device pointers to the case's input and output
  /// views) on the stream the peer was made for. Returns "" or the library's error.
  virtual std::string run(const unsigned char* in, unsigned char* out) = 0;
  /// At most how many kernels one run enqueues (the blocking kernel is used only while a sample stays short).
  virtual int launches_per_run() const { return 1; }

  /// The function called, e.g. "cublasLtMatrixTransform CUDA_R_8I" or "nppiTranspose_8u_C3R_Ctx".
  std::string variant;
  /// True when the library computes alpha * A in floating point on fp16 data: NaN inputs may come out as
  /// other NaN bit patterns. The verification then also accepts NaN for NaN (and says how many).
  bool fp16_nan_payloads_may_change = false;
};

/// A factory's answer: the peer, or why it does not apply (`why`), or why setting it up failed (`error`).
struct peer_setup {
  std::unique_ptr<peer> p;
  std::string why;
  std::string error;
};

/// Library handles shared by every case of a run (created once; they own no data).
struct peer_handles {
  cudaStream_t stream = nullptr;
  cublasHandle_t cublas = nullptr;
  cublasLtHandle_t cublaslt = nullptr;
};

/// cuBLAS S/D/Zgeam: C = 1 * A^T + 0 * C.
peer_setup make_geam_peer(const bench_case& c, const peer_handles& h);

/// cublasLtMatrixTransform with transA = T (column-major layouts with swapped dims, as geam).
peer_setup make_cublaslt_peer(const bench_case& c, const peer_handles& h);

/// nppiTranspose_<type>_C<n>R_Ctx with an NppStreamContext for the stream.
peer_setup make_npp_peer(const bench_case& c, const peer_handles& h);

/// Whether this build has the NPP peer (NPP found at configure time).
bool npp_built();

/// Batches larger than this are not timed as a loop of per-matrix calls (geam, NPP): such a loop is not what
/// a user of the library would do for many small matrices, and its launch overhead is not the library's
/// transpose.
inline constexpr std::int64_t max_peer_loop = 64;

}  // namespace xpose::bench
