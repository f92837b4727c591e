//===- GDNOps.cpp - ODS op definitions of the gdn dialect -----------------===//
//
// Verifiers live beside their op families: TileOps.cpp, ComputeOps.cpp,
// StateOps.cpp.
//
//===----------------------------------------------------------------------===//

#include "gdn/Dialect/GDNDialect.h"

using namespace mlir;
using namespace mlir::gdn;

#define GET_OP_CLASSES
#include "GDNOps.cpp.inc"
