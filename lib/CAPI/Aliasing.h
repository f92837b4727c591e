//===- Aliasing.h - Refuse inputs that share memory with outputs -*- C++ -*-===//
//
// A call writes its output `o` and its state pool while it reads every other
// tensor. A tensor that shares bytes with one of them would be read after
// the kernels overwrote it (or written twice), so such calls are refused
// before anything runs. Only address ranges are compared: no element is
// read, so the check is as cheap for device tensors as for host ones.
//
//===----------------------------------------------------------------------===//

#ifndef GDN_CAPI_ALIASING_H
#define GDN_CAPI_ALIASING_H

#include "TensorImport.h"

#include <map>
#include <string>

namespace gdn::capi {

/// Refuses a call in which `o` or `state_pool` shares a byte with any other
/// tensor of the call (the pool's whole extent counts: which of its rows a
/// call writes is known on the device only). Tensors that are only read
/// may overlap each other.
Status checkNoAliasing(const std::map<std::string, TensorView> &views);

} // namespace gdn::capi

#endif // GDN_CAPI_ALIASING_H
