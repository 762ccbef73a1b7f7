// xpose-bench: the CUDA backend (DESIGN §5).
//
// Per case:
//  - Buffers: n input/output pairs carved from two slabs (each buffer 256-byte aligned). n = ceil(4 x L2 /
//    payload) when the payload is smaller than 4 x L2, else 1; at most 1024, and fewer when device memory
//    is short (the row then says so). Input i holds the oracle pattern with seed_of(i): an implementation
//    that reads the wrong buffer fails verification.
//  - The reference: cudaMemcpyAsync device to device of the payload bytes, over the same pairs, timed the
//    same way. Every ratio is reference time / implementation time, both from this run.
//  - Timing: warm-up runs, then `reps` samples. A sample is ONE event pair around a loop over all n pairs
//    (one run per pair); the sample's time is the elapsed time divided by n. The median sample is reported.
//    So that host launch overhead never shows in a sample of short kernels, each sample's launches are
//    queued behind a spinning "blocking kernel" (nvbench's technique) that the host releases once the whole
//    sample is enqueued: the GPU then runs the sample's kernels back to back. The spin has a 1 s timeout
//    (a launch queue that fills up cannot deadlock); after a timeout the measurement is redone without it
//    and the row says so. --no-blocking-kernel turns it off.
//  - Verification: outputs are poisoned (0xA5) before each implementation's warm-up; after its samples the
//    last output of every pair is checked on the device by the oracle (tests/common/oracle.cuh).
//  - Peers (peers.hpp: cuBLAS geam, cublasLtMatrixTransform, NPP nppiTranspose) are set up once per case,
//    then measured, timed and verified exactly like xpose on the same buffers against the same reference.
#include "cuda_bench.hpp"

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <functional>
#include <sstream>
#include <utility>

#include "common/oracle.cuh"
#include "peers.hpp"
#include "textbook/textbook.hpp"
#include "xpose/plan.hpp"

namespace xpose::bench {

namespace {

constexpr std::int64_t buffer_alignment = 256;
constexpr int max_pairs = 1024;
constexpr int max_blocked_launches = 512;             // well below the device's pending-launch queue
constexpr unsigned long long blocking_timeout_ns = 1'000'000'000ull;
constexpr std::int64_t memory_reserve = std::int64_t{512} << 20;  // cuBLAS workspace, oracle, other users

// A failure of one measurement (the message says which call); the caller decides whether it is fatal.
struct cuda_failure {
  std::string what;
};
// A failure after which the CUDA context is lost: no later case can run.
struct fatal_error {
  std::string what;
};

std::string error_text(cudaError_t e, const std::string& what) {
  return what + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")";
}

void check(cudaError_t e, const std::string& what) {
  if (e != cudaSuccess) throw cuda_failure{error_text(e, what)};
}

// After a failure: clears a non-sticky error and reports whether the context is lost (sticky errors such as
// an illegal address make every later call fail).
bool context_lost() {
  (void)cudaGetLastError();
  return cudaDeviceSynchronize() != cudaSuccess;
}

std::uint64_t seed_of(int pair) { return 0x243F6A8885A308D3ull + 0x9E3779B97F4A7C15ull * static_cast<unsigned>(pair); }

std::int64_t round_up(std::int64_t v, std::int64_t m) { return (v + m - 1) / m * m; }

std::string mib(std::int64_t bytes) {
  std::ostringstream os;
  os.precision(1);
  os << std::fixed << static_cast<double>(bytes) / (1 << 20) << " MiB";
  return os.str();
}

__device__ __forceinline__ unsigned long long global_timer_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// Spins until the host has written a value >= `target` into flag[0] (mapped pinned memory), or until the
// timeout, which it records in flag[1].
__global__ void blocking_kernel(volatile int* flag, int target, unsigned long long timeout_ns) {
  const unsigned long long t0 = global_timer_ns();
  while (flag[0] < target) {
    if (global_timer_ns() - t0 > timeout_ns) {
      flag[1] = 1;
      return;
    }
  }
}

struct device_memory {
  void* ptr = nullptr;
  device_memory() = default;
  device_memory(const device_memory&) = delete;
  device_memory& operator=(const device_memory&) = delete;
  ~device_memory() {
    if (ptr != nullptr) (void)cudaFree(ptr);
  }
  void allocate(std::int64_t bytes, const char* what) {
    check(cudaMalloc(&ptr, static_cast<std::size_t>(std::max<std::int64_t>(bytes, 1))), what);
  }
  unsigned char* bytes() const { return static_cast<unsigned char*>(ptr); }
};

// Everything one run shares: stream, library handles, events, the blocking kernel's flag.
struct context {
  const options& o;
  const run_info& info;
  cudaStream_t stream = nullptr;
  cublasHandle_t cublas = nullptr;
  cublasLtHandle_t cublaslt = nullptr;
  std::vector<cudaEvent_t> start, stop;
  int* h_flag = nullptr;  // [0] release counter, [1] timed out
  int* d_flag = nullptr;
  int target = 0;

