//===- Context.h - what a gdn_context holds ---------------------*- C++ -*-===//

#ifndef GDN_CAPI_CONTEXT_H
#define GDN_CAPI_CONTEXT_H

#include "gdn-c/gdn.h"
#include "gdn/Driver/AutoSchedule.h"
#include "gdn/Runtime/KernelArgs.h"
#include "gdn/TensorIO/Status.h"

#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace gdn {
class CPUKernel;
class CudaRunner;
namespace capi {
struct DeviceKernel;
/// An artifact directory, or an auto set of them (Artifact.h).
struct LocatedArtifact {
  std::string dir;
  bool autoSet = false;
};
} // namespace capi
} // namespace gdn

struct gdn_context {
  std::string kernelPath;
  gdn::run::ScheduleRequest schedule; // parsed when the context is made
  std::string artifactsDir;
  std::string cacheDir; // empty: the default (KernelCache.h)
  int threads = 1;
  // One call at a time per context: the kernels below are shared.
  std::mutex mutex;
#ifdef GDN_WITH_MLIR
  // Compiled CPU kernels by (schedule, shape); compiled on first use.
  std::map<std::string, std::unique_ptr<gdn::CPUKernel>> cpuKernels;
#endif
  // Device calls (DeviceCall.cpp): loaded GPU artifacts by (device,
  // directory); what a (device, shape, schedule) resolved to; a runner per
  // device for checked mode's copies and the SM count.
  std::map<std::string, std::unique_ptr<gdn::capi::DeviceKernel>> deviceKernels;
  std::map<std::string, gdn::capi::DeviceKernel *> resolvedKernels;
  // Where artifactsDir keeps each shape's artifact (by Artifact::subdirFor).
  std::map<std::string, gdn::capi::LocatedArtifact> locatedArtifacts;
  // shared_ptr: its deleter is made where a runner is opened, so builds
  // without the CUDA runner never need its destructor.
  std::map<int, std::shared_ptr<gdn::CudaRunner>> deviceRunners;
  ~gdn_context();

  /// The CPU kernel for `schedule` and `shape`.
  gdn::Status cpuKernel(const mlir::gdn::ScheduleOptions &schedule,
                        const gdn::KernelShape &shape,
                        gdn::CPUKernel *&kernel);
};

namespace gdn::capi {
/// Records `status` as this thread's last error and returns its code.
gdn_status fail(const Status &status, gdn_status code = GDN_ERROR_VALUE);
/// A refusal's code: GDN_ERROR_TYPE for a wrong dtype, else GDN_ERROR_VALUE.
gdn_status refuse(const Status &status);
gdn_status succeed();

/// Runs an entry point's body so that no C++ exception crosses the C ABI
/// (it would terminate the caller's process): one becomes a runtime error.
template <typename Body> gdn_status guarded(Body body) {
  try {
    return body();
  } catch (const std::exception &e) {
    return fail(Status::error(std::string("internal error: ") + e.what()),
                GDN_ERROR_RUNTIME);
  } catch (...) {
    return fail(Status::error("internal error"), GDN_ERROR_RUNTIME);
  }
}
} // namespace gdn::capi

#endif // GDN_CAPI_CONTEXT_H
