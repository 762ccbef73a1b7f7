// Host models of shared-memory bank conflicts, for the dispatchers' layout choices (batched_flat's stage
// swizzle, tuning/transpose2d.hpp; box16's stage pitch, tuning/box.hpp). Pure host code.
#pragma once

#include <algorithm>
#include <array>

namespace xpose::detail {

/// Wavefronts of one warp-wide shared-memory access: the most distinct 4-byte words any of the 32 banks serves
/// (lanes reading the same word share it). `words` holds the word index (byte address / 4, >= 0) each active
/// lane's access touches — up to 128 of them for vector accesses served together.
template <class Word>
int smem_wavefronts(const Word* words, int n) {
  std::array<Word, 128> w{};
  n = std::min(n, static_cast<int>(w.size()));
  std::copy(words, words + n, w.begin());
  std::sort(w.begin(), w.begin() + n);
  n = static_cast<int>(std::unique(w.begin(), w.begin() + n) - w.begin());
  std::array<int, 32> per_bank{};
  int worst = 0;
  for (int i = 0; i < n; ++i) worst = std::max(worst, ++per_bank[static_cast<std::size_t>(w[i] % 32)]);
  return worst;
}

}  // namespace xpose::detail
