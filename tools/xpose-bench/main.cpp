// xpose-bench: transposes and permutations against memcpy of the same bytes, on the GPU (with cuBLAS geam and
// the teaching ladder) or on the CPU. See --help and tools/xpose-bench/README.md.
//
// Output: progress on stderr; on stdout a header, the tables, CSV/JSON when sent to '-', and last a summary.
// Exit codes: 0 every row verified, 1 a row failed or a run-time error, 2 bad arguments.
#include <fstream>
#include <iostream>

#include "args.hpp"
#include "cpu_bench.hpp"
#include "report.hpp"
#include "inplace_bench.hpp"
#include "suites.hpp"
#include "xpose/version.hpp"

#if XPOSE_BENCH_HAS_CUDA
#include "cuda_bench.hpp"
#include "peers.hpp"
#endif

#include "xpose_bench_git_commit.hpp"  // XPOSE_GIT_COMMIT (generated at build time)

namespace {

using namespace xpose::bench;

// Writes CSV or JSON to `path` ('-' = stdout). Returns false (with a message) when the file cannot be written.
template <class Writer>
bool write_output(const std::string& path, const char* flag, const Writer& writer) {
  if (path.empty()) return true;
  if (path == "-") {
    std::cout << '\n';
    writer(std::cout);
    return true;
  }
  std::ofstream f(path);
  if (f) writer(f);
  if (!f) {
    std::cerr << "xpose-bench: " << flag << ": cannot write '" << path << "'\n";
    return false;
  }
  return true;
}

// --list: one line per case, and which peers this build has.
void print_cases(std::ostream& os, const std::vector<bench_case>& cases, bool use_cuda) {
  os << cases.size() << " cases";
#if XPOSE_BENCH_HAS_CUDA
  os << "; peers in this build: cuBLAS geam, cublasLtMatrixTransform, "
     << (npp_built() ? "NPP nppiTranspose" : "no NPP (not found at build time)");
#else
  os << "; this build has no CUDA backend (no peers)";
#endif
  os << (use_cuda ? "" : "; CPU backend") << '\n';
  for (const auto& c : cases) {
    os << "  " << table_name(c.table) << (c.category.empty() ? "" : "/" + c.category) << ": " << c.name << ": "
       << c.shape_string() << " axes " << c.axes_string() << ", " << c.elem_bytes << " B";
    auto list = [](const std::vector<std::int64_t>& v) {
      std::string s;
      for (std::size_t i = 0; i < v.size(); ++i) {
        if (i > 0) s += ',';
        s += std::to_string(v[i]);
      }
      return s;
    };
    if (!c.in_strides.empty()) os << ", in_strides " << list(c.in_strides);
    if (!c.out_strides.empty()) os << ", out_strides " << list(c.out_strides);
    if (c.in_offset != 0 || c.out_offset != 0) os << ", base offsets in " << c.in_offset << " / out " << c.out_offset << " B";
    os << ", " << (c.payload_bytes() >> 20) << " MiB";
    if (c.target >= 0) os << ", target " << c.target << (c.relative_to.empty() ? "" : " of '" + c.relative_to + "'");
    os << '\n';
  }
}

std::string human_bytes(std::int64_t b) {
  if (b <= 0) return "?";
  if (b >= (std::int64_t{1} << 30)) return std::to_string(b >> 30) + " GiB";
  if (b >= (std::int64_t{1} << 20)) return std::to_string(b >> 20) + " MiB";
  return std::to_string(b >> 10) + " KiB";
}

}  // namespace

