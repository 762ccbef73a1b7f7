/* xpose — the C API: transposes and axis permutations from C (C99) and from anything that calls C (Fortran
 * through src/fortran/xpose.f90, Python ctypes, Julia, ...). Also includable from C++.
 *
 *   int64_t shape[4] = {32, 64, 112, 112}, axes[4] = {0, 2, 3, 1};    // NCHW -> NHWC
 *   xpose_plan plan;
 *   if (xpose_plan_create(&plan, 4, shape, axes, 4, NULL, NULL) != XPOSE_SUCCESS) {
 *     fprintf(stderr, "%s\n", xpose_last_error_message());             // "axes[2] = 7 is out of range ..."
 *     return;
 *   }
 *   xpose_plan_execute(plan, d_in, d_out, stream);                      // GPU, stream-ordered
 *   xpose_plan_execute_host(plan, in, out, 0);                          // CPU, all hardware threads
 *   xpose_plan_destroy(plan);
 *
 * Everything here forwards to the C++ API and means exactly what it means there: the axes convention and
 * strides in include/xpose/problem.hpp, plans in plan.hpp, one-shot calls in permute.hpp, in-place
 * transposes in inplace.hpp. Arrays are row-major (C order); column-major callers reverse the shape (the
 * Fortran module does it for them).
 *
 * ## Errors
 * Every function that can fail returns an `xpose_status` and records a message naming the argument at fault
 * (`shape[1] = -3 is negative`, `plan is null`, ...), read with xpose_last_error_message(). The codes and the
 * messages of the C++ API pass through unchanged (docs/errors.md); the C layer adds its own checks of the
 * pointers it dereferences (a null `plan` out-pointer, a null `shape` with rank > 0, a null plan handle, a
 * null `needed` or `bytes`), listed in docs/errors.md as well. No function aborts, exits or lets a C++
 * exception escape: an allocation failure is XPOSE_OUT_OF_MEMORY, any other exception XPOSE_INTERNAL with its
 * text. A failed call leaves its outputs untouched, except that a plan out-pointer is set to NULL.
 *
 * ## Threads
 * Plans are immutable: one plan may be executed from several threads at once. Destroying a plan must not
 * race with its use. The last error message is per thread.
 *
 * ## Streams
 * `xpose_stream` is `cudaStream_t` under another name (both are `struct CUstream_st*`), so CUDA streams pass
 * without a cast and this header needs no CUDA header. NULL is the legacy default stream. GPU entry points
 * are stream-ordered: they never synchronize and never allocate; errors of the kernels themselves surface at
 * the caller's next synchronizing CUDA call. Every other function (planning, queries, the _host calls) runs
 * on the calling thread and returns when it is done.
 */
#ifndef XPOSE_XPOSE_H
#define XPOSE_XPOSE_H

#include <stddef.h>
#include <stdint.h>

/* The same values as include/xpose/version.hpp (identical redefinitions, so both headers may be included). */
#define XPOSE_VERSION_MAJOR 0
#define XPOSE_VERSION_MINOR 1
#define XPOSE_VERSION_PATCH 0
#define XPOSE_VERSION_STRING "0.1.0"
/* MAJOR * 10000 + MINOR * 100 + PATCH, for preprocessor comparisons. */
#define XPOSE_VERSION (XPOSE_VERSION_MAJOR * 10000 + XPOSE_VERSION_MINOR * 100 + XPOSE_VERSION_PATCH)

