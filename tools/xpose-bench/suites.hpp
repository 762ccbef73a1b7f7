// xpose-bench: benchmark cases and suites. A suite is data: one case per line,
//
//   name=fp32 8192x8192;shape=8192,8192;axes=1,0;elem=4;batch=1
//
// keys: `shape` (required; `,` or `x` separated), `axes` (default: reversed), `elem` (bytes, default 4),
// `batch` (default 1: none), `in_strides` / `out_strides` (elements, one per axis of the full problem, batch
// axis included: a pitched matrix is a sub-matrix of a wider allocation), `name` (default: derived from elem
// and shape), `table` (`production`, the default; `ladder`: fp32 2-D transposes measured with every rung of
// the teaching ladder; `2d`: the 2-D table of benchmarks/suites/2d.txt, grouped by category), `category`
// (a group of rows summarized together: worst ratio, target met, peers beaten), `target` (the ratio to memcpy
// the row must reach), `relative_to` (the name of another case of the suite: `target` then applies to this
// row's ratio divided by that case's ratio, e.g. a pitched case within 5 % of its packed twin). `#` starts a
// comment.
//
// Built-in suites: `default` (benchmarks/suites/ladder.txt then default.txt, embedded at configure time; on
// the CPU backend: `cpu`), `ladder` (ladder.txt), `production` (default.txt), `2d` (2d.txt), `cpu` (the CPU
// table). Any other NAME is read from a file: NAME itself when it is a path to a file (or ends in .txt), else
// benchmarks/suites/NAME.txt under the current directory or the source tree.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "xpose/plan.hpp"
#include "xpose/problem.hpp"

namespace xpose::bench {

enum class table_kind { production, ladder, transpose2d };

/// The table name rows of this kind print under: "production", "ladder", "2d".
const char* table_name(table_kind t);

/// One benchmark case.
/// Largest in_offset / out_offset: any phase of a line or a page past the buffers' aligned bases.
inline constexpr std::int64_t max_base_offset = 4095;

struct bench_case {
  std::string name;
  table_kind table = table_kind::production;
  std::vector<std::int64_t> shape;  ///< without the batch axis
  std::vector<std::int64_t> axes;   ///< without the batch axis; empty = reversed
  std::int64_t elem_bytes = 4;
  std::int64_t batch = 1;                ///< > 1 prepends a batch axis that stays first
  std::vector<std::int64_t> in_strides;  ///< full problem (batch axis included); empty = packed
  std::vector<std::int64_t> out_strides;
  std::int64_t in_offset = 0;   ///< bytes past the buffer's aligned base: misaligned views (<= max_base_offset)
  std::int64_t out_offset = 0;
  std::string category;                  ///< "" = none
  double target = -1;                    ///< the ratio to memcpy to reach; < 0 = none
  std::string relative_to;               ///< "" = target is absolute; else the case whose ratio it scales

  /// The xpose problem: batch axis prepended when batch > 1 (b x shape -> b x permuted shape).
  xpose::problem to_problem() const;
  /// "8192x8192" (batch included).
  std::string shape_string() const;
  /// "1,0" (batch included, explicit even when the case left axes empty).
  std::string axes_string() const;
  /// Whether this is a plain 2-D transpose (rank 2, axes 1,0), batched or not, packed.
  bool is_plain_transpose2d() const;
  /// Bytes of array data (elements x elem_bytes), and the bytes the input / output views span from their
  /// base pointers (strides included). For a valid problem; computed without xpose (no plan needed).
  std::int64_t payload_bytes() const;
  std::int64_t in_span_bytes() const;
  std::int64_t out_span_bytes() const;
};

/// A 2-D transpose, possibly batched and pitched, as matrix libraries see it (all counts in elements):
/// `batch` matrices of rows x cols, row-major, row i of matrix b at in + b * in_batch_stride + i * in_ld;
/// the output is batch x cols x rows with out_ld and out_batch_stride.
struct matrix_view {
  std::int64_t batch = 1, rows = 0, cols = 0, elem_bytes = 0;
  std::int64_t in_ld = 0, out_ld = 0, in_batch_stride = 0, out_batch_stride = 0;
};

/// Whether `c` is such a transpose (shape of rank 2, axes 1,0, unit stride along the last axis on both sides,
/// rows that do not overlap). Returns "" and fills `v`, else why not ("not a 2-D transpose", ...).
std::string as_matrix_view(const bench_case& c, matrix_view& v);

/// A short name for an element size: u8, fp16, rgb8, fp32, fp64, c128, else "<n>B".
std::string elem_name(std::int64_t elem_bytes);

/// What the planner chose, in a few words: "transpose2d 64x3000 u4", "transpose2d 120[3*8*5]x17895698 u1"
/// (compound sides list their axes), "rows 12x4B", "copy".
std::string plan_summary(const xpose::plan& p);

/// Parses a comma- or x-separated list of integers ("8192,8192", "8192x8192"). False on any junk.
bool parse_int_list(const std::string& text, std::vector<std::int64_t>& out);
/// Parses one integer (whole string). False on junk or overflow.
bool parse_int(const std::string& text, std::int64_t& out);

/// Parses suite text (`origin` names it in errors: "file:line: ..."). Returns "" on success, else the error.
std::string parse_suite(const std::string& text, const std::string& origin, std::vector<bench_case>& out);

/// Loads a suite by name (see the file comment). `cuda_backend` picks what `default` means: the ladder and
/// production tables on the GPU, the CPU table on the CPU. Returns "" on success, else the error.
std::string load_suite(const std::string& name, bool cuda_backend, std::vector<bench_case>& out);

/// Validates a case with xpose::make_plan. Returns "" when valid (or valid but `unsupported`: that case's
/// row reports it), else the status text.
std::string validate_case(const bench_case& c);

}  // namespace xpose::bench
