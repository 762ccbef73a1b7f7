/* The C API from a C99 program (built with -std=c99 -Wall -Wextra -Wpedantic -Werror): plans, one-shot
 * calls and in-place transposes on the host executor, checked against a naive reference written here from
 * the definition in problem.hpp, and every error the C layer adds, by status and by the argument its message
 * names. Inputs are fixed (no randomness). Prints each failed check; exits 1 if any failed. */
#include <xpose/xpose.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef XPOSE_TEST_HAS_CUDA
#error "define XPOSE_TEST_HAS_CUDA to 0 or 1 (tests/CMakeLists.txt does)"
#endif

static int checks = 0;
static int failures = 0;

#define CHECK(cond, ...)                                                              \
  do {                                                                                \
    ++checks;                                                                         \
    if (!(cond)) {                                                                    \
      ++failures;                                                                     \
      fprintf(stderr, "%s:%d: FAILED: %s -- ", __FILE__, __LINE__, #cond);            \
      fprintf(stderr, __VA_ARGS__);                                                   \
      fprintf(stderr, " (last message: \"%s\")\n", xpose_last_error_message());       \
    }                                                                                 \
  } while (0)

/* `got` must be `want` and the thread's last message must contain `needle`. */
static void expect_status(xpose_status got, xpose_status want, const char* needle, const char* what, int line) {
  const char* msg = xpose_last_error_message();
  ++checks;
  if (got != want || strstr(msg, needle) == NULL) {
    ++failures;
    fprintf(stderr, "%s:%d: FAILED: %s: got %s \"%s\", want %s naming \"%s\"\n", __FILE__, line, what,
            xpose_status_string(got), msg, xpose_status_string(want), needle);
  }
}
#define EXPECT_STATUS(call, want, needle) expect_status((call), (want), (needle), #call, __LINE__)
#define EXPECT_OK(call) expect_status((call), XPOSE_SUCCESS, "", #call, __LINE__)

/* ---- reference ------------------------------------------------------------------------------------------ */

/* Byte k of element e: distinct for neighbouring elements of every size, 1-byte ones included (period 251 in
 * e, not 256, so that a wrong map of a power-of-two shape does not land on an equal value). */
static unsigned char pattern(long e, int k) { return (unsigned char)((e % 251) * 7 + k * 13 + e / 251 + 1); }

static void fill(unsigned char* buf, long elems, int elem_bytes) {
  long e;
  int k;
  for (e = 0; e < elems; ++e)
    for (k = 0; k < elem_bytes; ++k) buf[e * elem_bytes + k] = pattern(e, k);
}

static void packed_strides(int rank, const int64_t* shape, int64_t* strides) {
  int64_t acc = 1;
  int i;
  for (i = rank - 1; i >= 0; --i) {
    strides[i] = acc;
    acc *= shape[i];
  }
}

/* out = numpy.transpose(in, axes) element by element (problem.hpp): out[j] = in[i] with i[axes[k]] = j[k].
 * NULL axes = reversed, NULL strides = packed (elements). */
static void reference_permute(int rank, const int64_t* shape, const int64_t* axes, int elem_bytes,
                              const int64_t* in_strides, const int64_t* out_strides, const unsigned char* in,
                              unsigned char* out) {
  int64_t ax[8], oshape[8], is[8], os[8], j[8];
  int i;
  for (i = 0; i < rank; ++i) {
    ax[i] = axes != NULL ? axes[i] : rank - 1 - i;
    oshape[i] = shape[ax[i]];
    j[i] = 0;
    if (oshape[i] == 0) return;
  }
  if (in_strides != NULL) memcpy(is, in_strides, sizeof(int64_t) * (size_t)rank);
  else packed_strides(rank, shape, is);
  if (out_strides != NULL) memcpy(os, out_strides, sizeof(int64_t) * (size_t)rank);
  else packed_strides(rank, oshape, os);
  for (;;) {
    int64_t in_off = 0, out_off = 0;
    int k;
    for (i = 0; i < rank; ++i) {
      in_off += j[i] * is[ax[i]];
      out_off += j[i] * os[i];
    }
    memcpy(out + out_off * elem_bytes, in + in_off * elem_bytes, (size_t)elem_bytes);
    for (k = rank - 1; k >= 0; --k) {
      if (++j[k] < oshape[k]) break;
      j[k] = 0;
    }
    if (k < 0) return;
  }
}

static unsigned char* alloc_bytes(long n) {
  unsigned char* p = (unsigned char*)malloc(n > 0 ? (size_t)n : 1);
  if (p == NULL) {
    fprintf(stderr, "test_c_api: out of memory\n");
    exit(2);
  }
  return p;
}

/* ---- plans on the host ----------------------------------------------------------------------------------- */

/* A planned permutation executed with 0 (all) and 2 threads, against the reference; packed output. */
static void check_plan(int rank, const int64_t* shape, const int64_t* axes, int elem_bytes,
                       const int64_t* in_strides, long in_elems, long out_elems, const char* what) {
  unsigned char* in = alloc_bytes(in_elems * elem_bytes);
  unsigned char* got = alloc_bytes(out_elems * elem_bytes);
  unsigned char* want = alloc_bytes(out_elems * elem_bytes);
  xpose_plan plan = NULL;
  int threads;
  fill(in, in_elems, elem_bytes);
  memset(want, 0xEE, (size_t)(out_elems * elem_bytes));
  reference_permute(rank, shape, axes, elem_bytes, in_strides, NULL, in, want);
  EXPECT_OK(xpose_plan_create(&plan, rank, shape, axes, elem_bytes, in_strides, NULL));
  CHECK(plan != NULL, "%s: no plan", what);
  if (plan != NULL) {
    for (threads = 0; threads <= 2; threads += 2) {
      memset(got, 0xEE, (size_t)(out_elems * elem_bytes));
      EXPECT_OK(xpose_plan_execute_host(plan, in, got, threads));
      CHECK(memcmp(got, want, (size_t)(out_elems * elem_bytes)) == 0, "%s, %d threads: output differs", what,
            threads);
      CHECK(xpose_last_error_message()[0] == '\0', "%s: message not empty after success", what);
    }
  }
  /* The one-shot call does the same. */
  memset(got, 0xEE, (size_t)(out_elems * elem_bytes));
  EXPECT_OK(xpose_permute_host(in, got, rank, shape, axes, elem_bytes, in_strides, NULL, 1));
  CHECK(memcmp(got, want, (size_t)(out_elems * elem_bytes)) == 0, "%s, xpose_permute_host: output differs", what);
  xpose_plan_destroy(plan);
  free(in);
  free(got);
  free(want);
}

static void test_transpose_2d(void) {
  static const int sizes[] = {1, 2, 3, 4, 8, 12, 16};
  const int64_t shape[2] = {37, 53};
  const int64_t axes[2] = {1, 0};
  size_t s;
  for (s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
    const int eb = sizes[s];
    char what[64];
    unsigned char *in, *got, *want;
    sprintf(what, "37 x 53 transpose of %d-byte elements", eb);
    check_plan(2, shape, axes, eb, NULL, 37 * 53, 37 * 53, what);
    check_plan(2, shape, NULL, eb, NULL, 37 * 53, 37 * 53, what); /* NULL axes: reversed, the same here */
    /* xpose_transpose_host is the same transpose. */
    in = alloc_bytes(37 * 53 * eb);
    got = alloc_bytes(37 * 53 * eb);
    want = alloc_bytes(37 * 53 * eb);
    fill(in, 37 * 53, eb);
    reference_permute(2, shape, axes, eb, NULL, NULL, in, want);
    EXPECT_OK(xpose_transpose_host(in, got, 37, 53, eb, 0));
    CHECK(memcmp(got, want, (size_t)(37 * 53 * eb)) == 0, "%s: xpose_transpose_host output differs", what);
    free(in);
    free(got);
    free(want);
  }
}

static void test_nchw_to_nhwc_and_describe(void) {
  const int64_t shape[4] = {2, 3, 4, 5};
  const int64_t axes[4] = {0, 2, 3, 1};
  xpose_plan plan = NULL;
  char text[4096], small[8];
  size_t needed = 0, needed_small = 0;
  int64_t bytes = -1;
  check_plan(4, shape, axes, 4, NULL, 120, 120, "NCHW -> NHWC 2x3x4x5 float");
  check_plan(4, shape, axes, 3, NULL, 120, 120, "NCHW -> NHWC 2x3x4x5 of 3-byte pixels");

  EXPECT_OK(xpose_plan_create(&plan, 4, shape, axes, 4, NULL, NULL));
  if (plan == NULL) return;
  EXPECT_OK(xpose_plan_bytes_moved(plan, &bytes));
  CHECK(bytes == 2 * 120 * 4, "bytes_moved = %ld, want 960", (long)bytes);
  /* Size query, then the whole text: the C++ operator<< printout. */
  EXPECT_OK(xpose_plan_describe(plan, NULL, 0, &needed));
  CHECK(needed > 1 && needed <= sizeof text, "needed = %lu", (unsigned long)needed);
  EXPECT_OK(xpose_plan_describe(plan, text, sizeof text, &needed));
  CHECK(strlen(text) + 1 == needed, "strlen %lu + 1 != needed %lu", (unsigned long)strlen(text),
        (unsigned long)needed);
  CHECK(strncmp(text, "xpose::plan transpose2d", 23) == 0, "describe: \"%s\"", text);
  CHECK(strstr(text, "shape [2, 3, 4, 5] axes [0, 2, 3, 1] elem_bytes 4") != NULL, "describe: \"%s\"", text);
  CHECK(strstr(text, "moves:     960 bytes") != NULL, "describe: \"%s\"", text);
  /* Truncated: at most size bytes, NUL-terminated, the text's prefix; needed still the whole size. */
  memset(small, 'x', sizeof small);
  EXPECT_OK(xpose_plan_describe(plan, small, sizeof small, &needed_small));
  CHECK(needed_small == needed, "truncated call reports needed = %lu", (unsigned long)needed_small);
  CHECK(small[7] == '\0' && strncmp(small, text, 7) == 0, "truncated text \"%.8s\"", small);
  xpose_plan_destroy(plan);
}

static void test_views(void) {
  /* A 6 x 10 window of a matrix with 16 elements a row (pitched, in_strides = {ld, 1}). */
  const int64_t shape[2] = {6, 10};
  const int64_t pitched[2] = {16, 1};
  /* Every other column of that matrix: no unit-stride axis on the input side. */
  const int64_t every_other[2] = {20, 2};
  const int64_t out_pitched[2] = {8, 1};
  unsigned char in[6 * 16 * 8], got[10 * 8 * 8], want[10 * 8 * 8];
  check_plan(2, shape, NULL, 4, pitched, 6 * 16, 60, "pitched 6 x 10 view (ld 16) transposed, float");
  check_plan(2, shape, NULL, 3, pitched, 6 * 16, 60, "pitched 6 x 10 view (ld 16) transposed, 3-byte");
  check_plan(2, shape, NULL, 8, every_other, 6 * 20, 60, "6 x 10 view of every other column (ld 20), 8-byte");
  /* A pitched output too (out_strides in output order): the gaps between output rows keep their bytes. */
  fill(in, 6 * 16, 8);
  memset(got, 0xEE, sizeof got);
  memset(want, 0xEE, sizeof want);
  reference_permute(2, shape, NULL, 8, pitched, out_pitched, in, want);
  EXPECT_OK(xpose_permute_host(in, got, 2, shape, NULL, 8, pitched, out_pitched, 0));
  CHECK(memcmp(got, want, sizeof got) == 0, "pitched in and out: output (or the gaps) differ");
}

static void test_scalar_and_empty(void) {
  const double in = 2.5;
  double out = 0.0;
  const int64_t empty[2] = {0, 7};
  /* Rank 0: a scalar, shape may be NULL. */
  EXPECT_OK(xpose_permute_host(&in, &out, 0, NULL, NULL, 8, NULL, NULL, 0));
  CHECK(out == 2.5, "scalar copy gave %g", out);
  /* An empty problem accepts null buffers and does nothing. */
  EXPECT_OK(xpose_permute_host(NULL, NULL, 2, empty, NULL, 4, NULL, NULL, 0));
}

/* ---- in place ------------------------------------------------------------------------------------------ */

/* `batch` rows x cols matrices with ld and batch_stride (0 = packed), transposed in place by a plan and, when
 * packed and single, by the one-shot call; compared with the out-of-place reference of each matrix. */
static void check_inplace(int64_t rows, int64_t cols, int eb, int64_t batch, int64_t ld, int64_t batch_stride,
                          const char* what) {
  const int64_t eld = ld != 0 ? ld : cols;
  const int64_t ebs = batch_stride != 0 ? batch_stride : rows * eld;
  const long span = (long)(batch > 0 ? (batch - 1) * ebs + rows * eld : 0);
  const int64_t out_ld = rows == cols ? eld : rows;
  unsigned char* data = alloc_bytes(span * eb);
  unsigned char* want = alloc_bytes(span * eb);
  xpose_inplace_plan plan = NULL;
  int64_t ws = -1, b;
  char text[1024];
  size_t needed = 0;
  fill(data, span, eb);
  memcpy(want, data, (size_t)(span * eb)); /* gaps between rows and matrices keep their bytes */
  for (b = 0; b < batch; ++b) {
    const int64_t shape[2] = {rows, cols};
    const int64_t in_strides[2] = {eld, 1};
    const int64_t out_strides[2] = {out_ld, 1};
    reference_permute(2, shape, NULL, eb, in_strides, out_strides, data + b * ebs * eb, want + b * ebs * eb);
  }
  EXPECT_OK(xpose_inplace_plan_create(&plan, rows, cols, eb, batch, ld, batch_stride));
  CHECK(plan != NULL, "%s: no plan", what);
  if (plan != NULL) {
    EXPECT_OK(xpose_inplace_plan_workspace_bytes(plan, &ws));
    CHECK(ws >= 0 && (rows != cols || ws == 0), "%s: workspace_bytes = %ld", what, (long)ws);
    EXPECT_OK(xpose_inplace_plan_describe(plan, text, sizeof text, &needed));
    CHECK(strncmp(text, "xpose::inplace_plan", 19) == 0 &&
              (rows == cols ? strstr(text, "square:") != NULL
                            : (strstr(text, "shuffle:") != NULL || strstr(text, "tile_cycles:") != NULL ||
                               strstr(text, "skinny_cycles:") != NULL || strstr(text, "near_square:") != NULL ||
                               strstr(text, "staged:") != NULL)),
          "%s: describe \"%s\"", what, text);
    EXPECT_OK(xpose_inplace_plan_execute_host(plan, data, 0));
    CHECK(memcmp(data, want, (size_t)(span * eb)) == 0, "%s: plan output differs", what);
    xpose_inplace_plan_destroy(plan);
  }
  if (batch == 1 && ld == 0) {
    int64_t ws1 = -1;
    fill(data, span, eb);
    EXPECT_OK(xpose_transpose_inplace_host(data, rows, cols, eb, 2));
    CHECK(memcmp(data, want, (size_t)(span * eb)) == 0, "%s: one-shot output differs", what);
    EXPECT_OK(xpose_transpose_inplace_workspace_bytes(rows, cols, eb, &ws1));
    CHECK(ws1 == ws, "%s: one-shot workspace %ld != plan's %ld", what, (long)ws1, (long)ws);
  }
  free(data);
  free(want);
}

static void test_inplace(void) {
  check_inplace(7, 12, 4, 1, 0, 0, "in place 7 x 12 float");
  check_inplace(12, 7, 8, 1, 0, 0, "in place 12 x 7 double");
  check_inplace(5, 9, 3, 1, 0, 0, "in place 5 x 9 of 3-byte pixels");
  check_inplace(16, 16, 2, 1, 0, 0, "in place square 16 x 16 of 2 bytes");
  check_inplace(13, 13, 4, 3, 20, 13 * 20 + 5, "in place 3 pitched squares 13 x 13 (ld 20, batch_stride 265)");
  check_inplace(6, 10, 1, 4, 0, 0, "in place batch of 4 6 x 10 bytes");
}

/* ---- errors: the C layer's own, then the C++ ones passed through ------------------------------------------ */

static void test_c_level_errors(void) {
  const int64_t shape[2] = {3, 4};
  float in[12] = {0}, out[12] = {0};
  xpose_plan plan = NULL;
  xpose_inplace_plan ip = NULL;
  int64_t bytes = 0;
  size_t needed = 0;
  char buf[16];
  static int not_a_plan;

  EXPECT_STATUS(xpose_plan_create(NULL, 2, shape, NULL, 4, NULL, NULL), XPOSE_INVALID_ARGUMENT, "plan is null");
  plan = (xpose_plan)(void*)&not_a_plan; /* a failed create must set the handle to NULL */
  EXPECT_STATUS(xpose_plan_create(&plan, -1, shape, NULL, 4, NULL, NULL), XPOSE_INVALID_ARGUMENT,
                "rank = -1 is negative");
  CHECK(plan == NULL, "a failed xpose_plan_create left the handle non-null");
  EXPECT_STATUS(xpose_plan_create(&plan, 2, NULL, NULL, 4, NULL, NULL), XPOSE_INVALID_ARGUMENT,
                "shape is null but rank = 2");
  /* rank > 8: the planner's error, passed through (the arrays are not read). */
  EXPECT_STATUS(xpose_plan_create(&plan, 9, NULL, NULL, 4, NULL, NULL), XPOSE_INVALID_ARGUMENT,
                "shape has 9 axes; xpose supports at most 8");
  EXPECT_STATUS(xpose_plan_create(&plan, 100000, NULL, NULL, 4, NULL, NULL), XPOSE_INVALID_ARGUMENT,
                "rank = 100000");
  EXPECT_STATUS(xpose_permute_host(in, out, -2, shape, NULL, 4, NULL, NULL, 0), XPOSE_INVALID_ARGUMENT, "rank");
  EXPECT_STATUS(xpose_permute_host(in, out, 1, NULL, NULL, 4, NULL, NULL, 0), XPOSE_INVALID_ARGUMENT, "shape");
  EXPECT_STATUS(xpose_permute(in, out, 1, NULL, NULL, 4, NULL, NULL, NULL), XPOSE_INVALID_ARGUMENT, "shape");

  /* Null plan handles. */
  EXPECT_STATUS(xpose_plan_execute(NULL, in, out, NULL), XPOSE_INVALID_ARGUMENT, "plan is null");
  EXPECT_STATUS(xpose_plan_execute_host(NULL, in, out, 0), XPOSE_INVALID_ARGUMENT, "plan is null");
  EXPECT_STATUS(xpose_plan_bytes_moved(NULL, &bytes), XPOSE_INVALID_ARGUMENT, "plan is null");
  EXPECT_STATUS(xpose_plan_describe(NULL, buf, sizeof buf, &needed), XPOSE_INVALID_ARGUMENT, "plan is null");
  EXPECT_STATUS(xpose_inplace_plan_workspace_bytes(NULL, &bytes), XPOSE_INVALID_ARGUMENT, "plan is null");
  EXPECT_STATUS(xpose_inplace_plan_execute(NULL, in, NULL, 0, NULL), XPOSE_INVALID_ARGUMENT, "plan is null");
  EXPECT_STATUS(xpose_inplace_plan_execute_host(NULL, in, 0), XPOSE_INVALID_ARGUMENT, "plan is null");
  EXPECT_STATUS(xpose_inplace_plan_describe(NULL, buf, sizeof buf, &needed), XPOSE_INVALID_ARGUMENT,
                "plan is null");
  xpose_plan_destroy(NULL);
  xpose_inplace_plan_destroy(NULL);

  /* Null out-pointers of queries. */
  EXPECT_OK(xpose_plan_create(&plan, 2, shape, NULL, 4, NULL, NULL));
  EXPECT_STATUS(xpose_plan_bytes_moved(plan, NULL), XPOSE_INVALID_ARGUMENT, "bytes is null");
  EXPECT_STATUS(xpose_plan_describe(plan, buf, sizeof buf, NULL), XPOSE_INVALID_ARGUMENT, "needed is null");
  EXPECT_STATUS(xpose_plan_describe(plan, NULL, 16, &needed), XPOSE_INVALID_ARGUMENT, "buf is null but size = 16");
  xpose_plan_destroy(plan);

  ip = (xpose_inplace_plan)(void*)&not_a_plan;
  EXPECT_STATUS(xpose_inplace_plan_create(NULL, 3, 4, 4, 1, 0, 0), XPOSE_INVALID_ARGUMENT, "plan is null");
  EXPECT_STATUS(xpose_inplace_plan_create(&ip, -3, 4, 4, 1, 0, 0), XPOSE_INVALID_ARGUMENT, "rows = -3");
  CHECK(ip == NULL, "a failed xpose_inplace_plan_create left the handle non-null");
  EXPECT_OK(xpose_inplace_plan_create(&ip, 3, 4, 4, 1, 0, 0));
  EXPECT_STATUS(xpose_inplace_plan_workspace_bytes(ip, NULL), XPOSE_INVALID_ARGUMENT, "bytes is null");
  EXPECT_STATUS(xpose_inplace_plan_describe(ip, buf, sizeof buf, NULL), XPOSE_INVALID_ARGUMENT, "needed is null");
  xpose_inplace_plan_destroy(ip);
  EXPECT_STATUS(xpose_transpose_inplace_workspace_bytes(3, 4, 4, NULL), XPOSE_INVALID_ARGUMENT, "bytes is null");
}

static void test_cpp_errors_pass_through(void) {
  const int64_t shape[2] = {3, 4};
  const int64_t negative[2] = {3, -3};
  const int64_t repeated[2] = {0, 0};
  float in[12] = {0}, out[12] = {0};
  xpose_plan plan = NULL;
  xpose_inplace_plan ip = NULL;
  int64_t bytes = -7;

  EXPECT_STATUS(xpose_plan_create(&plan, 2, negative, NULL, 4, NULL, NULL), XPOSE_INVALID_ARGUMENT,
                "shape[1] = -3 is negative");
  EXPECT_STATUS(xpose_plan_create(&plan, 2, shape, repeated, 4, NULL, NULL), XPOSE_INVALID_ARGUMENT,
                "axes[1] = 0 repeats input axis 0");
  EXPECT_STATUS(xpose_plan_create(&plan, 2, shape, NULL, 0, NULL, NULL), XPOSE_INVALID_ARGUMENT, "elem_bytes");
  EXPECT_STATUS(xpose_permute_host(in, out, 2, shape, NULL, 4, NULL, negative, 0), XPOSE_INVALID_ARGUMENT,
                "out_strides[1] = -3");

  EXPECT_OK(xpose_plan_create(&plan, 2, shape, NULL, 4, NULL, NULL));
  EXPECT_STATUS(xpose_plan_execute_host(plan, NULL, out, 0), XPOSE_INVALID_ARGUMENT, "in is null");
  EXPECT_STATUS(xpose_plan_execute_host(plan, in, NULL, 0), XPOSE_INVALID_ARGUMENT, "out is null");
  EXPECT_STATUS(xpose_plan_execute_host(plan, in, in + 11, 0), XPOSE_INVALID_ARGUMENT, "in and out overlap");
  EXPECT_STATUS(xpose_plan_execute_host(plan, in, out, -1), XPOSE_INVALID_ARGUMENT, "threads = -1 is negative");
  /* The message is cleared by the next success. */
  EXPECT_OK(xpose_plan_execute_host(plan, in, out, 1));
  CHECK(strcmp(xpose_last_error_message(), "") == 0, "message after success: \"%s\"", xpose_last_error_message());
  xpose_plan_destroy(plan);

  EXPECT_STATUS(xpose_transpose_host(in, out, -1, 4, 4, 0), XPOSE_INVALID_ARGUMENT, "shape[0] = -1");
  EXPECT_STATUS(xpose_inplace_plan_create(&ip, 3, 4, 0, 1, 0, 0), XPOSE_INVALID_ARGUMENT, "elem_bytes");
  EXPECT_STATUS(xpose_inplace_plan_create(&ip, 4, 4, 4, 1, 3, 0), XPOSE_INVALID_ARGUMENT, "ld = 3");
  EXPECT_STATUS(xpose_transpose_inplace_host(NULL, 3, 4, 4, 0), XPOSE_INVALID_ARGUMENT, "data is null");
  EXPECT_STATUS(xpose_transpose_inplace_host(in, 3, 4, 4, -5), XPOSE_INVALID_ARGUMENT, "threads = -5");
  EXPECT_STATUS(xpose_transpose_inplace_workspace_bytes(3, -4, 4, &bytes), XPOSE_INVALID_ARGUMENT, "cols = -4");
  CHECK(bytes == -7, "a failed workspace query wrote %ld", (long)bytes);
}

/* GPU entry points given host memory must fail with a status, never crash: without CUDA they are
 * unsupported; in a CUDA build the pointer check refuses host memory (invalid_argument), or, on a machine
 * without a usable device, the CUDA pointer query itself fails (cuda_error). */
static void expect_gpu_refusal(xpose_status got, const char* what, int line) {
  const char* msg = xpose_last_error_message();
  int ok;
#if XPOSE_TEST_HAS_CUDA
  ok = (got == XPOSE_INVALID_ARGUMENT || got == XPOSE_CUDA_ERROR) && msg[0] != '\0';
#else
  ok = got == XPOSE_UNSUPPORTED && strstr(msg, "built without CUDA") != NULL;
#endif
  ++checks;
  if (!ok) {
    ++failures;
    fprintf(stderr, "%s:%d: FAILED: %s on host memory: got %s \"%s\"\n", __FILE__, line, what,
            xpose_status_string(got), msg);
  }
}
#define EXPECT_GPU_REFUSAL(call) expect_gpu_refusal((call), #call, __LINE__)

static void test_gpu_calls_on_host_memory(void) {
  const int64_t shape[2] = {3, 4};
  float in[12] = {0}, out[12] = {0};
  xpose_plan plan = NULL;
  xpose_inplace_plan ip = NULL;
  EXPECT_OK(xpose_plan_create(&plan, 2, shape, NULL, 4, NULL, NULL));
  EXPECT_GPU_REFUSAL(xpose_plan_execute(plan, in, out, NULL));
  xpose_plan_destroy(plan);
  EXPECT_GPU_REFUSAL(xpose_transpose(in, out, 3, 4, 4, NULL));
  EXPECT_GPU_REFUSAL(xpose_transpose_batched(in, out, 1, 3, 4, 4, NULL));
  EXPECT_GPU_REFUSAL(xpose_permute(in, out, 2, shape, NULL, 4, NULL, NULL, NULL));
  EXPECT_OK(xpose_inplace_plan_create(&ip, 3, 3, 4, 1, 0, 0));
  EXPECT_GPU_REFUSAL(xpose_inplace_plan_execute(ip, in, NULL, 0, NULL));
  xpose_inplace_plan_destroy(ip);
  EXPECT_GPU_REFUSAL(xpose_transpose_inplace(in, 3, 3, 4, NULL, 0, NULL));
  CHECK(out[0] == 0.0f && in[0] == 0.0f, "a refused GPU call touched host memory");
}

static void test_strings(void) {
  char version[32];
  CHECK(strcmp(xpose_status_string(XPOSE_SUCCESS), "success") == 0, "status string");
  CHECK(strcmp(xpose_status_string(XPOSE_INVALID_ARGUMENT), "invalid_argument") == 0, "status string");
  CHECK(strcmp(xpose_status_string(XPOSE_UNSUPPORTED), "unsupported") == 0, "status string");
  CHECK(strcmp(xpose_status_string(XPOSE_MISALIGNED), "misaligned") == 0, "status string");
  CHECK(strcmp(xpose_status_string(XPOSE_OUT_OF_MEMORY), "out_of_memory") == 0, "status string");
  CHECK(strcmp(xpose_status_string(XPOSE_CUDA_ERROR), "cuda_error") == 0, "status string");
  CHECK(strcmp(xpose_status_string(XPOSE_INTERNAL), "internal") == 0, "status string");
  CHECK(strcmp(xpose_status_string((xpose_status)42), "unknown") == 0, "status string of 42");
  CHECK(strcmp(xpose_status_string((xpose_status)-1), "unknown") == 0, "status string of -1");
  sprintf(version, "%d.%d.%d", XPOSE_VERSION_MAJOR, XPOSE_VERSION_MINOR, XPOSE_VERSION_PATCH);
  CHECK(strcmp(version, XPOSE_VERSION_STRING) == 0, "macros %s vs XPOSE_VERSION_STRING %s", version,
        XPOSE_VERSION_STRING);
  CHECK(strcmp(xpose_version_string(), XPOSE_VERSION_STRING) == 0, "library %s, header %s",
        xpose_version_string(), XPOSE_VERSION_STRING);
  CHECK(XPOSE_VERSION == XPOSE_VERSION_MAJOR * 10000 + XPOSE_VERSION_MINOR * 100 + XPOSE_VERSION_PATCH,
        "XPOSE_VERSION");
}

int main(void) {
  test_strings();
  test_transpose_2d();
  test_nchw_to_nhwc_and_describe();
  test_views();
  test_scalar_and_empty();
  test_inplace();
  test_c_level_errors();
  test_cpp_errors_pass_through();
  test_gpu_calls_on_host_memory();
  printf("test_c_api (xpose %s, %s): %d checks, %d failed\n", xpose_version_string(),
         XPOSE_TEST_HAS_CUDA ? "CUDA build" : "host-only build", checks, failures);
  return failures == 0 ? 0 : 1;
}