  context(const options& opts, const run_info& i) : o(opts), info(i) {
    check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
    if (cublasCreate(&cublas) != CUBLAS_STATUS_SUCCESS) throw cuda_failure{"cublasCreate failed"};
    if (cublasSetStream(cublas, stream) != CUBLAS_STATUS_SUCCESS) throw cuda_failure{"cublasSetStream failed"};
    if (cublasLtCreate(&cublaslt) != CUBLAS_STATUS_SUCCESS) throw cuda_failure{"cublasLtCreate failed"};
    start.resize(static_cast<std::size_t>(o.reps));
    stop.resize(static_cast<std::size_t>(o.reps));
    for (int r = 0; r < o.reps; ++r) {
      check(cudaEventCreate(&start[r]), "cudaEventCreate");
      check(cudaEventCreate(&stop[r]), "cudaEventCreate");
    }
    check(cudaHostAlloc(reinterpret_cast<void**>(&h_flag), 2 * sizeof(int), cudaHostAllocMapped), "cudaHostAlloc");
    h_flag[0] = h_flag[1] = 0;
    check(cudaHostGetDevicePointer(reinterpret_cast<void**>(&d_flag), h_flag, 0), "cudaHostGetDevicePointer");
    // Load the blocking kernel now (target 0 returns at once): with lazy module loading, loading a kernel
    // while another one spins could need a context synchronization. The kernels under test are loaded by
    // their warm-up runs, which never run behind a blocker.
    blocking_kernel<<<1, 1, 0, stream>>>(d_flag, 0, blocking_timeout_ns);
    check(cudaGetLastError(), "blocking kernel launch");
    check(cudaStreamSynchronize(stream), "blocking kernel");
  }
  context(const context&) = delete;
  context& operator=(const context&) = delete;
  ~context() {
    for (auto e : start) (void)cudaEventDestroy(e);
    for (auto e : stop) (void)cudaEventDestroy(e);
    if (cublas != nullptr) (void)cublasDestroy(cublas);
    if (cublaslt != nullptr) (void)cublasLtDestroy(cublaslt);
    if (stream != nullptr) (void)cudaStreamDestroy(stream);
    if (h_flag != nullptr) (void)cudaFreeHost(h_flag);
  }

  peer_handles handles() const { return {stream, cublas, cublaslt}; }

  void release() { std::atomic_ref<int>(h_flag[0]).store(target, std::memory_order_seq_cst); }
  bool timed_out() { return std::atomic_ref<int>(h_flag[1]).load(std::memory_order_seq_cst) != 0; }
  void clear_timed_out() { std::atomic_ref<int>(h_flag[1]).store(0, std::memory_order_seq_cst); }
};

// The rotating input/output pairs of one case, inputs filled with the pattern.
struct rotation {
  int count = 1;
  bool limited_by_memory = false;
  std::int64_t in_bytes = 0, out_bytes = 0, in_pitch = 0, out_pitch = 0;
  std::int64_t in_offset = 0, out_offset = 0;  // every view's bytes past its aligned base (bench_case)
  device_memory in, out, counts;

