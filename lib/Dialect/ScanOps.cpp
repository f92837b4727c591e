//===- ScanOps.cpp - verifier of gdn.chunk_scan ---------------------------===//
//
// The stages' block arguments and yields must chain: what `prepare` yields
// is what the later stages receive, the state has the `init` type, and the
// values that may cross global memory (prepared and step values) are
// statically shaped float tiles a schedule can store.
//
//===----------------------------------------------------------------------===//

#include "gdn/Dialect/GDNDialect.h"

using namespace mlir;
using namespace mlir::gdn;

namespace {
YieldOp yieldOf(Region &region) {
  return cast<YieldOp>(region.front().getTerminator());
}

/// Whether `region`'s argument types match `expected`; `hint` (if any)
/// follows the diagnostic after a semicolon.
LogicalResult expectArgs(ChunkScanOp op, Region &region, StringRef stage,
                         TypeRange expected, StringRef hint = {}) {
  TypeRange got = region.front().getArgumentTypes();
  if (got != expected) {
    auto diag = op.emitOpError() << "'" << stage << "' must take (";
    llvm::interleaveComma(expected, diag);
    diag << ") but takes (";
    llvm::interleaveComma(got, diag);
    diag << ")";
    if (!hint.empty())
      diag << "; " << hint;
    return diag;
  }
  return success();
}

bool storableTile(Type t) {
  auto tensor = dyn_cast<RankedTensorType>(t);
  return tensor && tensor.hasStaticShape() && tensor.getRank() <= 2 &&
         (tensor.getElementType().isF32() || tensor.getElementType().isBF16() ||
          tensor.getElementType().isF16());
}

LogicalResult noWrites(ChunkScanOp op, Region &region, StringRef stage) {
  WalkResult r = region.walk([&](Operation *inner) {
    if (isa<TileStoreOp, StateStoreOp>(inner)) {
      inner->emitOpError() << "writes memory inside the '" << stage
                           << "' stage of gdn.chunk_scan, which may only read";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(r.wasInterrupted());
}
} // namespace

SmallVector<Type> ChunkScanOp::getPreparedTypes() {
  return llvm::to_vector(yieldOf(getPrepare()).getValues().getTypes());
}

SmallVector<Type> ChunkScanOp::getStepValueTypes() {
  OperandRange all = yieldOf(getStep()).getValues();
  return llvm::to_vector(
      all.drop_front(std::min<size_t>(1, all.size())).getTypes());
}

LogicalResult ChunkScanOp::verify() {
  Type index = IndexType::get(getContext());
  Type state = getInit().getType();
  SmallVector<Type> prepared = getPreparedTypes();
  for (Type t : prepared)
    if (!storableTile(t))
      return emitOpError() << "'prepare' yields " << t
                           << "; values passed between stages must be "
                              "statically shaped f32 / bf16 / f16 tiles";

  SmallVector<Type> expected{index};
  if (failed(expectArgs(*this, getPrepare(), "prepare", expected)))
    return failure();

  expected.append(prepared);
  expected.push_back(state);
  if (failed(expectArgs(*this, getStep(), "step", expected)))
    return failure();
  TypeRange stepYield = yieldOf(getStep()).getValues().getTypes();
  if (stepYield.empty() || stepYield.front() != state)
    return emitOpError() << "'step' must yield the next state (" << state
                         << ") first";
  SmallVector<Type> stepValues = getStepValueTypes();
  for (Type t : stepValues)
    if (!storableTile(t))
      return emitOpError() << "'step' yields " << t
                           << "; values passed between stages must be "
                              "statically shaped f32 / bf16 / f16 tiles";

  expected.append(stepValues);
  if (failed(expectArgs(*this, getEmit(), "emit", expected)))
    return failure();
  if (!yieldOf(getEmit()).getValues().empty())
    return emitOpError() << "'emit' must yield nothing";

  if (failed(noWrites(*this, getPrepare(), "prepare")))
    return failure();
  if (!hasTransition())
    return success();
  if (!getTransition().hasOneBlock())
    return emitOpError() << "'transition' must have one block";
  auto stateType = cast<RankedTensorType>(state);
  int64_t k = stateType.getDimSize(1);
  Type f32 = Float32Type::get(getContext());
  Type b = RankedTensorType::get({k, k}, f32);
  SmallVector<Type> want{f32, b, state};
  // Either the chunk's own map, or (folding form) the map so far after the
  // prepared values, to be composed with the chunk's.
  SmallVector<Type> transitionArgs{index};
  transitionArgs.append(prepared);
  if (transitionFolds())
    transitionArgs.append(want);
  if (failed(expectArgs(*this, getTransition(), "transition", transitionArgs,
                        "a folding transition takes the map so far (f32, "
                        "[K, K], state) after the prepared values")))
    return failure();
  if (TypeRange(yieldOf(getTransition()).getValues().getTypes()) !=
      TypeRange(want))
    return emitOpError() << "'transition' must yield (f32, " << b << ", "
                         << state << "): M_out = a M_in + M_in B + R";
  return noWrites(*this, getTransition(), "transition");
}
