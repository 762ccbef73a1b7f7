// One-shot conveniences over make_plan + execute.
#include "xpose/permute.hpp"

namespace xpose {

status permute(const void* d_in, void* d_out, const problem& p, stream_t stream) {
  auto pl = make_plan(p);
  if (!pl) return pl.error();
  return pl->execute(d_in, d_out, stream);
}

status permute_host(const void* in, void* out, const problem& p, int threads) {
  auto pl = make_plan(p);
  if (!pl) return pl.error();
  return pl->execute_host(in, out, threads);
}

status transpose(const void* d_in, void* d_out, std::int64_t rows, std::int64_t cols, std::int64_t elem_bytes,
                 stream_t stream) {
  return permute(d_in, d_out, problem{{rows, cols}, {1, 0}, elem_bytes, {}, {}}, stream);
}

status transpose_batched(const void* d_in, void* d_out, std::int64_t batch, std::int64_t rows, std::int64_t cols,
                         std::int64_t elem_bytes, stream_t stream) {
  return permute(d_in, d_out, problem{{batch, rows, cols}, {0, 2, 1}, elem_bytes, {}, {}}, stream);
}

status transpose_host(const void* in, void* out, std::int64_t rows, std::int64_t cols, std::int64_t elem_bytes,
                      int threads) {
  return permute_host(in, out, problem{{rows, cols}, {1, 0}, elem_bytes, {}, {}}, threads);
}

}  // namespace xpose
