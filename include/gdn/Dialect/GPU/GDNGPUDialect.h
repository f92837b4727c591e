//===- GDNGPUDialect.h - the gdn_gpu dialect: tiles with layouts -*- C++ -*-===//
//
// Include this only where layouts are built or read (the GPU back end's
// passes and lowerings): it pulls in the ODS declarations.
//
//===----------------------------------------------------------------------===//

#ifndef GDN_DIALECT_GPU_GDNGPUDIALECT_H
#define GDN_DIALECT_GPU_GDNGPUDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "GPU/GDNGPUDialect.h.inc"
#include "GPU/GDNGPUAttrInterfaces.h.inc"

#define GET_ATTRDEF_CLASSES
#include "GPU/GDNGPUAttrs.h.inc"

#define GET_OP_CLASSES
#include "GPU/GDNGPUOps.h.inc"

namespace mlir::gdn_gpu {
/// Threads of a warp; a warpgroup is four warps.
constexpr unsigned kWarpSize = 32;
constexpr unsigned kWarpsPerWarpgroup = 4;

/// The distributed layout of `type`, or null when it has none.
inline DistributedLayoutAttr getDistributedLayout(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor ? dyn_cast_or_null<DistributedLayoutAttr>(tensor.getEncoding())
                : DistributedLayoutAttr();
}
} // namespace mlir::gdn_gpu

#endif // GDN_DIALECT_GPU_GDNGPUDIALECT_H
