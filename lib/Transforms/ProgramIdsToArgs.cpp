//===- ProgramIdsToArgs.cpp - gdn.program_id -> kernel arguments ----------===//
//
// The CPU has no launch grid: the driver calls the kernel once per grid
// point and passes the point as three trailing index arguments.
//
//===----------------------------------------------------------------------===//

#include "gdn/Dialect/GDNDialect.h"
#include "gdn/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::gdn {
#define GEN_PASS_DEF_GDNPROGRAMIDSTOARGS
#include "Passes.h.inc"
} // namespace mlir::gdn

using namespace mlir;
using namespace mlir::gdn;

namespace {
struct ProgramIdsToArgsPass
    : public gdn::impl::GDNProgramIdsToArgsBase<ProgramIdsToArgsPass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      SmallVector<ProgramIdOp> ids;
      func.walk([&](ProgramIdOp op) { ids.push_back(op); });
      if (ids.empty())
        continue;
      if (func.isExternal()) {
        func.emitError("gdn.program_id in a function without a body");
        return signalPassFailure();
      }
      Block &entry = func.getBody().front();
      unsigned first = func.getNumArguments();
      IndexType index = IndexType::get(&getContext());
      SmallVector<Type> types(3, index);
      SmallVector<DictionaryAttr> attrs(3, DictionaryAttr::get(&getContext()));
      SmallVector<Location> locs(3, func.getLoc());
      SmallVector<unsigned> positions(3, first);
      if (failed(func.insertArguments(positions, types, attrs, locs))) {
        func.emitError("cannot append the program-id arguments");
        return signalPassFailure();
      }
      for (ProgramIdOp op : ids) {
        op.getResult().replaceAllUsesWith(
            entry.getArgument(first + op.getAxis()));
        op.erase();
      }
    }
  }
};
} // namespace
