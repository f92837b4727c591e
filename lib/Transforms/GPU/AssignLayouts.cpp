//===- AssignLayouts.cpp - every tile gets a layout, matmuls anchor -------===//
//
// Triton's ConvertTritonToTritonGPU and the anchor half of its
// AccelerateMatmul, for the gdn tile program: first every tile takes the
// default blocked layout of its rank (so all values of one shape agree and
// region arguments, yields and results stay consistent), then every
// gdn.matmul is re-typed onto the warpgroup-MMA layouts with conversions at
// its edges.
//
//===----------------------------------------------------------------------===//

#include "gdn/Dialect/GDNDialect.h"
#include "gdn/Dialect/GPU/GDNGPUDialect.h"
#include "gdn/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

namespace mlir::gdn {
#define GEN_PASS_DEF_GDNGPUASSIGNLAYOUTS
#include "Passes.h.inc"
} // namespace mlir::gdn

using namespace mlir;
using namespace mlir::gdn_gpu;

namespace {
/// The tiles the back end gives layouts: what gdn calls a tile.
bool isTile(Type type) {
  auto t = dyn_cast<RankedTensorType>(type);
  return t && !t.getEncoding() && t.hasStaticShape() &&
         (t.getRank() == 1 || t.getRank() == 2) &&
         isa<FloatType>(t.getElementType());
}

struct LayoutChoice {
  MLIRContext *ctx;
  unsigned numWarps;

  Attribute blocked(unsigned rank) const {
    if (rank == 1)
      return BlockedAttr::get(ctx, {1}, {kWarpSize}, {numWarps}, {0});
    return BlockedAttr::get(ctx, {1, 4}, {4, 8}, {numWarps, 1}, {1, 0});
  }
  /// One warpgroup per 64-row slab; further warpgroups split N.
  WarpgroupMmaAttr mma(int64_t n) const {
    unsigned groups = numWarps / kWarpsPerWarpgroup;
    return WarpgroupMmaAttr::get(
        ctx, {kWarpsPerWarpgroup, groups},
        static_cast<unsigned>(std::min<int64_t>(n / groups, 256)));
  }
  /// Operands are staged K-major; `transposed` when the tile's rows run
  /// along K (A used as A^T, B used as is).
  DotOperandAttr operand(unsigned idx, WarpgroupMmaAttr parent,
                         bool transposed) const {
    return DotOperandAttr::get(ctx, idx, parent,
                               NVMMASharedAttr::get(ctx, 128, transposed));
  }
};

RankedTensorType withLayout(Type type, Attribute layout) {
  auto t = cast<RankedTensorType>(type);
  return RankedTensorType::get(t.getShape(), t.getElementType(), layout);
}

Type withDefaultLayout(Type type, const LayoutChoice &choice) {
  if (!isTile(type))
    return type;
  return withLayout(type, choice.blocked(cast<RankedTensorType>(type).getRank()));
}

/// Every tile-typed value of `func` (results, block arguments, the
/// signature) takes the default layout of its rank.
void assignDefaults(func::FuncOp func, const LayoutChoice &choice) {
  func.walk([&](Operation *op) {
    for (Value result : op->getResults())
      result.setType(withDefaultLayout(result.getType(), choice));
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          arg.setType(withDefaultLayout(arg.getType(), choice));
    // A constant's value carries its type too.
    if (auto constant = dyn_cast<arith::ConstantOp>(op))
      if (auto dense = dyn_cast<DenseElementsAttr>(constant.getValue()))
        if (dense.getType() != constant.getType())
          constant.setValueAttr(
              dense.reshape(cast<ShapedType>(constant.getType())));
  });
  auto convert = [&](TypeRange types) {
    SmallVector<Type> out;
    for (Type t : types)
      out.push_back(withDefaultLayout(t, choice));
    return out;
  };
  FunctionType type = func.getFunctionType();
  func.setType(FunctionType::get(func.getContext(), convert(type.getInputs()),
                                 convert(type.getResults())));
}

Value convertTo(OpBuilder &b, Location loc, Value v, Attribute layout) {
  auto type = withLayout(v.getType(), layout);
  if (v.getType() == type)
    return v;
  return ConvertLayoutOp::create(b, loc, type, v);
}

/// The matmul's result in the accumulator layout, its operands staged for
/// the tensor cores, its decay vector beside the accumulator's rows.
void anchorMatmul(gdn::MatmulOp mm, const LayoutChoice &choice) {
  OpBuilder b(mm);
  Location loc = mm.getLoc();
  auto resultType = mm.getResult().getType();
  WarpgroupMmaAttr mma = choice.mma(resultType.getDimSize(1));
  mm.getLhsMutable().assign(convertTo(
      b, loc, mm.getLhs(), choice.operand(0, mma, mm.getTransposeA())));
  mm.getRhsMutable().assign(convertTo(
      b, loc, mm.getRhs(), choice.operand(1, mma, !mm.getTransposeB())));
  if (Value decay = mm.getDecay())
    mm.getDecayMutable().assign(
        convertTo(b, loc, decay, SliceAttr::get(b.getContext(), 1, mma)));
  if (Value acc = mm.getAcc())
    mm.getAccMutable().assign(convertTo(b, loc, acc, mma));
  Type blockedType = resultType;
  mm.getResult().setType(withLayout(resultType, mma));
  b.setInsertionPointAfter(mm);
  auto back = ConvertLayoutOp::create(b, loc, blockedType, mm.getResult());
  mm.getResult().replaceAllUsesExcept(back.getResult(), back);
}

/// A row scaling reads its vector where the tile's rows are: the row slice
/// of the tile's layout (one multiply per register, no data movement).
void alignRowScale(gdn::ScaleRowsOp op) {
  OpBuilder b(op);
  Attribute layout = cast<RankedTensorType>(op.getInput().getType()).getEncoding();
  auto rows = SliceAttr::get(b.getContext(), 1, cast<DistributedLayoutAttr>(layout));
  op.getScaleMutable().assign(convertTo(b, op.getLoc(), op.getScale(), rows));
}

struct AssignLayoutsPass
    : public gdn::impl::GDNGPUAssignLayoutsBase<AssignLayoutsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (numWarps == 0 || numWarps % kWarpsPerWarpgroup != 0) {
      mlir::emitError(getOperation().getLoc())
          << "gdn-gpu-assign-layouts: num-warps must be a positive multiple "
             "of 4 (whole warpgroups), got "
          << static_cast<unsigned>(numWarps);
      return signalPassFailure();
    }
    LayoutChoice choice{&getContext(), numWarps};
    getOperation().walk([&](func::FuncOp func) {
      assignDefaults(func, choice);
      func.walk([&](gdn::ScaleRowsOp op) { alignRowScale(op); });
      func.walk([&](gdn::MatmulOp mm) { anchorMatmul(mm, choice); });
    });
  }
};
} // namespace
