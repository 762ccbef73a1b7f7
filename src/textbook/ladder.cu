// The teaching ladder as the table xpose-bench and the tests walk (textbook.hpp). Each entry is one rung of
// ladder.cuh; the kernels are in direct.cuh (no shared memory) and tiled.cuh (through shared memory), their
// policies in layouts.cuh. docs/kernels.md walks through the rungs and holds the results table.
#include "textbook/ladder.cuh"
#include "textbook/textbook.hpp"

namespace xpose::textbook {
namespace {

template <class Rung>
constexpr kernel_info info(const char* name, const char* idea) {
  return {name, idea, Rung::transposes, &Rung::supports, &Rung::launch};
}

constexpr kernel_info k_ladder[] = {
    info<rungs::copy>("copy",
                      "bandwidth reference: 32x32 tile, 32x8 threads, 4 elements each, coalesced both ways"),
    info<rungs::copy_shared>("copy_shared",
                             "the copy staged through shared memory and a barrier: neither is the cost"),
    info<rungs::naive_read_coalesced>("naive_read_coalesced",
                                      "transpose with no staging: coalesced reads, writes strided by rows"),
    info<rungs::naive_write_coalesced>("naive_write_coalesced",
                                       "the other naive choice: coalesced writes, reads strided by cols"),
    info<rungs::shared_16x16>("shared_16x16",
                              "16x16 shared-memory tile: coalesced both ways, 8-way bank conflicts in the tile"),
    info<rungs::shared_16x16_padded>("shared_16x16_padded",
                                     "padding r*16 + c + (r/2)*2 for a warp spanning two rows: no conflicts"),
    info<rungs::tiled_32x8>("tiled_32x8",
                            "32x32 tile, 32x8 threads, 4 elements each: 32-way bank conflicts on the columns"),
    info<rungs::tiled_32x8_padded>("tiled_32x8_padded",
                                   "+1 column of padding (tile[32][33]): conflict-free column reads"),
    info<rungs::tiled_swizzled>("tiled_swizzled",
                                "XOR swizzle (column ^ row) instead of padding: conflict-free, dense tile"),
    info<rungs::tiled_vec4>("tiled_vec4",
                            "float4 global loads and stores, swizzled tile; rows and cols multiples of 4"),
    info<rungs::tiled_diagonal>("tiled_diagonal",
                                "diagonal block order (square and non-square grids) against partition camping"),
    info<rungs::tiled_checked>("tiled_checked", "bounds checks on every access: any rows x cols"),
    info<rungs::tiled_full_tile_fast_path>(
        "tiled_full_tile_fast_path",
        "is_multiple_of_32 template flag compiles the checks out when both dims are multiples of 32"),
};

}  // namespace

std::span<const kernel_info> ladder() { return k_ladder; }

}  // namespace xpose::textbook
