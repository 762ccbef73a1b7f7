// xpose-bench: command-line parsing. Every error names the flag; main exits with code 2 on any of them.
#include "args.hpp"

#include <cstdint>
#include <map>

namespace xpose::bench {

std::string usage() {
  return R"(xpose-bench: transpose / permute bandwidth against memcpy of the same bytes (and, on the GPU, the peers
cuBLAS geam, cublasLtMatrixTransform and NPP nppiTranspose where they apply)

usage: xpose-bench [options]

  no options            the default run: on a GPU the teaching-ladder table and the production table; without
                        a GPU the CPU table
  --suite NAME          default | ladder | production | 2d | cpu | inplace | a suite file (NAME or
                        benchmarks/suites/NAME.txt); 2d = issue 3's 2-D table with every peer;
                        inplace = in-place transposes (benchmarks/suites/inplace.txt)
  --shape 8192,8192     one case instead of a suite (',' or 'x' separated)
  --axes 1,0            output axis i takes input axis axes[i] (NumPy; default: reversed)
  --elem-bytes 4        element size in bytes (any size >= 1; default 4)
  --batch N             prepend a batch axis that stays first: N x shape -> N x permuted shape
  --in-strides LIST     input strides in elements, one per axis of the full problem (batch axis included)
  --out-strides LIST    output strides in elements, per output axis (batch axis included)
  --in-offset BYTES     the input view starts this many bytes past an aligned base (CPU: a page, GPU: 256
                        bytes; 0-4095, default 0); the memcpy references copy between the same pointers
  --out-offset BYTES    the same for the output view
  --backend cuda|cpu    default: cuda when a device exists, else cpu
  --reps N              timed samples per measurement, median reported (default 30, at least 20)
  --warmup N            untimed runs before the samples (default 5)
  --threads N           CPU: the "all threads" count (default: all hardware threads)
  --csv FILE            also write the rows as CSV ('-' = stdout)
  --json FILE           also write the rows as JSON ('-' = stdout)
  --no-blocking-kernel  CUDA: launch samples without first parking the stream on a spinning kernel
  --inplace             the --shape rows,cols case (or the suite's 2-D cases) transposed in place, beside the
                        out-of-place transpose; `--suite inplace` implies it
  --list                print the cases of the suite (or the --shape case) and exit without running
  -h, --help            this text

Effective bandwidth = (bytes read + bytes written) / median time. Every ratio is against memcpy of the same
bytes measured in the same run (GPU: cudaMemcpyAsync device to device; CPU: memcpy on 1 thread and on all
threads). Every measured output is verified; a wrong one prints verified = no and makes the exit code 1.
Exit codes: 0 all rows verified, 1 a row failed or a run-time error, 2 bad arguments.

examples:
  xpose-bench
  xpose-bench --suite ladder --csv ladder.csv
  xpose-bench --suite 2d --csv 2d.csv
  xpose-bench --shape 32,64,112,112 --axes 0,2,3,1 --elem-bytes 4
  xpose-bench --shape 32,32 --batch 65536 --json -
  xpose-bench --backend cpu --shape 4096x4096 --elem-bytes 1 --threads 8
)";
}

namespace {

std::string bad(const std::string& flag, const std::string& value, const std::string& what) {
  return flag + ": '" + value + "' " + what;
}

// Which flag a make_plan message is about (its first word names the problem field).
std::string flag_for_field(const std::string& message) {
  static const std::pair<const char*, const char*> fields[] = {
      {"in_strides", "--in-strides"}, {"out_strides", "--out-strides"}, {"elem_bytes", "--elem-bytes"},
      {"axes", "--axes"},             {"shape", "--shape"}};
  const auto colon = message.find(": ");
  const std::string text = colon == std::string::npos ? message : message.substr(colon + 2);
  for (const auto& [field, flag] : fields)
    if (text.rfind(field, 0) == 0) return flag;
  return "--shape";
}

}  // namespace

