//===- SpecializeEntries.cpp - entries with their flags bound -------------===//
//
// Like a Triton `constexpr` argument: the kernel file names the flag sets
// worth a kernel of their own (`gdn.specialize` on the entry); each gets a
// copy of the entry whose flag arguments are constants. The copy keeps the
// entry's signature, so the runtime launches it with the same arguments
// when the call's flags match (LaunchPlan.h, pickEntry).
//
//===----------------------------------------------------------------------===//

#include "gdn/Transforms/Passes.h"
#include "gdn/Dialect/AttrNames.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::gdn {
#define GEN_PASS_DEF_GDNSPECIALIZEENTRIES
#include "Passes.h.inc"
} // namespace mlir::gdn

using namespace mlir;

namespace {
/// The copy of `entry` for flag set `set` (number `n`), placed after
/// `after`; null with a diagnostic at the entry when the set is malformed.
func::FuncOp specialize(func::FuncOp entry, Operation *after,
                        DictionaryAttr set, unsigned n) {
  llvm::StringMap<unsigned> flags;
  for (unsigned i = 0; i < entry.getNumArguments(); ++i)
    if (auto name = entry.getArgAttrOfType<StringAttr>(i, gdn::attrs::kFlag))
      if (!flags.try_emplace(name.getValue(), i).second) {
        entry.emitError() << "two arguments carry gdn.flag '"
                          << name.getValue() << "'";
        return {};
      }
  OpBuilder b(entry);
  b.setInsertionPointAfter(after);
  std::string name = (entry.getSymName() + "_s" + Twine(n)).str();
  if (SymbolTable::lookupNearestSymbolFrom(entry, b.getStringAttr(name))) {
    entry.emitError() << "gdn.specialize would name a copy @" << name
                      << ", which exists already";
    return {};
  }
  auto copy = cast<func::FuncOp>(b.clone(*entry));
  copy.setSymName(name);
  copy->removeAttr(gdn::attrs::kSpecialize);
  copy->setAttr(gdn::attrs::kSpecializedFrom, b.getStringAttr(entry.getSymName()));
  Block &body = copy.getBody().front();
  b.setInsertionPointToStart(&body);
  SmallVector<int64_t> bound;
  for (NamedAttribute flag : set) {
    auto it = flags.find(flag.getName().getValue());
    if (it == flags.end()) {
      entry.emitError() << "gdn.specialize names flag '"
                        << flag.getName().getValue()
                        << "', which no argument carries as gdn.flag";
      copy.erase();
      return {};
    }
    auto value = dyn_cast<IntegerAttr>(flag.getValue());
    BlockArgument arg = body.getArgument(it->second);
    // Launchers compare index and i1 scalars only (pickEntry).
    if (!value || !(arg.getType().isIndex() || arg.getType().isInteger(1))) {
      entry.emitError()
          << "gdn.specialize binds flag '" << flag.getName().getValue()
          << "' to " << flag.getValue()
          << "; flags are index or i1 arguments bound to integers";
      copy.erase();
      return {};
    }
    // `true` is an i1 whose signed value is -1: flags compare as unsigned
    // booleans, every other width as signed integers.
    const APInt &bits = value.getValue();
    int64_t v = bits.getBitWidth() == 1 ? int64_t(bits.getZExtValue())
                                        : bits.getSExtValue();
    if (arg.getType().isInteger(1) && v != 0 && v != 1) {
      entry.emitError() << "gdn.specialize binds i1 flag '"
                        << flag.getName().getValue() << "' to " << v
                        << "; it takes 0 / 1 (false / true)";
      copy.erase();
      return {};
    }
    auto constant = arith::ConstantOp::create(
        b, copy.getLoc(), IntegerAttr::get(arg.getType(), v));
    arg.replaceAllUsesWith(constant);
    bound.append({static_cast<int64_t>(it->second), v});
  }
  copy->setAttr(gdn::attrs::kBoundArgs, b.getDenseI64ArrayAttr(bound));
  return copy;
}

struct SpecializeEntriesPass
    : public gdn::impl::GDNSpecializeEntriesBase<SpecializeEntriesPass> {
  void runOnOperation() override {
    SmallVector<func::FuncOp> entries;
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (func->hasAttr(gdn::attrs::kSpecialize))
        entries.push_back(func);
    for (func::FuncOp entry : entries) {
      auto sets = entry->getAttrOfType<ArrayAttr>(gdn::attrs::kSpecialize);
      if (!sets || entry.isExternal()) {
        entry.emitError("gdn.specialize must be an array of dictionaries on "
                        "a function with a body");
        return signalPassFailure();
      }
      Operation *after = entry;
      for (auto [n, attr] : llvm::enumerate(sets)) {
        auto set = dyn_cast<DictionaryAttr>(attr);
        if (!set) {
          entry.emitError() << "gdn.specialize entry " << n
                            << " is not a dictionary of flags";
          return signalPassFailure();
        }
        func::FuncOp copy = specialize(entry, after, set, n);
        if (!copy)
          return signalPassFailure();
        after = copy;
      }
      entry->removeAttr(gdn::attrs::kSpecialize);
    }
    // The flag marks mean nothing past this point.
    for (auto func : getOperation().getOps<func::FuncOp>())
      for (unsigned i = 0; i < func.getNumArguments(); ++i)
        func.removeArgAttr(i, gdn::attrs::kFlag);
  }
};
} // namespace
