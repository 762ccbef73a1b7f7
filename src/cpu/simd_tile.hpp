// The register micro-kernels shared by every SIMD level, written once against a small vector interface
// (`Isa` below) and compiled once per level: microkernels_{sse2,avx2,avx512}.cpp each define the interface
// with their intrinsics and include this file inside their own namespace, so that no inline function of a
// higher level is ever merged (ODR) into code that runs on a lower one. Include only from those files, and
// only after <cstdint> and <cstring>.
//
// The transpose of a block of U-byte units (U = 1, 2, 4, 8, 16) in registers, L = Isa::lanes 128-bit lanes
// per vector, n = 16 / U units per lane:
//
//  1. In-lane: n rows are loaded; log2(n) rounds of the perfect shuffle
//         v'[2i] = unpacklo_U(v[i], v[i + n/2]),  v'[2i+1] = unpackhi_U(v[i], v[i + n/2])
//     transpose each lane's n x n sub-block independently (unpack never crosses lanes). Example n = 4
//     (4-byte units, rows a b c d): round 1 gives a0c0a1c1 a2c2a3c3 b0d0b1d1 b2d2b3d3, round 2 gives
//     a0b0c0d0 a1b1c1d1 a2b2c2d2 a3b3c3d3. Lane l of v[i] is then output row l*n + i (16 bytes).
//  2. Cross-lane ("full" blocks): L groups of n rows are transposed in-lane; for each i, the L vectors
//     v_0[i] .. v_{L-1}[i] swap lanes as an L x L transpose (Isa::transpose_lanes), so that vector l holds
//     the whole output row l*n + i: a square block of L*n rows, every store a full vector.
//     Without it ("lane" blocks, when the level keeps L*n rows below full_max_rows: bytes on AVX2), a block
//     is n rows x L*n columns and every lane is stored on its own. AVX-512 takes full blocks for every unit
//     size: for bytes and 2-byte units the 64 / 32 vectors of v[][] do not fit the 32 registers, and the
//     compiler keeps them in a 64-byte-aligned stack block (whole-vector stores and reloads, which forward).
//     That replaced an explicit L1 scratch filled lane by lane (16-byte stores, reloaded as whole lines, a
//     store-forwarding stall per line): hot in L1 on the dev VM's EPYC, 1 thread, bytes 41.6 -> 65.3 GB/s,
//     2-byte units 43 -> 58; cold 8192^2, 1 thread: u8 14.5 -> 16.6 GB/s, fp16 17.7 -> 19.7.
//
// Isa provides: `vec`, `lanes`, `full_max_rows` (the largest full block that fits the register file),
// load(p), store(p, v), store_lane<l>(p, v) (16 bytes of lane l), unpacklo<U>(a, b), unpackhi<U>(a, b)
// (in-lane interleave of U-byte units, U <= 8), and transpose_lanes(v[lanes]).

