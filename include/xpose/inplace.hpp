// xpose — in-place transposes: a rows x cols matrix (or a batch of them) becomes cols x rows in the same memory.
//
//   xpose::inplace_problem p{.rows = 12000, .cols = 7000, .elem_bytes = sizeof(float)};
//   auto plan = xpose::make_inplace_plan(p);            // validates, chooses the algorithm; pure host code
//   if (!plan) { std::cerr << plan.error() << '\n'; return; }
//   void* d_ws = nullptr;
//   cudaMalloc(&d_ws, plan->workspace_bytes());          // may be 0; reuse it for any number of executions
//   xpose::status s = plan->execute(d_data, d_ws, plan->workspace_bytes(), stream);  // stream-ordered
//   xpose::status h = plan->execute_host(data);                                       // CPU, all threads
//
// Row-major, like everything in xpose (problem.hpp): element (r, c) of matrix b starts at byte
// `(b * batch_stride + r * ld + c) * elem_bytes`; afterwards element (c, r) of the transposed matrix starts at
// `(b * batch_stride + c * ld' + r) * elem_bytes` with ld' = ld for square matrices and ld' = rows otherwise.
//
// ## Algorithms (the plan chooses; `operator<<` says which)
// * `none`    — a 1 x n or n x 1 matrix (or an empty one) is its own transpose in memory: nothing runs.
// * `square`  — rows == cols: one pass that swaps each tile pair across the diagonal (any `ld` >= cols).
//              No workspace.
// * `shuffle` — rows != cols (packed: ld == cols): the decomposition of Catanzaro, Keller and Garland,
//              "A decomposition for in-place matrix transposition" (PPoPP 2014), into at most three
//              passes that each permute within rows or within columns of the m x n buffer: a column
//              rotation (only when gcd(rows, cols) > 1), a row shuffle and a column shuffle. The plan takes
//              the direction whose columns are the shorter side, stages each row or column strip in shared
//              memory when it fits, and otherwise in the workspace.
// * `tile_cycles` — rows != cols sharing a divisor t (of gcd(rows, cols)) whose t elements make at least 64
//              bytes: two passes. (1) Each t x t tile is transposed in place (the `square` kernel over the
//              grid of tiles). (2) The matrix is then a [rows/t][t][cols/t] array of *units* of t contiguous
//              elements that must become [cols/t][t][rows/t]; every unit moves once, along the cycles of that
//              permutation. The plan enumerates the cycles (pure host code, O(rows x cols / t)) and cuts the
//              long ones into segments that run in parallel; each segment's first unit is saved to the
//              workspace beforehand, so segments never wait on each other. When every cycle fits the table
//              (at most 3840 segments) all are listed; otherwise cycles of at most `short_cycle` units are
//              found by the executors themselves (a unit leads its cycle when it is the smallest).
// * `skinny_cycles` — an m x k or k x m matrix (m = a h for some h whose h elements make at least 64 bytes,
//              h x k elements fitting in 40 KiB): chunks of h x k contiguous elements transposed in shared
//              memory, and the units of h elements moved along the cycles of the a x k transposition they
//              then need (the unit pass of `tile_cycles`; for k x m it runs first).
// * `near_square` — one s x (s + d) or (s + d) x s matrix with few extra columns or rows (d <= s / 2, their
//              s x d elements within 24 MiB, 8 MiB for 4-, 8- and 16-byte units) of units up to 64 bytes (or
//              16-byte vectors), e.g. 8191 x 8193 or RGB8 4097 x 3001: the extra part is saved to the
//              workspace, the s x s square transposed in place (the `square` kernels, at the matrix's pitch),
//              its rows moved to the transposed pitch (in place: bands of 32 KiB of bytes staged in shared
//              memory, each waiting only for the bands whose bytes it overwrites), and the saved part written
//              back transposed (an out-of-place transpose).
// * `staged_blocks` — a rectangle over 32 MiB of units whose shuffle would move 1- or 2-byte words (sizes
//              1, 2, 3, 5, 6, ...), not near square, with a side s = a h (a >= 2) whose blocks of h x (other
//              side) elements fit in 32 MiB, h elements making at least 64 bytes and at most 2^18 units of
//              them: e.g. u8 4097 x 10001 (4097 = 17 x 241). Rows split (rows = a h): the blocks of h rows are
//              staged like `staged` (copied to the workspace as many at a time as 32 MiB holds, transposed
//              back), then the units of h elements move along the cycles of the a x cols transposition (the
//              unit pass of `tile_cycles`). Columns split: the unit pass (rows x a -> a x rows) first, then the
//              a blocks of rows x h staged.
// * `staged` — any rectangle of at most 32 MiB (the plan tries it first): the matrices are copied to the
//              workspace, as many at a time as 32 MiB holds, and transposed back into place by the
//              out-of-place kernels — two passes at copy and transpose speed (H100: 0.35-0.73 of memcpy,
//              2 x bytes / time) where the algorithms below make two or three permuting passes (0.08-0.41).
//              Larger rectangles take the first of the following that applies, else `shuffle`.
//
// ## Workspace bound (GPU)
// `workspace_bytes()` is 0 for `none` and `square`. For `shuffle` it is what staging a row or a column strip
// needs when it does not fit in 48 KiB of shared memory (the least every CUDA GPU offers; GPUs with more use
// their shared memory and leave the workspace unused), and never more than
//   max(max(rows, cols) * elem_bytes, 32 MiB) + 256 bytes
// — O(max(rows, cols)), never O(rows x cols). For `tile_cycles` it holds the first unit of each segment of
// each matrix, at most 32 MiB + 256 bytes, and the same for `skinny_cycles` (the plan takes `shuffle` where
// that would not do). For `near_square` it holds the extra s x d elements (at most 24 MiB) and the
// repitch's flags (at most 16 KiB), plus 512 bytes. For `staged` it holds the matrices copied at a time: at
// most 32 MiB + 256 bytes; for `staged_blocks` a group of blocks or the segments' first units, whichever is
// larger (each at most 32 MiB + 256 bytes). The caller allocates it (`execute` never allocates); its content
// on entry does not matter, and on return it is unspecified. The CPU executor allocates its own per-thread
// buffers of the same order.
#pragma once

