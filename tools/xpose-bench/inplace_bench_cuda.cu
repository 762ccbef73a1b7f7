// xpose-bench in-place table, GPU side: CUDA-event timing of the in-place plan, of the out-of-place transpose
// of the same matrix and of cudaMemcpyAsync of the same bytes, buffers rotated below 4x L2, outputs verified
// with the in-place oracle (tests/common/inplace_oracle.cuh).
#include <cuda_runtime.h>

#include <algorithm>
#include <string>
#include <vector>

#include "common/inplace_oracle.cuh"
#include "inplace_bench.hpp"
#include "xpose/inplace.hpp"
#include "xpose/plan.hpp"

namespace xpose::bench {

namespace {

struct dev_buf {
  void* p = nullptr;
  ~dev_buf() { cudaFree(p); }
  bool alloc(std::int64_t n) { return cudaMalloc(&p, static_cast<std::size_t>(std::max<std::int64_t>(n, 1))) == cudaSuccess; }
  unsigned char* at(std::int64_t off) const { return static_cast<unsigned char*>(p) + off; }
};

}  // namespace

inplace_row run_inplace_case_cuda(const bench_case& c, const options& o, std::int64_t l2_bytes) {
  inplace_row r;
  auto plan = plan_inplace_case(c, r);
  if (!plan) return r;
  const auto& g = plan->geometry();
  auto fail = [&](const std::string& why) {
    r.note = why, r.verified = verdict::no;
    cudaGetLastError();
    return r;
  };
  const std::int64_t span = plan->span_bytes(), pitch = (span + 255) / 256 * 256;
  const std::int64_t payload = plan->payload_bytes();
  int nbuf = payload < 4 * l2_bytes ? static_cast<int>(std::min<std::int64_t>(16, (4 * l2_bytes + payload - 1) / payload)) : 1;
  dev_buf data, out, ws, wrong;
  if (!data.alloc(nbuf * pitch) || !out.alloc(nbuf * pitch) || !ws.alloc(plan->workspace_bytes()) ||
      !wrong.alloc(sizeof(unsigned long long)))
    return fail("cudaMalloc failed (" + std::to_string(2 * nbuf * pitch) + " bytes)");
  cudaStream_t st = nullptr;
  cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking);
  auto done = [&](inplace_row& row) {
    cudaStreamSynchronize(st);
    cudaStreamDestroy(st);
    return row;
  };
  // Verify one in-place run (poisoned workspace) and one out-of-place run.
  unsigned long long bad = 0;
  if (xpose::test::inplace_fill(data.p, static_cast<std::uint64_t>(span), st) != cudaSuccess) return fail("fill");
  cudaMemsetAsync(ws.p, 0xA5, static_cast<std::size_t>(std::max<std::int64_t>(plan->workspace_bytes(), 1)), st);
  if (status s = plan->execute(data.p, ws.p, plan->workspace_bytes(), st); !s) {
    r = fail(s.message());
    return done(r);
  }
  if (xpose::test::inplace_count_wrong(data.p, static_cast<std::uint64_t>(span), g, 0,
                                       static_cast<unsigned long long*>(wrong.p), bad, st) != cudaSuccess) {
    r = fail("verification kernel failed");
    return done(r);
  }
  r.verified = bad == 0 ? verdict::yes : verdict::no;
  if (bad) r.note = std::to_string(bad) + " wrong bytes";
  auto oop = xpose::make_plan(c.to_problem());
  if (oop) {
    xpose::test::inplace_fill(data.p, static_cast<std::uint64_t>(span), st);
    if (status s = oop->execute(data.p, out.p, st); s) {
      xpose::test::inplace_count_wrong(out.p, static_cast<std::uint64_t>(span), g, 0,
                                       static_cast<unsigned long long*>(wrong.p), bad, st);
      r.outofplace_verified = bad == 0 ? verdict::yes : verdict::no;
    }
  }
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  auto time = [&](auto&& f) {
    for (int i = 0; i < o.warmup; ++i) f(i % nbuf);
    std::vector<double> t;
    for (int i = 0; i < o.reps; ++i) {
      cudaEventRecord(e0, st);
      f(i % nbuf);
      cudaEventRecord(e1, st);
      cudaEventSynchronize(e1);
      float ms = 0;
      cudaEventElapsedTime(&ms, e0, e1);
      t.push_back(1000.0 * ms);
    }
    return median(t);
  };
  r.memcpy_us = time([&](int k) {
    cudaMemcpyAsync(out.at(k * pitch), data.at(k * pitch), static_cast<std::size_t>(payload), cudaMemcpyDeviceToDevice, st);
  });
  r.inplace_us = time([&](int k) { (void)plan->execute(data.at(k * pitch), ws.p, plan->workspace_bytes(), st); });
  r.inplace_ratio = r.memcpy_us / r.inplace_us;
  if (oop) {
    r.outofplace_us = time([&](int k) { (void)oop->execute(data.at(k * pitch), out.at(k * pitch), st); });
    r.outofplace_ratio = r.memcpy_us / r.outofplace_us;
  }
  if (cudaError_t e = cudaStreamSynchronize(st); e != cudaSuccess) {
    r = fail(std::string("timing runs: ") + cudaGetErrorString(e));
  }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  return done(r);
}

}  // namespace xpose::bench
