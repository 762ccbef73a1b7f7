// Consumer of an installed xpose: plans and runs a small transpose on the CPU and checks it.
#include <xpose/xpose.hpp>

#include <cstdio>
#include <vector>

int main() {
  const std::int64_t rows = 3, cols = 5;
  std::vector<int> in(rows * cols), out(rows * cols, -1);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<int>(i);
  if (xpose::status s = xpose::transpose_host(in.data(), out.data(), rows, cols); !s) {
    std::fprintf(stderr, "xpose %s: %s\n", xpose::version(), s.message().c_str());
    return 1;
  }
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < cols; ++c)
      if (out[c * rows + r] != in[r * cols + c]) return 2;
  std::printf("xpose %s found and working\n", xpose::version());
  return 0;
}
