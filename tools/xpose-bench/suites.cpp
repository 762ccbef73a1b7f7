// xpose-bench: case parsing, built-in suites and suite files.
#include "suites.hpp"

#include <charconv>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "common/reference.hpp"
#include "plan/box.hpp"
#include "xpose/plan.hpp"

#ifndef XPOSE_BENCH_SOURCE_DIR
#define XPOSE_BENCH_SOURCE_DIR ""
#endif

namespace xpose::bench {

// benchmarks/suites/{ladder,default,2d}.txt, embedded by CMake (embedded_suites.cpp in the build tree) so that
// the installed binary needs no data files and the files stay the one source of truth.
extern const char* const embedded_ladder_suite;
extern const char* const embedded_default_suite;
extern const char* const embedded_2d_suite;

namespace {

// The CPU table (DESIGN §5): sizes a CPU moves in tens of milliseconds.
constexpr const char* cpu_suite = R"(
name=fp32 4096x4096;shape=4096,4096;axes=1,0;elem=4
name=u8 4096x4096;shape=4096,4096;axes=1,0;elem=1
name=fp64 2048x2048;shape=2048,2048;axes=1,0;elem=8
name=fp32 1000000x3 (AoS->SoA);shape=1000000,3;axes=1,0;elem=4
name=fp32 batched 1024x32x32;shape=32,32;axes=1,0;elem=4;batch=1024
name=fp32 NCHW->NHWC 8x64x56x56;shape=8,64,56,56;axes=0,2,3,1;elem=4
)";

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return {};
  const auto e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

std::string join(const std::vector<std::int64_t>& v, const char* sep) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + std::to_string(v[i]);
  return s;
}

// A ratio in (0, 10]: a target.
bool parse_ratio(const std::string& text, double& out) {
  const std::string t = trim(text);
  if (t.empty()) return false;
  char* end = nullptr;
  const double v = std::strtod(t.c_str(), &end);
  if (end != t.c_str() + t.size() || !(v > 0 && v <= 10)) return false;
  out = v;
  return true;
}

bool read_file(const std::string& path, std::string& text) {
  std::ifstream f(path);
  if (!f) return false;
  std::ostringstream ss;
  ss << f.rdbuf();
  text = ss.str();
  return true;
}

}  // namespace

bool parse_int(const std::string& text, std::int64_t& out) {
  const std::string t = trim(text);
  if (t.empty()) return false;
  const char* end = t.data() + t.size();
  auto [p, ec] = std::from_chars(t.data(), end, out);
  return ec == std::errc() && p == end;
}

bool parse_int_list(const std::string& text, std::vector<std::int64_t>& out) {
  out.clear();
  const std::string t = trim(text);
  if (t.empty()) return false;
  std::size_t pos = 0;
  while (true) {
    const std::size_t next = t.find_first_of(",xX", pos);
    std::int64_t v = 0;
    if (!parse_int(t.substr(pos, next == std::string::npos ? std::string::npos : next - pos), v)) return false;
    out.push_back(v);
    if (next == std::string::npos) return true;
    pos = next + 1;
  }
}

std::string elem_name(std::int64_t elem_bytes) {
  switch (elem_bytes) {
    case 1: return "u8";
    case 2: return "fp16";
    case 3: return "rgb8";
    case 4: return "fp32";
    case 6: return "rgb16";
    case 8: return "fp64";
    case 12: return "rgb32f";
    case 16: return "c128";
    default: return std::to_string(elem_bytes) + "B";
  }
}

const char* table_name(table_kind t) {
  switch (t) {
    case table_kind::ladder: return "ladder";
    case table_kind::transpose2d: return "2d";
    case table_kind::production: return "production";
  }
  return "production";
}

xpose::problem bench_case::to_problem() const {
  xpose::problem p;
  p.elem_bytes = elem_bytes;
  p.in_strides = in_strides;
  p.out_strides = out_strides;
  const auto rank = static_cast<std::int64_t>(shape.size());
  std::vector<std::int64_t> ax = axes;
  if (ax.empty())
    for (std::int64_t i = 0; i < rank; ++i) ax.push_back(rank - 1 - i);
  for (auto& a : ax)
    if (a < 0) a += rank;
  if (batch > 1) {
    p.shape.push_back(batch);
    p.axes.push_back(0);
    for (auto a : ax) p.axes.push_back(a + 1);
  } else {
    p.axes = ax;
  }
  p.shape.insert(p.shape.end(), shape.begin(), shape.end());
  return p;
}

std::string bench_case::shape_string() const { return join(to_problem().shape, "x"); }

std::string bench_case::axes_string() const { return join(to_problem().axes, ","); }

