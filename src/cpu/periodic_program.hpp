// The tables of the two-source permute kernel (kernel_table.hpp: periodic_table, periodic_fn), built from a byte
// map: each 64-byte output vector from the fewest 128-byte input windows that a greedy pass finds. Shared by
// the periodic permutations (macrokernel_periodic.cpp: one period of a repeating map) and the CPU boxes
// (macrokernel_box.cpp: one box, its windows read from the input). Pure host code, no SIMD.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "cpu/kernel_table.hpp"

namespace xpose::detail {

/// log2 of the level's largest permute granule (1, 2 or 4 bytes) that divides `bits` (the unit, addresses and
/// source distances the caller's map needs whole granules of, or-ed together); -1 where the level has none.
inline int periodic_granule_lg(const isa_kernels& isa, std::uint64_t bits) {
  for (int lg = 2; lg >= 0; --lg)
    if (isa.periodic[lg] != nullptr && bits % (std::uint64_t{1} << lg) == 0) return lg;
  return -1;
}

struct periodic_program {
  int granule = 1;           ///< the permute's element size: 1, 2 or 4 bytes
  std::int64_t max_end = 0;  ///< one past the last input byte any window reads (relative to the base)
  std::vector<std::int32_t> first{0};
  std::vector<std::int64_t> src;
  std::vector<std::uint64_t> mask;
  std::vector<unsigned char> index;

  void clear(int g) {
    granule = g;
    max_end = 0;
    first.assign(1, 0);
    src.clear();
    mask.clear();
    index.clear();
  }
  int vectors() const { return static_cast<int>(first.size()) - 1; }
  std::int64_t windows() const { return static_cast<std::int64_t>(src.size()); }
  periodic_table view(std::int64_t period, std::int64_t in_period) const {
    return {period, in_period, vectors(), first.data(), src.data(), mask.data(), index.data()};
  }

  /// Appends one output vector: `granules` holds (input byte, slot) for the slots it fills (slot i = output
  /// bytes [i g, i g + g) of the vector, the input byte a multiple of g); slots not listed are left to the
  /// first window (any value). Greedy windows: each starts at the lowest input byte not yet covered and takes
  /// every granule within 128 bytes of it. Reorders `granules`.
  void add_vector(std::vector<std::pair<std::int64_t, int>>& granules) {
    const int g = granule;
    std::sort(granules.begin(), granules.end());
    for (std::size_t i = 0; i < granules.size();) {
      const std::int64_t start = granules[i].first;
      unsigned char idx[64] = {};
      std::uint64_t msk = 0;
      for (; i < granules.size() && granules[i].first + g <= start + 128; ++i) {
        const int slot = granules[i].second;
        const auto v = static_cast<std::uint32_t>((granules[i].first - start) / g);
        if (g == 1) {
          idx[slot] = static_cast<unsigned char>(v);
        } else if (g == 2) {
          const auto v16 = static_cast<std::uint16_t>(v);
          std::memcpy(idx + slot * g, &v16, 2);
        } else {
          std::memcpy(idx + slot * g, &v, 4);
        }
        msk |= ((std::uint64_t{1} << g) - 1) << (slot * g);
      }
      src.push_back(start);
      mask.push_back(msk);
      index.insert(index.end(), idx, idx + 64);
      max_end = std::max(max_end, start + 128);
    }
    first.push_back(static_cast<std::int32_t>(src.size()));
  }
};

}  // namespace xpose::detail