  unsigned char* in_at(int i) const { return in.bytes() + static_cast<std::int64_t>(i) * in_pitch + in_offset; }
  unsigned char* out_at(int i) const { return out.bytes() + static_cast<std::int64_t>(i) * out_pitch + out_offset; }
  unsigned long long* count_at(int i) const { return static_cast<unsigned long long*>(counts.ptr) + i; }
};

void make_rotation(context& ctx, rotation& rot, std::int64_t payload, std::int64_t in_span, std::int64_t out_span,
                   std::int64_t in_offset = 0, std::int64_t out_offset = 0) {
  rot.in_bytes = std::max<std::int64_t>({in_span, payload, 1});
  rot.out_bytes = std::max<std::int64_t>({out_span, payload, 1});
  rot.in_offset = in_offset, rot.out_offset = out_offset;
  rot.in_pitch = round_up(rot.in_bytes + in_offset, buffer_alignment);
  rot.out_pitch = round_up(rot.out_bytes + out_offset, buffer_alignment);
  const std::int64_t l2 = std::max<std::int64_t>(ctx.info.l2_bytes, 1);
  std::int64_t want = payload > 0 && payload < 4 * l2 ? (4 * l2 + payload - 1) / payload : 1;
  want = std::min<std::int64_t>(want, max_pairs);
  std::size_t free_bytes = 0, total_bytes = 0;
  check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
  const std::int64_t usable = static_cast<std::int64_t>(free_bytes) - memory_reserve;
  const std::int64_t fit = usable > 0 ? usable / (rot.in_pitch + rot.out_pitch) : 0;
  if (fit < 1) {
    throw cuda_failure{"needs " + mib(rot.in_pitch + rot.out_pitch + memory_reserve) + " of device memory, " +
                       mib(static_cast<std::int64_t>(free_bytes)) + " free"};
  }
  rot.limited_by_memory = fit < want;
  rot.count = static_cast<int>(std::min(want, fit));
  rot.in.allocate(rot.count * rot.in_pitch, "cudaMalloc(inputs)");
  rot.out.allocate(rot.count * rot.out_pitch, "cudaMalloc(outputs)");
  rot.counts.allocate(rot.count * static_cast<std::int64_t>(sizeof(unsigned long long)), "cudaMalloc(counts)");
  for (int i = 0; i < rot.count; ++i)
    check(xpose::test::fill_pattern(rot.in_at(i), rot.in_bytes, seed_of(i), ctx.stream), "fill_pattern");
  check(cudaStreamSynchronize(ctx.stream), "fill_pattern");
}

// One run on pair i; throws cuda_failure on error.
using run_fn = std::function<void(int)>;

// Per-run times (us) of `reps` samples; see the file comment. Throws cuda_failure.
std::vector<double> time_runs(context& ctx, int n, bool block, const run_fn& run) {
  for (int w = 0; w < std::max(ctx.o.warmup, 1); ++w) run(w % n);
  check(cudaStreamSynchronize(ctx.stream), "warm-up runs");
  ctx.clear_timed_out();
  for (int r = 0; r < ctx.o.reps; ++r) {
    if (block && ctx.timed_out()) block = false;  // a blocker already gave up: stop queueing behind one
    if (block) {
      blocking_kernel<<<1, 1, 0, ctx.stream>>>(ctx.d_flag, ++ctx.target, blocking_timeout_ns);
      check(cudaGetLastError(), "blocking kernel launch");
    }
    try {
      check(cudaEventRecord(ctx.start[r], ctx.stream), "cudaEventRecord");
      for (int i = 0; i < n; ++i) run(i);
      check(cudaEventRecord(ctx.stop[r], ctx.stream), "cudaEventRecord");
    } catch (...) {
      if (block) ctx.release();
      throw;
    }
    if (block) ctx.release();
  }
  check(cudaStreamSynchronize(ctx.stream), "timed runs");
  std::vector<double> us;
  for (int r = 0; r < ctx.o.reps; ++r) {
    float ms = 0;
    check(cudaEventElapsedTime(&ms, ctx.start[r], ctx.stop[r]), "cudaEventElapsedTime");
    us.push_back(static_cast<double>(ms) * 1e3 / n);
  }
  return us;
}

// 2-byte elements compared as fp16 values: an output element counts as wrong unless its bits equal the
// input element's, or both are NaN (any payload). Same walk over output elements as the oracle's
// element_mismatch (tests/common/oracle.hpp), same one atomic per warp.
__device__ bool fp16_is_nan(unsigned h) { return (h & 0x7C00u) == 0x7C00u && (h & 0x03FFu) != 0; }

__global__ void count_fp16_value_mismatches(const unsigned char* out, xpose::test::oracle_geometry g,
                                            std::uint64_t seed, unsigned long long* count) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  unsigned long long local = 0;
  for (std::int64_t e = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < g.elements;
       e += stride) {
    std::int64_t in_off = 0, out_off = 0;
    auto rest = static_cast<std::uint64_t>(e);
    for (int i = g.rank - 1; i >= 0; --i) {  // peel output axes, fastest first
      std::uint64_t q, r;
      g.extent[i].divmod(rest, q, r);
      in_off += static_cast<std::int64_t>(r) * g.in_stride_bytes[i];
      out_off += static_cast<std::int64_t>(r) * g.out_stride_bytes[i];
      rest = q;
    }
    const auto src = static_cast<std::uint64_t>(in_off);
    const unsigned want = xpose::test::pattern_byte(src, seed) | (xpose::test::pattern_byte(src + 1, seed) << 8);
    const unsigned got = out[out_off] | (static_cast<unsigned>(out[out_off + 1]) << 8);
    local += (got != want && !(fp16_is_nan(got) && fp16_is_nan(want))) ? 1u : 0u;
  }
  // Every thread of the (full-warp) block reaches this point, so the full mask is valid.
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) local += __shfl_down_sync(0xFFFFFFFFu, local, offset);
  if ((threadIdx.x & 31u) == 0 && local != 0) atomicAdd(count, local);
}