bool bench_case::is_plain_transpose2d() const {
  if (shape.size() != 2 || !in_strides.empty() || !out_strides.empty()) return false;
  const auto p = to_problem();
  if (p.axes.size() != p.shape.size()) return false;
  return p.axes[p.axes.size() - 2] == static_cast<std::int64_t>(p.axes.size()) - 1 &&
         p.axes[p.axes.size() - 1] == static_cast<std::int64_t>(p.axes.size()) - 2;
}

std::string as_matrix_view(const bench_case& c, matrix_view& v) {
  if (c.shape.size() != 2) return "not a 2-D transpose (rank " + std::to_string(c.shape.size()) + ")";
  const xpose::problem p = c.to_problem();
  const auto rank = p.shape.size();  // 2, or 3 with the batch axis first
  const auto last = static_cast<std::int64_t>(rank) - 1;
  if (p.axes[rank - 2] != last || p.axes[rank - 1] != last - 1)
    return "not a 2-D transpose (axes " + c.axes_string() + ")";
  matrix_view m;
  m.batch = c.batch;
  m.rows = c.shape[0];
  m.cols = c.shape[1];
  m.elem_bytes = c.elem_bytes;
  m.in_ld = m.cols;
  m.out_ld = m.rows;
  m.in_batch_stride = m.rows * m.cols;
  m.out_batch_stride = m.rows * m.cols;
  if (!c.in_strides.empty()) {
    const auto& s = c.in_strides;
    if (s[rank - 1] != 1) return "input elements not contiguous along a row (last input stride != 1)";
    if (s[rank - 2] < m.cols) return "input rows overlap (input row stride < cols)";
    m.in_ld = s[rank - 2];
    if (rank == 3) m.in_batch_stride = s[0];
  }
  if (!c.out_strides.empty()) {
    const auto& s = c.out_strides;
    if (s[rank - 1] != 1) return "output elements not contiguous along a row (last output stride != 1)";
    if (s[rank - 2] < m.rows) return "output rows overlap (output row stride < rows)";
    m.out_ld = s[rank - 2];
    if (rank == 3) m.out_batch_stride = s[0];
  }
  if (m.batch > 1 && (m.in_batch_stride < (m.rows - 1) * m.in_ld + m.cols ||
                      m.out_batch_stride < (m.cols - 1) * m.out_ld + m.rows))
    return "matrices of the batch overlap";
  v = m;
  return {};
}

std::int64_t bench_case::payload_bytes() const {
  std::int64_t n = elem_bytes * batch;
  for (auto e : shape) n *= e;
  return n;
}

std::int64_t bench_case::in_span_bytes() const {
  const auto p = to_problem();
  return xpose::test::span_bytes(p.shape, p.in_strides.empty() ? xpose::test::packed_strides(p.shape) : p.in_strides,
                                 p.elem_bytes);
}

std::int64_t bench_case::out_span_bytes() const {
  const auto p = to_problem();
  const auto oshape = xpose::test::out_shape(p);
  return xpose::test::span_bytes(oshape, p.out_strides.empty() ? xpose::test::packed_strides(oshape) : p.out_strides,
                                 p.elem_bytes);
}

std::string parse_suite(const std::string& text, const std::string& origin, std::vector<bench_case>& out) {
  std::istringstream in(text);
  std::string line;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (const auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    line = trim(line);
    if (line.empty()) continue;
    const std::string where = origin + ":" + std::to_string(line_no) + ": ";
    bench_case c;
    bool has_shape = false;
    std::istringstream fields(line);
    std::string field;
    while (std::getline(fields, field, ';')) {
      field = trim(field);
      if (field.empty()) continue;
      const auto eq = field.find('=');
      if (eq == std::string::npos) return where + "'" + field + "' is not key=value";
      const std::string key = trim(field.substr(0, eq));
      const std::string value = trim(field.substr(eq + 1));
      bool ok = true;
      if (key == "name") {
        c.name = value;
      } else if (key == "table") {
        if (value == "production") c.table = table_kind::production;
        else if (value == "ladder") c.table = table_kind::ladder;
        else if (value == "2d") c.table = table_kind::transpose2d;
        else return where + "table must be 'production', 'ladder' or '2d', not '" + value + "'";
      } else if (key == "category") {
        c.category = value;
      } else if (key == "target") {
        ok = parse_ratio(value, c.target);
      } else if (key == "relative_to") {
        c.relative_to = value;
      } else if (key == "shape") {
        ok = parse_int_list(value, c.shape);
        has_shape = ok;
      } else if (key == "axes") {
        ok = parse_int_list(value, c.axes);
      } else if (key == "elem") {
        ok = parse_int(value, c.elem_bytes) && c.elem_bytes >= 1;
      } else if (key == "batch") {
        ok = parse_int(value, c.batch) && c.batch >= 1;
      } else if (key == "in_strides") {
        ok = parse_int_list(value, c.in_strides);
      } else if (key == "out_strides") {
        ok = parse_int_list(value, c.out_strides);
      } else if (key == "in_offset" || key == "out_offset") {
        std::int64_t& off = key == "in_offset" ? c.in_offset : c.out_offset;
        ok = parse_int(value, off) && off >= 0 && off <= max_base_offset;
      } else {
        return where + "unknown key '" + key + "' (keys: name, table, shape, axes, elem, batch, in_strides, "
                       "out_strides, in_offset, out_offset, category, target, relative_to)";
      }
      if (!ok) return where + "bad value for " + key + ": '" + value + "'";
    }
    if (!has_shape) return where + "a case needs shape=...";
    if (c.name.empty()) c.name = elem_name(c.elem_bytes) + " " + c.shape_string();
    if (c.table == table_kind::ladder &&
        (c.elem_bytes != 4 || c.batch != 1 || !c.is_plain_transpose2d())) {
      return where + "table=ladder cases must be plain fp32 2-D transposes (elem=4, axes=1,0, no batch)";
    }
    if (!c.relative_to.empty() && c.target < 0) return where + "relative_to needs a target";
    if (std::string err = validate_case(c); !err.empty()) return where + err;
    out.push_back(std::move(c));
  }
  // relative_to names a case of the same suite (checked once every case is read: it may come later).
  for (const auto& c : out) {
    if (c.relative_to.empty()) continue;
    bool found = false;
    for (const auto& d : out) found = found || (d.name == c.relative_to && &d != &c);
    if (!found)
      return origin + ": case '" + c.name + "': relative_to '" + c.relative_to + "' names no case of the suite";
  }
  return {};
}

