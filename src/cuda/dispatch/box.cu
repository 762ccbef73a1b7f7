// box dispatch: a box_plan (plan/box.hpp) -> box_kernel<unit bytes> (kernels/box.cuh), tuned by tuning/box.hpp.
// Called from launch_transpose2d for geometries the tile kernels would move in tiles with a side under 128
// bytes, when make_box finds a box with at least twice their shorter run.
#include <algorithm>
#include <climits>

#include "cuda/dispatch/launch.hpp"
#include "cuda/kernels/box.cuh"
#include "plan/box.hpp"

namespace xpose::detail {

namespace {

// The launch geometry of box_kernel: grid, block (box_threads) and dynamic shared memory.
struct box_launch {
  bool run_tables = true;  // box_kernel's RunTables (choose_box_kernel)
  unsigned grid = 1;
  int threads = box_policy::threads;
  int smem = 0;
};

template <int UnitBytes, int LoadBytes, int StoreBytes, int Threads>
status launch_threads(const box_params& p, const box_launch& l, cudaStream_t stream) {
  auto run = [&](auto kernel) {
    if (status s = allow_dynamic_smem(kernel, l.smem, "box shared-memory opt-in"); !s) return s;
    kernel<<<l.grid, Threads, static_cast<std::size_t>(l.smem), stream>>>(p);
    if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return cuda_failure(e, "box launch");
    return status::ok();
  };
  if (l.run_tables) return run(box_kernel<UnitBytes, LoadBytes, StoreBytes, Threads, true>);
  return run(box_kernel<UnitBytes, LoadBytes, StoreBytes, Threads, false>);
}

template <int UnitBytes, int LoadBytes, int StoreBytes>
status launch(const box_params& p, const box_launch& l, cudaStream_t stream) {
  if constexpr (LoadBytes < 16)  // box_threads picks the smaller block for single-stage boxes only
    if (l.threads == box_policy::small_threads)
      return launch_threads<UnitBytes, LoadBytes, StoreBytes, box_policy::small_threads>(p, l, stream);
  return launch_threads<UnitBytes, LoadBytes, StoreBytes, box_policy::threads>(p, l, stream);
}

template <int UnitBytes, int LoadBytes>
status launch_store(const box_params& p, int store_bytes, const box_launch& l, cudaStream_t stream) {
  switch (store_bytes) {
    case 16: if constexpr (UnitBytes <= 16) return launch<UnitBytes, LoadBytes, 16>(p, l, stream); break;
    case 8: if constexpr (UnitBytes <= 8) return launch<UnitBytes, LoadBytes, 8>(p, l, stream); break;
    case 4: if constexpr (UnitBytes <= 4) return launch<UnitBytes, LoadBytes, 4>(p, l, stream); break;
    case 2: if constexpr (UnitBytes <= 2) return launch<UnitBytes, LoadBytes, 2>(p, l, stream); break;
    default: break;
  }
  return launch<UnitBytes, LoadBytes, UnitBytes>(p, l, stream);
}

template <int UnitBytes>
status launch_unit(const box_params& p, int load_bytes, int store_bytes, const box_launch& l, cudaStream_t stream) {
  switch (load_bytes) {
    case 16: if constexpr (UnitBytes <= 16) return launch_store<UnitBytes, 16>(p, store_bytes, l, stream); break;
    case 8: if constexpr (UnitBytes <= 8) return launch_store<UnitBytes, 8>(p, store_bytes, l, stream); break;
    case 4: if constexpr (UnitBytes <= 4) return launch_store<UnitBytes, 4>(p, store_bytes, l, stream); break;
    case 2: if constexpr (UnitBytes <= 2) return launch_store<UnitBytes, 2>(p, store_bytes, l, stream); break;
    default: break;
  }
  return launch_store<UnitBytes, UnitBytes>(p, store_bytes, l, stream);
}

// Widest access (bytes, <= 16, a multiple of the unit) for one side: the run is a whole number of them, and
// every run starts aligned to it — the base pointer, the strides of the box axes outside the run (order:
// the side's order, ascending stride) and of the batch axes are multiples of it.
int access_bytes(const box_plan& b, bool input, std::uintptr_t base) {
  const std::int64_t run = input ? b.in_run : b.out_run;
  const std::int64_t bits = static_cast<std::int64_t>(base % 16) | box_run_offset_bits(b, input) |
                            box_batch_offset_bits(b, input) | run * b.unit_bytes;
  return static_cast<int>(std::max(box_align16(bits), b.unit_bytes));
}

// box16's shared-memory layout for a box of 1- or 2-byte units.
box16_layout box16_layout_of(const box_plan& b, unsigned group, unsigned in_pitch) {
  const auto V = static_cast<unsigned>(b.volume), U = static_cast<unsigned>(b.unit_bytes);
  const auto in_run = static_cast<unsigned>(b.in_run), out_run = static_cast<unsigned>(b.out_run);
  return make_box16_layout(V, U, V / in_run, in_pitch, V / out_run, group);
}

// box16_in_pitch, remembered for the last few box shapes (the model decodes ~2000 indices: ~10-30 us).
unsigned box16_pitch(const box_plan& b, std::int64_t chunks) {
  struct key {  // what the model reads: the unit, the box's axes and their output order, the run's chunks
    box_plan b;
    std::int64_t chunks;
    bool operator==(const key& o) const {
      if (chunks != o.chunks || b.unit_bytes != o.b.unit_bytes || b.rank != o.b.rank || b.volume != o.b.volume)
        return false;
      for (int k = 0; k < b.rank; ++k)
        if (b.axis[k].extent != o.b.axis[k].extent || b.axis[k].in_stride != o.b.axis[k].in_stride ||
            b.axis[k].out_stride != o.b.axis[k].out_stride || b.out_order[k] != o.b.out_order[k])
          return false;
      return true;
    }
  };
  thread_local recent_results<key, unsigned> cache;
  return cache.get(key{b, chunks}, [&] { return box16_in_pitch(b, chunks); });
}

// Boxes box16 stages together: enough that each phase has >= box16_group_items items a thread (a box of 1428
// bytes has 90 input chunks for 256 threads), at most box16_max_group, within box16_group_smem.
unsigned box16_group(const box_plan& b, unsigned in_pitch, std::int64_t in_chunks) {
  const std::int64_t U = b.unit_bytes;
  const std::int64_t in_items = b.volume / b.in_run * in_chunks;
  const std::int64_t out_items = b.volume / b.out_run * ((b.out_run * U + 30) / 16);
  const std::int64_t fewest = std::min(in_items, out_items);
  std::int64_t g = std::clamp<std::int64_t>((box16_group_items * box_policy::threads + fewest - 1) / fewest, 1, box16_max_group);
  std::int64_t boxes = 1;
  for (int i = 0; i < b.batch_rank; ++i) boxes *= b.batch[i].extent;
  g = std::min<std::int64_t>(g, std::max<std::int64_t>(1, boxes));
  while (g > 1 && box16_layout_of(b, static_cast<unsigned>(g), in_pitch).bytes > box16_group_smem) --g;
  return static_cast<unsigned>(g);
}

// 1-byte units. H100, N-d suite, same call, box_kernel -> box16: u8 7x3x2x436x41x7x2x51 0.320 -> 0.473,
// 3x1472x7x3x214x3x3x3 0.375 -> 0.471 (and 30x24x42x220x2x40, no box before: 0.168 -> 0.490); the same
// problems in fp16 lost a little (0.623 -> 0.592, 0.610 -> 0.572, 0.532 -> 0.511): box_kernel's 4- and 8-byte
// accesses there already fill sectors, box16's extra staging pass is then a cost.
bool box16_applies(const box_plan& b) { return b.unit_bytes == 1 && b.volume < 65536; }

// box_kernel's dynamic shared memory for `b` (box_smem_bytes), its tables per run or per element.
int box_kernel_smem(const box_plan& b, int stages, bool run_tables) {
  const std::int64_t in_runs = run_tables ? b.volume / b.in_run : b.volume;
  const std::int64_t out_runs = run_tables ? b.volume / b.out_run : b.volume;
  return box_smem_bytes(static_cast<int>(b.volume), static_cast<int>(b.unit_bytes), stages, static_cast<int>(in_runs),
                        static_cast<int>(out_runs));
}

// Fills the parameters both box kernels read: axes, volume, batch.
box_params box_params_of(const box_plan& b, const void* d_in, void* d_out) {
  box_params p{};
  p.in = static_cast<const unsigned char*>(d_in);
  p.out = static_cast<unsigned char*>(d_out);
  p.rank = b.rank;
  for (int k = 0; k < b.rank; ++k) {
    p.extent[k] = static_cast<unsigned>(b.axis[k].extent);
    p.extent_div[k] = div32(p.extent[k]);
    p.in_weight[k] = k == 0 ? 1u : p.in_weight[k - 1] * p.extent[k - 1];
    p.in_stride[k] = static_cast<unsigned>(b.axis[k].in_stride);
    p.out_stride[k] = static_cast<unsigned>(b.axis[k].out_stride);
    p.out_order[k] = b.out_order[k];
  }
  p.volume = static_cast<unsigned>(b.volume);
  p.in_run = static_cast<unsigned>(b.in_run);
  p.out_run = static_cast<unsigned>(b.out_run);
  p.in_run_div = div32(p.in_run);
  p.out_run_div = div32(p.out_run);
  p.boxes = 1;
  p.batch.rank = b.batch_rank;
  for (int i = 0; i < b.batch_rank; ++i) {
    p.batch.extent[i] = fast_divmod(static_cast<std::uint64_t>(b.batch[i].extent));
    p.batch.in_stride[i] = b.batch[i].in_stride;
    p.batch.out_stride[i] = b.batch[i].out_stride;
    p.boxes *= b.batch[i].extent;
  }
  return p;
}

// As many blocks as fit an SM at once (shared memory or threads), each looping over boxes.
unsigned box_grid(std::int64_t boxes, int smem, const device_info& dev, int threads = box_policy::threads) {
  const std::int64_t per_sm = box_blocks_per_sm(threads, smem);
  const std::int64_t cap = static_cast<std::int64_t>(std::max(dev.sm_count, 1)) * per_sm;
  return static_cast<unsigned>(std::max<std::int64_t>(1, std::min(boxes, cap)));
}

status launch_box16(const box_plan& b, const void* d_in, void* d_out, std::int64_t in_span, cudaStream_t stream,
                    const device_info& dev) {
  if (b.rank > box_max_rank || b.batch_rank > box_max_rank || !box16_applies(b))
    return status(status_code::internal, "box16: larger than the kernel's tables");
  box_params p = box_params_of(b, d_in, d_out);
  const std::int64_t base_align =  // divides every box's input address
      box_align16(static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(d_in) % 16) | box_batch_offset_bits(b, true));
  const std::int64_t in_chunks = box16_in_chunks(b, base_align);
  p.in_pitch = box16_pitch(b, in_chunks);
  const unsigned group = box16_group(b, p.in_pitch, in_chunks);
  const box16_layout l = box16_layout_of(b, group, p.in_pitch);
  p.in_lo = reinterpret_cast<std::uintptr_t>(d_in);
  p.in_hi = p.in_lo + static_cast<std::uint64_t>(in_span);
  p.in_chunks = static_cast<unsigned>(in_chunks);
  p.out_chunks = static_cast<unsigned>((b.out_run * b.unit_bytes + 15 + 15) / 16);
  p.group = group;
  p.in_items = static_cast<unsigned>(b.volume / b.in_run) * p.in_chunks;
  p.out_items = static_cast<unsigned>(b.volume / b.out_run) * p.out_chunks;
  p.quads = static_cast<unsigned>((b.volume + 15) / 16);
  p.in_chunks_div = div32(p.in_chunks);
  p.out_chunks_div = div32(p.out_chunks);
  p.in_items_div = div32(p.in_items);
  p.out_items_div = div32(p.out_items);
  p.quads_div = div32(p.quads);
  p.out_runs = static_cast<unsigned>(b.volume / b.out_run);
  p.out_runs_div = div32(p.out_runs);
  // A box's chunk loads start at or after its address rounded down to 16 and end before its last run's
  // staged chunks do: groups whose boxes' reach stays inside the input view skip load_chunk's per-chunk test.
  p.in_reach = static_cast<unsigned>(b.in_span + 16 * in_chunks);
  const int smem = static_cast<int>(l.bytes);
  const unsigned grid = box_grid((p.boxes + group - 1) / group, smem, dev);
  if (b.unit_bytes != 1) return status(status_code::internal, "box16: only 1-byte units");
  auto run = [&](auto kernel) {
    if (status s = allow_dynamic_smem(kernel, smem, "box16 shared-memory opt-in"); !s) return s;
    kernel<<<grid, box_policy::threads, static_cast<std::size_t>(smem), stream>>>(p, l);
    if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return cuda_failure(e, "box16 launch");
    return status::ok();
  };
  if (p.in_pitch % 16 == 0) return run(box16_kernel<1, 16>);
  if (p.in_pitch % 8 == 0) return run(box16_kernel<1, 8>);
  return run(box16_kernel<1, 4>);
}

}  // namespace