namespace simd {

template <class Isa, int U>
struct block_shape {
  static constexpr int n = 16 / U;                                  // units per lane
  static constexpr bool full = n * Isa::lanes <= Isa::full_max_rows;  // cross-lane square block?
  static constexpr int rows = full ? n * Isa::lanes : n;
  static constexpr int cols = n * Isa::lanes;
};

// log2(n) perfect-shuffle rounds on v[0..n) (see the file comment).
template <class Isa, int U, int N>
inline void transpose_in_lanes(typename Isa::vec* v) {
  if constexpr (N > 1 && U < 16) {
    typename Isa::vec t[N];
    for (int round = 1; round < N; round *= 2) {
#pragma GCC unroll 16
      for (int i = 0; i < N / 2; ++i) {
        t[2 * i] = Isa::template unpacklo<U>(v[i], v[i + N / 2]);
        t[2 * i + 1] = Isa::template unpackhi<U>(v[i], v[i + N / 2]);
      }
#pragma GCC unroll 16
      for (int i = 0; i < N; ++i) v[i] = t[i];
    }
  }
}

template <class Isa, int... L>
inline void store_lanes(std::integer_sequence<int, L...>, typename Isa::vec v, unsigned char* out, std::int64_t step) {
  (Isa::template store_lane<L>(out + L * step, v), ...);
}

/// One block_shape<Isa, U> block: rows x cols units from `in` (rows in_rs bytes apart) to `out` (cols rows
/// of `rows` units, out_rs bytes apart).
/// A full block (block_shape::full): its rows x rows units, row r loaded by load(r) (a plain load, or a masked
/// one at a ragged edge); calls emit(j, v) with output row j's vector (all `rows` units of it), j = 0 .. rows - 1.
template <class Isa, int U, class Load, class Emit>
inline void full_block_loaded(const Load& load, const Emit& emit) {
  using vec = typename Isa::vec;
  constexpr int n = block_shape<Isa, U>::n, lanes = Isa::lanes;
  vec v[lanes][n];
#pragma GCC unroll 16
  for (int g = 0; g < lanes; ++g) {
#pragma GCC unroll 16
    for (int i = 0; i < n; ++i) v[g][i] = load(g * n + i);
    transpose_in_lanes<Isa, U, n>(v[g]);
  }
#pragma GCC unroll 16
  for (int i = 0; i < n; ++i) {
    vec w[lanes];
#pragma GCC unroll 4
    for (int g = 0; g < lanes; ++g) w[g] = v[g][i];
    Isa::transpose_lanes(w);
#pragma GCC unroll 4
    for (int l = 0; l < lanes; ++l) emit(l * n + i, w[l]);
  }
}

/// full_block_loaded on rows in_rs bytes apart from `in`.
template <class Isa, int U, class Emit>
inline void full_block(const unsigned char* in, std::int64_t in_rs, const Emit& emit) {
  full_block_loaded<Isa, U>([&](int r) { return Isa::load(in + r * in_rs); }, emit);
}

/// One block_shape<Isa, U> block: rows x cols units from `in` (rows in_rs bytes apart) to `out` (cols rows
/// of `rows` units, out_rs bytes apart).
template <class Isa, int U, bool Stream = false>
inline void transpose_block(const unsigned char* in, std::int64_t in_rs, unsigned char* out, std::int64_t out_rs) {
  using shape = block_shape<Isa, U>;
  using vec = typename Isa::vec;
  constexpr int n = shape::n, lanes = Isa::lanes;
  if constexpr (shape::full) {
    full_block<Isa, U>(in, in_rs, [&](int j, vec v) {
      if constexpr (Stream) Isa::stream(out + j * out_rs, v);
      else Isa::store(out + j * out_rs, v);
    });
  } else {
    vec v[n];
#pragma GCC unroll 16
    for (int i = 0; i < n; ++i) v[i] = Isa::load(in + i * in_rs);
    transpose_in_lanes<Isa, U, n>(v);
#pragma GCC unroll 16
    for (int i = 0; i < n; ++i)
      store_lanes<Isa>(std::make_integer_sequence<int, lanes>{}, v[i], out + i * out_rs, n * out_rs);
  }
}

/// Issues the next pf->per_block prefetches of `pf` (prefetch_cursor in kernel_table.hpp) into L2.
inline void prefetch_step(prefetch_cursor* pf) {
  if (pf == nullptr) return;
  for (std::int64_t i = 0; i < pf->per_block; ++i) {
    if (pf->p >= pf->end) {
      if (pf->rows_left == 0) return;
      const auto row = reinterpret_cast<std::uintptr_t>(pf->next_row);
      pf->p = row & ~std::uintptr_t{63};
      pf->end = row + static_cast<std::uintptr_t>(pf->row_bytes);
      pf->next_row += pf->rs;
      --pf->rows_left;
    }
    _mm_prefetch(reinterpret_cast<const char*>(pf->p), _MM_HINT_T1);
    pf->p += 64;
  }
}

/// Units of a ragged edge, one by one.
template <int U>
inline void transpose_units(const unsigned char* in, std::int64_t in_rs, unsigned char* out, std::int64_t out_rs,
                            std::int64_t nr, std::int64_t nc) {
  for (std::int64_t c = 0; c < nc; ++c)
    for (std::int64_t r = 0; r < nr; ++r) std::memcpy(out + c * out_rs + r * U, in + r * in_rs + c * U, U);
}

/// A ragged corner of at most rows x cols units (block_shape), through the same blocks: the units are copied
/// into a zero-padded block in L1, transposed there, and the nr x nc wanted ones copied out. (Unit by unit
/// was 3x slower overall on byte transposes, whose blocks are 64 rows tall.)
/// Levels with byte-masked loads and stores (Isa::load_bytes / store_bytes: AVX-512) take the corner straight
/// from registers instead: rows [0, nr) loaded nc x U bytes each (the rest zero, nothing read past them), output
/// rows [0, nc) stored nr x U bytes each. Small planes are mostly edges; dev VM (AMD EPYC), 4 rounds, 1 / 2
/// threads vs the non-temporal copy, copies -> masks: fp32 batched 4096 x 100 x 100 0.18 / 0.26 -> 0.23 / 0.40,
/// u8 0.33 / 0.42 -> 0.46 / 0.60, fp64 2048 x 70 x 90 0.20 / 0.34 -> 0.30 / 0.50, fp32 [2,3,5,7,283,283] axes
/// 4,1,5,3,0,2 0.20 / 0.35 -> 0.25 / 0.42, fp32 65536 x 32 x 32 0.52 / 0.65 -> 0.73 / 0.84; large planes the same.
template <class Isa, int U>
inline void padded_blocks(const unsigned char* in, std::int64_t in_rs, unsigned char* out, std::int64_t out_rs,
                          std::int64_t nr, std::int64_t nc) {
  using shape = block_shape<Isa, U>;
  constexpr int br = shape::rows, bc = shape::cols;
  if constexpr (requires { Isa::load_bytes(in, 0); } && shape::full) {
    static_assert(br * U == 64 && bc * U == 64, "a block row and an output row are one 64-byte vector");
    const int in_bytes = static_cast<int>(nc * U), out_bytes = static_cast<int>(nr * U);
    full_block_loaded<Isa, U>(
        [&](int r) { return r < nr ? Isa::load_bytes(in + r * in_rs, in_bytes) : Isa::zero(); },
        [&](int j, typename Isa::vec v) {
          if (j < nc) Isa::store_bytes(out + j * out_rs, v, out_bytes);
        });
    return;
  }
  alignas(64) unsigned char a[br * bc * U];
  alignas(64) unsigned char t[bc * br * U];
  std::memset(a, 0, sizeof a);
  for (std::int64_t r = 0; r < nr; ++r) std::memcpy(a + r * bc * U, in + r * in_rs, static_cast<std::size_t>(nc * U));
  transpose_block<Isa, U>(a, bc * U, t, br * U);
  for (std::int64_t c = 0; c < nc; ++c) std::memcpy(out + c * out_rs, t + c * br * U, static_cast<std::size_t>(nr * U));
}

/// An nr x nc tile (tile_fn of kernel_table.hpp) in blocks, column strip by column strip: the block_cols
/// output rows of a strip are written from the first to the last input row before the next strip starts,
/// so each output line is completed while it is still in L1. Ragged right and bottom edges unit by unit.
template <class Isa, int U, bool Stream = false>
void transpose_tile(const unsigned char* in, std::int64_t in_rs, unsigned char* out, std::int64_t out_rs,
                    std::int64_t nr, std::int64_t nc, std::int64_t /*words*/, prefetch_cursor* pf) {
  using shape = block_shape<Isa, U>;
  constexpr int br = shape::rows, bc = shape::cols;
  const std::int64_t full_r = nr / br * br, full_c = nc / bc * bc;
  for (std::int64_t c = 0; c < full_c; c += bc) {
    const unsigned char* src = in + c * U;
    unsigned char* dst = out + c * out_rs;
    for (std::int64_t r = 0; r < full_r; r += br) {
      transpose_block<Isa, U, Stream>(src + r * in_rs, in_rs, dst + r * U, out_rs);
      prefetch_step(pf);
    }
    if (full_r < nr) padded_blocks<Isa, U>(src + full_r * in_rs, in_rs, dst + full_r * U, out_rs, nr - full_r, bc);
  }
  for (std::int64_t r = 0; r < nr && full_c < nc; r += br)
    padded_blocks<Isa, U>(in + r * in_rs + full_c * U, in_rs, out + full_c * out_rs + r * U, out_rs,
                          nr - r < br ? nr - r : br, nc - full_c);
}

/// Streams a strip whose output rows are not line-aligned straight from registers (tile_kernel::stream_carry):
/// nc (a multiple of the block's columns) output rows, nr + rows input rows (nr a multiple of the block's
/// rows; one block past the tile is read). Blocks are one line per output row (rows x U == 64). Output row
/// j starts s_j units before a line boundary; the line that ends s_j units into block b is the last 16 - s_j
/// units of block b - 1 followed by the first s_j of block b: one two-source permute
/// (Isa::concat_shift) per line, the previous block's rows kept in a 1 KiB L1 buffer. Writes the lines that
/// start in rows [0, nr), i.e. exactly what the tile owns (macrokernel_transpose2d.cpp); `out` points at
/// row 0, unit 0 of the strip's output and every output row starts on a multiple of U bytes.
template <class Isa, int U>
void stream_carry(const unsigned char* in, std::int64_t in_rs, unsigned char* out, std::int64_t out_rs,
                  std::int64_t nr, std::int64_t nc, std::int64_t /*words*/, prefetch_cursor* pf) {
  using shape = block_shape<Isa, U>;
  using vec = typename Isa::vec;
  constexpr int br = shape::rows, bc = shape::cols;
  static_assert(shape::full && br * U == 64);
  for (std::int64_t c = 0; c < nc; c += bc) {
    const unsigned char* src = in + c * U;
    unsigned char* dst = out + c * out_rs;
    vec prev[bc], shift[bc];
    unsigned char* line_at[bc];  // the next line of each output row
    for (int j = 0; j < bc; ++j) {
      const auto a = reinterpret_cast<std::uintptr_t>(dst + j * out_rs);
      const std::int64_t head = static_cast<std::int64_t>((64 - a % 64) % 64);  // bytes to the first boundary
      shift[j] = Isa::template shift_index<U>(static_cast<int>(head / U));
      line_at[j] = dst + j * out_rs + head;
    }
    full_block<Isa, U>(src, in_rs, [&](int j, vec v) { prev[j] = v; });
    prefetch_step(pf);
    for (std::int64_t r = br; r <= nr; r += br) {
      full_block<Isa, U>(src + r * in_rs, in_rs, [&](int j, vec v) {
        Isa::stream(line_at[j], Isa::template concat_shift<U>(prev[j], shift[j], v));
        line_at[j] += 64;
        prev[j] = v;
      });
      prefetch_step(pf);
    }
  }
}

/// Non-temporal copy of whole 64-byte lines to an aligned destination (isa_kernels::stream_lines).
template <class Isa>
void stream_lines(unsigned char* dst, const unsigned char* src, std::int64_t lines) {
  constexpr int per_line = 64 / (16 * Isa::lanes);
  for (std::int64_t i = 0; i < lines; ++i) {
#pragma GCC unroll 4
    for (int k = 0; k < per_line; ++k)
      Isa::stream(dst + i * 64 + k * 16 * Isa::lanes, Isa::load(src + i * 64 + k * 16 * Isa::lanes));
  }
}

template <class Isa, int U>
constexpr tile_kernel kernel_for() {
  using shape = block_shape<Isa, U>;
  // Streaming straight from registers needs every store of a full block to be one whole line.
  constexpr bool line_stores = shape::full && shape::rows * U == 64;
  tile_kernel k{&transpose_tile<Isa, U>, shape::rows, shape::cols, nullptr, nullptr};
  if constexpr (line_stores) {
    k.tile_stream = &transpose_tile<Isa, U, true>;
    if constexpr (Isa::template has_concat_shift<U>) k.stream_carry = &stream_carry<Isa, U>;
  }
  return k;
}

/// The level's table: transposes of 1, 2, 4, 8, 16-byte units, streaming copy and fence.
template <class Isa>
constexpr isa_kernels make_kernels(cpu_isa level) {
  isa_kernels k;
  k.isa = level;
  k.pow2[0] = kernel_for<Isa, 1>();
  k.pow2[1] = kernel_for<Isa, 2>();
  k.pow2[2] = kernel_for<Isa, 4>();
  k.pow2[3] = kernel_for<Isa, 8>();
  k.pow2[4] = kernel_for<Isa, 16>();
  k.stream_lines = &stream_lines<Isa>;
  k.fence = &Isa::fence;
  return k;
}

}  // namespace simd