std::string load_suite(const std::string& name, bool cuda_backend, std::vector<bench_case>& out) {
  out.clear();
  if (name == "default" && cuda_backend) {
    if (auto e = parse_suite(embedded_ladder_suite, "ladder.txt", out); !e.empty()) return e;
    return parse_suite(embedded_default_suite, "default.txt", out);
  }
  if (name == "default" || name == "cpu") return parse_suite(cpu_suite, "cpu (built in)", out);
  if (name == "ladder") return parse_suite(embedded_ladder_suite, "ladder.txt", out);
  if (name == "production") return parse_suite(embedded_default_suite, "default.txt", out);
  if (name == "2d") return parse_suite(embedded_2d_suite, "2d.txt", out);
  std::vector<std::string> candidates = {name, "benchmarks/suites/" + name + ".txt"};
  if (std::string(XPOSE_BENCH_SOURCE_DIR).size() > 0)
    candidates.push_back(std::string(XPOSE_BENCH_SOURCE_DIR) + "/benchmarks/suites/" + name + ".txt");
  for (const auto& path : candidates) {
    std::string text;
    const bool is_txt = path.size() > 4 && path.compare(path.size() - 4, 4, ".txt") == 0;
    if (path == name && path.find('/') == std::string::npos && !is_txt) continue;  // a bare suite name
    if (read_file(path, text)) return parse_suite(text, path, out);
  }
  std::string tried;
  for (std::size_t i = 1; i < candidates.size(); ++i) tried += (i > 1 ? ", " : "") + candidates[i];
  return "unknown suite '" + name + "': not built in (default, ladder, production, 2d, cpu) and no file found (tried " +
         tried + ")";
}

std::string validate_case(const bench_case& c) {
  auto plan = xpose::make_plan(c.to_problem());
  // `unsupported` is a valid problem this build cannot run yet: its row reports the error instead.
  if (!plan && plan.error().code() != xpose::status_code::unsupported) {
    std::ostringstream os;
    os << plan.error();
    return os.str();
  }
  return {};
}

std::string plan_summary(const xpose::plan& p) {
  const xpose::plan_geometry& g = p.geometry();
  std::ostringstream os;
  os << xpose::to_string(g.algo);
  auto side = [&os](std::int64_t n, int rank, const auto& extent) {
    os << n;
    if (rank < 2) return;
    os << '[';
    for (int k = 0; k < rank; ++k) os << (k ? "*" : "") << extent[k];
    os << ']';
  };
  if (g.algo == xpose::algorithm::transpose2d) {
    os << ' ';
    side(g.rows, g.row_rank, g.row_extent);
    os << 'x';
    side(g.cols, g.col_rank, g.col_extent);
    os << " u" << g.elem_words * g.word_bytes;
  } else if (g.algo == xpose::algorithm::rows) {
    os << ' ' << g.elem_words * g.word_bytes << 'B';
  }
  if (g.batch_count() > 1) os << " b" << g.batch_count();
  // The GPU's box tiles (src/plan/box.hpp) for tiles with a short side: box<units>, at the unit's volume limit
  // as the dispatcher takes it (box_volume_limit; small problems get smaller boxes there, box_volume_cap).
  if (xpose::detail::box_plan b;
      xpose::detail::make_box(g, b, xpose::detail::box_volume_limit(xpose::detail::box_unit_bytes(g))))
    os << " box" << b.volume;
  return os.str();
}

}  // namespace xpose::bench
