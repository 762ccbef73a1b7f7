// The portable level: the plain-C++ block kernels of microkernels_scalar.hpp as tile functions, for every
// unit size. SIMD levels use them too, for the unit sizes they have no kernel of their own for.
#include <cstdint>

#include "cpu/kernel_table.hpp"
#include "cpu/microkernels_scalar.hpp"

namespace xpose::detail {

namespace {

// Micro-kernel block sides: 8 x 8 units up to 4 bytes (a block of at most 256 bytes), 4 x 4 for larger units.
template <class W>
constexpr int block_side = sizeof(W) <= 4 ? 8 : 4;

template <class W>
void tile_fixed(const unsigned char* in, std::int64_t in_rs, unsigned char* out, std::int64_t out_rs, std::int64_t nr,
                std::int64_t nc, std::int64_t /*words*/, prefetch_cursor* /*pf*/) {
  transpose_tile<W, block_side<W>>(in, in_rs, out, out_rs, nr, nc);
}

template <class W>
void tile_words(const unsigned char* in, std::int64_t in_rs, unsigned char* out, std::int64_t out_rs, std::int64_t nr,
                std::int64_t nc, std::int64_t words, prefetch_cursor* /*pf*/) {
  transpose_tile_words<W>(in, in_rs, out, out_rs, nr, nc, words);
}

template <class W>
constexpr tile_kernel fixed() {
  return {&tile_fixed<W>, block_side<W>, block_side<W>};
}

template <class W>
constexpr tile_kernel words() {
  return {&tile_words<W>, 1, 1};
}

constexpr isa_kernels make_scalar() {
  isa_kernels k;
  k.isa = cpu_isa::scalar;
  k.pow2[0] = fixed<std::uint8_t>();
  k.pow2[1] = fixed<std::uint16_t>();
  k.pow2[2] = fixed<std::uint32_t>();
  k.pow2[3] = fixed<std::uint64_t>();
  k.pow2[4] = fixed<unit_bytes<16>>();
  return k;
}

constexpr isa_kernels scalar_table = make_scalar();

}  // namespace

const isa_kernels& kernels_scalar() noexcept { return scalar_table; }

const isa_kernels& kernels_for(cpu_isa isa) noexcept {
  switch (isa) {
    case cpu_isa::avx512vbmi: return kernels_avx512vbmi();
    case cpu_isa::avx512: return kernels_avx512();
    case cpu_isa::avx2: return kernels_avx2();
    case cpu_isa::sse2: return kernels_sse2();
    case cpu_isa::scalar: break;
  }
  return kernels_scalar();
}

tile_kernel scalar_unit_kernel(std::int64_t unit, std::int64_t word_bytes) noexcept {
  // The odd sizes that common element types produce (RGB8 = 3, 3 x fp16 = 6, xyz fp32 = 12, 3 x fp64 = 24,
  // 2..4 x 16-byte words) get a compile-time kernel; every other size (long rows the planner turned into
  // units, up to 64 bytes) copies units word by word.
  switch (unit) {
    case 1: return scalar_table.pow2[0];
    case 2: return scalar_table.pow2[1];
    case 4: return scalar_table.pow2[2];
    case 8: return scalar_table.pow2[3];
    case 16: return scalar_table.pow2[4];
    case 3: return fixed<unit_bytes<3>>();
    case 6: return fixed<unit_bytes<6>>();
    case 12: return fixed<unit_bytes<12>>();
    case 24: return fixed<unit_bytes<24>>();
    case 32: return fixed<unit_bytes<32>>();
    case 48: return fixed<unit_bytes<48>>();
    case 64: return fixed<unit_bytes<64>>();
    default: break;
  }
  switch (word_bytes) {
    case 1: return words<std::uint8_t>();
    case 2: return words<std::uint16_t>();
    case 4: return words<std::uint32_t>();
    case 8: return words<std::uint64_t>();
    default: return words<unit_bytes<16>>();
  }
}

}  // namespace xpose::detail
