//===- GDNDialect.cpp - registration of the gdn dialect -------------------===//

#include "gdn/Dialect/GDNDialect.h"

#include "mlir/IR/DialectImplementation.h"
#include "mlir/Transforms/InliningUtils.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::gdn;

#include "GDNDialect.cpp.inc"
#include "GDNEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "GDNAttrs.cpp.inc"

namespace {
/// Every gdn op is a value-semantic tile op or a memory access with no
/// region, so calls to functions written in gdn (a kernel's per-chunk step)
/// can always be inlined.
struct GDNInlinerInterface : public DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;
  bool isLegalToInline(Operation *, Region *, bool, IRMapping &) const final {
    return true;
  }
};
} // namespace

void GDNDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "GDNAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "GDNOps.cpp.inc"
      >();
  addInterfaces<GDNInlinerInterface>();
}
