// xpose-bench: the CPU backend (plan::execute_host against memcpy on 1 thread and on all threads).
#pragma once

#include <ostream>
#include <vector>

#include "args.hpp"
#include "report.hpp"
#include "suites.hpp"

namespace xpose::bench {

/// The host's facts: CPU model, caches, memory, the "all threads" count (`threads`, 0 = hardware).
run_info cpu_run_info(int threads);

/// Times every production case on the CPU and appends one "cpu" row per case; ladder cases (GPU kernels)
/// are skipped with a line on `progress`. Synchronous.
void run_cpu_cases(const std::vector<bench_case>& cases, const options& o, const run_info& info,
                   std::vector<row>& rows, std::ostream& progress);

}  // namespace xpose::bench