#ifdef __cplusplus
extern "C" {
#endif

/* ---- status ------------------------------------------------------------------------------------------- */

/** Error categories: the numeric values of `xpose::status_code` (include/xpose/status.hpp), never changed. */
typedef enum xpose_status {
  XPOSE_SUCCESS = 0,
  XPOSE_INVALID_ARGUMENT = 1, /**< a null pointer, bad axes, negative or overflowing extents, overlapping buffers */
  XPOSE_UNSUPPORTED = 2,      /**< a valid request this build cannot execute (e.g. GPU calls without CUDA) */
  XPOSE_MISALIGNED = 3,       /**< a pointer or stride violates an alignment the chosen path needs */
  XPOSE_OUT_OF_MEMORY = 4,    /**< an allocation failed */
  XPOSE_CUDA_ERROR = 5,       /**< the CUDA runtime reported an error (the message carries its text) */
  XPOSE_INTERNAL = 6          /**< a bug in xpose: please report it with the message */
} xpose_status;

/** The name of a status code: "success", "invalid_argument", ...; "unknown" for any other value. The string
 *  is static. Never fails; does not change the last error message. */
const char* xpose_status_string(xpose_status status);

/** The message of the most recent call on the calling thread that returned an `xpose_status`: the C++
 *  message naming the argument at fault, or the empty string after a success. Never NULL. Valid until the
 *  next such call on this thread; copy it to keep it. Does not itself change the message. */
const char* xpose_last_error_message(void);

/** "MAJOR.MINOR.PATCH" of the library linked, which may differ from XPOSE_VERSION_STRING of the header
 *  compiled against. Static string; never fails. */
const char* xpose_version_string(void);

/* ---- streams and plans ------------------------------------------------------------------------------------ */

/** A CUDA stream: `cudaStream_t` (`struct CUstream_st*`); NULL is the legacy default stream. */
typedef struct CUstream_st* xpose_stream;

/** An immutable plan for one out-of-place permutation (C++ `xpose::plan`). Holds no data pointers. */
typedef struct xpose_plan_t* xpose_plan;

/** Validates a problem, canonicalizes it and chooses an algorithm (C++ `xpose::make_plan`): out =
 *  numpy.transpose(in, axes) on arrays of `elem_bytes`-byte elements. Pure host code: no CUDA call.
 *
 *  @param plan        receives the new plan (NULL on failure); free it with xpose_plan_destroy
 *  @param rank        number of axes, 0 (a scalar) to 8
 *  @param shape       `rank` input extents, slowest axis first; may be NULL when rank == 0
 *  @param axes        `rank` entries: output axis i takes input axis axes[i] (negative counts from the end);
 *                     NULL = reversed, i.e. a full transpose
 *  @param elem_bytes  element size in bytes, any value >= 1 (3-byte pixels included)
 *  @param in_strides  `rank` strides of the input axes, in elements; NULL = packed row-major
 *  @param out_strides `rank` strides of the *output* axes (output order), in elements; NULL = packed
 *  @return XPOSE_INVALID_ARGUMENT for a null `plan`, a negative `rank` or a null `shape` with rank > 0
 *          (checked here), and every planner error (rank > 8 among them) with its message; see
 *          docs/errors.md. XPOSE_UNSUPPORTED for a valid problem no executor handles.
 *  The arrays are read during the call only. With rank > 8 none of them is read. */
xpose_status xpose_plan_create(xpose_plan* plan, int rank, const int64_t* shape, const int64_t* axes,
                               int64_t elem_bytes, const int64_t* in_strides, const int64_t* out_strides);

/** Runs the plan on the current CUDA device, ordered on `stream`. Never synchronizes, never allocates.
 *  @param d_in, d_out device (or managed, or pinned) memory of the input and output views; may be NULL when
 *                     the problem is empty
 *  @return XPOSE_INVALID_ARGUMENT: a null `plan`, null or overlapping buffers, a host pointer unknown to CUDA;
 *          XPOSE_UNSUPPORTED: built without CUDA; XPOSE_CUDA_ERROR: a CUDA call failed (also when no usable
 *          device exists: the pointer query fails first), the message says which.
 *  @note Asynchronous: errors of the kernel itself surface at the next synchronizing call. */
xpose_status xpose_plan_execute(xpose_plan plan, const void* d_in, void* d_out, xpose_stream stream);

/** Runs the plan on host memory with `threads` threads (0 = all hardware threads; more than the hardware has
 *  are not started). Synchronous.
 *  @return XPOSE_INVALID_ARGUMENT: a null `plan`, null or overlapping buffers, negative `threads`, device
 *          memory (CUDA builds). Checked before any memory is touched. */
xpose_status xpose_plan_execute_host(xpose_plan plan, const void* in, void* out, int threads);

/** Frees a plan. NULL is accepted and ignored. Never fails; does not change the last error message. */
void xpose_plan_destroy(xpose_plan plan);

/** Bytes one execution reads plus writes (the numerator of effective bandwidth).
 *  @param bytes receives the count
 *  @return XPOSE_INVALID_ARGUMENT for a null `plan` or `bytes`. */
xpose_status xpose_plan_bytes_moved(xpose_plan plan, int64_t* bytes);

/** The plan's description, the text of C++ `operator<<` (problem, canonical form, geometry, bytes moved),
 *  in the manner of snprintf: at most `size` bytes are written, always NUL-terminated when size > 0
 *  (truncated if need be), and `*needed` is the size the whole text needs, its terminating NUL included.
 *  Call with buf = NULL, size = 0 to learn the size.
 *  @return XPOSE_INVALID_ARGUMENT for a null `plan` or `needed`, or a null `buf` with size > 0.
 *          Truncation is not an error: compare *needed with size. */
xpose_status xpose_plan_describe(xpose_plan plan, char* buf, size_t size, size_t* needed);

/* ---- one-shot calls (plan, execute, discard; permute.hpp) ------------------------------------------------- */

/** out = numpy.transpose(in, axes) on the GPU, ordered on `stream`. Arguments and errors as
 *  xpose_plan_create followed by xpose_plan_execute (without the plan handle's). Stream-ordered. */
xpose_status xpose_permute(const void* d_in, void* d_out, int rank, const int64_t* shape, const int64_t* axes,
                           int64_t elem_bytes, const int64_t* in_strides, const int64_t* out_strides,
                           xpose_stream stream);

/** The same on host memory with `threads` threads (0 = all). Errors as xpose_plan_create followed by
 *  xpose_plan_execute_host. Synchronous. */
xpose_status xpose_permute_host(const void* in, void* out, int rank, const int64_t* shape, const int64_t* axes,
                                int64_t elem_bytes, const int64_t* in_strides, const int64_t* out_strides,
                                int threads);

/** A packed `rows x cols` matrix -> `cols x rows` on the GPU. Errors as xpose_permute. Stream-ordered. */
xpose_status xpose_transpose(const void* d_in, void* d_out, int64_t rows, int64_t cols, int64_t elem_bytes,
                             xpose_stream stream);

/** `batch x rows x cols` -> `batch x cols x rows`, packed, on the GPU. Errors as xpose_permute.
 *  Stream-ordered. */
xpose_status xpose_transpose_batched(const void* d_in, void* d_out, int64_t batch, int64_t rows, int64_t cols,
                                     int64_t elem_bytes, xpose_stream stream);

/** A packed `rows x cols` matrix -> `cols x rows` on host memory with `threads` threads (0 = all).
 *  Errors as xpose_permute_host. Synchronous. */
xpose_status xpose_transpose_host(const void* in, void* out, int64_t rows, int64_t cols, int64_t elem_bytes,
                                  int threads);

/* ---- in place (inplace.hpp) ---------------------------------------------------------------------------- */

/** An immutable plan for in-place transposes of `batch` matrices (C++ `xpose::inplace_plan`). */
typedef struct xpose_inplace_plan_t* xpose_inplace_plan;

/** Validates an in-place problem and chooses the algorithm (C++ `xpose::make_inplace_plan`). Pure host code.
 *  Element (r, c) of matrix b starts at byte (b * batch_stride + r * ld + c) * elem_bytes before, and
 *  element (c, r) of the transposed matrix at (b * batch_stride + c * ld' + r) * elem_bytes after, with
 *  ld' = ld for squares and ld' = rows otherwise.
 *  @param plan         receives the new plan (NULL on failure); free it with xpose_inplace_plan_destroy
 *  @param rows, cols   the matrix before the transpose (>= 0)
 *  @param elem_bytes   element size, any value >= 1
 *  @param batch        number of matrices (>= 0; 1 for a single matrix)
 *  @param ld           elements between rows; 0 = cols. ld > cols (pitched) needs rows == cols
 *  @param batch_stride elements between matrices; 0 = rows * ld
 *  @return XPOSE_INVALID_ARGUMENT for a null `plan` and every planner error (docs/errors.md). */
xpose_status xpose_inplace_plan_create(xpose_inplace_plan* plan, int64_t rows, int64_t cols, int64_t elem_bytes,
                                       int64_t batch, int64_t ld, int64_t batch_stride);

/** Device workspace xpose_inplace_plan_execute needs: 0 for squares and vectors, never more than
 *  max(max(rows, cols) * elem_bytes, 32 MiB) + 256 bytes (inplace.hpp).
 *  @return XPOSE_INVALID_ARGUMENT for a null `plan` or `bytes`. */
xpose_status xpose_inplace_plan_workspace_bytes(xpose_inplace_plan plan, int64_t* bytes);

/** Transposes in place on the current CUDA device, ordered on `stream`. Never allocates, never synchronizes.
 *  @param d_data          the matrices (device, managed or pinned memory)
 *  @param d_workspace     at least workspace_bytes of device memory not overlapping d_data; NULL when the
 *                         plan needs none. Its content on entry does not matter; on return it is unspecified.
 *  @param workspace_bytes the size of d_workspace
 *  @return XPOSE_INVALID_ARGUMENT: a null `plan`, a null or host `d_data`, a workspace that is null, too small
 *          or overlapping; XPOSE_UNSUPPORTED: built without CUDA; XPOSE_CUDA_ERROR. */
xpose_status xpose_inplace_plan_execute(xpose_inplace_plan plan, void* d_data, void* d_workspace,
                                        int64_t workspace_bytes, xpose_stream stream);

/** Transposes host memory in place with `threads` threads (0 = all). Synchronous; allocates
 *  O(max(rows, cols)) bytes per thread.
 *  @return XPOSE_INVALID_ARGUMENT: a null `plan`, null or device `data`, negative `threads`;
 *          XPOSE_OUT_OF_MEMORY. */
xpose_status xpose_inplace_plan_execute_host(xpose_inplace_plan plan, void* data, int threads);

/** The plan's description (C++ `operator<<`), written as by xpose_plan_describe and with its errors. */
xpose_status xpose_inplace_plan_describe(xpose_inplace_plan plan, char* buf, size_t size, size_t* needed);

/** Frees an in-place plan. NULL is accepted and ignored. Never fails; does not change the last error message. */
void xpose_inplace_plan_destroy(xpose_inplace_plan plan);

/** One-shot GPU transpose of a packed rows x cols matrix in place; errors as xpose_inplace_plan_create and
 *  xpose_inplace_plan_execute. Stream-ordered. */
xpose_status xpose_transpose_inplace(void* d_data, int64_t rows, int64_t cols, int64_t elem_bytes,
                                     void* d_workspace, int64_t workspace_bytes, xpose_stream stream);

/** Device workspace xpose_transpose_inplace needs for this shape (0 for squares and vectors).
 *  @return XPOSE_INVALID_ARGUMENT for a null `bytes` and every planner error. */
xpose_status xpose_transpose_inplace_workspace_bytes(int64_t rows, int64_t cols, int64_t elem_bytes,
                                                     int64_t* bytes);

/** One-shot host transpose of a packed rows x cols matrix in place; errors as xpose_inplace_plan_create and
 *  xpose_inplace_plan_execute_host. Synchronous. */
xpose_status xpose_transpose_inplace_host(void* data, int64_t rows, int64_t cols, int64_t elem_bytes, int threads);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif /* XPOSE_XPOSE_H */
