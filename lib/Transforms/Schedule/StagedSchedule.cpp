//===- StagedSchedule.cpp - prepare / state / output kernels --------------===//
//
// FLA's layout: a kernel parallel over chunks prepares every chunk (loads,
// gates, WY factors) into workspaces; a serial kernel per program steps the
// state through the chunks, recording the state entering each chunk and the
// step values; a kernel parallel over chunks writes the outputs.
// `output=with-state` emits in the serial kernel instead (two kernels).
// Prepared and step values are stored as `intermediates=` (f32 or bf16);
// states always as f32.
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
  Type storage = lowering.intermediateType();
  Type f32 = Float32Type::get(scan.getContext());
  SmallVector<unsigned> preparedWs, stepWs;
  for (Type t : scan.getPreparedTypes())
    preparedWs.push_back(lowering.addWorkspace(t, storage, GridZ::Chunks));
  unsigned stateWs = 0;
  if (separateOutput) {
    stateWs = lowering.addWorkspace(scan.getInit().getType(), f32, GridZ::Chunks);
    for (Type t : scan.getStepValueTypes())
      stepWs.push_back(lowering.addWorkspace(t, storage, GridZ::Chunks));
  }
  auto loadAll = [](KernelBody &k, ArrayRef<unsigned> ws, Value slot) {
    SmallVector<Value> values;
    for (unsigned w : ws)
      values.push_back(k.load(w, slot));
    return values;
  };
  // Chunk `lower + program_id(2)` of this program, when it exists.
  auto forThisChunk = [](KernelBody &k, function_ref<void(Value, Value)> fn) {
    Value slot = k.programId(2);
    OpBuilder &b = k.builder();
    Value c = arith::AddIOp::create(b, k.loc(), k.lower(), slot);
    Value exists = arith::CmpIOp::create(b, k.loc(), arith::CmpIPredicate::ult,
                                         c, k.upper());
    k.ifThen(exists, [&] { fn(c, slot); });
  };

  if (failed(lowering.addKernel(
          "prepare", GridZ::Chunks, [&](KernelBody &k) -> FailureOr<Value> {
            forThisChunk(k, [&](Value c, Value slot) {
              for (auto [w, v] : llvm::zip(preparedWs, k.prepare(c)))
                k.store(w, slot, v);
            });
            return Value();
          })))
    return failure();

  if (failed(lowering.addKernel(
          "state", GridZ::One, [&](KernelBody &k) -> FailureOr<Value> {
            SmallVector<Value> final = k.forLoop(
                k.lower(), k.upper(), k.init(), [&](Value c, ValueRange iters) {
                  Value m = iters[0];
                  Value slot = arith::SubIOp::create(k.builder(), k.loc(), c,
                                                     k.lower());
                  SmallVector<Value> prepared = loadAll(k, preparedWs, slot);
                  SmallVector<Value> next = k.step(c, prepared, m);
                  ArrayRef<Value> stepValues = ArrayRef<Value>(next).drop_front();
                  if (separateOutput) {
                    k.store(stateWs, slot, m);
                    for (auto [w, v] : llvm::zip(stepWs, stepValues))
                      k.store(w, slot, v);
                  } else {
                    k.emit(c, prepared, m, stepValues);
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
        forThisChunk(k, [&](Value c, Value slot) {
          SmallVector<Value> prepared = loadAll(k, preparedWs, slot);
          Value m = k.load(stateWs, slot);
          k.emit(c, prepared, m, loadAll(k, stepWs, slot));
        });
        return Value();
      });
}
