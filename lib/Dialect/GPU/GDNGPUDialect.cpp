//===- GDNGPUDialect.cpp - registration of the gdn_gpu dialect ------------===//

#include "gdn/Dialect/GPU/GDNGPUDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::gdn_gpu;

#include "GPU/GDNGPUDialect.cpp.inc"
#include "GPU/GDNGPUAttrInterfaces.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "GPU/GDNGPUAttrs.cpp.inc"

#define GET_OP_CLASSES
#include "GPU/GDNGPUOps.cpp.inc"

namespace {
/// Short names in printed IR, as Triton's: `#blocked`, `#mma`, `#slice`...
struct GDNGPUOpAsmInterface : public OpAsmDialectInterface {
  using OpAsmDialectInterface::OpAsmDialectInterface;
  AliasResult getAlias(Attribute attr, raw_ostream &os) const override {
    if (isa<BlockedAttr>(attr))
      os << "blocked";
    else if (isa<WarpgroupMmaAttr>(attr))
      os << "mma";
    else if (isa<SliceAttr>(attr))
      os << "slice";
    else if (isa<DotOperandAttr>(attr))
      os << "dot_op";
    else if (isa<NVMMASharedAttr>(attr))
      os << "shared";
    else
      return AliasResult::NoAlias;
    return AliasResult::FinalAlias;
  }
};
} // namespace

void GDNGPUDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "GPU/GDNGPUAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "GPU/GDNGPUOps.cpp.inc"
      >();
  addInterfaces<GDNGPUOpAsmInterface>();
}
