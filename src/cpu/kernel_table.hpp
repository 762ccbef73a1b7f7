// The interface between the CPU macro-kernels (compiled for the baseline ISA) and the micro-kernels of one
// SIMD level (each compiled in its own translation unit with that level's flags, microkernels_<isa>.cpp).
// The macro-kernels only call through these pointers, after checking the level with cpu_features.hpp, so
// that no instruction of a higher level runs on a CPU without it.
#pragma once

#include <cstdint>

#include "cpu/cpu_features.hpp"

namespace xpose::detail {

/// Software prefetch of a rectangle of input (the next tile) into L2, spread over the blocks of the current
/// one: a kernel advances it by `per_block` lines after each block. Rows of `row_bytes` bytes, `rs` apart;
/// `p`/`end` walk the current row's lines. Plain data: each level steps it with its own code.
struct prefetch_cursor {
  const unsigned char* next_row = nullptr;  ///< the first row not started yet
  std::int64_t rs = 0, row_bytes = 0;
  std::int64_t rows_left = 0;  ///< rows not started yet
  std::int64_t per_block = 0;
  std::uintptr_t p = 0, end = 0;
};

/// Transposes an nr x nc tile of units: out + c * out_rs + r * unit  <-  in + r * in_rs + c * unit, for
/// r < nr, c < nc (byte offsets; any alignment). `words` is the unit size in words for the word-by-word
/// kernel; the fixed-size kernels ignore it. Plain (cached) stores. `pf` (may be null) is stepped once per
/// block.
using tile_fn = void (*)(const unsigned char* in, std::int64_t in_rs, unsigned char* out, std::int64_t out_rs,
                         std::int64_t nr, std::int64_t nc, std::int64_t words, prefetch_cursor* pf);

/// One unit size's kernel at one level. `block_rows` x `block_cols` is its register block (the tiling
/// rounds tiles to it); a null `tile` means the level has no kernel of its own for this size.
struct tile_kernel {
  tile_fn tile = nullptr;
  int block_rows = 1;
  int block_cols = 1;
  /// The same with non-temporal stores for full blocks, when each of their stores is one whole 64-byte line
  /// (block_rows x unit == 64) at a 64-byte aligned address if `out` and `out_rs` are; null otherwise.
  /// Ragged edges still use plain stores.
  tile_fn tile_stream = nullptr;
  /// Streaming for output rows that are not line-aligned (but start on a unit boundary), straight from
  /// registers: nc (a multiple of block_cols) output rows, input rows [0, nr + block_rows) read (nr a
  /// multiple of block_rows), and exactly the lines that start in rows [0, nr) written, whole, with
  /// non-temporal stores. Null when the level cannot (see simd_tile.hpp, stream_carry).
  tile_fn stream_carry = nullptr;
};

/// One period of a periodic byte permutation (macrokernel_periodic.cpp: packed batches of small planes, thin
/// planes): `period` bytes of output (a multiple of 64), written as `vectors` 64-byte vectors, read from the
/// input `in_period` bytes further on than the previous period. Output vector j is assembled from windows [first[j],
/// first[j + 1]): window w is the 128 input bytes at src[w] (relative to the period's first input byte),
/// permuted by its 64 indices (index + 64 w, in granules of the permute's element size), and supplies the
/// output bytes set in mask[w] (the first window of a vector supplies every byte the others do not).
struct periodic_table {
  std::int64_t period = 0;     ///< output bytes a period
  std::int64_t in_period = 0;  ///< input bytes a period advances (the output's for batches of planes)
  int vectors = 0;
  const std::int32_t* first = nullptr;
  const std::int64_t* src = nullptr;
  const std::uint64_t* mask = nullptr;
  const unsigned char* index = nullptr;
};

/// Writes periods [q0, q1) of a periodic table: output vector j of period q at out + q x period + 64 j
/// (64-byte aligned), its windows read at in + q x in_period + src[w]. Non-temporal stores when `stream`.
using periodic_fn = void (*)(const unsigned char* in, unsigned char* out, std::int64_t q0, std::int64_t q1,
                             const periodic_table& t, bool stream);

/// Everything one SIMD level provides. Unit sizes are indexed by log2: 1, 2, 4, 8, 16 bytes.
struct isa_kernels {
  cpu_isa isa = cpu_isa::scalar;
  tile_kernel pow2[5];
  /// 3-byte units (RGB8 pixels); null tile where the level has none (the portable kernel then).
  tile_kernel unit3;
  /// 6- and 12-byte units (RGB16, RGB32F pixels), the same way.
  tile_kernel unit6, unit12;

