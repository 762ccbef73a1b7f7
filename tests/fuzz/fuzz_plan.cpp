// libFuzzer harness: make_plan, make_inplace_plan and the CPU executor on random, mostly hostile, problems.
//
// The bytes decode into a problem of rank 0..9 whose extents, strides, axes and element size may be zero,
// negative, huge (up to INT64_MIN / INT64_MAX), repeated, out of range or of the wrong count (format below).
// Then, for every input:
//   * make_plan either succeeds or returns invalid_argument / unsupported with a message naming an argument;
//     it never crashes, overflows (UBSan) or succeeds on a problem that an independent check calls invalid;
//   * a plan's spans equal the independently computed ones;
//   * calls that must fail do, before touching memory: null pointers, views that run past the end of the
//     address space, overlapping buffers (fake addresses; a call that went ahead would crash);
//   * when both views are small (< 1 MiB), the output view is checked to be free of self-overlap and the
//     plan runs on exact-size heap buffers (AddressSanitizer sees any byte past either end) at a SIMD level
//     and streaming mode chosen by the input; the output buffer, gaps of pitched views included, must equal
//     the naive reference (tests/common/reference.hpp) and the input must be unchanged;
//   * the C API (xpose.h) says the same as the C++ API wherever a C caller can state the problem (every list
//     of length rank or absent): same status code and message from xpose_plan_create, the same description
//     and bytes moved, and for small views the same output bytes from xpose_plan_execute_host.
// Any violation prints the problem and aborts, which libFuzzer reports as a crash.
//
// Input format (a missing byte reads as 0):
//   byte 0   rank = b % 10; b >= 250: an in-place problem instead (fuzz_inplace: threads {1, 2, 0, -1, 1, 2}
//            [b - 250], then elem_bytes, rows, cols, batch, ld, batch_stride as values, then a value whose
//            remainder by 3 pins rectangles run on the CPU to no_staged (1) or shuffle_only (2) as well)
//   byte 1   bit 0: axes given (else empty: reversed); bit 1: in_strides given; bit 2: out_strides given;
//            bits 4-5: threads 1, 2, 0 (all), -1; bit 6: a misalignment byte follows the lists;
//            bit 7: streaming stores forced on
//   byte 2   list lengths, 2 bits each (axes, in_strides, out_strides): 0, 1 = rank, 2 = rank + 1,
//            3 = rank - 1; bits 6-7: SIMD level (scalar, sse2, avx2, avx512; capped at what the CPU has)
//   then     elem_bytes, shape[rank], axes[...], in_strides[...], out_strides[...] as values:
//            tag t < 0x80: t | 0x80..0x9f: -1 - (t - 0x80) | 0xa0..0xdf: 1 << (t - 0xa0) (bit 63: INT64_MIN)
//            | 0xe0..0xef: special_values[t - 0xe0] | 0xf0..0xff: the next 8 bytes, little-endian
//   then     (bit 6) misalignment: in by b % 16 bytes, out by b / 16 bytes
// tests/fuzz/make_corpus.py writes the seed corpus in this format. XPOSE_FUZZ_VERBOSE=1 prints each decoded
// problem and what make_plan said (to read a crash reproducer or check the seeds).
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "common/box_simulation.hpp"
#include "common/reference.hpp"
#include "cpu/cpu_executor.hpp"
#include "cpu/cpu_features.hpp"
#include "cpu/inplace_cpu.hpp"
#include "plan/inplace.hpp"
#include "plan/planner.hpp"
#include "xpose/xpose.h"
#include "xpose/xpose.hpp"

