// xpose-bench in-place table: CPU measurement, printing, CSV and JSON (the GPU side: inplace_bench_cuda.cu).
#include "inplace_bench.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <thread>

#include "common/inplace_oracle.hpp"
#include "xpose/inplace.hpp"
#include "xpose/plan.hpp"

#if XPOSE_BENCH_HAS_OPENMP
#include <omp.h>
#endif

namespace xpose::bench {

std::string inplace_problem_of(const bench_case& c, xpose::inplace_problem& p) {
  if (c.shape.size() != 2) return "an in-place case needs a 2-D shape (rows,cols)";
  if (!c.axes.empty() && !(c.axes.size() == 2 && c.axes[0] == 1 && c.axes[1] == 0)) return "in-place cases are 2-D transposes (axes 1,0)";
  if (!c.in_strides.empty() || !c.out_strides.empty()) return "in-place cases are packed";
  if (c.in_offset != 0 || c.out_offset != 0) return "in-place cases take no base offsets (in_offset / out_offset)";
  p = xpose::inplace_problem{c.shape[0], c.shape[1], c.elem_bytes, c.batch, 0, 0};
  return {};
}

namespace {

double now_us() {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void parallel_copy(unsigned char* dst, const unsigned char* src, std::int64_t n, int threads) {
#if XPOSE_BENCH_HAS_OPENMP
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int t = 0; t < threads; ++t) {
    const std::int64_t b = n * t / threads, e = n * (t + 1) / threads;
    std::memcpy(dst + b, src + b, static_cast<std::size_t>(e - b));
  }
#else
  (void)threads;
  std::memcpy(dst, src, static_cast<std::size_t>(n));
#endif
}

std::string fmt(double v, int prec) {
  if (std::isnan(v)) return "n/a";
  std::ostringstream os;
  os << std::fixed << std::setprecision(prec) << v;
  return os.str();
}

}  // namespace

xpose::result<xpose::inplace_plan> plan_inplace_case(const bench_case& c, inplace_row& r) {
  r = inplace_row{};
  r.name = c.name, r.shape = c.shape_string(), r.elem_bytes = c.elem_bytes, r.category = c.category;
  r.target = c.target > 0 ? c.target : not_measured;
  auto fail = [&](const std::string& why) {
    r.note = why, r.verified = verdict::no;
    return status(status_code::invalid_argument, why);
  };
  xpose::inplace_problem ip;
  if (std::string why = inplace_problem_of(c, ip); !why.empty()) return fail(why);
  auto plan = xpose::make_inplace_plan(ip);
  if (!plan) return fail(plan.error().message());
  const auto& g = plan->geometry();
  r.algo = g.algo != xpose::inplace_algorithm::shuffle
               ? std::string(to_string(g.algo))
               : std::string("shuffle ") + (g.c2r ? "c2r" : "r2c") + (g.c > 1 ? " +rot" : "");
  r.bytes_moved = 2 * plan->payload_bytes();
  r.workspace_bytes = plan->workspace_bytes();
  return plan;
}

inplace_row run_inplace_case_cpu(const bench_case& c, const options& o) {
  inplace_row r;
  auto plan = plan_inplace_case(c, r);
  if (!plan) return r;
  const std::int64_t bytes = plan->span_bytes();
  const int threads = o.threads > 0 ? o.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::vector<unsigned char> a(static_cast<std::size_t>(bytes)), b(static_cast<std::size_t>(bytes));
  for (std::int64_t i = 0; i < bytes; ++i) a[static_cast<std::size_t>(i)] = xpose::test::inplace_byte(static_cast<std::uint64_t>(i));
  // verify one run
  if (status s = plan->execute_host(a.data(), threads); !s) {
    r.note = s.message(), r.verified = verdict::no;
    return r;
  }
  const auto x = xpose::test::make_inplace_expect(plan->geometry(), 0);
  std::int64_t wrong = 0;
  for (std::int64_t i = 0; i < bytes; ++i)
    wrong += a[static_cast<std::size_t>(i)] != xpose::test::inplace_byte(x.source(static_cast<std::uint64_t>(i)));
  r.verified = wrong == 0 ? verdict::yes : verdict::no;
  if (wrong) r.note = std::to_string(wrong) + " wrong bytes";
  auto time = [&](auto&& f) {
    for (int i = 0; i < o.warmup; ++i) f();
    std::vector<double> t;
    for (int i = 0; i < o.reps; ++i) {
      const double t0 = now_us();
      f();
      t.push_back(now_us() - t0);
    }
    return median(t);
  };
  r.memcpy_us = time([&] { parallel_copy(b.data(), a.data(), plan->payload_bytes(), threads); });
  r.inplace_us = time([&] { (void)plan->execute_host(a.data(), threads); });
  r.inplace_ratio = r.memcpy_us / r.inplace_us;
  auto oop = xpose::make_plan(c.to_problem());
  if (oop) {
    r.outofplace_us = time([&] { (void)oop->execute_host(a.data(), b.data(), threads); });
    r.outofplace_ratio = r.memcpy_us / r.outofplace_us;
  }
  return r;
}

std::vector<inplace_row> run_inplace_cases(const std::vector<bench_case>& cases, const options& o,
                                           const run_info& info, bool use_cuda) {
  std::vector<inplace_row> rows;
  for (const auto& c : cases) {
    std::cerr << "  " << c.name << " ..." << std::endl;
#if XPOSE_BENCH_HAS_CUDA
    rows.push_back(use_cuda ? run_inplace_case_cuda(c, o, info.l2_bytes) : run_inplace_case_cpu(c, o));
#else
    (void)use_cuda, (void)info;
    rows.push_back(run_inplace_case_cpu(c, o));
#endif
  }
  return rows;
}

bool print_inplace_table(std::ostream& os, const std::vector<inplace_row>& rows, const run_info& info) {
  os << "\n== inplace (" << info.backend << ": " << info.device
     << "): effective bandwidth 2 x bytes / time, ratio to memcpy of the same bytes ==\n";
  os << std::left << std::setw(30) << "case" << std::setw(18) << "algorithm" << std::right << std::setw(11) << "memcpy us"
     << std::setw(12) << "inplace us" << std::setw(8) << "ratio" << std::setw(8) << "target" << std::setw(14)
     << "out-of-pl us" << std::setw(8) << "ratio" << std::setw(10) << "workspace" << std::setw(9) << "verified" << '\n';
  bool ok = true;
  int met = 0, with_target = 0;
  std::vector<double> ratios;
  for (const auto& r : rows) {
    os << std::left << std::setw(30) << r.name.substr(0, 29) << std::setw(18) << r.algo << std::right << std::setw(11)
       << fmt(r.memcpy_us, 1) << std::setw(12) << fmt(r.inplace_us, 1) << std::setw(8) << fmt(r.inplace_ratio, 3)
       << std::setw(8) << fmt(r.target, 2) << std::setw(14) << fmt(r.outofplace_us, 1) << std::setw(8)
       << fmt(r.outofplace_ratio, 3) << std::setw(10) << r.workspace_bytes << std::setw(9) << to_string(r.verified)
       << (r.note.empty() ? "" : "  " + r.note) << '\n';
    ok = ok && r.verified == verdict::yes && r.outofplace_verified != verdict::no;
    if (!std::isnan(r.inplace_ratio)) ratios.push_back(r.inplace_ratio);
    if (r.target > 0) {
      ++with_target;
      met += r.inplace_ratio >= r.target;
    }
  }
  os << "summary: " << rows.size() << " cases, median in-place ratio " << fmt(median(ratios), 3) << ", targets met "
     << met << "/" << with_target << ", " << (ok ? "all verified" : "VERIFICATION FAILED") << '\n';
  return ok;
}

void write_inplace_csv(std::ostream& os, const std::vector<inplace_row>& rows, const run_info& info) {
  os << "backend,device,git_commit,date,case,shape,elem_bytes,algorithm,bytes_moved,workspace_bytes,memcpy_us,"
        "inplace_us,inplace_ratio,target,outofplace_us,outofplace_ratio,verified,note\n";
  for (const auto& r : rows)
    os << info.backend << ",\"" << info.device << "\"," << info.git_commit << ',' << info.date << ",\"" << r.name
       << "\"," << r.shape << ',' << r.elem_bytes << ",\"" << r.algo << "\"," << r.bytes_moved << ','
       << r.workspace_bytes << ',' << fmt(r.memcpy_us, 2) << ',' << fmt(r.inplace_us, 2) << ','
       << fmt(r.inplace_ratio, 4) << ',' << fmt(r.target, 2) << ',' << fmt(r.outofplace_us, 2) << ','
       << fmt(r.outofplace_ratio, 4) << ',' << to_string(r.verified) << ",\"" << r.note << "\"\n";
}

void write_inplace_json(std::ostream& os, const std::vector<inplace_row>& rows, const run_info& info) {
  auto num = [](double v) { return std::isnan(v) ? std::string("null") : fmt(v, 4); };
  os << "{\"backend\": \"" << info.backend << "\", \"device\": \"" << info.device << "\", \"git_commit\": \""
     << info.git_commit << "\", \"date\": \"" << info.date << "\", \"rows\": [\n";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    os << "  {\"case\": \"" << r.name << "\", \"shape\": \"" << r.shape << "\", \"elem_bytes\": " << r.elem_bytes
       << ", \"algorithm\": \"" << r.algo << "\", \"bytes_moved\": " << r.bytes_moved
       << ", \"workspace_bytes\": " << r.workspace_bytes << ", \"memcpy_us\": " << num(r.memcpy_us)
       << ", \"inplace_us\": " << num(r.inplace_us) << ", \"inplace_ratio\": " << num(r.inplace_ratio)
       << ", \"target\": " << num(r.target) << ", \"outofplace_us\": " << num(r.outofplace_us)
       << ", \"outofplace_ratio\": " << num(r.outofplace_ratio) << ", \"verified\": \"" << to_string(r.verified)
       << "\"}" << (i + 1 < rows.size() ? "," : "") << '\n';
  }
  os << "]}\n";
}

}  // namespace xpose::bench
