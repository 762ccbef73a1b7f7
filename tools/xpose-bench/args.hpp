// xpose-bench: command-line options.
#pragma once

#include <string>
#include <vector>

#include "suites.hpp"

namespace xpose::bench {

enum class backend_kind { automatic, cuda, cpu };

struct options {
  backend_kind backend = backend_kind::automatic;
  std::string suite;          ///< empty: `default` unless a single case was given with --shape
  std::vector<bench_case> cases;  ///< the single --shape case, if any (the suite is loaded later)
  int reps = 30;              ///< timed samples per measurement; the median is reported
  int warmup = 5;             ///< untimed runs before the samples
  int threads = 0;            ///< CPU: the "all threads" count (0 = hardware concurrency)
  std::string csv_path;       ///< "" = none, "-" = stdout
  std::string json_path;
  bool blocking_kernel = true;  ///< CUDA: queue each sample's launches behind a spinning kernel
  bool inplace = false;         ///< the cases are in-place transposes (--inplace; --suite inplace implies it)
  bool list = false;            ///< print the cases (and the peers built in) instead of running them
  bool help = false;
};

/// The minimum number of timed samples (DESIGN §5: median of >= 20 runs).
inline constexpr int min_reps = 20;

/// Parses argv. Returns "" on success, else an error naming the flag (the caller prints it and exits 2).
std::string parse_args(int argc, char** argv, options& o);

/// The --help text.
std::string usage();

}  // namespace xpose::bench
