//===- GDNDialect.cpp - registration of the gdn dialect -------------------===//

#include "gdn/Dialect/GDNDialect.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::gdn;

#include "GDNDialect.cpp.inc"
#include "GDNEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "GDNAttrs.cpp.inc"

void GDNDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "GDNAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "GDNOps.cpp.inc"
      >();
}