// Sum of the per-pair counts, after the stream has run the counting kernels.
unsigned long long sum_counts(context& ctx, const rotation& rot) {
  std::vector<unsigned long long> counts(static_cast<std::size_t>(rot.count));
  check(cudaMemcpyAsync(counts.data(), rot.counts.ptr, counts.size() * sizeof(unsigned long long),
                        cudaMemcpyDeviceToHost, ctx.stream),
        "cudaMemcpyAsync(counts)");
  check(cudaStreamSynchronize(ctx.stream), "count_mismatches");
  unsigned long long wrong = 0;
  for (auto c : counts) wrong += c;
  return wrong;
}

// The oracle on the last output of every pair. With `fp16_nan_equal` (a peer that computes alpha * a on fp16
// data), elements that are bit-exact fail only if they are not NaN-for-NaN: the note then says how many NaN
// inputs changed payload.
verdict verify(context& ctx, const rotation& rot, const xpose::problem& p, bool fp16_nan_equal, std::string& note) {
  for (int i = 0; i < rot.count; ++i) {
    check(xpose::test::count_mismatches(rot.in_at(i), rot.out_at(i), p, seed_of(i), rot.count_at(i), ctx.stream),
          "count_mismatches");
  }
  const unsigned long long wrong = sum_counts(ctx, rot);
  if (wrong == 0) return verdict::yes;
  if (fp16_nan_equal && p.elem_bytes == 2) {
    xpose::test::oracle_geometry g;
    if (!xpose::test::make_oracle_geometry(p, g).empty()) throw cuda_failure{"oracle geometry"};
    for (int i = 0; i < rot.count; ++i) {
      check(cudaMemsetAsync(rot.count_at(i), 0, sizeof(unsigned long long), ctx.stream), "cudaMemsetAsync");
      count_fp16_value_mismatches<<<xpose::test::oracle_detail::grid_for(g.elements),
                                    xpose::test::oracle_detail::block_threads, 0, ctx.stream>>>(
          rot.out_at(i), g, seed_of(i), rot.count_at(i));
      check(cudaGetLastError(), "count_fp16_value_mismatches");
    }
    const unsigned long long value_wrong = sum_counts(ctx, rot);
    if (value_wrong == 0) {
      note = "bit-exact except " + std::to_string(wrong) + " fp16 NaN inputs that came out as NaN with another "
             "payload (over " + std::to_string(rot.count) + " outputs): the library scales by alpha in fp32";
      return verdict::yes;
    }
    note = std::to_string(value_wrong) + " wrong fp16 values (" + std::to_string(wrong) +
           " elements not bit-exact) over " + std::to_string(rot.count) + " outputs";
    return verdict::no;
  }
  note = std::to_string(wrong) + " wrong elements over " + std::to_string(rot.count) + " outputs";
  return verdict::no;
}

