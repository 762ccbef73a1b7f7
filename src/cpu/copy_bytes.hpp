// Byte copies the CPU macro-kernels share: short runs as inline moves, and runs streamed to the output as
// whole lines (non-temporal) with their partial end lines stored plainly.
#pragma once

#include <cstdint>
#include <cstring>

#include "cpu/kernel_table.hpp"

namespace xpose::detail {

/// `n` bytes from s to d: runs under 64 bytes (a few units of a short axis, one large unit) as fixed-size,
/// possibly overlapping moves the compiler inlines, instead of a library call each.
inline void copy_short(unsigned char* d, const unsigned char* s, std::int64_t n) {
  if (n >= 64) {
    std::memcpy(d, s, static_cast<std::size_t>(n));
  } else if (n >= 16) {
    for (std::int64_t i = 0; i + 16 < n; i += 16) std::memcpy(d + i, s + i, 16);
    std::memcpy(d + n - 16, s + n - 16, 16);
  } else if (n >= 8) {
    std::memcpy(d, s, 8);
    std::memcpy(d + n - 8, s + n - 8, 8);
  } else if (n >= 4) {
    std::memcpy(d, s, 4);
    std::memcpy(d + n - 4, s + n - 4, 4);
  } else {
    for (std::int64_t i = 0; i < n; ++i) d[i] = s[i];
  }
}

/// `n` bytes from src to dst: the whole 64-byte lines of dst's range with the level's non-temporal stores,
/// the partial lines at its ends with plain ones (`stream` false, or a level without streaming stores: all
/// plain). Callers give each line to one writer; the partial ones may be shared with a neighbour's range.
inline void stream_bytes(unsigned char* dst, const unsigned char* src, std::int64_t n, bool stream, const isa_kernels& isa) {
  constexpr std::int64_t line = 64;
  if (!stream || isa.stream_lines == nullptr || n < line) {
    std::memcpy(dst, src, static_cast<std::size_t>(n));
    return;
  }
  const auto a = reinterpret_cast<std::uintptr_t>(dst);
  const auto head = static_cast<std::int64_t>(((a + line - 1) & ~std::uintptr_t{line - 1}) - a);
  const std::int64_t lines = (n - head) / line, done = head + lines * line;
  if (head > 0) std::memcpy(dst, src, static_cast<std::size_t>(head));
  if (lines > 0) isa.stream_lines(dst + head, src + head, lines);
  if (done < n) std::memcpy(dst + done, src + done, static_cast<std::size_t>(n - done));
}

/// Prefetches the lines of [p, p + bytes): Locality 2 (prefetcht1) into L2, not into the L1 miss buffers that
/// the loads of the rows being copied need (the packed tiles, macrokernel_transpose2d.cpp); 3 (prefetcht0) into
/// L1 (row gathers, macrokernel_rows.cpp: 0.53 vs 0.49 of the copy on 1 thread for 160-byte rows, dev VM).
/// Nothing where the compiler has no prefetch builtin.
template <int Locality = 2>
inline void prefetch_run(const unsigned char* p, std::int64_t bytes) {
#if defined(__GNUC__) || defined(__clang__)
  constexpr std::uintptr_t line = 64;
  const auto first = reinterpret_cast<std::uintptr_t>(p) & ~(line - 1);
  for (std::uintptr_t q = first; q < reinterpret_cast<std::uintptr_t>(p) + static_cast<std::uintptr_t>(bytes); q += line)
    __builtin_prefetch(reinterpret_cast<const void*>(q), 0, Locality);
#else
  (void)p;
  (void)bytes;
#endif
}

}  // namespace xpose::detail
