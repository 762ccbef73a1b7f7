/* C consumer of an installed xpose: the C API (xpose/xpose.h) from C99, linked through find_package. */
#include <xpose/xpose.h>

#include <stdio.h>

int main(void) {
  enum { rows = 3, cols = 5 };
  int in[rows * cols], out[rows * cols];
  int r, c;
  for (r = 0; r < rows * cols; ++r) in[r] = r;
  if (xpose_transpose_host(in, out, rows, cols, sizeof(int), 0) != XPOSE_SUCCESS) {
    fprintf(stderr, "xpose %s: %s\n", xpose_version_string(), xpose_last_error_message());
    return 1;
  }
  for (r = 0; r < rows; ++r)
    for (c = 0; c < cols; ++c)
      if (out[c * rows + r] != in[r * cols + c]) return 2;
  printf("xpose %s found and working from C\n", xpose_version_string());
  return 0;
}