bool box_fits(const box_plan& b, const device_info& dev) {
  if (box16_applies(b)) {  // the pointer is not known here: the most chunks a run may take
    const std::int64_t chunks = box16_in_chunks(b);
    const unsigned pitch = box16_pitch(b, chunks);
    const box16_layout l = box16_layout_of(b, box16_group(b, pitch, chunks), pitch);
    return l.bytes <= static_cast<unsigned>(dev.smem_optin) && l.stage_in_box < 65536;  // src is 16-bit
  }
  // The pointers' alignment is not known here: room for box_kernel's two stages.
  return box_kernel_smem(b, box_stages(16), false) <= dev.smem_optin;
}

namespace {

status launch_boxes(const box_plan& b, const void* d_in, void* d_out, std::int64_t in_span, cudaStream_t stream,
                    const device_info& dev) {
  if (box16_applies(b)) return launch_box16(b, d_in, d_out, in_span, stream, dev);
  if (b.rank > box_max_rank || b.batch_rank > box_max_rank || b.volume > box_table_entries ||
      b.volume * b.unit_bytes > box_data_bytes)
    return status(status_code::internal, "box: larger than the kernel's tables");
  box_params p = box_params_of(b, d_in, d_out);
  const int lw = access_bytes(b, true, reinterpret_cast<std::uintptr_t>(d_in));
  const int sw = access_bytes(b, false, reinterpret_cast<std::uintptr_t>(d_out));
  box_launch l;
  const int stages = box_stages(lw);
  const box_kernel_choice c = choose_box_kernel(box_kernel_smem(b, stages, true), box_kernel_smem(b, stages, false),
                                                stages == 1, b.volume, b.unit_bytes, p.boxes, dev.sm_count);
  l.run_tables = c.run_tables;
  l.smem = box_kernel_smem(b, stages, c.run_tables);
  l.threads = box_threads(lw, c.occupancy_smem, p.boxes, dev.sm_count);
  l.grid = box_grid(p.boxes, c.occupancy_smem, dev, l.threads);
  switch (b.unit_bytes) {
    case 1: return launch_unit<1>(p, lw, sw, l, stream);
    case 2: return launch_unit<2>(p, lw, sw, l, stream);
    case 4: return launch_unit<4>(p, lw, sw, l, stream);
    case 8: return launch_unit<8>(p, lw, sw, l, stream);
    case 16: return launch_unit<16>(p, lw, sw, l, stream);
    default: return status(status_code::internal, "box: unit is not 1, 2, 4, 8 or 16 bytes");
  }
}

}  // namespace

status launch_box(const box_plan& b, const void* d_in, void* d_out, std::int64_t in_span, cudaStream_t stream,
                  const device_info& dev) {
  if (status s = launch_boxes(b, d_in, d_out, in_span, stream, dev); !s || b.tail_extent == 0) return s;
  // A ragged plan: the split axis's last indices, as one more launch of smaller boxes.
  std::int64_t in_off = 0, out_off = 0;
  const box_plan t = box_tail(b, in_off, out_off);
  return launch_boxes(t, static_cast<const unsigned char*>(d_in) + in_off, static_cast<unsigned char*>(d_out) + out_off,
                      in_span - in_off, stream, dev);
}

}  // namespace xpose::detail
