//===- ScalarFormulas.cpp - scalar bodies of gdn ops ----------------------===//

#include "gdn/Dialect/ScalarFormulas.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlir::gdn;

static Value f32Const(OpBuilder &b, Location loc, double v) {
  return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
}

Value gdn::emitNegDecayRate(OpBuilder &b, Location loc, Value aLog) {
  return arith::NegFOp::create(b, loc, math::ExpOp::create(b, loc, aLog));
}

Value gdn::emitGate(OpBuilder &b, Location l, GateDomain domain, Value x,
                    Value negDecayRate, Value dtBias) {
  switch (domain) {
  case GateDomain::log:
    return x;
  case GateDomain::linear: {
    // alpha = 0 (a full reset) gives log 0 = -inf and then inf - inf in
    // decay ratios; any g <= -200 already decays to exactly 0 in f32.
    Value g = math::LogOp::create(b, l, x);
    return arith::MaximumFOp::create(b, l, g, f32Const(b, l, -200.0));
  }
  case GateDomain::raw: {
    // g = -exp(A_log) * softplus(a + dt_bias); softplus(x) = x above 20.
    Value s = arith::AddFOp::create(b, l, x, dtBias);
    Value big = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGT, s,
                                      f32Const(b, l, 20));
    // exp of the clamped value: the unused branch must not overflow to inf.
    Value clamped = arith::MinimumFOp::create(b, l, s, f32Const(b, l, 20));
    Value soft = math::Log1pOp::create(b, l, math::ExpOp::create(b, l, clamped));
    Value sp = arith::SelectOp::create(b, l, big, s, soft);
    return arith::MulFOp::create(b, l, negDecayRate, sp);
  }
  }
  llvm_unreachable("unknown gate domain");
}

Value gdn::emitSigmoid(OpBuilder &b, Location l, Value x) {
  // exp overflows to inf for very negative x, giving exactly 0, never NaN.
  Value e = math::ExpOp::create(b, l, arith::NegFOp::create(b, l, x));
  Value one = f32Const(b, l, 1.0);
  return arith::DivFOp::create(b, l, one, arith::AddFOp::create(b, l, one, e));
}

Value gdn::emitInverseNorm(OpBuilder &b, Location l, Value sumOfSquares,
                           double eps) {
  return math::RsqrtOp::create(
      b, l, arith::AddFOp::create(b, l, sumOfSquares, f32Const(b, l, eps)));
}

Value gdn::emitPageLookup(OpBuilder &b, Location loc, Value pageIndices,
                          Value pageIndptr, Value seq, Value page) {
  auto asIndex = [&](Value v) -> Value {
    return arith::IndexCastOp::create(b, loc, b.getIndexType(), v);
  };
  Value start = asIndex(memref::LoadOp::create(b, loc, pageIndptr, ValueRange{seq}));
  Value pos = arith::AddIOp::create(b, loc, start, page);
  return asIndex(memref::LoadOp::create(b, loc, pageIndices, ValueRange{pos}));
}

SmallVector<std::optional<int64_t>>
mlir::gdn::tilePadding(MemRefType memref, ArrayRef<int64_t> tileShape,
                       ArrayRef<int64_t> dims) {
  SmallVector<std::optional<int64_t>> out;
  for (auto [size, d] : llvm::zip(tileShape, dims)) {
    int64_t extent = memref.getDimSize(d);
    if (ShapedType::isDynamic(extent) || extent % size == 0)
      out.push_back(std::nullopt);
    else
      out.push_back(extent);
  }
  return out;
}

bool mlir::gdn::hasTilePadding(MemRefType memref, ArrayRef<int64_t> tileShape,
                               ArrayRef<int64_t> dims) {
  return llvm::any_of(tilePadding(memref, tileShape, dims),
                      [](std::optional<int64_t> e) { return e.has_value(); });
}

Value mlir::gdn::emitInsidePadding(OpBuilder &b, Location loc,
                                   ArrayRef<std::optional<int64_t>> padding,
                                   ArrayRef<int64_t> dims, ValueRange indices) {
  Value inside;
  for (auto [extent, d] : llvm::zip(padding, dims)) {
    if (!extent)
      continue;
    Value bound = arith::ConstantIndexOp::create(b, loc, *extent);
    Value in = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                     indices[d], bound);
    inside = inside ? arith::AndIOp::create(b, loc, inside, in).getResult() : in;
  }
  return inside ? inside : arith::ConstantIntOp::create(b, loc, 1, 1).getResult();
}

Value mlir::gdn::emitFloatCast(OpBuilder &b, Location loc, Value v, Type to) {
  Type from = getElementTypeOrSelf(v.getType());
  if (from == to)
    return v;
  Type target = to;
  if (auto vec = dyn_cast<VectorType>(v.getType()))
    target = vec.clone(to);
  if (from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth())
    return arith::ExtFOp::create(b, loc, target, v);
  return arith::TruncFOp::create(b, loc, target, v);
}