std::string parse_args(int argc, char** argv, options& o) {
  bench_case c;
  bool has_shape = false;
  std::map<std::string, bool> case_flags;  // case flags seen without --shape
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    std::string value;
    bool has_inline_value = false;
    if (const auto eq = flag.find('='); flag.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = flag.substr(eq + 1);
      flag = flag.substr(0, eq);
      has_inline_value = true;
    }
    auto next = [&]() -> bool {
      if (has_inline_value) return true;
      if (i + 1 >= argc) return false;
      value = argv[++i];
      return true;
    };
    auto need_value = [&]() { return flag + ": needs a value"; };

    if (flag == "-h" || flag == "--help") {
      o.help = true;
    } else if (flag == "--no-blocking-kernel") {
      o.blocking_kernel = false;
    } else if (flag == "--inplace") {
      o.inplace = true;
    } else if (flag == "--list") {
      o.list = true;
    } else if (flag == "--shape") {
      if (!next()) return need_value();
      if (!parse_int_list(value, c.shape)) return bad(flag, value, "is not a list of integers");
      has_shape = true;
    } else if (flag == "--axes") {
      if (!next()) return need_value();
      if (!parse_int_list(value, c.axes)) return bad(flag, value, "is not a list of integers");
      case_flags[flag] = true;
    } else if (flag == "--elem-bytes") {
      if (!next()) return need_value();
      if (!parse_int(value, c.elem_bytes) || c.elem_bytes < 1) return bad(flag, value, "is not an integer >= 1");
      case_flags[flag] = true;
    } else if (flag == "--batch") {
      if (!next()) return need_value();
      if (!parse_int(value, c.batch) || c.batch < 1) return bad(flag, value, "is not an integer >= 1");
      case_flags[flag] = true;
    } else if (flag == "--in-strides") {
      if (!next()) return need_value();
      if (!parse_int_list(value, c.in_strides)) return bad(flag, value, "is not a list of integers");
      case_flags[flag] = true;
    } else if (flag == "--out-strides") {
      if (!next()) return need_value();
      if (!parse_int_list(value, c.out_strides)) return bad(flag, value, "is not a list of integers");
      case_flags[flag] = true;
    } else if (flag == "--in-offset" || flag == "--out-offset") {
      if (!next()) return need_value();
      std::int64_t& off = flag == "--in-offset" ? c.in_offset : c.out_offset;
      if (!parse_int(value, off) || off < 0 || off > max_base_offset)
        return bad(flag, value, "must be an integer in [0, " + std::to_string(max_base_offset) + "]");
      case_flags[flag] = true;
    } else if (flag == "--backend") {
      if (!next()) return need_value();
      if (value == "cuda") o.backend = backend_kind::cuda;
      else if (value == "cpu") o.backend = backend_kind::cpu;
      else return bad(flag, value, "is not one of: cuda, cpu");
    } else if (flag == "--reps") {
      std::int64_t v = 0;
      if (!next()) return need_value();
      if (!parse_int(value, v) || v < min_reps || v > 100000)
        return bad(flag, value, "must be an integer in [" + std::to_string(min_reps) + ", 100000]");
      o.reps = static_cast<int>(v);
    } else if (flag == "--warmup") {
      std::int64_t v = 0;
      if (!next()) return need_value();
      if (!parse_int(value, v) || v < 0 || v > 100000) return bad(flag, value, "must be an integer in [0, 100000]");
      o.warmup = static_cast<int>(v);
    } else if (flag == "--threads") {
      std::int64_t v = 0;
      if (!next()) return need_value();
      if (!parse_int(value, v) || v < 1 || v > 4096) return bad(flag, value, "must be an integer in [1, 4096]");
      o.threads = static_cast<int>(v);
    } else if (flag == "--csv") {
      if (!next() || value.empty()) return need_value();
      o.csv_path = value;
    } else if (flag == "--json") {
      if (!next() || value.empty()) return need_value();
      o.json_path = value;
    } else if (flag == "--suite") {
      if (!next() || value.empty()) return need_value();
      o.suite = value;
    } else {
      return flag + ": unknown option (see --help)";
    }
  }
  if (o.help) return {};
  if (o.csv_path == "-" && o.json_path == "-") return "--csv and --json: only one of them can write to stdout";
  if (!has_shape) {
    if (!case_flags.empty()) return case_flags.begin()->first + ": needs --shape (it describes a single case)";
    return {};
  }
  if (!o.suite.empty()) return "--shape and --suite: give one case or one suite, not both";
  if (c.shape.empty()) return "--shape: needs at least one extent";
  c.name = "custom " + elem_name(c.elem_bytes) + " " + c.shape_string();
  if (c.in_offset != 0 || c.out_offset != 0)
    c.name += " (in +" + std::to_string(c.in_offset) + " B, out +" + std::to_string(c.out_offset) + " B)";
  if (std::string err = validate_case(c); !err.empty()) return flag_for_field(err) + ": " + err;
  o.cases.push_back(std::move(c));
  return {};
}

}  // namespace xpose::bench
