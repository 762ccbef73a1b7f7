// xpose-bench --suite inplace (or --inplace with a --shape RxC case): in-place transposes beside the
// out-of-place transpose of the same matrix, both against memcpy of the same bytes in the same run.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "args.hpp"
#include "xpose/inplace.hpp"
#include "report.hpp"
#include "suites.hpp"

namespace xpose::bench {

struct inplace_row {
  std::string name, shape, algo, category, note;
  std::int64_t elem_bytes = 0, bytes_moved = 0, workspace_bytes = 0;
  double target = not_measured;
  double memcpy_us = not_measured;
  double inplace_us = not_measured, inplace_ratio = not_measured;
  double outofplace_us = not_measured, outofplace_ratio = not_measured;
  verdict verified = verdict::na, outofplace_verified = verdict::na;
};

/// A case as an in-place problem: rank-2 shape (batch allowed), packed. "" or why not.
std::string inplace_problem_of(const bench_case& c, xpose::inplace_problem& p);

/// Starts the row of case `c` (name, shape, algorithm, bytes, workspace) and returns its plan; a case that
/// cannot be planned returns the error, which the row records (verified = no). Shared by both backends.
xpose::result<xpose::inplace_plan> plan_inplace_case(const bench_case& c, inplace_row& r);

#if XPOSE_BENCH_HAS_CUDA
/// Times one case on the GPU (throws nothing; errors go to the row's note with verified = no).
inplace_row run_inplace_case_cuda(const bench_case& c, const options& o, std::int64_t l2_bytes);
#endif
inplace_row run_inplace_case_cpu(const bench_case& c, const options& o);

/// Runs every case (progress on stderr).
std::vector<inplace_row> run_inplace_cases(const std::vector<bench_case>& cases, const options& o,
                                           const run_info& info, bool use_cuda);
/// The table and its summary line; false when a row failed verification.
bool print_inplace_table(std::ostream& os, const std::vector<inplace_row>& rows, const run_info& info);
void write_inplace_csv(std::ostream& os, const std::vector<inplace_row>& rows, const run_info& info);
void write_inplace_json(std::ostream& os, const std::vector<inplace_row>& rows, const run_info& info);

}  // namespace xpose::bench