  /// Non-temporal copy of `lines` 64-byte lines to a 64-byte-aligned `dst` from any `src`; null when the
  /// level has no streaming stores (scalar). Weakly ordered: call `fence` before other threads may read.
  void (*stream_lines)(unsigned char* dst, const unsigned char* src, std::int64_t lines) = nullptr;
  /// Orders the calling thread's non-temporal stores before its later stores (sfence).
  void (*fence)() = nullptr;

  /// Thin planes (AoS <-> SoA), per unit size (same indexing as pow2; null where the level has none), for
  /// k <= thin_max_k[i] units on the short side. `n` is a multiple of thin_step[i] units.
  /// deinterleave: n packed input rows of k units (k * unit bytes apart) -> k output rows of n units, row j
  ///   at out + j * out_rs.
  /// interleave: k input rows of n units, row j at in + j * in_rs -> n packed output rows of k units.
  /// `stream`: non-temporal stores; then every output vector must be 64-byte aligned (the caller checks).
  void (*deinterleave[5])(const unsigned char* in, unsigned char* out, std::int64_t out_rs, std::int64_t n,
                          std::int64_t k, bool stream) = {};
  void (*interleave[5])(const unsigned char* in, std::int64_t in_rs, unsigned char* out, std::int64_t n,
                        std::int64_t k, bool stream) = {};
  int thin_max_k[5] = {};
  /// A lower k limit for `interleave` where it differs (0: thin_max_k).
  int interleave_max_k[5] = {};
  int thin_step[5] = {};
  /// Fixed-k (de)interleave through transpose networks (thin_avx512.hpp): the contracts of deinterleave /
  /// interleave with that k; null where the level has none. 1-byte units, k = 16 and 8: a 16 x 16 byte
  /// network (n a multiple of 64, 128); 2-byte units, k = 8 and 16: an 8 x 8 word network (n a multiple of 32).
  using net_deinterleave_fn = void (*)(const unsigned char* in, unsigned char* out, std::int64_t out_rs,
                                       std::int64_t n, bool stream);
  using net_interleave_fn = void (*)(const unsigned char* in, std::int64_t in_rs, unsigned char* out,
                                     std::int64_t n, bool stream);
  net_deinterleave_fn deinterleave16_u8 = nullptr, deinterleave8_u8 = nullptr;
  net_interleave_fn interleave16_u8 = nullptr, interleave8_u8 = nullptr;
  net_deinterleave_fn deinterleave8_u16 = nullptr, deinterleave16_u16 = nullptr;
  net_interleave_fn interleave8_u16 = nullptr, interleave16_u16 = nullptr;

  /// Periodic permutations (macrokernel_periodic.cpp: packed batches of small planes, thin planes), per
  /// permute granule of 1, 2, 4 bytes (VBMI's vpermt2b, AVX-512BW's vpermt2w, AVX-512F's vpermt2d); null where
  /// the level has none. The macro-kernel takes the largest granule that divides the unit and the addresses.
  periodic_fn periodic[3] = {};
};

/// The kernels of each level. A level that this build or CPU lacks is never asked for
/// (kernels_for() checks cpu_isa_supported first).
const isa_kernels& kernels_scalar() noexcept;
const isa_kernels& kernels_sse2() noexcept;
const isa_kernels& kernels_avx2() noexcept;
const isa_kernels& kernels_avx512() noexcept;
const isa_kernels& kernels_avx512vbmi() noexcept;

/// The kernels of `isa`, which must be supported (cpu_isa_supported).
const isa_kernels& kernels_for(cpu_isa isa) noexcept;

/// The portable kernel for any unit size (`unit_bytes` = elem_words x word_bytes): a compile-time kernel for
/// the word sizes and the common odd sizes (3, 6, 12, 24, 32, 48, 64 bytes), word by word for the rest.
tile_kernel scalar_unit_kernel(std::int64_t unit_bytes, std::int64_t word_bytes) noexcept;

/// The level's kernel for `unit`-byte units: its own for 1-16-byte powers of two and 3-, 6-, 12-byte units where
/// it has them, else the portable one (macrokernel_transpose2d.cpp; the in-place squares use it too).
tile_kernel unit_kernel(const isa_kernels& isa, std::int64_t unit, std::int64_t word_bytes);

}  // namespace xpose::detail
