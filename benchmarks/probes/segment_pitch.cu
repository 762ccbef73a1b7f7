// Probe: what a row pitch that is not a multiple of 256 bytes costs tiled copies, and whether segments aligned
// in the address space (the tile's first byte varying with the row) win it back. Each block copies one tile
// of 64 rows x 256 bytes (or 32 x 512, 16 x 1024) between two buffers of the same layout (loads first, then
// stores, as a transpose's tile does), tiles in row order (the read side of a transpose), column order (its
// write side) or panels. Built as xpose_probe_segment_pitch with CUDA (CMakeLists.txt), or:
//   nvcc -O3 -std=c++20 -gencode=arch=compute_90,code=sm_90 -o segment_pitch benchmarks/probes/segment_pitch.cu
// Prints a line a configuration: GB/s and the ratio to cudaMemcpyAsync D2D of the same bytes.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

namespace {

constexpr int threads = 256;

// skew: segment j of row r starts at the first 256-byte address boundary at or after the row's start, plus
// j * 256 (the row's head before it is copied by segment -1, clipped); else at the row's start + j * 256.
// order 0: tiles in row order, 1: column order, 2: panels of 8 x 8 tiles (row order inside, panels in column
// order). Tiles of tile_rows x seg bytes.
template <int seg, int tile_rows>
__global__ void tiles(const unsigned char* __restrict__ src, unsigned char* __restrict__ dst, std::int64_t rows,
                      std::int64_t width, std::int64_t pitch, int tiles_r, int tiles_c, int order, bool skew) {
  const int t = blockIdx.x;
  int i = order == 1 ? t % tiles_r : t / tiles_c, j = order == 1 ? t / tiles_r : t % tiles_c;
  if (order == 2) {  // tiles_r a multiple of 8 here
    const int panel = t / 64, in = t % 64, panels_r = tiles_r / 8;
    i = (panel % panels_r) * 8 + in / 8, j = (panel / panels_r) * 8 + in % 8;
    if (j >= tiles_c) return;
  }
  constexpr int lanes = seg / 16, per = tile_rows * lanes / threads;
  uint4 v[per];
  std::int64_t at[per];
#pragma unroll
  for (int k = 0; k < per; ++k) {
    const int x = threadIdx.x + k * threads, r = x / lanes, l = x % lanes;
    const std::int64_t row = static_cast<std::int64_t>(i) * tile_rows + r;
    at[k] = -1;
    if (row >= rows) continue;
    const std::int64_t start = row * pitch;
    std::int64_t lo = start + static_cast<std::int64_t>(j) * seg;
    if (skew) lo = ((start + seg - 1) / seg * seg) + static_cast<std::int64_t>(j - 1) * seg;
    const std::int64_t a = lo + 16 * l;
    if (a < start || a + 16 > start + width) continue;
    at[k] = a;
    v[k] = *reinterpret_cast<const uint4*>(src + a);
  }
#pragma unroll
  for (int k = 0; k < per; ++k)
    if (at[k] >= 0) *reinterpret_cast<uint4*>(dst + at[k]) = v[k];
}

float time_ms(const std::vector<cudaEvent_t>& ev, int reps, auto&& body) {
  std::vector<float> t;
  for (int w = 0; w < 3; ++w) body();
  for (int r = 0; r < reps; ++r) {
    cudaEventRecord(ev[0]);
    body();
    cudaEventRecord(ev[1]);
    cudaEventSynchronize(ev[1]);
    float ms = 0;
    cudaEventElapsedTime(&ms, ev[0], ev[1]);
    t.push_back(ms);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace

int main() {
  const std::int64_t rows = 8192, width = 32768;
  const std::int64_t pitches[] = {32768, 32800, 32784, 33024};
  unsigned char *a = nullptr, *b = nullptr;
  const std::int64_t max_bytes = rows * 33024;
  cudaMalloc(&a, max_bytes);
  cudaMalloc(&b, max_bytes);
  cudaMemset(a, 1, max_bytes);
  std::vector<cudaEvent_t> ev(2);
  for (auto& e : ev) cudaEventCreate(&e);
  const float mc = time_ms(ev, 20, [&] { cudaMemcpyAsync(b, a, rows * width, cudaMemcpyDeviceToDevice); });
  const double bytes = 2.0 * rows * width;
  std::printf("memcpy %lld bytes: %.1f GB/s\n", static_cast<long long>(rows * width), bytes / mc / 1e6);
  std::printf("%-5s %-5s %-8s %-7s %-6s %10s %8s\n", "seg", "rows", "pitch", "order", "skew", "GB/s", "ratio");
  auto run = [&](auto kernel, int seg, int tile_rows) {
    for (const std::int64_t pitch : pitches)
      for (const int order : {0, 1, 2})
        for (const bool skew : {false, true}) {
          if (skew && pitch % seg == 0) continue;
          const int tr = static_cast<int>((rows + tile_rows - 1) / tile_rows);
          const int tc = static_cast<int>(width / seg + (skew ? 1 : 0));
          const int blocks = order == 2 ? (tr / 8) * ((tc + 7) / 8) * 64 : tr * tc;
          const float ms = time_ms(ev, 20, [&] { kernel<<<blocks, threads>>>(a, b, rows, width, pitch, tr, tc, order, skew); });
          std::printf("%-5d %-5d %-8lld %-7s %-6s %10.1f %8.3f\n", seg, tile_rows, static_cast<long long>(pitch),
                      order == 0 ? "row" : order == 1 ? "column" : "panel", skew ? "yes" : "no", bytes / ms / 1e6, mc / ms);
        }
  };
  run(tiles<256, 64>, 256, 64);
  run(tiles<512, 32>, 512, 32);
  run(tiles<1024, 16>, 1024, 16);
  if (cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess) std::printf("error: %s\n", cudaGetErrorString(e));
  return 0;
}