// Poison, warm up, time, verify. `reference_us` NaN: this is the reference (ratio 1). `launches_per_run`
// bounds what one run enqueues (the blocking kernel is used only while a sample stays below
// max_blocked_launches). Throws fatal_error when the context is lost; any other failure is the result.
measurement measure(context& ctx, const rotation& rot, const xpose::problem& verify_p, std::int64_t bytes_moved,
                    double reference_us, int launches_per_run, const run_fn& run, bool fp16_nan_equal = false) {
  measurement m;
  try {
    bool block = ctx.o.blocking_kernel && rot.count * launches_per_run <= max_blocked_launches;
    check(xpose::test::poison(rot.out.ptr, rot.count * rot.out_pitch, ctx.stream), "poison");
    std::vector<double> us = time_runs(ctx, rot.count, block, run);
    if (block && ctx.timed_out()) {
      us = time_runs(ctx, rot.count, false, run);
      m.note = "blocking kernel timed out; timed without it";
    }
    std::string vnote;
    const verdict v = verify(ctx, rot, verify_p, fp16_nan_equal, vnote);
    const double t = median(us);
    m.set_time(t, bytes_moved, std::isnan(reference_us) ? t : reference_us);
    m.verified = v;
    if (!vnote.empty()) m.note += (m.note.empty() ? "" : "; ") + vnote;
  } catch (const cuda_failure& f) {
    if (context_lost()) throw fatal_error{f.what};
    m = measurement{};
    m.verified = verdict::no;
    m.note = f.what;
  }
  return m;
}

// ---- peers ------------------------------------------------------------------------------------------------

// A peer on the case: n/a with the reason, a failed set-up, or measured like xpose.
measurement measure_peer(context& ctx, const rotation& rot, const bench_case& c, double reference_us,
                         const peer_setup& setup) {
  measurement m;
  if (!setup.error.empty()) {
    m.verified = verdict::no;
    m.note = setup.error;
    return m;
  }
  if (!setup.p) {
    m.note = setup.why;
    return m;
  }
  peer& p = *setup.p;
  m = measure(ctx, rot, c.to_problem(), 2 * c.payload_bytes(), reference_us, p.launches_per_run(), [&](int i) {
    if (std::string e = p.run(rot.in_at(i), rot.out_at(i)); !e.empty()) throw cuda_failure{e};
  }, p.fp16_nan_payloads_may_change);
  m.variant = p.variant;
  return m;
}

measurement measure_geam(context& ctx, const rotation& rot, const bench_case& c, double reference_us) {
  return measure_peer(ctx, rot, c, reference_us, make_geam_peer(c, ctx.handles()));
}

measurement measure_xpose(context& ctx, const rotation& rot, const xpose::plan& plan, double reference_us) {
  // xpose launches one kernel per execute today; 2 leaves room for a two-pass algorithm.
  return measure(ctx, rot, plan.source(), plan.bytes_moved(), reference_us, 2, [&](int i) {
    const xpose::status s = plan.execute(rot.in_at(i), rot.out_at(i), ctx.stream);
    if (!s) {
      std::ostringstream os;
      os << "execute: " << s;
      throw cuda_failure{os.str()};
    }
  });
}

// ---- cases ------------------------------------------------------------------------------------------------

row base_row(const bench_case& c, const char* table, const rotation& rot, const measurement& memcpy_ref) {
  row r;
  r.table = table;
  r.case_name = c.name;
  r.shape = c.shape_string();
  r.axes = c.axes_string();
  r.elem_bytes = c.elem_bytes;
  r.bytes_moved = 2 * c.payload_bytes();
  r.buffers = rot.count;
  r.in_offset = c.in_offset, r.out_offset = c.out_offset;
  r.category = c.category;
  r.target = c.target >= 0 ? c.target : not_measured;
  r.relative_to = c.relative_to;
  r.memcpy_us = memcpy_ref.time_us;
  r.memcpy_gbps = memcpy_ref.gbps;
  r.memcpy_verified = memcpy_ref.verified;
  if (rot.limited_by_memory) r.note = "rotation limited to " + std::to_string(rot.count) + " pairs by device memory";
  if (!memcpy_ref.note.empty()) r.note += (r.note.empty() ? "memcpy: " : "; memcpy: ") + memcpy_ref.note;
  return r;
}

