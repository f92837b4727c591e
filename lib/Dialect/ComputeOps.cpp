//===- ComputeOps.cpp - verifiers of gates, norms and matmuls -------------===//

#include "gdn/Dialect/GDNDialect.h"

using namespace mlir;
using namespace mlir::gdn;

LogicalResult GateOp::verify() {
  bool hasParams = getALog() || getDtBias();
  if (getDomain() == GateDomain::raw) {
    if (!getALog() || !getDtBias())
      return emitOpError("raw gate needs both A_log(...) and dt_bias(...)");
  } else if (hasParams) {
    return emitOpError() << stringifyGateDomain(getDomain())
                         << " gate takes no A_log / dt_bias";
  }
  return success();
}

LogicalResult L2NormOp::verify() {
  if (!(getEps().convertToFloat() > 0.0f))
    return emitOpError() << "eps must be positive, got "
                         << getEps().convertToFloat();
  return success();
}

LogicalResult ScaleRowsOp::verify() {
  int64_t rows = getInput().getType().getDimSize(0);
  int64_t n = getScale().getType().getDimSize(0);
  if (rows != n)
    return emitOpError() << "scale has " << n << " entries but the tile has "
                         << rows << " rows";
  return success();
}

LogicalResult MatmulOp::verify() {
  auto lhs = getLhs().getType(), rhs = getRhs().getType();
  auto res = getResult().getType();
  if (lhs.getElementType() != rhs.getElementType())
    return emitOpError() << "operand element types differ: "
                         << lhs.getElementType() << " vs "
                         << rhs.getElementType();
  int64_t m = lhs.getDimSize(getTransposeA() ? 1 : 0);
  int64_t kl = lhs.getDimSize(getTransposeA() ? 0 : 1);
  int64_t kr = rhs.getDimSize(getTransposeB() ? 1 : 0);
  int64_t n = rhs.getDimSize(getTransposeB() ? 0 : 1);
  if (kl != kr)
    return emitOpError() << "contraction sizes differ: lhs gives " << kl
                         << ", rhs gives " << kr;
  if (res.getDimSize(0) != m || res.getDimSize(1) != n)
    return emitOpError() << "result must be " << m << "x" << n << ", got "
                         << res;
  bool masked = getMask() != MaskKind::none;
  if ((masked || getDecay()) && m != n)
    return emitOpError() << "a mask or decay needs a square result, got " << m
                         << "x" << n;
  if (Value acc = getAcc()) {
    if (masked)
      return emitOpError("acc needs mask none: the mask and decay would "
                         "also apply to the accumulator");
    if (acc.getType() != res)
      return emitOpError() << "acc must have the result's type " << res
                           << ", got " << acc.getType();
  }
  if (getDecay()) {
    if (!masked)
      return emitOpError("decay needs a causal or strict mask: above the "
                         "diagonal exp(gamma_i - gamma_j) overflows");
    int64_t len = getDecay().getType().getDimSize(0);
    if (len != m)
      return emitOpError() << "decay has " << len << " entries, expected " << m;
  }
  return success();
}

LogicalResult TriInverseOp::verify() {
  auto t = getInput().getType();
  if (t.getDimSize(0) != t.getDimSize(1))
    return emitOpError() << "needs a square tile, got " << t;
  return success();
}
