//===- CodegenOptions.h - the GPU code generator's options ------*- C++ -*-===//
//
// The one definition of the register-tile GPU code generator's options and
// their defaults. gdn-run, the C API's kernel cache, compileForGPU and
// gdn-opt's `gdn-gpu-pipeline` all start from a default-constructed
// GPUCodegenOptions, so a default changes here and nowhere else.
// MLIR-free: tools that only pass options along include it cheaply.
//
//===----------------------------------------------------------------------===//

#ifndef GDN_TRANSFORMS_CODEGENOPTIONS_H
#define GDN_TRANSFORMS_CODEGENOPTIONS_H

#include "gdn/Schedule/Schedule.h"

#include <cstdint>
#include <string>

namespace mlir::gdn {

/// Defaults, also spelled out for the pass options of Passes.td.
inline constexpr const char *kDefaultChip = "sm_90a";
/// "auto": the inputs' 16-bit type (f16 when the kernels read f16 tensors,
/// else bf16), so fp16 inputs keep fp16 precision in the tensor cores.
inline constexpr const char *kDefaultMma = "auto";
inline constexpr int64_t kDefaultWarpgroups = 2;
/// Threads of one warpgroup: kernels have one or two per block.
inline constexpr int64_t kWarpgroupThreads = 128;

struct GPUCodegenOptions {
  /// Target architecture: wgmma needs sm_90a.
  std::string chip = kDefaultChip;
  /// Tensor-core operand precision: auto, bf16, f16 or tf32 (fp32
  /// accumulation either way).
  std::string mma = kDefaultMma;
  /// Warpgroups per block, 1 or 2. With 2, every matmul's N is split between
  /// them: half the registers per thread and twice the warps.
  int64_t warpgroups = kDefaultWarpgroups;
  /// Chunk loops ask for the next chunk's input tiles in L2 while the
  /// current one computes (gdn-gpu-prefetch-next-chunk). A schedule's own
  /// `prefetch=none` leaves it out of that schedule's kernels either way.
  bool prefetch = true;

  /// The options `schedule`'s kernels are generated with: its own
  /// warpgroups= wins over these options' (Triton's num_warps is a
  /// config's, not the compiler's).
  GPUCodegenOptions forSchedule(const ScheduleOptions &schedule) const {
    GPUCodegenOptions options = *this;
    if (schedule.warpgroups)
      options.warpgroups = schedule.warpgroups;
    return options;
  }

  int64_t blockSize() const { return kWarpgroupThreads * warpgroups; }
  int64_t numWarps() const { return blockSize() / 32; }

  /// Every option in one line ("chip=sm_90a mma=bf16 warpgroups=2
  /// prefetch=1"): the kernel cache keys artifacts by it, so an option
  /// added here is in the key without touching the cache.
  std::string cacheKey() const {
    return "chip=" + chip + " mma=" + mma +
           " warpgroups=" + std::to_string(warpgroups) +
           " prefetch=" + std::to_string(prefetch);
  }

  /// Empty when the options are valid, else a message naming the option.
  std::string invalidReason() const {
    if (mma != "auto" && mma != "bf16" && mma != "f16" && mma != "tf32")
      return "tensor-core precision (mma) must be auto, bf16, f16 or tf32, "
             "got '" + mma + "'";
    if (warpgroups != 1 && warpgroups != 2)
      return "warpgroups per block must be 1 or 2, got " +
             std::to_string(warpgroups);
    return {};
  }
};

} // namespace mlir::gdn

#endif // GDN_TRANSFORMS_CODEGENOPTIONS_H
