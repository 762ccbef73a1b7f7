// copy and rows on the CPU: each batch item moves one contiguous run of `elem_words` words.
//
// Work is split into tasks of whole runs, or, when runs are long (a big copy, few long rows), into pieces
// of `piece_bytes` so that every thread gets a share even when the batch is small. Short runs of 1..16
// power-of-two bytes get a fixed-size copy the compiler turns into one load and one store; the rest call
// memcpy, which is at its best on long runs.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "cpu/batch_cursor.hpp"
#include "cpu/copy_bytes.hpp"
#include "cpu/cpu_features.hpp"
#include "cpu/macrokernels.hpp"
#include "cpu/threads.hpp"
#include "cpu/tuning_cpu.hpp"

namespace xpose::detail {

namespace {

// Long runs are cut into pieces of this size: large enough that memcpy runs at full speed (and uses
// non-temporal stores on big pieces), small enough to balance threads.
constexpr std::int64_t piece_bytes = std::int64_t{256} << 10;

// Rows of a line or more are gathered from addresses a stride apart (a permutation that keeps its fastest
// axis reads one row of each input plane in turn), which the hardware prefetchers follow poorly: the rows
// this many bytes ahead are prefetched. Dev VM (2-core AMD EPYC), same call, 2 rounds, 1 / 2 threads vs the
// non-temporal copy (benchmarks/results/cpu-rows-prefetch-epyc.txt): fp32 2000 x 2000 x 40 axes 1,0,2 (160-byte
// rows) 0.386 / 0.596 -> 0.537 / 0.596, 192-byte rows 0.465 / 0.594 -> 0.575 / 0.602, [40,7,35,45,40] axes
// 0,3,1,2,4 0.402 / 0.623 -> 0.551 / 0.629, 512^3 axes 1,0,2 0.563 / 0.754 -> 0.646 / 0.741, c128 rows 0.543 /
// 0.677 -> 0.619 / 0.662; 256-byte heads and rows of 1-4 KiB within the noise (0.57-0.62 / 0.59-0.76 both).
// 8, 32, 64 rows or 8 KiB ahead measured the same as 4 KiB.
constexpr std::int64_t prefetch_ahead_bytes = 4096;

// One run per batch item in [begin, end), all of `RunBytes` bytes (0 = `run_bytes`, known at run time).
// `isa`: stream the runs' whole output lines with its non-temporal stores (rows_stream), else nullptr.
template <std::int64_t RunBytes>
void copy_runs(const plan_geometry& g, const unsigned char* in, unsigned char* out, std::int64_t run_bytes,
               std::int64_t begin, std::int64_t end, const isa_kernels* isa) {
  const std::int64_t wb = g.word_bytes;
  batch_cursor b(g, begin);
  // Runs of a line or more: the input lines of the run prefetch_ahead_bytes on prefetched (a second cursor).
  const std::int64_t d = run_bytes < 64 ? 0 : std::max<std::int64_t>(1, prefetch_ahead_bytes / run_bytes);
  batch_cursor ahead(g, begin + d < end ? begin + d : begin);  // unused when d is 0 or spans the slice
  for (std::int64_t i = begin; i < end; ++i, b.next()) {
    if (d > 0 && i + d < end) {
      prefetch_run<3>(in + ahead.in_offset() * wb, run_bytes);  // into L1 (copy_bytes.hpp)
      ahead.next();
    }
    const unsigned char* src = in + b.in_offset() * wb;
    unsigned char* dst = out + b.out_offset() * wb;
    if constexpr (RunBytes > 0) {
      std::memcpy(dst, src, RunBytes);
    } else if (isa != nullptr) {
      stream_bytes(dst, src, run_bytes, true, *isa);
    } else {
      std::memcpy(dst, src, static_cast<std::size_t>(run_bytes));
    }
  }
  if (isa != nullptr && isa->fence != nullptr) isa->fence();  // the streamed lines before the caller's join
}

}  // namespace

void cpu_rows(const plan_geometry& g, const void* in_v, void* out_v, int threads) {
  const auto* in = static_cast<const unsigned char*>(in_v);
  auto* out = static_cast<unsigned char*>(out_v);
  const std::int64_t run_bytes = g.elem_words * g.word_bytes;
  const std::int64_t items = g.batch_count();
  if (run_bytes == 0 || items == 0) return;

  if (run_bytes > piece_bytes) {
    // Long runs: task t is piece t % pieces of run t / pieces.
    const std::int64_t pieces = (run_bytes + piece_bytes - 1) / piece_bytes;
    const int nt = resolve_threads(threads, run_bytes * items, items * pieces);
    parallel_slices(items * pieces, nt, [&](std::int64_t begin, std::int64_t end) {
      batch_cursor b(g, begin / pieces);
      std::int64_t piece = begin % pieces;
      for (std::int64_t t = begin; t < end; ++t) {
        const std::int64_t off = piece * piece_bytes;
        const std::int64_t len = piece + 1 == pieces ? run_bytes - off : piece_bytes;
        std::memcpy(out + b.out_offset() * g.word_bytes + off, in + b.in_offset() * g.word_bytes + off,
                    static_cast<std::size_t>(len));
        if (++piece == pieces) {
          piece = 0;
          b.next();
        }
      }
    });
    return;
  }

  const int nt = resolve_threads(threads, run_bytes * items, items);
  const isa_kernels& isa = kernels_for(active_cpu_isa());
  const isa_kernels* stream = rows_stream(run_bytes, run_bytes * items, host_caches()) ? &isa : nullptr;
  parallel_slices(items, nt, [&](std::int64_t begin, std::int64_t end) {
    switch (run_bytes) {
      case 1: copy_runs<1>(g, in, out, run_bytes, begin, end, nullptr); break;
      case 2: copy_runs<2>(g, in, out, run_bytes, begin, end, nullptr); break;
      case 4: copy_runs<4>(g, in, out, run_bytes, begin, end, nullptr); break;
      case 8: copy_runs<8>(g, in, out, run_bytes, begin, end, nullptr); break;
      case 16: copy_runs<16>(g, in, out, run_bytes, begin, end, nullptr); break;
      case 32: copy_runs<32>(g, in, out, run_bytes, begin, end, nullptr); break;
      case 64: copy_runs<64>(g, in, out, run_bytes, begin, end, nullptr); break;
      default: copy_runs<0>(g, in, out, run_bytes, begin, end, stream); break;
    }
  });
}

}  // namespace xpose::detail
