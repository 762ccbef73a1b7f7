// xpose-bench: tables, CSV, JSON, summary.
#include "report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <functional>

namespace xpose::bench {

const char* to_string(verdict v) {
  switch (v) {
    case verdict::yes: return "yes";
    case verdict::no: return "no";
    case verdict::na: return "n/a";
  }
  return "n/a";
}

void measurement::set_time(double median_us, std::int64_t bytes_moved, double reference_us) {
  present = true;
  time_us = median_us;
  gbps = median_us > 0 ? static_cast<double>(bytes_moved) / (median_us * 1e3) : not_measured;  // B/us / 1e3
  ratio = median_us > 0 ? reference_us / median_us : not_measured;
}

double median(std::vector<double> v) {
  if (v.empty()) return not_measured;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

namespace {

// The ladder table's "cuBLAS geam" row carries the peer in `main`.
bool is_peer_row(const row& r) { return r.impl.rfind("cuBLAS", 0) == 0; }

}  // namespace

std::vector<std::pair<const char*, const measurement*>> peers_of(const row& r) {
  return {{"geam", &r.geam}, {"cublasLt", &r.cublaslt}, {"NPP", &r.npp}};
}

bool row_failed(const row& r) {
  return r.memcpy_verified == verdict::no || (r.main.verified == verdict::no && !is_peer_row(r)) ||
         r.main_1t.verified == verdict::no;
}

bool peer_failed(const row& r) {
  if (is_peer_row(r) && r.main.verified == verdict::no) return true;
  for (const auto& [name, m] : peers_of(r))
    if (m->verified == verdict::no) return true;
  return false;
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

namespace {

std::string fmt(const char* f, double v) {
  if (std::isnan(v)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string fmt_time(double us) { return fmt(us < 100 ? "%.2f" : "%.1f", us); }

// A row's target: the value compared with it (its ratio, or its ratio over the relative_to row's ratio) and
// whether it is met. `has` false: no target, or no ratio to judge.
struct target_check {
  bool has = false;
  double value = not_measured;
  bool met = false;
};

const row* find_case(const std::vector<row>& rows, const row& r, const std::string& name) {
  for (const auto& x : rows)
    if (x.case_name == name && x.table == r.table && !is_peer_row(x)) return &x;
  return nullptr;
}

target_check check_target(const row& r, const std::vector<row>& rows) {
  target_check t;
  if (std::isnan(r.target) || !r.main.present || std::isnan(r.main.ratio) || is_peer_row(r)) return t;
  t.value = r.main.ratio;
  if (!r.relative_to.empty()) {
    const row* base = find_case(rows, r, r.relative_to);
    if (base == nullptr || !base->main.present || !(base->main.ratio > 0)) return t;
    t.value = r.main.ratio / base->main.ratio;
  }
  t.has = true;
  t.met = t.value >= r.target && r.main.verified != verdict::no;
  return t;
}

std::string target_text(const row& r) {
  if (std::isnan(r.target)) return "";
  return fmt("%.2f", r.target) + (r.relative_to.empty() ? "" : " of '" + r.relative_to + "'");
}

// xpose against the peers that ran and were not wrong: `beats` when xpose is faster than each of them;
// `faster` lists the others ("NPP 1.02").
struct peer_comparison {
  int peers = 0;
  bool beats = false;
  std::string faster;
};

peer_comparison compare_peers(const row& r) {
  peer_comparison c;
  if (!r.main.present || std::isnan(r.main.ratio) || is_peer_row(r)) return c;
  c.beats = r.main.verified != verdict::no;
  for (const auto& [name, m] : peers_of(r)) {
    if (!m->present || std::isnan(m->ratio) || m->verified == verdict::no) continue;
    ++c.peers;
    if (m->ratio >= r.main.ratio) {
      c.beats = false;
      c.faster += (c.faster.empty() ? "" : ", ") + std::string(name) + " " + fmt("%.3f", m->ratio);
    }
  }
  if (c.peers == 0) c.beats = false;
  return c;
}

// A measurement's cell: the value, "n/a" when not applicable, "error" when it did not run.
std::string cell(const measurement& m, const std::function<std::string(const measurement&)>& value) {
  if (!m.present) return m.verified == verdict::no ? "error" : "n/a";
  return value(m);
}

struct column {
  std::string header;
  bool left;  // text left-aligned, numbers right-aligned
  std::function<std::string(const row&)> get;
};

std::vector<column> columns_for(const std::string& table, const run_info& info, const std::vector<row>& rows) {
  auto t = [](const measurement& m) { return fmt_time(m.time_us); };
  auto g = [](const measurement& m) { return fmt("%.1f", m.gbps); };
  auto r = [](const measurement& m) { return fmt("%.3f", m.ratio); };
  auto v = [](const measurement& m) { return std::string(to_string(m.verified)); };
  if (table == "ladder") {
    return {
        {"size", true, [](const row& x) { return x.case_name; }},
        {"kernel", true, [](const row& x) { return x.impl; }},
        {"time us", false, [=](const row& x) { return cell(x.main, t); }},
        {"GB/s", false, [=](const row& x) { return cell(x.main, g); }},
        {"vs memcpy", false, [=](const row& x) { return cell(x.main, r); }},
        {"verified", true, [=](const row& x) { return std::string(to_string(x.main.verified)); }},
        {"memcpy GB/s", false, [](const row& x) { return fmt("%.1f", x.memcpy_gbps); }},
    };
  }
  if (table == "production" || table == "2d") {
    const bool is_2d = table == "2d";
    std::vector<column> cols = {
        {"case", true, [](const row& x) { return x.case_name; }},
        {"shape", true, [](const row& x) { return x.shape; }},
    };
    if (!is_2d) cols.push_back({"axes", true, [](const row& x) { return x.axes; }});
    cols.push_back({"elem B", false, [](const row& x) { return std::to_string(x.elem_bytes); }});
    cols.push_back({"time us", false, [=](const row& x) { return cell(x.main, t); }});
    cols.push_back({"GB/s", false, [=](const row& x) { return cell(x.main, g); }});
    cols.push_back({"vs memcpy", false, [=](const row& x) { return cell(x.main, r); }});
    cols.push_back({"verified", true, [=](const row& x) { return std::string(to_string(x.main.verified)); }});
    if (!is_2d) cols.push_back({"plan", true, [](const row& x) { return x.main.variant.empty() ? "-" : x.main.variant; }});
    if (is_2d) {
      cols.push_back({"target", true, [&rows](const row& x) {
                        const target_check c = check_target(x, rows);
                        if (std::isnan(x.target)) return std::string("-");
                        if (!c.has) return fmt("%.2f", x.target) + " ?";
                        return fmt("%.2f", x.target) + (x.relative_to.empty() ? "" : "x") + (c.met ? " met" : " MISS") +
                               (x.relative_to.empty() ? "" : " (" + fmt("%.3f", c.value) + ")");
                      }});
    }
    for (const char* name : {"geam", "cublasLt", "NPP"}) {
      auto pick = [name](const row& x) -> const measurement& {
        return std::string(name) == "geam" ? x.geam : std::string(name) == "NPP" ? x.npp : x.cublaslt;
      };
      cols.push_back({name, false, [=](const row& x) { return cell(pick(x), r); }});
      cols.push_back({std::string(name) + " ok", true, [=](const row& x) { return cell(pick(x), v); }});
    }
    cols.push_back({"beats peers", true, [](const row& x) {
                      const peer_comparison c = compare_peers(x);
                      if (c.peers == 0) return std::string("-");
                      return c.beats ? std::string("yes") : "no (" + c.faster + ")";
                    }});
    cols.push_back({"memcpy GB/s", false, [](const row& x) { return fmt("%.1f", x.memcpy_gbps); }});
    return cols;
  }
  const std::string n = std::to_string(info.threads) + "T";
  return {
      {"case", true, [](const row& x) { return x.case_name; }},
      {"shape", true, [](const row& x) { return x.shape; }},
      {"axes", true, [](const row& x) { return x.axes; }},
      {"elem B", false, [](const row& x) { return std::to_string(x.elem_bytes); }},
      {"1T us", false, [=](const row& x) { return cell(x.main_1t, t); }},
      {"1T GB/s", false, [=](const row& x) { return cell(x.main_1t, g); }},
      {"1T vs memcpy", false, [=](const row& x) { return cell(x.main_1t, r); }},
      {n + " us", false, [=](const row& x) { return cell(x.main, t); }},
      {n + " GB/s", false, [=](const row& x) { return cell(x.main, g); }},
      {n + " vs memcpy", false, [=](const row& x) { return cell(x.main, r); }},
      {"verified", true,
       [](const row& x) { return std::string(to_string(row_failed(x) ? verdict::no : x.main.verified)); }},
      {"memcpy 1T GB/s", false, [](const row& x) { return fmt("%.1f", x.memcpy_1t_gbps); }},
      {"memcpy " + n + " GB/s", false, [](const row& x) { return fmt("%.1f", x.memcpy_gbps); }},
  };
}

std::string csv_escape(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

// Integral values print as integers (byte counts, sizes); others with 6 significant digits. NaN: `none`.
std::string number_text(double v, const char* none) {
  if (std::isnan(v) || std::isinf(v)) return none;
  char buf[64];
  if (v == std::floor(v) && std::fabs(v) < 9.007199254740992e15) std::snprintf(buf, sizeof buf, "%.0f", v);
  else std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string json_number(double v) { return number_text(v, "null"); }

std::string csv_number(double v) { return number_text(v, ""); }

// The flat fields of a row, shared by CSV and JSON: (name, value, is_number).
struct field {
  std::string name;
  std::string text;
  double number;
  bool is_number;
};

std::vector<field> fields_of(const row& r, const std::vector<row>& rows) {
  std::vector<field> f;
  auto s = [&](const char* n, const std::string& v) { f.push_back({n, v, 0, false}); };
  auto d = [&](const char* n, double v) { f.push_back({n, {}, v, true}); };
  auto m = [&](const std::string& prefix, const measurement& x, const std::string& suffix) {
    f.push_back({prefix + "time_us" + suffix, {}, x.time_us, true});
    f.push_back({prefix + "gbps" + suffix, {}, x.gbps, true});
    f.push_back({prefix + "ratio" + suffix, {}, x.ratio, true});
    f.push_back({prefix + "verified" + suffix, to_string(x.verified), 0, false});
    f.push_back({prefix + "variant" + suffix, x.variant, 0, false});
    f.push_back({prefix + "note" + suffix, x.note, 0, false});
  };
  s("table", r.table);
  s("case", r.case_name);
  s("impl", r.impl);
  s("shape", r.shape);
  s("axes", r.axes);
  d("elem_bytes", static_cast<double>(r.elem_bytes));
  d("bytes_moved", static_cast<double>(r.bytes_moved));
  d("buffers", r.buffers);
  d("in_offset", static_cast<double>(r.in_offset));
  d("out_offset", static_cast<double>(r.out_offset));
  m("", r.main, "");
  d("memcpy_time_us", r.memcpy_us);
  d("memcpy_gbps", r.memcpy_gbps);
  s("memcpy_verified", to_string(r.memcpy_verified));
  m("geam_", r.geam, "");
  m("cublaslt_", r.cublaslt, "");
  m("npp_", r.npp, "");
  s("category", r.category);
  d("target", r.target);
  s("relative_to", r.relative_to);
  const target_check tc = check_target(r, rows);
  d("target_value", tc.has ? tc.value : not_measured);
  s("target_met", tc.has ? (tc.met ? "yes" : "no") : "");
  const peer_comparison pc = compare_peers(r);
  s("beats_peers", pc.peers == 0 ? "" : pc.beats ? "yes" : "no");
  d("threads", r.threads > 0 ? r.threads : not_measured);
  m("", r.main_1t, "_1t");
  d("memcpy_time_us_1t", r.memcpy_1t_us);
  d("memcpy_gbps_1t", r.memcpy_1t_gbps);
  s("row_note", r.note);
  return f;
}

std::vector<field> fields_of(const run_info& i) {
  return {{"backend", i.backend, 0, false},
          {"device", i.device, 0, false},
          {"sm_count", {}, i.sm_count > 0 ? static_cast<double>(i.sm_count) : not_measured, true},
          {"l2_bytes", {}, static_cast<double>(i.l2_bytes), true},
          {"llc_bytes", {}, i.llc_bytes > 0 ? static_cast<double>(i.llc_bytes) : not_measured, true},
          {"memory_bytes", {}, static_cast<double>(i.memory_bytes), true},
          {"reps", {}, static_cast<double>(i.reps), true},
          {"warmup", {}, static_cast<double>(i.warmup), true},
          {"xpose_version", i.xpose_version, 0, false},
          {"git_commit", i.git_commit, 0, false},
          {"date", i.date, 0, false}};
}

}  // namespace

void print_table(std::ostream& os, const std::string& table, const std::vector<row>& rows, const run_info& info) {
  std::vector<const row*> sel;
  for (const auto& r : rows)
    if (r.table == table) sel.push_back(&r);
  if (sel.empty()) return;
  const auto cols = columns_for(table, info, rows);
  std::vector<std::vector<std::string>> cells;
  std::vector<std::size_t> width(cols.size(), 0);
  for (std::size_t c = 0; c < cols.size(); ++c) width[c] = cols[c].header.size();
  for (const row* r : sel) {
    std::vector<std::string> line;
    for (std::size_t c = 0; c < cols.size(); ++c) {
      line.push_back(cols[c].get(*r));
      width[c] = std::max(width[c], line.back().size());
    }
    cells.push_back(std::move(line));
  }
  auto print_line = [&](const std::vector<std::string>& line) {
    std::string out;
    for (std::size_t c = 0; c < cols.size(); ++c) {
      const std::string& s = line[c];
      const std::string pad(width[c] - s.size(), ' ');
      out += (c ? "  " : "") + (cols[c].left ? s + pad : pad + s);
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    os << out << '\n';
  };
  std::size_t total = 0;
  for (auto w : width) total += w + 2;
  const std::string rule(total - 2, '-');

  if (table == "ladder") {
    os << "\n== teaching ladder (fp32 2-D transposes): GB/s = (read + write bytes) / median time; vs memcpy = "
          "cudaMemcpyAsync D2D of the same bytes ==\n";
  } else if (table == "production" || table == "2d") {
    os << (table == "2d" ? "\n== 2-D transposes (issue 3), by category" : "\n== xpose production table")
       << ": vs memcpy = ratio to cudaMemcpyAsync D2D of the same bytes, same run; geam, cublasLt, NPP = the "
          "peers' ratios (cuBLAS S/D/Zgeam, cublasLtMatrixTransform, nppiTranspose), 'ok' = verified ==\n";
  } else {
    const std::string all = std::to_string(info.threads) + (info.threads == 1 ? " thread" : " threads");
    os << "\n== xpose CPU table: 1 thread vs memcpy on 1 thread, " << all << " vs memcpy on " << all << " ==\n";
  }
  std::vector<std::string> header;
  for (const auto& c : cols) header.emplace_back(c.header);
  print_line(header);
  os << rule << '\n';
  for (std::size_t i = 0; i < cells.size(); ++i) {
    if (table == "ladder" && i > 0 && sel[i]->case_name != sel[i - 1]->case_name) os << rule << '\n';
    if (table == "2d" && (i == 0 || sel[i]->category != sel[i - 1]->category)) {
      if (i > 0) os << rule << '\n';
      os << "[" << (sel[i]->category.empty() ? "no category" : sel[i]->category) << "]\n";
    }
    print_line(cells[i]);
  }
  // Errors and notes under the table; reasons why a peer does not apply, one line per reason.
  std::vector<std::pair<std::string, std::vector<std::string>>> not_applicable;  // (reason, cases)
  for (const row* r : sel) {
    const std::string who = r->case_name + (r->impl.empty() ? "" : " / " + r->impl);
    if (!r->note.empty()) os << "  note: " << who << ": " << r->note << '\n';
    for (const auto* m : {&r->main, &r->main_1t})
      if (m->verified == verdict::no && !m->note.empty()) os << "  error: " << who << ": " << m->note << '\n';
    if (r->memcpy_verified == verdict::no) os << "  error: " << who << ": the memcpy reference output is wrong\n";
    for (const auto& [name, m] : peers_of(*r)) {
      if (m->verified == verdict::no) {
        os << "  peer error: " << r->case_name << " / " << name << (m->variant.empty() ? "" : " (" + m->variant + ")")
           << ": " << (m->note.empty() ? "failed" : m->note) << '\n';
      } else if (m->present && !m->note.empty()) {
        os << "  peer note: " << r->case_name << " / " << name << ": " << m->note << '\n';
      } else if (!m->present && !m->note.empty()) {
        auto it = std::find_if(not_applicable.begin(), not_applicable.end(),
                               [&](const auto& p) { return p.first == m->note; });
        if (it == not_applicable.end()) not_applicable.push_back({m->note, {r->case_name}});
        else it->second.push_back(r->case_name);
      }
    }
  }
  constexpr std::size_t max_named = 6;  // cases named per reason; the rest are counted
  for (const auto& [reason, cases] : not_applicable) {
    os << "  n/a: " << reason << ": ";
    if (cases.size() == sel.size() && cases.size() > 1) {
      os << "every row";
    } else {
      for (std::size_t i = 0; i < std::min(cases.size(), max_named); ++i) os << (i ? ", " : "") << cases[i];
      if (cases.size() > max_named) os << " and " << cases.size() - max_named << " more";
    }
    os << '\n';
  }
}

void write_csv(std::ostream& os, const std::vector<row>& rows, const run_info& info) {
  const auto run = fields_of(info);
  auto value = [](const field& f) { return f.is_number ? csv_number(f.number) : csv_escape(f.text); };
  auto write_line = [&](const std::vector<field>& fs, bool header) {
    bool first = true;
    for (const auto* part : {&fs, &run}) {
      for (const auto& f : *part) {
        if (!first) os << ',';
        os << (header ? f.name : value(f));
        first = false;
      }
    }
    os << '\n';
  };
  write_line(fields_of(row{}, {}), true);
  for (const auto& r : rows) write_line(fields_of(r, rows), false);
}

void write_json(std::ostream& os, const std::vector<row>& rows, const run_info& info) {
  auto object = [](const std::vector<field>& fs, const char* indent) {
    std::string s = "{";
    for (std::size_t i = 0; i < fs.size(); ++i) {
      s += (i ? ",\n" : "\n") + std::string(indent) + "  " + json_string(fs[i].name) + ": " +
           (fs[i].is_number ? json_number(fs[i].number) : json_string(fs[i].text));
    }
    return s + "\n" + indent + "}";
  };
  os << "{\n  \"tool\": \"xpose-bench\",\n  \"run\": " << object(fields_of(info), "  ") << ",\n  \"rows\": [";
  for (std::size_t i = 0; i < rows.size(); ++i)
    os << (i ? ",\n    " : "\n    ") << object(fields_of(rows[i], rows), "    ");
  os << "\n  ]\n}\n";
}

bool print_summary(std::ostream& os, const std::vector<row>& rows) {
  std::size_t ok = 0;
  std::vector<std::string> failed, peers_wrong;
  struct worst {
    double ratio = not_measured;
    std::string who;
    void take(const measurement& m, const std::string& w) {
      if (m.present && !std::isnan(m.ratio) && (std::isnan(ratio) || m.ratio < ratio)) {
        ratio = m.ratio;
        who = w;
      }
    }
  } worst_gpu, worst_1t, worst_all;
  bool cpu = false;
  for (const auto& r : rows) {
    const std::string who = r.case_name + (r.impl.empty() ? "" : " / " + r.impl);
    if (row_failed(r)) failed.push_back(who);
    else ++ok;
    if (peer_failed(r)) {
      std::string which;
      if (is_peer_row(r)) which = r.impl;
      for (const auto& [name, m] : peers_of(r))
        if (m->verified == verdict::no) which += (which.empty() ? "" : ", ") + std::string(name);
      peers_wrong.push_back(r.case_name + ": " + which);
    }
    if (r.table == "cpu") {
      cpu = true;
      worst_1t.take(r.main_1t, r.case_name);
      worst_all.take(r.main, r.case_name);
    } else if (r.impl.rfind("xpose", 0) == 0) {
      worst_gpu.take(r.main, r.case_name);
    }
  }

  // Per category (rows in suite order; categories in order of first appearance).
  std::vector<std::string> categories;
  for (const auto& r : rows)
    if (!r.category.empty() && !is_peer_row(r) &&
        std::find(categories.begin(), categories.end(), r.category) == categories.end())
      categories.push_back(r.category);
  if (!categories.empty()) {
    os << "\nper category (xpose ratio to memcpy" << (cpu ? ", all threads" : "") << "; targets; peers beaten):\n";
    std::size_t width = 0;
    for (const auto& c : categories) width = std::max(width, c.size());
    for (const auto& cat : categories) {
      worst w;
      std::vector<double> ratios;
      int n = 0, with_target = 0, met = 0, with_peers = 0, beaten = 0;
      std::string missed, not_beaten;
      for (const auto& r : rows) {
        if (r.category != cat || is_peer_row(r)) continue;
        ++n;
        w.take(r.main, r.case_name);
        if (r.main.present && !std::isnan(r.main.ratio)) ratios.push_back(r.main.ratio);
        if (!std::isnan(r.target)) {
          ++with_target;
          const target_check t = check_target(r, rows);
          if (t.has && t.met) {
            ++met;
          } else {
            missed += (missed.empty() ? "" : "; ") + r.case_name + " " +
                      (t.has ? fmt("%.3f", t.value) + " < " + target_text(r) : "not measured");
          }
        }
        const peer_comparison p = compare_peers(r);
        if (p.peers > 0) {
          ++with_peers;
          if (p.beats) ++beaten;
          else not_beaten += (not_beaten.empty() ? "" : "; ") + r.case_name + ": " +
                             (p.faster.empty() ? "xpose not verified" : p.faster);
        }
      }
      os << "  " << cat << std::string(width - cat.size(), ' ') << "  " << n << (n == 1 ? " row " : " rows")
         << "  median " << fmt("%.3f", median(ratios)) << "  worst " << fmt("%.3f", w.ratio) << " ("
         << (w.who.empty() ? "-" : w.who) << ")";
      if (with_target > 0) os << "  target met " << met << "/" << with_target;
      if (with_peers > 0) os << "  beats every peer " << beaten << "/" << with_peers;
      os << '\n';
      if (!missed.empty()) os << "      below target: " << missed << '\n';
      if (!not_beaten.empty()) os << "      a peer as fast or faster: " << not_beaten << '\n';
    }
  }

  os << "\nsummary: " << ok << "/" << rows.size() << " rows verified (every xpose output and memcpy reference)";
  if (cpu) {
    os << "; worst xpose ratio to memcpy: 1 thread " << fmt("%.3f", worst_1t.ratio) << " (" << worst_1t.who
       << "), all threads " << fmt("%.3f", worst_all.ratio) << " (" << worst_all.who << ")";
  }
  if (!std::isnan(worst_gpu.ratio))
    os << "; worst xpose ratio to memcpy " << fmt("%.3f", worst_gpu.ratio) << " (" << worst_gpu.who << ")";
  os << '\n';
  if (!peers_wrong.empty()) {
    os << "peers wrong or failed (" << peers_wrong.size() << (peers_wrong.size() == 1 ? " row" : " rows")
       << "; not xpose's failures, the exit code ignores them):";
    for (const auto& f : peers_wrong) os << "\n  " << f;
    os << '\n';
  }
  if (!failed.empty()) {
    os << "FAILED (" << failed.size() << (failed.size() == 1 ? " row):" : " rows):");
    for (const auto& f : failed) os << "\n  " << f;
    os << '\n';
  }
  return failed.empty();
}

}  // namespace xpose::bench
