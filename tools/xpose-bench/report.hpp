// xpose-bench: result rows, the printed tables, CSV, JSON and the closing summary.
#pragma once

#include <cstdint>
#include <limits>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace xpose::bench {

inline constexpr double not_measured = std::numeric_limits<double>::quiet_NaN();

enum class verdict { na, yes, no };

const char* to_string(verdict v);

/// One implementation timed on one case: the median time of one run, and its ratio to a memcpy reference.
struct measurement {
  bool present = false;       ///< false: not applicable or not run (`note` says why); printed "n/a"
  double time_us = not_measured;
  double gbps = not_measured;   ///< bytes_moved / time
  double ratio = not_measured;  ///< reference time / this time (1.0 = as fast as memcpy of the same bytes)
  verdict verified = verdict::na;
  std::string variant;        ///< what ran, when it is not obvious ("cublasLtMatrixTransform CUDA_R_8I")
  std::string note;           ///< an error, why not applicable, or a remark on the verification

  /// Fills time_us, gbps and ratio from a median time and the reference's median time.
  void set_time(double median_us, std::int64_t bytes_moved, double reference_us);
};

/// One printed row. `table` picks the columns: "ladder", "production", "2d" (GPU) or "cpu".
struct row {
  std::string table;
  std::string case_name;  ///< the suite case ("fp32 8192x8192"); ladder: the size
  std::string impl;       ///< "xpose", a ladder rung, "xpose (production)", "cuBLAS geam"
  std::string shape;      ///< "8192x8192" (batch included)
  std::string axes;       ///< "1,0"
  std::int64_t elem_bytes = 0;
  std::int64_t bytes_moved = 0;  ///< read + write
  int buffers = 1;               ///< rotating input/output pairs
  std::int64_t in_offset = 0, out_offset = 0;  ///< the views' bytes past page-aligned bases (bench_case)

  // The reference: memcpy of the same bytes, same run, same rotation (CPU: on all threads).
  double memcpy_us = not_measured;
  double memcpy_gbps = not_measured;
  verdict memcpy_verified = verdict::na;

  measurement main;      ///< the implementation (CPU: on all threads)
  measurement geam;      ///< GPU production and 2d rows: the peers on the same case (peers.hpp); a peer
  measurement cublaslt;  ///< that does not apply is not `present` and its note says why
  measurement npp;

  // From the suite (bench_case): the summary groups rows by category and checks targets.
  std::string category;
  double target = not_measured;  ///< ratio to memcpy to reach; NaN = none
  std::string relative_to;       ///< "" or the case whose ratio the target scales

  // CPU only: the 1-thread twin of the reference and of `main`.
  int threads = 0;
  double memcpy_1t_us = not_measured;
  double memcpy_1t_gbps = not_measured;
  measurement main_1t;

  std::string note;  ///< anything else worth printing under the table
};

/// Facts about the run, repeated in CSV rows and written once in JSON.
struct run_info {
  std::string backend;  ///< "cuda" or "cpu"
  std::string device;   ///< GPU name or CPU model
  int sm_count = 0;     ///< GPU only
  std::int64_t l2_bytes = 0;
  std::int64_t llc_bytes = 0;  ///< CPU: last-level cache (rotation threshold)
  std::int64_t memory_bytes = 0;
  int threads = 0;  ///< CPU: the "all threads" count
  int reps = 0;
  int warmup = 0;
  std::string xpose_version;
  std::string git_commit;
  std::string date;  ///< UTC, ISO 8601
};

/// The median of `v` (sorted copy; the mean of the middle two for even sizes). NaN for an empty vector.
double median(std::vector<double> v);

/// The peers of a row, with their short names ("geam", "cublasLt", "NPP"), in column order.
std::vector<std::pair<const char*, const measurement*>> peers_of(const row& r);

/// Prints the rows of `table` ("ladder", "production", "2d" or "cpu") as an aligned table with a title.
void print_table(std::ostream& os, const std::string& table, const std::vector<row>& rows, const run_info& info);

/// CSV: a header, then one line per row with the run's facts repeated.
void write_csv(std::ostream& os, const std::vector<row>& rows, const run_info& info);

/// JSON: {"run": {...}, "rows": [...]}.
void write_json(std::ostream& os, const std::vector<row>& rows, const run_info& info);

/// The closing lines: rows verified, worst ratio; with categories (the 2d suite), per category the worst
/// xpose ratio, the rows below their target and the rows where a peer is as fast as xpose or faster.
/// Returns true when every xpose output and every memcpy reference was verified (a wrong or failed peer is
/// listed but does not fail the run: it is not xpose's error).
bool print_summary(std::ostream& os, const std::vector<row>& rows);

/// Whether an xpose output (or the memcpy reference) of `r` failed verification or failed to run. Peers are
/// not included: see peer_failed.
bool row_failed(const row& r);

/// Whether a peer of `r` ran and its output was wrong, or it failed to run.
bool peer_failed(const row& r);

/// Now, UTC, ISO 8601.
std::string utc_now();

}  // namespace xpose::bench
