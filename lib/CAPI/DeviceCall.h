//===- DeviceCall.h - gdn_call on device tensors ----------------*- C++ -*-===//
//
// Device tensors run artifacts compiled ahead of time through the CUDA
// driver, on the caller's memory and stream (CudaRunner::launchOnDevice).
//
//===----------------------------------------------------------------------===//

#ifndef GDN_CAPI_DEVICECALL_H
#define GDN_CAPI_DEVICECALL_H

#include "Context.h"
#include "TensorImport.h"

#include "gdn/Runtime/Artifact.h"

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace gdn {
class CudaRunner;
}

namespace gdn::capi {

/// One artifact loaded on one device.
struct DeviceKernel {
  Artifact artifact;
  std::shared_ptr<CudaRunner> runner; // see Context.h
  ~DeviceKernel();
};

/// A device call resolved down to its launches: validated, its kernels
/// loaded, its grid and workspaces planned. gdn_plan_run repeats it on
/// other addresses by rewriting the caller's buffers in `args`.
struct DeviceLaunchPlan {
  DeviceKernel *kernel = nullptr;
  std::vector<KernelArg> args; // the kernels' arguments, workspaces last
  std::vector<PlannedLaunch> launches;
  /// Which of `args` are the caller's tensors: (index, tensor name).
  std::vector<std::pair<size_t, std::string>> callerArgs;
  bool nothingToRun = false; // no tokens, or validate_only
};

/// Validates a call whose tensors are on a CUDA device and resolves it to
/// `plan` (on the views' addresses), launching nothing. `runtimeFailure`
/// as in Call.cpp.
Status prepareOnDevice(gdn_context &context, int interface,
                       const std::map<std::string, TensorView> &views,
                       const gdn_call_flags &flags, void *stream,
                       DeviceLaunchPlan &plan, bool &runtimeFailure);

/// Launches a prepared call on `stream` (the addresses in its args).
Status launchPlanned(const DeviceLaunchPlan &plan, void *stream);

/// prepareOnDevice, then launchPlanned.
Status runOnDevice(gdn_context &context, int interface,
                   const std::map<std::string, TensorView> &views,
                   const gdn_call_flags &flags, void *stream,
                   bool &runtimeFailure);

} // namespace gdn::capi

#endif // GDN_CAPI_DEVICECALL_H