int main(int argc, char** argv) {
  options o;
  if (std::string err = parse_args(argc, argv, o); !err.empty()) {
    std::cerr << "xpose-bench: " << err << "\n(xpose-bench --help lists the options)\n";
    return 2;
  }
  if (o.help) {
    std::cout << usage();
    return 0;
  }

  // ---- backend ----
  bool use_cuda = false;
  run_info info;
#if XPOSE_BENCH_HAS_CUDA
  if (o.backend != backend_kind::cpu) {
    std::string why;
    use_cuda = cuda_probe(info, why);
    if (!use_cuda && o.backend == backend_kind::cuda) {
      std::cerr << "xpose-bench: --backend cuda: no usable CUDA device (" << why << ")\n";
      return 1;
    }
  }
#else
  if (o.backend == backend_kind::cuda) {
    std::cerr << "xpose-bench: --backend cuda: this build has no CUDA backend (configured without CUDA)\n";
    return 2;
  }
#endif
  if (!use_cuda && o.backend == backend_kind::automatic) std::cout << "no CUDA device found: running the CPU path\n";
  if (!use_cuda) info = cpu_run_info(o.threads);

  // ---- cases ----
  std::vector<bench_case> cases = o.cases;
  if (cases.empty()) {
    const std::string suite = o.suite.empty() ? "default" : o.suite;
    if (std::string err = load_suite(suite, use_cuda, cases); !err.empty()) {
      std::cerr << "xpose-bench: --suite: " << err << '\n';
      return 2;
    }
    if (!use_cuda && !o.list) {
      bool any_production = false;
      for (const auto& c : cases) any_production = any_production || c.table != table_kind::ladder;
      if (!cases.empty() && !any_production) {
        std::cerr << "xpose-bench: --suite " << suite
                  << ": the teaching ladder runs GPU kernels; it needs the CUDA backend and a GPU\n";
        return 2;
      }
    }
  }

  if (o.list) {
    print_cases(std::cout, cases, use_cuda);
    return 0;
  }

  info.reps = o.reps;
  info.warmup = o.warmup;
  info.xpose_version = xpose::version();
  info.git_commit = XPOSE_GIT_COMMIT;
  info.date = utc_now();

  std::cout << "xpose-bench " << info.xpose_version << " (git " << info.git_commit << "), " << info.date << '\n';
  if (use_cuda) {
    std::cout << "device: " << info.device << ", " << info.sm_count << " SMs, L2 " << human_bytes(info.l2_bytes)
              << ", " << human_bytes(info.memory_bytes) << '\n';
  } else {
    std::cout << "host: " << info.device << ", " << info.threads << " threads, L2 " << human_bytes(info.l2_bytes)
              << ", last-level cache " << human_bytes(info.llc_bytes) << ", " << human_bytes(info.memory_bytes)
              << '\n';
  }
  std::cout << "median of " << o.reps << " samples after " << o.warmup
            << " warm-up runs; buffers rotate below 4x the " << (use_cuda ? "L2" : "last-level cache")
            << "; every output verified" << std::endl;

  // ---- run ----
  if (o.inplace || o.suite == "inplace") {
    const std::vector<inplace_row> in_place = run_inplace_cases(cases, o, info, use_cuda);
    bool ok = print_inplace_table(std::cout, in_place, info);
    ok = write_output(o.csv_path, "--csv", [&](std::ostream& os) { write_inplace_csv(os, in_place, info); }) && ok;
    ok = write_output(o.json_path, "--json", [&](std::ostream& os) { write_inplace_json(os, in_place, info); }) && ok;
    return ok ? 0 : 1;
  }
  std::vector<row> rows;
  std::string fatal;
#if XPOSE_BENCH_HAS_CUDA
  if (use_cuda) fatal = run_cuda_cases(cases, o, info, rows, std::cerr);
#endif
  if (!use_cuda) run_cpu_cases(cases, o, info, rows, std::cerr);

  for (const char* table : {"ladder", "production", "2d", "cpu"}) print_table(std::cout, table, rows, info);
  bool ok = write_output(o.csv_path, "--csv", [&](std::ostream& os) { write_csv(os, rows, info); });
  ok = write_output(o.json_path, "--json", [&](std::ostream& os) { write_json(os, rows, info); }) && ok;
  if (!fatal.empty()) std::cout << "\nerror: " << fatal << '\n';
  ok = print_summary(std::cout, rows) && ok && fatal.empty();
  return ok ? 0 : 1;
}
