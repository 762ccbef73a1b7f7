// skinny16 dispatch tables (dispatch/skinny16.cu, dispatch/skinny16_flat.cu): a launcher per (unit, k,
// direction) for one kernel of kernels/skinny16.cuh, indexed by k. Each translation unit instantiates the
// kernel it launches (Flat), so the two sets compile side by side.
#pragma once

#include <array>
#include <utility>

#include "cuda/kernels/skinny16.cuh"

namespace xpose::detail {

using skinny16_launcher = void (*)(const transpose2d_params&, unsigned, cudaStream_t);

template <bool Flat, int UnitBytes, int K, bool AosToSoa>
void skinny16_launch_one(const transpose2d_params& p, unsigned grid, cudaStream_t stream) {
  if constexpr (Flat)
    transpose2d_skinny16_flat_kernel<UnitBytes, K, AosToSoa><<<grid, skinny16_shape<UnitBytes, K>::threads, 0, stream>>>(p);
  else
    transpose2d_skinny16_kernel<UnitBytes, K, AosToSoa><<<grid, skinny16_shape<UnitBytes, K>::threads, 0, stream>>>(p);
}

template <bool Flat, int UnitBytes, bool AosToSoa, int... Ks>
constexpr auto skinny16_make_row(std::integer_sequence<int, Ks...>) {
  // k = 0 and 1 never reach here (size-1 axes are dropped); their slots stay empty.
  return std::array<skinny16_launcher, sizeof...(Ks) + 2>{nullptr, nullptr,
                                                          &skinny16_launch_one<Flat, UnitBytes, Ks + 2, AosToSoa>...};
}

/// skinny16_table<Flat, U, AosToSoa>[k]: the launcher for k = 2 .. skinny16_policy::max_k.
template <bool Flat, int UnitBytes, bool AosToSoa>
constexpr auto skinny16_table =
    skinny16_make_row<Flat, UnitBytes, AosToSoa>(std::make_integer_sequence<int, skinny16_policy::max_k - 1>{});

/// The launcher for a unit size (1, 2, 4, 8 or 16 bytes; the caller checked) and k.
template <bool Flat>
skinny16_launcher skinny16_launcher_for(std::int64_t unit_bytes, std::int64_t k, bool aos_to_soa) {
  switch (unit_bytes) {
    case 1: return aos_to_soa ? skinny16_table<Flat, 1, true>[k] : skinny16_table<Flat, 1, false>[k];
    case 2: return aos_to_soa ? skinny16_table<Flat, 2, true>[k] : skinny16_table<Flat, 2, false>[k];
    case 4: return aos_to_soa ? skinny16_table<Flat, 4, true>[k] : skinny16_table<Flat, 4, false>[k];
    case 8: return aos_to_soa ? skinny16_table<Flat, 8, true>[k] : skinny16_table<Flat, 8, false>[k];
    default: return aos_to_soa ? skinny16_table<Flat, 16, true>[k] : skinny16_table<Flat, 16, false>[k];
  }
}

}  // namespace xpose::detail