// A row for a case that could not even be set up (e.g. out of memory).
row error_row(const bench_case& c, const char* table, const std::string& impl, const std::string& what) {
  row r;
  r.table = table;
  r.case_name = c.name;
  r.impl = impl;
  r.shape = c.shape_string();
  r.axes = c.axes_string();
  r.elem_bytes = c.elem_bytes;
  r.bytes_moved = 2 * c.payload_bytes();
  r.in_offset = c.in_offset, r.out_offset = c.out_offset;
  r.category = c.category;
  r.target = c.target >= 0 ? c.target : not_measured;
  r.relative_to = c.relative_to;
  r.main.verified = verdict::no;
  r.main.note = what;
  return r;
}

measurement failed(const std::string& what) {
  measurement m;
  m.verified = verdict::no;
  m.note = what;
  return m;
}

measurement measure_memcpy(context& ctx, const rotation& rot, std::int64_t payload) {
  const xpose::problem identity{.shape = {payload}, .axes = {0}, .elem_bytes = 1, .in_strides = {}, .out_strides = {}};
  return measure(ctx, rot, identity, 2 * payload, not_measured, 1, [&](int i) {
    check(cudaMemcpyAsync(rot.out_at(i), rot.in_at(i), static_cast<std::size_t>(payload), cudaMemcpyDeviceToDevice,
                          ctx.stream),
          "cudaMemcpyAsync");
  });
}

// xpose on the case, or the planning error (e.g. `unsupported`) as a failed measurement.
measurement measure_xpose_case(context& ctx, const rotation& rot, const bench_case& c, double reference_us) {
  auto plan = xpose::make_plan(c.to_problem());
  if (!plan) {
    std::ostringstream os;
    os << "make_plan: " << plan.error();
    return failed(os.str());
  }
  measurement m = measure_xpose(ctx, rot, *plan, reference_us);
  m.variant = plan_summary(*plan);
  return m;
}

// Allocates and fills the case's buffers; false (with an error row pushed) when that fails.
bool setup(context& ctx, rotation& rot, const bench_case& c, const char* table, const char* impl,
           std::vector<row>& rows) {
  try {
    make_rotation(ctx, rot, c.payload_bytes(), c.in_span_bytes(), c.out_span_bytes(), c.in_offset, c.out_offset);
    return true;
  } catch (const cuda_failure& f) {
    if (context_lost()) throw fatal_error{f.what};
    rows.push_back(error_row(c, table, impl, f.what));
    return false;
  }
}

void run_ladder_case(context& ctx, const bench_case& c, std::vector<row>& rows) {
  if (c.in_offset != 0 || c.out_offset != 0) {  // the rungs take aligned float arrays
    rows.push_back(error_row(c, "ladder", "(setup)", "ladder cases take no base offsets (in_offset / out_offset)"));
    return;
  }
  const xpose::problem p = c.to_problem();
  const std::int64_t rows_n = c.shape[0], cols_n = c.shape[1];
  rotation rot;
  if (!setup(ctx, rot, c, "ladder", "(setup)", rows)) return;
  const std::int64_t bytes_moved = 2 * c.payload_bytes();
  const measurement ref = measure_memcpy(ctx, rot, c.payload_bytes());
  const xpose::problem identity{.shape = {rows_n, cols_n}, .axes = {0, 1}, .elem_bytes = 4, .in_strides = {},
                                .out_strides = {}};
  for (const auto& rung : xpose::textbook::ladder()) {
    if (!rung.supports(rows_n, cols_n)) continue;
    row r = base_row(c, "ladder", rot, ref);
    r.impl = rung.name;
    r.main = measure(ctx, rot, rung.transposes ? p : identity, bytes_moved, ref.time_us, 1, [&](int i) {
      check(rung.launch(reinterpret_cast<const float*>(rot.in_at(i)), reinterpret_cast<float*>(rot.out_at(i)),
                        rows_n, cols_n, ctx.stream),
            std::string("launch ") + rung.name);
    });
    rows.push_back(std::move(r));
  }
  row x = base_row(c, "ladder", rot, ref);
  x.impl = "xpose (production)";
  x.main = measure_xpose_case(ctx, rot, c, ref.time_us);
  rows.push_back(std::move(x));
  row g = base_row(c, "ladder", rot, ref);
  g.impl = "cuBLAS geam";
  g.main = measure_geam(ctx, rot, c, ref.time_us);
  rows.push_back(std::move(g));
}

