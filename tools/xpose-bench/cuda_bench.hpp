// xpose-bench: the CUDA backend, callable from plain C++ (main.cpp). Only built when XPOSE_BENCH_HAS_CUDA.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "args.hpp"
#include "report.hpp"
#include "suites.hpp"

namespace xpose::bench {

/// Whether a CUDA device is usable. On success fills the device facts of `info` (name, SM count, L2 size,
/// memory); else `why` says what is missing.
bool cuda_probe(run_info& info, std::string& why);

/// Times the cases on the current device and appends rows: a ladder case gives one "ladder" row per
/// supported rung plus "xpose (production)" and "cuBLAS geam"; a production case one "production" row with
/// geam columns. Returns "" or, after an unrecoverable CUDA error (the context is lost: no later case can
/// run), its description; the rows appended so far stay valid.
std::string run_cuda_cases(const std::vector<bench_case>& cases, const options& o, const run_info& info,
                           std::vector<row>& rows, std::ostream& progress);

}  // namespace xpose::bench