#include <cstdint>
#include <ostream>
#include <vector>

#include "xpose/plan.hpp"
#include "xpose/status.hpp"

namespace xpose {

/// One in-place transpose: `batch` matrices of `rows x cols` elements of `elem_bytes` bytes.
struct inplace_problem {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::int64_t elem_bytes = 0;    ///< any size >= 1
  std::int64_t batch = 1;         ///< number of matrices (>= 0)
  std::int64_t ld = 0;            ///< elements between rows; 0 = cols. Pitched (ld > cols) needs rows == cols
  std::int64_t batch_stride = 0;  ///< elements between matrices; 0 = rows * ld
};

std::ostream& operator<<(std::ostream& os, const inplace_problem& p);

enum class inplace_algorithm {
  none,     ///< nothing to move (a vector, or an empty problem)
  square,   ///< tile pairs swapped across the diagonal
  shuffle,  ///< rotate / row-shuffle / column-shuffle decomposition (rectangular)
  tile_cycles,  ///< square tiles transposed in place, then units of a tile row moved along their cycles
  skinny_cycles,  ///< chunks of rows transposed in shared memory, and units moved along their cycles
  near_square,    ///< the square part transposed in place, rows repitched, the few extra rows or columns added
  staged,         ///< matrices of at most 32 MiB copied to the workspace, transposed back out of place
  staged_blocks,  ///< blocks of a side staged like `staged`, and units moved along their cycles
};

constexpr const char* to_string(inplace_algorithm a) noexcept {
  switch (a) {
    case inplace_algorithm::none: return "none";
    case inplace_algorithm::square: return "square";
    case inplace_algorithm::shuffle: return "shuffle";
    case inplace_algorithm::tile_cycles: return "tile_cycles";
    case inplace_algorithm::skinny_cycles: return "skinny_cycles";
    case inplace_algorithm::near_square: return "near_square";
    case inplace_algorithm::staged: return "staged";
    case inplace_algorithm::staged_blocks: return "staged_blocks";
  }
  return "unknown";
}

/// What the executors run (pure data; printed by `operator<<`). For `shuffle` the buffer of each matrix is
/// viewed as an m x n row-major grid: direction r2c has m = rows, n = cols (columns are the input's rows
/// count); direction c2r has m = cols, n = rows. c = gcd(m, n), a = m / c, b = n / c.
struct inplace_geometry {
  inplace_algorithm algo = inplace_algorithm::none;
  std::int64_t elem_bytes = 0;
  std::int64_t rows = 0, cols = 0, batch = 0, ld = 0, batch_stride = 0;  // explicit (no zeros)
  // shuffle only:
  bool c2r = false;                ///< direction: false = r2c (m = rows), true = c2r (m = cols)
  std::int64_t m = 0, n = 0;       ///< the grid: m rows (column length) of n elements (row length)
  std::int64_t c = 1, a = 0, b = 0;
  std::int64_t a_inv_mod_b = 0;    ///< a^-1 mod b (0 when b == 1): inverts the row shuffle
  // tile_cycles and skinny_cycles:
  std::int64_t tile = 0;           ///< t: a unit is t contiguous elements (tile_cycles: tiles of t x t)
  std::int64_t tiles_a = 0;        ///< tile_cycles: rows / t
  std::int64_t tiles_b = 0;        ///< tile_cycles: cols / t
  std::int64_t chunk_rows = 0;     ///< skinny_cycles: a chunk of chunk_rows x chunk_cols elements (t x short
  std::int64_t chunk_cols = 0;     ///<   side, or the reverse) becomes chunk_cols x chunk_rows
  bool units_first = false;        ///< skinny_cycles: the unit pass runs before the chunk pass (wide matrices)
  std::int64_t map_a = 0, map_t = 0, map_b = 0;  ///< the unit pass's permutation: [A][t][B] -> [B][t][A]
  // near_square (one matrix of s x (s + d) or (s + d) x s):
  std::int64_t near_side = 0;      ///< s
  std::int64_t near_extra = 0;     ///< d: the extra columns (wide) or rows (tall)
  std::int64_t repitch_bands = 0;  ///< bands of the rows' repitch (a flag of 4 bytes each in the workspace)
  /// The saved extra part (packed in the workspace) written back transposed: planned once, with the plan.
  plan_geometry near_extra_plan;
  /// Wide matrices: the extra columns (s rows of d elements, n apart) saved packed into the workspace.
  plan_geometry near_save_plan;
  // staged (groups of `group` matrices; the last group may hold fewer) and staged_blocks (`blocks` blocks a
  // matrix of `tile` rows, or of `tile` columns when units_first, `group` at a time; staged_copy / staged_back):
  std::int64_t group = 0;          ///< matrices (staged_blocks: blocks) copied to the workspace at a time
  std::int64_t blocks = 0;         ///< staged_blocks: blocks a matrix
  plan_geometry staged_copy;       ///< a group's matrices packed into the workspace (a copy or a gather)
  plan_geometry staged_back;       ///< the workspace transposed back into the group's matrices
  plan_geometry staged_copy_last;  ///< the same for the last group when it holds fewer matrices
  plan_geometry staged_back_last;
  std::int64_t units = 0;          ///< units a matrix: rows x cols / t
  std::int64_t short_cycle = 0;    ///< cycles of at most this many units are found by the executors (0: none)
  std::int64_t segment_length = 0; ///< longer cycles are cut into segments of about this many units
  /// Segments of the cycles longer than short_cycle (of every cycle when it is 0): (first unit, the next
  /// segment's first unit) pairs, in cycle order; a whole cycle is one pair of its unit twice.
  std::vector<std::uint32_t> segments;
  std::int64_t workspace_bytes = 0;
};

class inplace_plan;

/// Validates `p` and chooses the algorithm. Pure host code. Errors: `invalid_argument` naming the field
/// (rows, cols, elem_bytes, batch, ld, batch_stride), including overflow of the byte span in 64 bits.
result<inplace_plan> make_inplace_plan(const inplace_problem& p);

class inplace_plan {
 public:
  inplace_plan(inplace_plan&&) noexcept = default;
  inplace_plan& operator=(inplace_plan&&) noexcept = default;
  inplace_plan(const inplace_plan&) = delete;
  inplace_plan& operator=(const inplace_plan&) = delete;

