//===- StagedSchedule.cpp - prepare / state / output kernels --------------===//
//
// FLA's layout: a kernel parallel over chunks prepares every chunk (loads,
// gates, WY factors) into workspaces; a serial kernel per program steps the
// state through the chunks, recording the state entering each chunk and the
// step values; a kernel parallel over chunks writes the outputs.
// `output=with-state` emits in the serial kernel instead (two kernels).
// Prepared and step values are stored as `intermediates=` (f32 or bf16),
// vectors and states always as f32. `store=solve` stores only the prepared
// values that depend on the WY solve (W and U in gdn_chunked.mlir, as
// FlashQLA's kkt_solve kernel does): the later kernels prepare the others
// again from their inputs (loads, gates, row scalings, Q K^T), and whatever
// only fed the stored ones is dead there and removed. `store=products`
// also stores what a product made (Q K^T), so that only loads and
// element-wise work are done again.
//
//===----------------------------------------------------------------------===//

#include "ScanLowering.h"
#include "ScheduleKinds.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::gdn::schedule;

LogicalResult mlir::gdn::schedule::lowerStaged(ScanLowering &lowering) {
  gdn::ChunkScanOp scan = lowering.scan();
  const bool separateOutput = lowering.options().output == "separate";
  Type f32 = Float32Type::get(scan.getContext());
  // The workspace of each prepared value that crosses kernels.
  SmallVector<std::optional<unsigned>> preparedWs;
  SmallVector<unsigned> stepWs;
  const bool perHead = lowering.options().preparePer == "head";
  // prepare-per=head: the prepare stage's own values stored per head.
  SmallVector<std::pair<OpResult, unsigned>> sharedWs;
  if (perHead) {
    FailureOr<SmallVector<OpResult>> shared = lowering.sharedValues();
    if (failed(shared))
      return failure();
    for (OpResult v : *shared)
      sharedWs.push_back({v, lowering.addWorkspace(
                                 v.getType(), lowering.storageOf(v.getType()),
                                 GridZ::Chunks, /*perHead=*/true)});
    preparedWs.assign(scan.getPreparedTypes().size(), std::nullopt);
  } else {
    SmallVector<bool> stored = lowering.preparedToStore();
    for (auto [t, isStored] : llvm::zip(scan.getPreparedTypes(), stored))
      preparedWs.push_back(
          isStored
              ? std::optional<unsigned>(
                    lowering.addWorkspace(t, lowering.storageOf(t),
                                          GridZ::Chunks))
              : std::nullopt);
  }
  // Chunk c's prepared values in a kernel after the prepare kernel.
  auto prepared = [&](KernelBody &k, Value c, Value slot) {
    return perHead ? k.preparedWithInnerLoads(c, sharedWs, slot)
                   : k.preparedWithLoads(c, preparedWs, slot);
  };
  unsigned stateWs = 0;
  if (separateOutput) {
    stateWs = lowering.addWorkspace(scan.getInit().getType(), f32, GridZ::Chunks);
    for (Type t : scan.getStepValueTypes())
      stepWs.push_back(
          lowering.addWorkspace(t, lowering.storageOf(t), GridZ::Chunks));
  }
  auto loadAll = [](KernelBody &k, ArrayRef<unsigned> ws, Value slot) {
    SmallVector<Value> values;
    for (unsigned w : ws)
      values.push_back(k.load(w, slot));
    return values;
  };
  if (failed(lowering.addKernel(
          "prepare", GridZ::Chunks,
          [&](KernelBody &k) -> FailureOr<Value> {
            k.forThisChunk([&](Value c, Value slot) {
              if (perHead) {
                SmallVector<OpResult> values;
                for (auto [v, w] : sharedWs)
                  values.push_back(v);
                for (auto [made, entry] :
                     llvm::zip(k.prepareAndGet(c, values), sharedWs))
                  k.store(entry.second, slot, made);
                return;
              }
              for (auto [w, v] : llvm::zip(preparedWs, k.prepare(c)))
                if (w)
                  k.store(*w, slot, v);
            });
            return Value();
          },
          perHead)))
    return failure();

  if (failed(lowering.addKernel(
          "state", GridZ::One, [&](KernelBody &k) -> FailureOr<Value> {
            SmallVector<Value> final = k.forLoop(
                k.lower(), k.upper(), k.init(), [&](Value c, ValueRange iters) {
                  Value m = iters[0];
                  Value slot = arith::SubIOp::create(k.builder(), k.loc(), c,
                                                     k.lower());
                  SmallVector<Value> chunk = prepared(k, c, slot);
                  SmallVector<Value> next = k.step(c, chunk, m);
                  ArrayRef<Value> stepValues = ArrayRef<Value>(next).drop_front();
                  if (separateOutput) {
                    k.store(stateWs, slot, m);
                    for (auto [w, v] : llvm::zip(stepWs, stepValues))
                      k.store(w, slot, v);
                  } else {
                    k.emit(c, chunk, m, stepValues);
                  }
                  return SmallVector<Value>{next[0]};
                });
            return final[0];
          })))
    return failure();

  if (!separateOutput)
    return success();
  return lowering.addKernel(
      "output", GridZ::Chunks, [&](KernelBody &k) -> FailureOr<Value> {
        k.forThisChunk([&](Value c, Value slot) {
          SmallVector<Value> chunk = prepared(k, c, slot);
          Value m = k.load(stateWs, slot);
          k.emit(c, chunk, m, loadAll(k, stepWs, slot));
        });
        return Value();
      });
}
