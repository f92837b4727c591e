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

class CudaRunner {
public:
  ~CudaRunner();
  /// Opens libcuda.so.1, initialises device 0 and its primary context.
  static Status open(std::unique_ptr<CudaRunner> &runner);
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

  struct Impl;

private:
  explicit CudaRunner(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl;
};

} // namespace gdn

#endif // GDN_RUNTIME_CUDARUNNER_H
