// Shape lists shared by the host and GPU in-place tests (tests/host/test_inplace.cpp, tests/cuda/test_inplace.cu).
#pragma once

#include <cstdint>
#include <vector>

#include "plan/inplace.hpp"
#include "xpose/inplace.hpp"

namespace xpose::test {

/// Every s x (s + d) and (s + d) x s matrix with 2 <= s <= 40, 1 <= d <= s / 2 of 1-, 3- and 4-byte units that
/// the plan (kept off `staged`) gives near_square: one- and two-row repitches, bands shorter than a row.
inline std::vector<inplace_problem> small_near_squares() {
  std::vector<inplace_problem> out;
  for (std::int64_t U : {1, 3, 4})
    for (std::int64_t s = 2; s <= 40; ++s)
      for (std::int64_t d = 1; d <= s / 2; ++d)
        for (const inplace_problem& p : {inplace_problem{s, s + d, U}, inplace_problem{s + d, s, U}}) {
          inplace_geometry g;
          std::int64_t span = 0;
          if (detail::make_inplace_geometry(p, g, span, detail::inplace_choice::no_staged) &&
              g.algo == inplace_algorithm::near_square)
            out.push_back(p);
        }
  return out;
}

}  // namespace xpose::test
