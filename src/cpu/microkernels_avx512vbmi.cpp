// AVX-512 + VBMI: the AVX-512 level's kernels, except the 1-byte thin planes (n x k <-> k x n bytes: HWC <->
// CHW images), which vpermt2b moves as whole 64-byte vectors (thin_avx512.hpp) instead of widening 32 rows to
// words and narrowing them back. Compiled with -mavx512f -mavx512bw -mavx512dq -mavx512vl -mavx512vbmi
// (CMakeLists.txt); only called when the CPU has VBMI. A compiler without VBMI gets the AVX-512 table.
#include <cstdint>
#include <cstring>

#include "cpu/kernel_table.hpp"

#if (defined(__x86_64__) || defined(_M_X64)) && defined(__AVX512VBMI__)
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ == 12
#pragma GCC diagnostic ignored "-Wuninitialized"  // GCC bug 105593, as in microkernels_avx512.cpp
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

namespace xpose::detail {
namespace isa_avx512vbmi {

#include "cpu/thin_avx512.hpp"
#include "cpu/periodic_avx512.hpp"

// 2-core Xeon (Sapphire Rapids), 1 thread, 16 MiB u8 planes, ratio to the non-temporal copy, AVX-512 (words)
// -> VBMI (bytes): n x 3 0.540 -> 0.677, n x 7 0.470 -> 0.568, n x 16 (tiles before) 6.1 -> 6.3 GB/s,
// 3 x n 0.495 -> 0.918, 11 x n 0.289 -> 0.334; 16 x n lost against the tiles (0.408 -> 0.184), so
// interleaving keeps the AVX-512 level's limit of 11.
isa_kernels make_table() {
  isa_kernels k = kernels_avx512();
  k.isa = cpu_isa::avx512vbmi;
  k.deinterleave[0] = &deinterleave<1>;
  k.interleave[0] = &interleave<1>;
  k.thin_max_k[0] = thin_k_max;
  k.interleave_max_k[0] = 11;
  k.thin_step[0] = 64;
  // Bytes for every unit: vpermt2b is one instruction like vpermt2d, where vpermt2w is three on Intel cores.
  k.periodic[0] = &periodic<1>;
  k.periodic[1] = k.periodic[2] = nullptr;
  return k;
}

}  // namespace isa_avx512vbmi

const isa_kernels& kernels_avx512vbmi() noexcept {
  static const isa_kernels table = isa_avx512vbmi::make_table();
  return table;
}

}  // namespace xpose::detail

#else

namespace xpose::detail {
const isa_kernels& kernels_avx512vbmi() noexcept { return kernels_avx512(); }
}  // namespace xpose::detail

#endif
