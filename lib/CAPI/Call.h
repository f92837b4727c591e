//===- Call.h - one call on borrowed tensors --------------------*- C++ -*-===//
//
// What gdn_call and gdn_plan_run share: reading the caller's DLTensors into
// views and running a call on them (Call.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef GDN_CAPI_CALL_H
#define GDN_CAPI_CALL_H

#include "Context.h"
#include "TensorImport.h"

#include <map>
#include <string>

namespace gdn::capi {

/// Refuses an interface that is neither GDN_INTERFACE_POOL nor _PAGED.
Status checkInterface(int32_t interface);

/// Reads `count` named DLTensors into `views` and refuses a name given
/// twice, a tensor the library cannot take, and o or state_pool sharing
/// memory with another tensor (Aliasing.h).
Status importViews(int32_t count, const char *const *names,
                   const DLTensor *const *tensors,
                   std::map<std::string, TensorView> &views);

/// Validates and runs one call on the views' memory: on the CPU back end
/// for host tensors, else through DeviceCall.h. `runtimeFailure` says what
/// a failure was: a refusal of the arguments (GDN_ERROR_VALUE / TYPE,
/// before anything is written) or a kernel that could not be compiled or
/// run (GDN_ERROR_RUNTIME). With flags.validate_only nothing runs; with
/// `dryRun` the call is validated as it would run (checked or not) and
/// nothing runs, though a device call loads its kernels.
Status runCall(gdn_context &context, run::Interface interface,
               const std::map<std::string, TensorView> &views,
               const gdn_call_flags &flags, void *stream, bool &runtimeFailure,
               bool dryRun = false);

} // namespace gdn::capi

#endif // GDN_CAPI_CALL_H
