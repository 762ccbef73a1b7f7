// Probe: what a CPU core's memory system gives a transpose's access patterns, one thread, over an 8192 x 32 KiB
// array (256 MiB): the read side alone (tiles walked down panels of columns, rows of a band walked in chunks,
// with or without software prefetch into L2), the write side alone (non-temporal runs of a tile's output
// rows), and the sequential read and non-temporal write beside them. x86-64 with AVX-512 only.
// Built as xpose_probe_cpu_read_patterns (CMakeLists.txt, where the compiler takes -mavx512f); prints GB/s.
#include <immintrin.h>
#include <sys/mman.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

constexpr long rows = 8192, row_bytes = 32768;
constexpr std::size_t bytes = static_cast<std::size_t>(rows) * row_bytes;

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

volatile long long sink;
void keep(__m512i v) { sink = _mm_cvtsi128_si64(_mm512_castsi512_si128(v)); }

// Best of 3 runs of f() (bytes moved each), in GB/s.
template <class F>
double gbs(const F& f) {
  double best = 0;
  for (int r = 0; r < 3; ++r) {
    const double t0 = now();
    f();
    const double g = static_cast<double>(bytes) / (now() - t0) / 1e9;
    best = g > best ? g : best;
  }
  return best;
}

// Panels of `width` bytes, every row down each panel; prefetch (T1) the row `ahead` rows down.
double panels(const char* a, long width, long ahead) {
  return gbs([&] {
    __m512i acc = _mm512_setzero_si512();
    for (long c0 = 0; c0 + width <= row_bytes; c0 += width)
      for (long r = 0; r < rows; ++r) {
        const char* p = a + r * row_bytes + c0;
        if (ahead > 0 && r + ahead < rows)
          for (long x = 0; x < width; x += 64) _mm_prefetch(p + ahead * row_bytes + x, _MM_HINT_T1);
        for (long x = 0; x < width; x += 64) acc = _mm512_xor_si512(acc, _mm512_load_si512(p + x));
      }
    keep(acc);
  });
}

// Bands of `band` rows; for each chunk of `width` bytes, every row of the band.
double bands(const char* a, long band, long width) {
  return gbs([&] {
    __m512i acc = _mm512_setzero_si512();
    for (long r0 = 0; r0 < rows; r0 += band)
      for (long c0 = 0; c0 + width <= row_bytes; c0 += width)
        for (long r = r0; r < r0 + band; ++r)
          for (long x = 0; x < width; x += 64) acc = _mm512_xor_si512(acc, _mm512_load_si512(a + r * row_bytes + c0 + x));
    keep(acc);
  });
}

// Non-temporal runs of `run` bytes: a transpose's output rows, one run each per tile, tiles down a panel.
double runs(char* b, long run, long rows_per_tile) {
  const __m512i v = _mm512_set1_epi32(7);
  return gbs([&] {
    for (long c0 = 0; c0 < rows; c0 += rows_per_tile)
      for (long x0 = 0; x0 < row_bytes; x0 += run)
        for (long c = c0; c < c0 + rows_per_tile; ++c)
          for (long x = 0; x < run; x += 64) _mm512_stream_si512(reinterpret_cast<__m512i*>(b + c * row_bytes + x0 + x), v);
    _mm_sfence();
  });
}

}  // namespace

int main() {
  auto* a = static_cast<char*>(std::aligned_alloc(4096, bytes));
  auto* b = static_cast<char*>(std::aligned_alloc(4096, bytes));
  if (a == nullptr || b == nullptr) return 1;
  std::memset(a, 1, bytes);
  std::memset(b, 0, bytes);
  const double seq_read = gbs([&] {
    __m512i acc = _mm512_setzero_si512();
    for (std::size_t x = 0; x < bytes; x += 64) acc = _mm512_xor_si512(acc, _mm512_load_si512(a + x));
    keep(acc);
  });
  const double seq_write = runs(b, row_bytes, 1);
  std::printf("sequential read %.1f GB/s, non-temporal write %.1f GB/s\n", seq_read, seq_write);
  for (long w : {512L, 1024L, 4096L, 16384L})
    for (long ahead : {0L, 64L}) std::printf("read: panels %5ld B wide, prefetch %3ld rows ahead: %.1f GB/s\n", w, ahead, panels(a, w, ahead));
  for (long band : {16L, 64L, 128L})
    for (long w : {256L, 1024L}) std::printf("read: bands of %3ld rows, %4ld-byte chunks: %.1f GB/s\n", band, w, bands(a, band, w));
  for (long run : {64L, 128L, 256L, 512L}) std::printf("write: non-temporal runs of %3ld B, 256 rows a tile: %.1f GB/s\n", run, runs(b, run, 256));
  std::free(a);
  std::free(b);
  return 0;
}