// A production or 2d case: xpose and every peer against the same memcpy reference.
void run_production_case(context& ctx, const bench_case& c, std::vector<row>& rows) {
  const char* table = table_name(c.table);
  rotation rot;
  if (!setup(ctx, rot, c, table, "xpose", rows)) return;
  const measurement ref = measure_memcpy(ctx, rot, c.payload_bytes());
  row r = base_row(c, table, rot, ref);
  r.impl = "xpose";
  r.main = measure_xpose_case(ctx, rot, c, ref.time_us);
  const peer_handles h = ctx.handles();
  r.geam = measure_peer(ctx, rot, c, ref.time_us, make_geam_peer(c, h));
  r.cublaslt = measure_peer(ctx, rot, c, ref.time_us, make_cublaslt_peer(c, h));
  r.npp = measure_peer(ctx, rot, c, ref.time_us, make_npp_peer(c, h));
  rows.push_back(std::move(r));
}

}  // namespace

bool cuda_probe(run_info& info, std::string& why) {
  int count = 0;
  if (cudaError_t e = cudaGetDeviceCount(&count); e != cudaSuccess) {
    why = error_text(e, "cudaGetDeviceCount");
    (void)cudaGetLastError();
    return false;
  }
  if (count == 0) {
    why = "0 devices";
    return false;
  }
  int dev = 0;
  cudaDeviceProp prop{};
  if (cudaError_t e = cudaGetDevice(&dev); e != cudaSuccess) {
    why = error_text(e, "cudaGetDevice");
    return false;
  }
  if (cudaError_t e = cudaGetDeviceProperties(&prop, dev); e != cudaSuccess) {
    why = error_text(e, "cudaGetDeviceProperties");
    return false;
  }
  info.backend = "cuda";
  info.device = prop.name;
  info.sm_count = prop.multiProcessorCount;
  info.l2_bytes = prop.l2CacheSize;
  info.memory_bytes = static_cast<std::int64_t>(prop.totalGlobalMem);
  return true;
}

std::string run_cuda_cases(const std::vector<bench_case>& cases, const options& o, const run_info& info,
                           std::vector<row>& rows, std::ostream& progress) {
  try {
    context ctx(o, info);
    int index = 0;
    for (const auto& c : cases) {
      ++index;
      progress << "[" << index << "/" << cases.size() << "] "
               << (c.table == table_kind::ladder ? "ladder: " : "gpu: ") << c.name << " ..." << std::flush;
      const std::size_t first = rows.size();
      if (c.table == table_kind::ladder) run_ladder_case(ctx, c, rows);
      else run_production_case(ctx, c, rows);
      bool failed = false, peer_wrong = false;
      for (std::size_t i = first; i < rows.size(); ++i) {
        failed = failed || row_failed(rows[i]);
        peer_wrong = peer_wrong || peer_failed(rows[i]);
      }
      progress << (failed ? " FAILED" : " ok") << (peer_wrong ? " (a peer failed)\n" : "\n");
    }
  } catch (const fatal_error& f) {
    progress << " fatal\n";
    return "unrecoverable CUDA error (the context is lost; later cases were not run): " + f.what;
  } catch (const cuda_failure& f) {  // setting up the context itself failed
    progress << " fatal\n";
    return "CUDA setup failed: " + f.what;
  }
  return {};
}

}  // namespace xpose::bench
