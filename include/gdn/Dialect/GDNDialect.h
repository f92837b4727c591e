//===- GDNDialect.h - the gdn dialect and its ops ---------------*- C++ -*-===//
//
// Include this only where ops are built or matched: it pulls in the ODS
// declarations of every op.
//
//===----------------------------------------------------------------------===//

#ifndef GDN_DIALECT_GDNDIALECT_H
#define GDN_DIALECT_GDNDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "GDNDialect.h.inc"
#include "GDNEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "GDNAttrs.h.inc"

#define GET_OP_CLASSES
#include "GDNOps.h.inc"

#endif // GDN_DIALECT_GDNDIALECT_H
