//===- LaunchPlans.cpp - launch plans from a scheduled module -------------===//
//
// gdn-schedule marks every kernel with its entry, its place in the launch
// order and what its grid's z axis walks, and every workspace argument
// with its slot axis; this reads those marks back into LaunchPlans.
//
//===----------------------------------------------------------------------===//

#include "KernelSource.h"
#include "gdn/Dialect/AttrNames.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"

#include <algorithm>

using namespace gdn;

Status gdn::extractLaunchPlans(mlir::ModuleOp module,
                               std::map<std::string, LaunchPlan> &plans) {
  plans.clear();
  std::map<std::string, std::vector<std::pair<int64_t, LaunchStep>>> steps;
  for (auto func : module.getOps<mlir::func::FuncOp>()) {
    auto entry = func->getAttrOfType<mlir::StringAttr>(mlir::gdn::attrs::kEntry);
    if (!entry)
      continue;
    auto step = func->getAttrOfType<mlir::IntegerAttr>(mlir::gdn::attrs::kStep);
    auto gridZ = func->getAttrOfType<mlir::StringAttr>(mlir::gdn::attrs::kGridZ);
    LaunchStep s;
    s.kernel = func.getSymName().str();
    if (!step || !gridZ || !parseSlotAxis(gridZ.str(), s.gridZ))
      return Status::error("kernel @" + s.kernel +
                           " lacks gdn.step / gdn.grid_z");
    if (auto x = func->getAttrOfType<mlir::StringAttr>(mlir::gdn::attrs::kGridX))
      s.perHead = x.getValue() == "heads";
    steps[entry.str()].push_back({step.getInt(), s});
    LaunchPlan &plan = plans[entry.str()];
    if (auto sched = func->getAttrOfType<mlir::StringAttr>(mlir::gdn::attrs::kSchedule))
      plan.schedule = sched.str();
    if (auto seg = func->getAttrOfType<mlir::IntegerAttr>(mlir::gdn::attrs::kSegmentChunks))
      plan.segmentChunks = seg.getInt();
    if (func->hasAttr(mlir::gdn::attrs::kExtraChunkInSegmentZero))
      plan.extraChunkInSegmentZero = true;
    if (auto first = func->getAttrOfType<mlir::IntegerAttr>(mlir::gdn::attrs::kFirstSegmentChunks))
      plan.firstSegmentChunks = first.getInt();
    if (auto from = func->getAttrOfType<mlir::StringAttr>(mlir::gdn::attrs::kSpecializedFrom))
      plan.specializedFrom = from.str();
    if (auto bound = func->getAttrOfType<mlir::DenseI64ArrayAttr>(mlir::gdn::attrs::kBoundArgs))
      plan.boundArgs.assign(bound.asArrayRef().begin(), bound.asArrayRef().end());
    if (step.getInt() != 0)
      continue;
    for (unsigned i = 0; i < func.getNumArguments(); ++i) {
      auto slots = func.getArgAttrOfType<mlir::StringAttr>(i, mlir::gdn::attrs::kWorkspace);
      if (!slots)
        continue;
      auto memref = mlir::dyn_cast<mlir::MemRefType>(func.getArgument(i).getType());
      WorkspaceSpec w;
      if (!memref || memref.getRank() < 3 ||
          !dtypeOfElement(memref.getElementType(), w.dtype) ||
          !parseSlotAxis(slots.str(), w.slots))
        return Status::error("kernel @" + s.kernel + " workspace argument " +
                             std::to_string(i) + " is malformed");
      for (int64_t d = 3; d < memref.getRank(); ++d)
        w.tile.push_back(memref.getDimSize(d));
      if (auto x = func.getArgAttrOfType<mlir::StringAttr>(i, mlir::gdn::attrs::kGridX))
        w.perHead = x.getValue() == "heads";
      plan.workspaces.push_back(w);
    }
  }
  for (auto &[entry, list] : steps) {
    std::sort(list.begin(), list.end(),
              [](const auto &a, const auto &b) { return a.first < b.first; });
    for (auto &[order, step] : list)
      plans[entry].steps.push_back(step);
  }
  return Status::success();
}
