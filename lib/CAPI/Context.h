//===- Context.h - what a gdn_context holds ---------------------*- C++ -*-===//

#ifndef GDN_CAPI_CONTEXT_H
#define GDN_CAPI_CONTEXT_H

#include "gdn-c/gdn.h"
#include "gdn/Runtime/KernelArgs.h"
#include "gdn/TensorIO/Status.h"

#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace gdn {
class CPUKernel;
namespace capi {
struct DeviceKernel;
}
} // namespace gdn

struct gdn_context {
  std::string kernelPath;
  std::string schedule;
  std::string artifactsDir;
  std::string cacheDir; // empty: the default (KernelCache.h)
  int threads = 1;
  // One call at a time per context: the kernels below are shared.
  std::mutex mutex;
#ifdef GDN_WITH_MLIR
  // Compiled CPU kernels by (schedule, shape); compiled on first use.
  std::map<std::string, std::unique_ptr<gdn::CPUKernel>> cpuKernels;
#endif
  // Loaded GPU artifacts by (device, directory); see DeviceCall.cpp.
  std::map<std::string, std::unique_ptr<gdn::capi::DeviceKernel>> deviceKernels;
  std::map<int, int64_t> deviceSMs; // multiprocessors by device ordinal
  ~gdn_context();

  /// The CPU kernel for `schedule` (concrete, not auto) and `shape`.
  gdn::Status cpuKernel(const std::string &schedule,
                        const gdn::KernelShape &shape,
                        gdn::CPUKernel *&kernel);
};

namespace gdn::capi {
/// Records `status` as this thread's last error and returns its code.
gdn_status fail(const Status &status, gdn_status code = GDN_ERROR_VALUE);
/// A refusal's code: GDN_ERROR_TYPE for a wrong dtype, else GDN_ERROR_VALUE.
gdn_status refuse(const Status &status);
gdn_status succeed();
} // namespace gdn::capi

#endif // GDN_CAPI_CONTEXT_H
