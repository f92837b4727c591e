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

/// Runs a call whose tensors are on a CUDA device. `runtimeFailure` as in
/// Call.cpp.
Status runOnDevice(gdn_context &context, int interface,
                   const std::map<std::string, TensorView> &views,
                   const gdn_call_flags &flags, void *stream,
                   bool &runtimeFailure);

} // namespace gdn::capi

#endif // GDN_CAPI_DEVICECALL_H