namespace {

using xpose::problem;
using xpose::status_code;

constexpr std::int64_t max_view_bytes = std::int64_t{1} << 20;  // views this small are executed

constexpr std::int64_t special_values[16] = {
    INT64_MAX, INT64_MAX - 1, INT64_MAX / 2, INT64_MAX / 2 + 1, (std::int64_t{1} << 32) - 1,
    (std::int64_t{1} << 32) + 1, (std::int64_t{1} << 31) - 1, std::int64_t{3} << 61, (std::int64_t{1} << 62) + 1,
    255, 256, 1000, 4095, 65537, -(std::int64_t{1} << 62), INT64_MIN + 1};

class reader {
 public:
  reader(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  std::uint8_t byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  std::int64_t value() {
    const std::uint8_t t = byte();
    if (t < 0x80) return t;
    if (t < 0xa0) return -1 - (t - 0x80);
    if (t < 0xe0) return static_cast<std::int64_t>(std::uint64_t{1} << (t - 0xa0));
    if (t < 0xf0) return special_values[t - 0xe0];
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= std::uint64_t{byte()} << (8 * i);
    return static_cast<std::int64_t>(v);
  }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
};

[[noreturn]] void fail(const problem& p, const std::string& what) {
  std::ostringstream os;
  os << "fuzz_plan: " << what << "\n  problem: " << p << '\n';
  std::fputs(os.str().c_str(), stderr);
  std::abort();
}

std::string text(const xpose::status& s) {
  std::ostringstream os;
  os << s;
  return os.str();
}

// An error must be one of the documented codes, with a message naming an argument.
void check_error(const problem& p, const xpose::status& s, std::initializer_list<status_code> codes,
                 std::initializer_list<const char*> names) {
  if (std::find(codes.begin(), codes.end(), s.code()) == codes.end()) fail(p, "unexpected status " + text(s));
  for (const char* n : names)
    if (s.message().find(n) != std::string::npos) return;
  fail(p, "error message names no argument: " + text(s));
}

// Independent of src/plan: whether a problem that make_plan accepted is valid by the rules of problem.hpp.
void check_accepted_problem_is_valid(const problem& p) {
  const auto rank = static_cast<std::int64_t>(p.shape.size());
  if (rank > xpose::max_rank) fail(p, "accepted a rank above max_rank");
  if (p.elem_bytes < 1) fail(p, "accepted elem_bytes < 1");
  for (const auto e : p.shape)
    if (e < 0) fail(p, "accepted a negative extent");
  if (!p.axes.empty()) {
    if (static_cast<std::int64_t>(p.axes.size()) != rank) fail(p, "accepted axes of the wrong length");
    std::vector<bool> seen(static_cast<std::size_t>(rank));
    for (const auto a : p.axes) {
      if (a < -rank || a >= rank) fail(p, "accepted an axis out of range");
      const auto k = static_cast<std::size_t>(a < 0 ? a + rank : a);
      if (seen[k]) fail(p, "accepted a repeated axis");
      seen[k] = true;
    }
  }
  if (!p.in_strides.empty()) {
    if (static_cast<std::int64_t>(p.in_strides.size()) != rank) fail(p, "accepted in_strides of the wrong length");
    for (std::int64_t i = 0; i < rank; ++i)  // an axis of extent 0 or 1 is never stepped: any stride
      if (p.in_strides[i] < 0 && p.shape[i] > 1) fail(p, "accepted a negative input stride on an axis of extent > 1");
  }
  if (!p.out_strides.empty()) {
    if (static_cast<std::int64_t>(p.out_strides.size()) != rank) fail(p, "accepted out_strides of the wrong length");
    const auto oshape = xpose::test::out_shape(p);
    for (std::int64_t i = 0; i < rank; ++i)
      if (oshape[i] > 1 && p.out_strides[i] < 1) fail(p, "accepted an output stride < 1 on an axis of extent > 1");
  }
}

std::vector<std::int64_t> strides_or_packed(const std::vector<std::int64_t>& s, const std::vector<std::int64_t>& shape) {
  return s.empty() ? xpose::test::packed_strides(shape) : s;
}

// Buffers of `span` bytes at a misalignment of `skew` bytes: an exact-size allocation, so that the first byte
// past the view is past the allocation. The skew bytes in front hold a pattern that must survive.
struct exact_buffer {
  std::unique_ptr<unsigned char[]> bytes;
  std::int64_t skew, span;
  exact_buffer(std::int64_t skew_, std::int64_t span_)
      : bytes(new unsigned char[static_cast<std::size_t>(skew_ + span_ + (skew_ + span_ == 0))]), skew(skew_),
        span(span_) {}
  unsigned char* view() { return bytes.get() + skew; }
  std::int64_t size() const { return skew + span; }
};

void run_small(const problem& p, const xpose::plan& plan, int threads, std::int64_t in_skew, std::int64_t out_skew,
               xpose_plan c_twin) {
  const std::int64_t in_span = plan.in_span_bytes(), out_span = plan.out_span_bytes();

  // The output view must not overlap itself (make_plan promises it), checked byte by byte.
  std::vector<unsigned char> claimed(static_cast<std::size_t>(out_span), 0);
  xpose::test::for_each_element(p, [&](std::int64_t, std::int64_t o) {
    for (std::int64_t b = o * p.elem_bytes; b < (o + 1) * p.elem_bytes; ++b) {
      if (b < 0 || b >= out_span) fail(p, "an output element lies outside out_span_bytes");
      if (claimed[static_cast<std::size_t>(b)]++) fail(p, "accepted an output view that overlaps itself");
    }
  });

  exact_buffer in(in_skew, in_span), out(out_skew, out_span);
  for (std::int64_t i = 0; i < in.size(); ++i) in.bytes[i] = static_cast<unsigned char>((i * 131 + 7) ^ (i >> 8));
  for (std::int64_t i = 0; i < out.size(); ++i) out.bytes[i] = static_cast<unsigned char>(0xA5 ^ (i * 29));
  const std::vector<unsigned char> in_before(in.bytes.get(), in.bytes.get() + in.size());
  std::vector<unsigned char> expected(out.bytes.get(), out.bytes.get() + out.size());
  if (threads >= 0) xpose::test::reference_permute(p, in.view(), expected.data() + out_skew);

  const xpose::status s = plan.execute_host(in.view(), out.view(), threads);
  if (threads < 0) {
    check_error(p, s, {status_code::invalid_argument}, {"threads"});  // and nothing written: see below
  } else if (!s) {
    fail(p, "execute_host failed on a valid plan: " + text(s));
  }
  if (!std::equal(in_before.begin(), in_before.end(), in.bytes.get())) fail(p, "execute_host wrote to its input");
  // The GPU's box tiles (src/plan/box.hpp), when the plan takes them: simulated on the same views, they must
  // stay inside both views and give the reference's output.
  if (xpose::detail::box_plan b; threads >= 0 && xpose::detail::make_box(plan.geometry(), b)) {
    if (b.volume > xpose::detail::box_max_volume || b.volume * b.unit_bytes > xpose::detail::box_max_bytes)
      fail(p, "a box larger than the kernel's limits");
    std::vector<unsigned char> boxed(static_cast<std::size_t>(out_span));  // the output's poison, as above
    for (std::int64_t i = 0; i < out_span; ++i)
      boxed[static_cast<std::size_t>(i)] = static_cast<unsigned char>(0xA5 ^ ((i + out_skew) * 29));
    const std::string err = xpose::test::simulate_box(b, in.view(), in_span, boxed.data(), out_span);
    if (!err.empty()) fail(p, err);
    if (!std::equal(boxed.begin(), boxed.end(), expected.begin() + out_skew))
      fail(p, "box tiles move bytes elsewhere than the reference");
  }
  // The GPU's wide tiles take the rows that are the units of a transpose as that transpose
  // (rows_as_transpose): the same byte map, checked here through the CPU executor on a fresh poisoned output.
  if (threads >= 0 && plan.algo() == xpose::algorithm::rows) {
    const xpose::plan_geometry t = xpose::detail::rows_as_transpose(plan.geometry());
    if (t.algo == xpose::algorithm::transpose2d) {
      exact_buffer out_t(out_skew, out_span);
      for (std::int64_t i = 0; i < out_t.size(); ++i) out_t.bytes[i] = static_cast<unsigned char>(0xA5 ^ (i * 29));
      if (const xpose::status st = xpose::detail::cpu_execute(t, in.view(), out_t.view(), threads); !st)
        fail(p, "the rows' transpose form failed: " + text(st));
      if (!std::equal(expected.begin(), expected.end(), out_t.bytes.get()))
        fail(p, "rows_as_transpose moves bytes elsewhere than the reference");
    } else if (t.algo != xpose::algorithm::rows) {
      fail(p, "rows_as_transpose gave neither rows nor transpose2d");
    }
  }
  for (std::int64_t i = 0; i < out.size(); ++i) {
    if (out.bytes[i] != expected[i]) {
      fail(p, "output byte " + std::to_string(i - out_skew) + " is " + std::to_string(out.bytes[i]) + ", expected " +
                  std::to_string(expected[i]) + " (threads " + std::to_string(threads) + ")");
    }
  }
  // The C API's twin of the plan: the same status and, on a fresh poisoned output, the same bytes.
  if (c_twin != nullptr) {
    exact_buffer out_c(out_skew, out_span);
    for (std::int64_t i = 0; i < out_c.size(); ++i) out_c.bytes[i] = static_cast<unsigned char>(0xA5 ^ (i * 29));
    const xpose_status cs = xpose_plan_execute_host(c_twin, in.view(), out_c.view(), threads);
    if (static_cast<int>(cs) != static_cast<int>(s.code())) fail(p, "xpose_plan_execute_host's status differs");
    if (!std::equal(expected.begin(), expected.end(), out_c.bytes.get()))
      fail(p, "xpose_plan_execute_host's output differs from the reference");
  }
}

// Calls that must fail before they touch memory, on fake addresses (a call that went ahead would crash).
void check_refusals(const problem& p, const xpose::plan& plan) {
  if (plan.payload_bytes() == 0) return;
  const std::int64_t in_span = plan.in_span_bytes(), out_span = plan.out_span_bytes();
  unsigned char probe[16] = {};
  check_error(p, plan.execute_host(nullptr, probe), {status_code::invalid_argument}, {"in is null"});
  check_error(p, plan.execute_host(probe, nullptr), {status_code::invalid_argument}, {"out is null"});
  check_error(p, plan.execute(nullptr, probe), {status_code::invalid_argument}, {"d_in is null"});
  // A view ending past the top of the address space.
  const auto top = reinterpret_cast<const void*>(UINTPTR_MAX - static_cast<std::uintptr_t>(in_span / 2));
  check_error(p, plan.execute_host(top, probe), {status_code::invalid_argument}, {"in = "});
  // Overlap: out starts on the input view's last byte (or, for huge views, runs off the address space).
  const std::uintptr_t base = std::uintptr_t{1} << 20;
  const std::uintptr_t last = base + static_cast<std::uintptr_t>(in_span - 1);
  check_error(p, plan.execute_host(reinterpret_cast<const void*>(base), reinterpret_cast<void*>(last)),
              {status_code::invalid_argument}, {"overlap", "address space"});
  if (out_span > 0) {
    const std::uintptr_t out_last = base + static_cast<std::uintptr_t>(out_span - 1);
    check_error(p, plan.execute_host(reinterpret_cast<const void*>(out_last), reinterpret_cast<void*>(base)),
                {status_code::invalid_argument}, {"overlap", "address space"});
  }
}

// The C API's plan for `p`, checked against the C++ make_plan's result `cpp`; null when the C++ call failed or
// a list has a length a C caller cannot express (the C API reads `rank` entries of each array).
struct c_plan_deleter {
  void operator()(xpose_plan_t* h) const { xpose_plan_destroy(h); }
};
using c_plan = std::unique_ptr<xpose_plan_t, c_plan_deleter>;

c_plan check_c_api(const problem& p, const xpose::result<xpose::plan>& cpp) {
  const auto rank = p.shape.size();
  for (const auto* list : {&p.axes, &p.in_strides, &p.out_strides})
    if (!list->empty() && list->size() != rank) return nullptr;
  auto data = [](const std::vector<std::int64_t>& v) { return v.empty() ? nullptr : v.data(); };
  xpose_plan raw = nullptr;
  const xpose_status s = xpose_plan_create(&raw, static_cast<int>(rank), data(p.shape), data(p.axes), p.elem_bytes,
                                           data(p.in_strides), data(p.out_strides));
  c_plan h(raw);
  const xpose::status expected = cpp ? xpose::status::ok() : cpp.error();
  if (static_cast<int>(s) != static_cast<int>(expected.code()))
    fail(p, "xpose_plan_create returned " + std::to_string(static_cast<int>(s)) + ", make_plan " + text(expected));
  if (expected.message() != xpose_last_error_message())
    fail(p, std::string("xpose_last_error_message() is '") + xpose_last_error_message() + "', make_plan said '" +
                expected.message() + "'");
  if (!cpp) {
    if (h) fail(p, "a failed xpose_plan_create left a plan");
    return nullptr;
  }
  std::size_t needed = 0;
  if (xpose_plan_describe(h.get(), nullptr, 0, &needed) != XPOSE_SUCCESS || needed == 0)
    fail(p, "xpose_plan_describe could not size the text");
  std::string described(needed, '\0');
  if (xpose_plan_describe(h.get(), described.data(), needed, &needed) != XPOSE_SUCCESS)
    fail(p, "xpose_plan_describe failed");
  described.resize(needed - 1);
  std::ostringstream os;
  os << *cpp;
  if (described != os.str()) fail(p, "xpose_plan_describe differs from operator<<");
  std::int64_t moved = -1;
  if (xpose_plan_bytes_moved(h.get(), &moved) != XPOSE_SUCCESS || moved != cpp->bytes_moved())
    fail(p, "xpose_plan_bytes_moved differs from plan::bytes_moved");
  return h;
}

// ---- in-place mode (byte 0 >= 250) ---------------------------------------------------------------------

[[noreturn]] void fail(const xpose::inplace_problem& p, const std::string& what) {
  std::ostringstream os;
  os << "fuzz_plan (in place): " << what << "\n  problem: " << p << '\n';
  std::fputs(os.str().c_str(), stderr);
  std::abort();
}

// make_inplace_plan on hostile fields; an accepted problem is checked against the rules of inplace.hpp
// (independently of src/plan, in 128-bit arithmetic), and run on the CPU when it spans at most 1 MiB: an
// exact-size buffer (AddressSanitizer sees any byte past either end), every byte compared with the naive
// transpose (gaps between pitched rows and matrices unchanged), the C API's plan giving the same bytes.
int fuzz_inplace(reader& r, int threads) {
  xpose::inplace_problem p;
  p.elem_bytes = r.value();
  p.rows = r.value();
  p.cols = r.value();
  p.batch = r.value();
  p.ld = r.value();
  p.batch_stride = r.value();
  auto plan = xpose::make_inplace_plan(p);
  xpose_inplace_plan h = nullptr;
  const xpose_status cs = xpose_inplace_plan_create(&h, p.rows, p.cols, p.elem_bytes, p.batch, p.ld, p.batch_stride);
  const std::unique_ptr<xpose_inplace_plan_t, decltype(&xpose_inplace_plan_destroy)> c_plan(h, &xpose_inplace_plan_destroy);
  if (const char* v = std::getenv("XPOSE_FUZZ_VERBOSE"); v != nullptr && *v != '\0' && *v != '0') {
    std::ostringstream os;
    os << "in place " << p << " threads " << threads << "  ->  ";
    if (plan) os << plan->geometry();
    else os << plan.error();
    std::fprintf(stderr, "%s\n", os.str().c_str());
  }
  if (static_cast<int>(cs) != static_cast<int>(plan ? status_code::success : plan.error().code()))
    fail(p, "xpose_inplace_plan_create's status differs from make_inplace_plan's");
  if (!plan) {
    const xpose::status& e = plan.error();
    if (e.code() != status_code::invalid_argument) fail(p, "unexpected status " + text(e));
    if (std::string(xpose_last_error_message()) != e.message()) fail(p, "the C API's message differs");
    for (const char* n : {"rows", "cols", "elem_bytes", "batch", "ld", "batch_stride"})
      if (e.message().find(n) != std::string::npos) return 0;
    fail(p, "error message names no field: " + text(e));
  }
  // Accepted: valid by inplace.hpp's rules, and the same span.
  using wide = __int128;
  if (p.rows < 0 || p.cols < 0 || p.elem_bytes < 1 || p.batch < 0 || p.ld < 0 || p.batch_stride < 0)
    fail(p, "accepted a negative field or elem_bytes < 1");
  const std::int64_t ld = p.ld == 0 ? p.cols : p.ld;
  if (ld < p.cols) fail(p, "accepted ld < cols");
  if (ld != p.cols && p.rows != p.cols && p.rows > 1) fail(p, "accepted a pitched rectangle");
  const wide matrix_span = p.rows > 0 && p.cols > 0 ? wide{p.rows - 1} * ld + p.cols : 0;
  const wide bstride = p.batch_stride == 0 ? wide{p.rows} * ld : wide{p.batch_stride};
  if (p.batch > 1 && matrix_span > 0 && bstride < matrix_span) fail(p, "accepted overlapping matrices");
  const wide span = p.batch > 0 && matrix_span > 0 ? (wide{p.batch - 1} * bstride + matrix_span) * p.elem_bytes : 0;
  if (span > INT64_MAX || wide{plan->span_bytes()} != span) fail(p, "span_bytes differs from the reference's");
  const wide ws_bound = std::max<wide>(wide{std::max(p.rows, p.cols)} * p.elem_bytes, wide{32} << 20) + 512;
  if (plan->workspace_bytes() < 0 || plan->workspace_bytes() > ws_bound) fail(p, "workspace_bytes exceeds its bound");
  if (span == 0 || span > max_view_bytes) return 0;

  const auto n = static_cast<std::size_t>(span);
  std::unique_ptr<unsigned char[]> buf(new unsigned char[n]), twin(new unsigned char[n]);
  for (std::size_t i = 0; i < n; ++i) buf[i] = static_cast<unsigned char>((i * 0x9E3779B1u) >> 13) | 1;
  std::vector<unsigned char> want(buf.get(), buf.get() + n);
  std::memcpy(twin.get(), buf.get(), n);
  const std::int64_t U = p.elem_bytes, bs = static_cast<std::int64_t>(bstride), out_ld = p.rows == p.cols ? ld : p.rows;
  for (std::int64_t b = 0; b < p.batch; ++b)
    for (std::int64_t i = 0; i < p.rows; ++i)
      for (std::int64_t j = 0; j < p.cols; ++j)
        std::memcpy(want.data() + (b * bs + j * out_ld + i) * U, buf.get() + (b * bs + i * ld + j) * U,
                    static_cast<std::size_t>(U));
  if (threads < 0) {  // rejected, naming the argument, by both APIs; nothing written
    const xpose::status st = plan->execute_host(buf.get(), threads);
    if (st.code() != status_code::invalid_argument || st.message().find("threads") == std::string::npos)
      fail(p, "threads = -1: expected invalid_argument naming threads, got " + text(st));
    if (xpose_inplace_plan_execute_host(c_plan.get(), twin.get(), threads) != XPOSE_INVALID_ARGUMENT)
      fail(p, "threads = -1: the C API did not reject it");
    if (!std::equal(buf.get(), buf.get() + n, twin.get())) fail(p, "threads = -1: data written (C API)");
    for (std::size_t i = 0; i < n; ++i)
      if (buf[i] != (static_cast<unsigned char>((i * 0x9E3779B1u) >> 13) | 1)) fail(p, "threads = -1: data written");
    return 0;
  }
  if (xpose::status st = plan->execute_host(buf.get(), threads); !st) fail(p, "execute_host failed: " + text(st));
  if (!std::equal(want.begin(), want.end(), buf.get())) fail(p, "execute_host differs from the naive transpose");
  if (xpose_inplace_plan_execute_host(c_plan.get(), twin.get(), threads) != XPOSE_SUCCESS ||
      !std::equal(want.begin(), want.end(), twin.get()))
    fail(p, "xpose_inplace_plan_execute_host differs from the naive transpose");
  // A last value pins a rectangle to the algorithms `staged` would take over below 32 MiB (1: off staged, 2:
  // shuffle alone), so that the fuzzer still runs them: the same checks on the CPU executor.
  const auto pin = static_cast<std::uint64_t>(r.value()) % 3;
  if (pin == 0 || p.rows == p.cols) return 0;
  xpose::inplace_geometry g;
  std::int64_t pinned_span = 0;
  const auto choice = pin == 1 ? xpose::detail::inplace_choice::no_staged : xpose::detail::inplace_choice::shuffle_only;
  if (!xpose::detail::make_inplace_geometry(p, g, pinned_span, choice) || pinned_span != plan->span_bytes())
    fail(p, "the pinned geometry differs from the plan's");
  if (const char* v = std::getenv("XPOSE_FUZZ_VERBOSE"); v != nullptr && *v != '\0' && *v != '0') {
    std::ostringstream os;
    os << "  pinned (" << (pin == 1 ? "no_staged" : "shuffle_only") << ")  ->  " << g;
    std::fprintf(stderr, "%s\n", os.str().c_str());
  }
  if (g.workspace_bytes < 0 || g.workspace_bytes > ws_bound) fail(p, "the pinned workspace exceeds its bound");
  for (std::size_t i = 0; i < n; ++i) twin[i] = static_cast<unsigned char>((i * 0x9E3779B1u) >> 13) | 1;
  if (xpose::status st = xpose::detail::cpu_execute_inplace(g, twin.get(), threads); !st)
    fail(p, "the pinned execution failed: " + text(st));
  if (!std::equal(want.begin(), want.end(), twin.get()))
    fail(p, std::string("the pinned ") + xpose::to_string(g.algo) + " differs from the naive transpose");
  return 0;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  reader r(data, size);
  const std::uint8_t first = r.byte();
  if (first >= 250) return fuzz_inplace(r, std::array<int, 6>{1, 2, 0, -1, 1, 2}[first - 250]);
  const int rank = first % 10;
  const std::uint8_t flags = r.byte(), lengths = r.byte();
  const auto list_length = [&](int field) {
    switch ((lengths >> (2 * field)) & 3) {
      case 2: return rank + 1;
      case 3: return std::max(rank - 1, 0);
      default: return rank;
    }
  };
  problem p;
  p.elem_bytes = r.value();
  p.shape.resize(static_cast<std::size_t>(rank));
  for (auto& e : p.shape) e = r.value();
  if (flags & 1) p.axes.resize(static_cast<std::size_t>(list_length(0)));
  for (auto& a : p.axes) a = r.value();
  if (flags & 2) p.in_strides.resize(static_cast<std::size_t>(list_length(1)));
  for (auto& s : p.in_strides) s = r.value();
  if (flags & 4) p.out_strides.resize(static_cast<std::size_t>(list_length(2)));
  for (auto& s : p.out_strides) s = r.value();
  const int threads = std::array<int, 4>{1, 2, 0, -1}[(flags >> 4) & 3];
  std::int64_t in_skew = 0, out_skew = 0;
  if (flags & 64) {
    const std::uint8_t m = r.byte();
    in_skew = m % 16;
    out_skew = m / 16;
  }

  auto plan = xpose::make_plan(p);
  const c_plan c = check_c_api(p, plan);
  static const bool verbose = [] {
    const char* v = std::getenv("XPOSE_FUZZ_VERBOSE");
    return v != nullptr && *v != '\0' && *v != '0';
  }();
  if (verbose) {
    std::ostringstream os;
    os << p << " threads " << threads << " skew " << in_skew << '/' << out_skew << "  ->  ";
    if (plan) os << to_string(plan->algo()) << ", spans " << plan->in_span_bytes() << '/' << plan->out_span_bytes();
    else os << plan.error();
    std::fprintf(stderr, "%s\n", os.str().c_str());
  }
  if (!plan) {
    check_error(p, plan.error(), {status_code::invalid_argument, status_code::unsupported},
                {"shape", "axes", "elem_bytes", "in_strides", "out_strides", "input", "output"});
    return 0;
  }
  check_accepted_problem_is_valid(p);

  const bool empty = std::find(p.shape.begin(), p.shape.end(), 0) != p.shape.end();
  if (!empty) {
    // Spans, recomputed independently; safe now that the plan vouches for 64-bit offsets.
    const auto oshape = xpose::test::out_shape(p);
    if (plan->in_span_bytes() != xpose::test::span_bytes(p.shape, strides_or_packed(p.in_strides, p.shape), p.elem_bytes) ||
        plan->out_span_bytes() != xpose::test::span_bytes(oshape, strides_or_packed(p.out_strides, oshape), p.elem_bytes))
      fail(p, "the plan's spans differ from the reference's");
  }
  check_refusals(p, *plan);
  if (plan->in_span_bytes() > max_view_bytes || plan->out_span_bytes() > max_view_bytes) return 0;

  const auto isa = static_cast<xpose::detail::cpu_isa>(
      std::min<int>(lengths >> 6, static_cast<int>(xpose::detail::best_cpu_isa())));
  (void)xpose::detail::set_cpu_isa(isa);
  xpose::detail::set_cpu_streaming_mode((flags & 128) ? xpose::detail::streaming_mode::always
                                                      : xpose::detail::streaming_mode::automatic);
  run_small(p, *plan, threads, in_skew, out_skew, c.get());
  return 0;
}