  const inplace_problem& source() const noexcept { return problem_; }
  const inplace_geometry& geometry() const noexcept { return geometry_; }
  inplace_algorithm algo() const noexcept { return geometry_.algo; }

  /// Device workspace `execute` needs (bound in the header comment); 0 = pass nullptr.
  std::int64_t workspace_bytes() const noexcept { return geometry_.workspace_bytes; }
  /// Bytes of matrix data (elements x elem_bytes); effective bandwidth counts 2 x this.
  std::int64_t payload_bytes() const noexcept { return payload_bytes_; }
  /// Bytes from the base pointer to the end of the last matrix.
  std::int64_t span_bytes() const noexcept { return span_bytes_; }

  /// Transposes on the current CUDA device, ordered on `stream`. Never allocates, never synchronizes.
  /// Errors: `invalid_argument` (null or host `d_data`; a workspace that is null, smaller than
  /// workspace_bytes() or overlaps the data), `unsupported` (built without CUDA), `cuda_error`.
  status execute(void* d_data, void* d_workspace = nullptr, std::int64_t workspace_bytes = 0,
                 stream_t stream = nullptr) const;

  /// Transposes host memory with `threads` threads (0 = all hardware threads). Synchronous; allocates
  /// O(max(rows, cols)) bytes per thread. Errors: `invalid_argument` (null, device memory, threads < 0),
  /// `out_of_memory`.
  status execute_host(void* data, int threads = 0) const;

  friend std::ostream& operator<<(std::ostream& os, const inplace_plan& p);

 private:
  friend result<inplace_plan> make_inplace_plan(const inplace_problem& p);
  inplace_plan() = default;

  inplace_problem problem_;
  inplace_geometry geometry_;
  std::int64_t payload_bytes_ = 0;
  std::int64_t span_bytes_ = 0;
};

std::ostream& operator<<(std::ostream& os, const inplace_geometry& g);

/// One-shot GPU transpose of a packed rows x cols matrix in place (plans anew each call).
status transpose_inplace(void* d_data, std::int64_t rows, std::int64_t cols, std::int64_t elem_bytes,
                         void* d_workspace = nullptr, std::int64_t workspace_bytes = 0, stream_t stream = nullptr);

/// Device workspace transpose_inplace needs for this shape (0 for square shapes and vectors).
result<std::int64_t> transpose_inplace_workspace_bytes(std::int64_t rows, std::int64_t cols, std::int64_t elem_bytes);

/// One-shot host transpose of a packed rows x cols matrix in place.
status transpose_inplace_host(void* data, std::int64_t rows, std::int64_t cols, std::int64_t elem_bytes,
                              int threads = 0);

}  // namespace xpose
