//===- CudaRunner.h - run compiled kernels through the CUDA driver -*- C++ -*-===//
//
// Loads an artifact's PTX with the CUDA driver API and launches a kernel on
// host buffers (uploaded, run, downloaded). libcuda is opened at run time, so
// binaries that contain this run on machines without a GPU driver too (and
// say so when asked to use it). MLIR-free.
//
//===----------------------------------------------------------------------===//

#ifndef GDN_RUNTIME_CUDARUNNER_H
#define GDN_RUNTIME_CUDARUNNER_H

#include "gdn/Runtime/Artifact.h"
#include "gdn/Runtime/KernelArgs.h"
#include "gdn/Runtime/LaunchPlan.h"
#include "gdn/TensorIO/Status.h"

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace gdn {

struct GpuRunReport {
  std::string device;
  double firstMs = 0;        // the checked launch
  double medianMs = 0;       // median of the timed launches
  double minMs = 0;
  int timedLaunches = 0;
  bool guardsIntact = true;  // bytes around every buffer unchanged
  std::string guardMessage;
};

/// The GPU kernels move the rows of q / k / v / o and of the state pool as
/// vectors of up to 16 bytes, so those tensors must start on a 16-byte
/// boundary. Gates, beta, A_log / dt_bias and index tensors are read one
/// element at a time and need no more than their element's alignment.
inline constexpr uintptr_t kDeviceAlignment = 16;

inline bool isReadAsVectors(const std::string &tensor) {
  return tensor == "q" || tensor == "k" || tensor == "v" || tensor == "o" ||
         tensor == "state_pool";
}

/// Refuses (a value error naming the tensor) a device address the kernels
/// cannot use for `tensor`.
inline Status checkDeviceAlignment(const std::string &tensor,
                                   const void *address) {
  auto at = reinterpret_cast<uintptr_t>(address);
  if (!isReadAsVectors(tensor) || at % kDeviceAlignment == 0)
    return Status::success();
  char hex[32];
  std::snprintf(hex, sizeof hex, "%#llx", static_cast<unsigned long long>(at));
  return Status::error("tensor '" + tensor + "': device address " + hex +
                       " is not 16-byte aligned; the GPU kernels move its "
                       "rows as 16-byte vectors (pass storage that starts on "
                       "a 16-byte boundary, e.g. a fresh or cloned tensor)");
}

class CudaRunner {
public:
  ~CudaRunner();
  /// Opens libcuda.so.1, initialises device 0 (or `ordinal`) and its
  /// primary context (the one the CUDA runtime, and so torch, uses).
  static Status open(std::unique_ptr<CudaRunner> &runner);
  static Status open(std::unique_ptr<CudaRunner> &runner, int ordinal);
  /// The device's streaming multiprocessors (what --schedule auto fills).
  int64_t multiprocessors() const;
  /// JIT-loads the artifact's PTX (the driver compiles it for the device).
  Status load(const Artifact &artifact);
  /// Uploads every buffer of `args` with guard bytes around it (workspaces
  /// are allocated poisoned, not copied), runs `launches` in order once,
  /// downloads every buffer and checks the guards; then, when
  /// `timedLaunches` > 0, runs them that many more times (after `warmup`
  /// untimed runs) for timing, each timing covering the whole sequence.
  /// Buffers hold the first run's results.
  Status run(const std::vector<PlannedLaunch> &launches,
             const std::vector<KernelArg> &args, int warmup,
             int timedLaunches, GpuRunReport &report);

  /// Launches on the caller's memory and stream without copying or
  /// waiting. Buffer arguments hold device addresses. Workspaces and the
  /// kernels' scratch come from an arena per stream that the runner keeps
  /// (growing it allocates; old blocks live as long as the runner). Inside
  /// a graph capture they are allocated and freed by the graph itself
  /// (stream-ordered allocation), so replays share them with nothing.
  /// Every entry point makes the runner's context current for its scope
  /// only and restores the caller's.
  Status launchOnDevice(const std::vector<PlannedLaunch> &launches,
                        const std::vector<KernelArg> &args, void *stream);
  /// Copies device memory to the host on `stream` and waits (checked calls
  /// read index tensors and gates this way; not for captured calls).
  Status copyToHost(void *dst, const void *deviceSrc, size_t bytes,
                    void *stream);
  /// At least `bytes` zero bytes on the device, kept by the runner (inputs a
  /// kernel takes but the call does not use). Allocates when it grows; the
  /// old block lives as long as the runner (graphs may hold it).
  Status zeros(size_t bytes, const void *&device);

  struct Impl;

private:
  explicit CudaRunner(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl;
};

} // namespace gdn

#endif // GDN_RUNTIME_CUDARUNNER_H
