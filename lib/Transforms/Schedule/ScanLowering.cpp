//===- ScanLowering.cpp - kernels, stages and workspaces of a schedule ----===//

#include "ScanLowering.h"
#include "gdn/Dialect/AttrNames.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace mlir::gdn;
using namespace mlir::gdn::schedule;

const char *schedule::gridZName(GridZ z) {
  switch (z) {
  case GridZ::One: return "one";
  case GridZ::Chunks: return "chunks";
  case GridZ::Segments: return "segments";
  }
  return "?";
}

//===----------------------------------------------------------------------===//
// ScanLowering
//===----------------------------------------------------------------------===//

ScanLowering::ScanLowering(func::FuncOp entry, ChunkScanOp scan,
                           const ScheduleOptions &options)
    : entry(entry), original(scan), opts(options),
      firstWorkspaceArg(entry.getNumArguments()), insertAfter(entry) {}

Type ScanLowering::intermediateType() {
  Builder b(entry.getContext());
  return opts.intermediates == "bf16" ? Type(b.getBF16Type())
                                      : Type(b.getF32Type());
}

Type ScanLowering::storageOf(Type t) {
  if (cast<RankedTensorType>(t).getRank() == 1)
    return Float32Type::get(entry.getContext());
  return intermediateType();
}

/// The function `op` calls when it is a func.call of a function with a
/// body in reach of `symbols`; null otherwise.
static func::FuncOp definedCallee(Operation *op,
                                  SymbolTableCollection &symbols) {
  auto call = dyn_cast<func::CallOp>(op);
  if (!call)
    return {};
  auto callee = symbols.lookupNearestSymbolFrom<func::FuncOp>(
      call, call.getCalleeAttr());
  if (!callee || callee.isExternal())
    return {};
  return callee;
}

/// Whether `op`, an op it holds or a function it calls (transitively) is a
/// source op (`isSource`; see storedSource).
static bool holdsSource(Operation *op, function_ref<bool(Operation *)> isSource,
                        SymbolTableCollection &symbols,
                        DenseSet<Operation *> &seen) {
  if (!seen.insert(op).second)
    return false;
  WalkResult walk = op->walk([&](Operation *n) {
    if (isSource(n))
      return WalkResult::interrupt();
    if (func::FuncOp callee = definedCallee(n, symbols))
      if (holdsSource(callee, isSource, symbols, seen))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return walk.wasInterrupted();
}

/// Adds to `derived` the values of `block` that depend on a source op,
/// given which values defined before it do. A call's results are followed
/// through its callee one by one; an op with regions counts as a whole
/// (its results depend on a source when anything in it does).
static void markDerived(Block &block, DenseSet<Value> &derived,
                        function_ref<bool(Operation *)> isSource,
                        SymbolTableCollection &symbols) {
  auto isDerived = [&](Value v) { return derived.contains(v); };
  for (Operation &op : block) {
    if (func::FuncOp callee = definedCallee(&op, symbols)) {
      Block &body = callee.getBody().front();
      DenseSet<Value> inner;
      for (auto [arg, operand] :
           llvm::zip(body.getArguments(), op.getOperands()))
        if (isDerived(operand))
          inner.insert(arg);
      markDerived(body, inner, isSource, symbols);
      for (auto [result, returned] :
           llvm::zip(op.getResults(), body.getTerminator()->getOperands()))
        if (inner.contains(returned))
          derived.insert(result);
      continue;
    }
    bool fromSource = llvm::any_of(op.getOperands(), isDerived);
    if (!fromSource) {
      DenseSet<Operation *> seen;
      fromSource = holdsSource(&op, isSource, symbols, seen);
    }
    if (!fromSource && op.getNumRegions())
      op.walk([&](Operation *nested) {
        fromSource |= llvm::any_of(nested->getOperands(), isDerived);
      });
    if (fromSource)
      for (Value r : op.getResults())
        derived.insert(r);
  }
}

/// The ops whose results `store=` sends between kernels, with all they
/// feed: the WY solve (`solve`), or the solve and every tensor-core product
/// (`products`: Q K^T too, loaded where the product would be made again;
/// at K = 256 that did not pay, docs/Schedules.md).
static bool storedSource(StringRef store, Operation *op) {
  return isa<TriInverseOp>(op) || (store == "products" && isa<MatmulOp>(op));
}

DenseSet<Value> ScanLowering::storedPreparedValues() {
  DenseSet<Value> stored;
  SymbolTableCollection symbols;
  StringRef store = opts.store;
  markDerived(
      original.getPrepare().front(), stored,
      [&](Operation *op) { return storedSource(store, op); }, symbols);
  return stored;
}

SmallVector<bool> ScanLowering::preparedToStore() {
  Block &prepare = original.getPrepare().front();
  const bool all = opts.store == "all";
  DenseSet<Value> stored = all ? DenseSet<Value>() : storedPreparedValues();
  SmallVector<bool> result;
  for (Value v : prepare.getTerminator()->getOperands())
    result.push_back(all || stored.contains(v));
  return result;
}

/// The values of `func` that depend on `root`: its users' results, and so
/// on; an op with regions counts as a whole (all its results when anything
/// in it reads such a value), and so does a call.
static DenseSet<Value> dependents(func::FuncOp func, Value root) {
  DenseSet<Value> out{root};
  bool grew = true;
  while (grew) { // ops with regions yield what their nested ops make
    grew = false;
    func.walk([&](Operation *op) {
      auto reads = [&](Operation *o) {
        return llvm::any_of(o->getOperands(),
                            [&](Value v) { return out.contains(v); });
      };
      bool dep = reads(op);
      if (!dep && op->getNumRegions())
        op->walk([&](Operation *nested) { dep |= reads(nested); });
      if (dep)
        for (Value r : op->getResults())
          grew |= out.insert(r).second;
    });
  }
  return out;
}

FailureOr<SmallVector<OpResult>> ScanLowering::sharedValues() {
  ProgramRowsOp rows;
  entry.walk([&](ProgramRowsOp op) { rows = op; });
  if (!rows)
    return original.emitOpError()
           << "has no gdn.program_rows in @" << entry.getSymName()
           << " to tell which values read the program's V rows; schedule '"
           << opts.name << "' (prepare-per=head) needs it";
  DenseSet<Value> readsRows = dependents(entry, rows.getFirstRow());
  Block &prepare = original.getPrepare().front();
  DenseSet<Value> stored = storedPreparedValues();
  auto shareable = [&](Value v) {
    return stored.contains(v) && !readsRows.contains(v);
  };
  SmallVector<OpResult> out;
  for (Operation &op : prepare)
    for (OpResult r : op.getResults()) {
      if (!shareable(r))
        continue;
      // Stored where something made per program takes it: the stage's
      // yield, or an op that reads the V rows.
      bool needed = llvm::any_of(r.getUsers(), [&](Operation *user) {
        Operation *top = prepare.findAncestorOpInBlock(*user);
        return top->hasTrait<OpTrait::IsTerminator>() ||
               llvm::any_of(top->getResults(),
                            [&](Value t) { return !shareable(t); });
      });
      if (needed)
        out.push_back(r);
    }
  if (out.empty())
    return original.emitOpError()
           << "prepares nothing from the WY solve"
           << (opts.store == "products" ? " or a product" : "")
           << " that does not read the program's V rows; schedule '"
           << opts.name << "' (prepare-per=head) has nothing to share";
  return out;
}

/// Adds to `computed` the values of `block` that computing the values
/// already in it (those the block must produce) computes: walking back, an
/// op runs when one of its results is computed, and then its operands (and
/// the values its regions read from outside) are computed too. A call's
/// results are followed through its callee one by one; an op with regions
/// runs as a whole, so all its results are computed when one is.
static void markComputed(Block &block, DenseSet<Value> &computed,
                         SymbolTableCollection &symbols) {
  for (Operation &op : llvm::reverse(block)) {
    if (op.hasTrait<OpTrait::IsTerminator>())
      continue;
    if (func::FuncOp callee = definedCallee(&op, symbols)) {
      Block &body = callee.getBody().front();
      ValueRange returned = body.getTerminator()->getOperands();
      DenseSet<Value> inner;
      for (auto [result, ret] : llvm::zip(op.getResults(), returned))
        if (computed.contains(result))
          inner.insert(ret);
      markComputed(body, inner, symbols);
      for (auto [result, ret] : llvm::zip(op.getResults(), returned))
        if (inner.contains(ret))
          computed.insert(result);
      for (auto [arg, operand] :
           llvm::zip(body.getArguments(), op.getOperands()))
        if (inner.contains(arg))
          computed.insert(operand);
      continue;
    }
    if (llvm::none_of(op.getResults(),
                      [&](Value r) { return computed.contains(r); }))
      continue;
    computed.insert(op.result_begin(), op.result_end());
    computed.insert(op.operand_begin(), op.operand_end());
    op.walk([&](Operation *nested) {
      for (Value v : nested->getOperands())
        if (!op.isAncestor(v.getParentBlock()->getParentOp()))
          computed.insert(v);
    });
  }
}

SmallVector<bool> ScanLowering::preparedAlongside(ArrayRef<bool> wanted) {
  Block &prepare = original.getPrepare().front();
  ValueRange yielded = prepare.getTerminator()->getOperands();
  DenseSet<Value> computed;
  for (auto [v, want] : llvm::zip(yielded, wanted))
    if (want)
      computed.insert(v);
  SymbolTableCollection symbols;
  markComputed(prepare, computed, symbols);
  SmallVector<bool> result;
  for (Value v : yielded)
    result.push_back(computed.contains(v));
  return result;
}

unsigned ScanLowering::addWorkspace(Type tile, Type storage, GridZ slots,
                                    bool perHead) {
  SmallVector<int64_t> shape(3, ShapedType::kDynamic);
  if (auto t = dyn_cast<RankedTensorType>(tile))
    llvm::append_range(shape, t.getShape());
  // Only workspaces per head number the call's chunks: elsewhere the
  // call-wide index cost the kernels registers (static report, K = V =
  // 128: split-seq replay=load's transition spilled 72 bytes instead of 8,
  // staged's prepare took 146 registers instead of 100), and their
  // schedules' workspaces are not what auto sizes against a limit.
  const bool callSlots = perHead && slots == GridZ::Chunks &&
                         static_cast<bool>(original.getSlotBase());
  workspaces.push_back({tile, storage, slots, perHead, callSlots,
                        MemRefType::get(shape, storage)});
  return workspaces.size() - 1;
}

/// The ops that consume the scan's result (the entry's epilogue), each
/// with its ancestor in the scan's block; fails with a diagnostic when one
/// is (or sits in) that block's terminator or outside the block: a kernel
/// that does not produce the final state could not drop it, nor one that
/// produces it in some blocks move it.
static LogicalResult
scanConsumers(ChunkScanOp scan,
              SmallVectorImpl<std::pair<Operation *, Operation *>> &out) {
  SetVector<Operation *> users;
  getForwardSlice(scan.getResult(), &users);
  Block *block = scan->getBlock();
  for (Operation *user : users) {
    Operation *top = block->findAncestorOpInBlock(*user);
    if (!top || top->hasTrait<OpTrait::IsTerminator>())
      return user->emitOpError()
             << "uses the result of gdn.chunk_scan; schedules that split "
                "the scan over kernels need it consumed in its own block";
    out.push_back({user, top});
  }
  return success();
}

LogicalResult ScanLowering::addKernel(
    StringRef suffix, GridZ z,
    function_ref<FailureOr<Value>(KernelBody &)> body, bool perHead) {
  MLIRContext *ctx = entry.getContext();
  OpBuilder b(ctx);
  b.setInsertionPointAfter(insertAfter);
  auto kernel = cast<func::FuncOp>(b.clone(*entry));
  insertAfter = kernel;
  std::string name = entry.getSymName().str();
  if (!suffix.empty())
    name += "__" + suffix.str();
  kernel.setSymName(name);
  for (const Workspace &w : workspaces) {
    SmallVector<NamedAttribute> marks{b.getNamedAttr(
        gdn::attrs::kWorkspace, b.getStringAttr(w.axisName()))};
    if (w.perHead)
      marks.push_back(
          b.getNamedAttr(gdn::attrs::kGridX, b.getStringAttr("heads")));
    auto attrs = b.getDictionaryAttr(marks);
    if (failed(kernel.insertArgument(kernel.getNumArguments(), w.memref, attrs,
                                     kernel.getLoc())))
      return kernel.emitError("cannot append the workspace arguments");
  }
  kernel->setAttr(gdn::attrs::kEntry, b.getStringAttr(entry.getSymName()));
  kernel->setAttr(gdn::attrs::kStep, b.getI64IntegerAttr(nextStep++));
  kernel->setAttr(gdn::attrs::kGridZ, b.getStringAttr(gridZName(z)));
  kernel->setAttr(gdn::attrs::kSchedule, b.getStringAttr(opts.str()));
  if (z == GridZ::Segments ||
      llvm::any_of(workspaces,
                   [](const Workspace &w) { return w.slots == GridZ::Segments; }))
    kernel->setAttr(gdn::attrs::kSegmentChunks, b.getI64IntegerAttr(opts.segmentChunks));
  if (extraChunkInSegmentZero)
    kernel->setAttr(gdn::attrs::kExtraChunkInSegmentZero, b.getUnitAttr());
  if (firstSegmentChunks)
    kernel->setAttr(gdn::attrs::kFirstSegmentChunks,
                    b.getI64IntegerAttr(firstSegmentChunks));
  // Read by gdn-gpu-prefetch-next-chunk (gdn-gpu-outline carries it over).
  if (opts.prefetch == "none")
    kernel->setAttr(gdn::attrs::kNoPrefetch, b.getUnitAttr());
  // Read by gdn-gpu-pipeline-loads (carried over the same way).
  if (opts.stages > 1)
    kernel->setAttr(gdn::attrs::kLoadStages, b.getI64IntegerAttr(opts.stages));

  if (perHead) {
    // Program x is value head x, and holds (as far as what it computes
    // cares) the head's first rows.
    kernel->setAttr(gdn::attrs::kGridX, b.getStringAttr("heads"));
    SmallVector<ProgramRowsOp> rows;
    kernel.walk([&](ProgramRowsOp op) { rows.push_back(op); });
    for (ProgramRowsOp op : rows) {
      b.setInsertionPoint(op);
      Value head = ProgramIdOp::create(b, op.getLoc(), 0);
      Value first = arith::ConstantIndexOp::create(b, op.getLoc(), 0);
      op.getHead().replaceAllUsesWith(head);
      op.getFirstRow().replaceAllUsesWith(first);
      op.erase();
    }
  }
  ChunkScanOp scan;
  kernel.walk([&](ChunkScanOp op) { scan = op; });
  b.setInsertionPoint(scan);
  KernelBody kb(b, scan, kernel, *this, perHead);
  FailureOr<Value> result = body(kb);
  if (failed(result))
    return failure();
  if (*result) {
    scan.getResult().replaceAllUsesWith(*result);
  } else {
    // This kernel does not produce the final state: drop its consumers.
    SmallVector<std::pair<Operation *, Operation *>> users;
    if (failed(scanConsumers(scan, users)))
      return failure();
    for (auto [user, top] : llvm::reverse(users))
      user->erase();
  }
  scan.erase();
  return success();
}

//===----------------------------------------------------------------------===//
// KernelBody
//===----------------------------------------------------------------------===//

KernelBody::KernelBody(OpBuilder &b, ChunkScanOp scan, func::FuncOp kernel,
                       ScanLowering &lowering, bool perHead)
    : b(b), scan(scan), kernel(kernel), lowering(lowering), perHead(perHead) {}

Value KernelBody::head() {
  if (perHead)
    return programId(0);
  ProgramRowsOp rows;
  kernel.walk([&](ProgramRowsOp op) { rows = op; });
  assert(rows && "a workspace per head in a kernel without gdn.program_rows "
                 "(sharedValues checks the entry has one)");
  return rows.getHead();
}

Value KernelBody::programId(int axis) {
  return ProgramIdOp::create(b, loc(), axis);
}

Value KernelBody::index(int64_t value) {
  return arith::ConstantIndexOp::create(b, loc(), value);
}

Value KernelBody::f32(double value) {
  return arith::ConstantOp::create(b, loc(), b.getF32FloatAttr(value));
}

SmallVector<Value> KernelBody::inlineStage(Region &stage, ValueRange args,
                                           IRMapping *mapping) {
  Block &block = stage.front();
  IRMapping local;
  IRMapping &map = mapping ? *mapping : local;
  map.map(block.getArguments(), args);
  for (Operation &op : block.without_terminator())
    b.clone(op, map);
  SmallVector<Value> out;
  for (Value v : cast<YieldOp>(block.getTerminator()).getValues())
    out.push_back(map.lookupOrDefault(v));
  return out;
}

SmallVector<Value> KernelBody::prepare(Value chunk) {
  return inlineStage(scan.getPrepare(), chunk);
}

SmallVector<Value> KernelBody::step(Value chunk, ValueRange prepared,
                                    Value state) {
  SmallVector<Value> args{chunk};
  llvm::append_range(args, prepared);
  args.push_back(state);
  return inlineStage(scan.getStep(), args);
}

void KernelBody::emit(Value chunk, ValueRange prepared, Value state,
                      ValueRange stepValues) {
  SmallVector<Value> args{chunk};
  llvm::append_range(args, prepared);
  args.push_back(state);
  llvm::append_range(args, stepValues);
  inlineStage(scan.getEmit(), args);
}

FailureOr<SmallVector<Value>> KernelBody::transition(Value chunk,
                                                     ValueRange prepared,
                                                     ValueRange mapSoFar) {
  if (!scan.hasTransition())
    return scan.emitOpError()
           << "has no 'transition' stage, which schedule '"
           << lowering.options().name << "' (" << lowering.options().kind
           << ") needs to combine segments";
  SmallVector<Value> args{chunk};
  llvm::append_range(args, prepared);
  if (scan.transitionFolds())
    llvm::append_range(args, mapSoFar);
  return inlineStage(scan.getTransition(), args);
}

LogicalResult KernelBody::storeFinal(Value state) {
  Operation *scanOp = scan;
  Block *block = scanOp->getBlock();
  // The ops after the scan that consume its result, with what they take
  // from other ops after the scan (the paged entry looks the last page up
  // there): cloned here in their order, the originals go with the scan.
  SmallVector<std::pair<Operation *, Operation *>> users;
  if (failed(scanConsumers(scan, users)))
    return failure();
  llvm::SmallPtrSet<Operation *, 16> needed;
  std::function<void(Operation *)> need = [&](Operation *op) {
    if (!needed.insert(op).second)
      return;
    op->walk([&](Operation *nested) {
      for (Value v : nested->getOperands())
        if (Operation *def = v.getDefiningOp())
          if (def->getBlock() == block && scanOp->isBeforeInBlock(def))
            need(def);
    });
  };
  for (auto [user, top] : users)
    need(top);
  IRMapping map;
  map.map(scan.getResult(), state);
  for (Operation &op : llvm::make_range(std::next(scanOp->getIterator()),
                                        block->end()))
    if (needed.count(&op))
      b.clone(op, map);
  return success();
}

Value KernelBody::castElements(Value value, Type to) {
  Type from = value.getType();
  if (from == to)
    return value;
  unsigned fromBits = getElementTypeOrSelf(from).getIntOrFloatBitWidth();
  unsigned toBits = getElementTypeOrSelf(to).getIntOrFloatBitWidth();
  if (fromBits < toBits)
    return arith::ExtFOp::create(b, loc(), to, value);
  if (fromBits > toBits)
    return arith::TruncFOp::create(b, loc(), to, value);
  // Two 16-bit types (f16 and bf16): through f32.
  Type wide = cast<ShapedType>(from).clone(b.getF32Type());
  return arith::TruncFOp::create(b, loc(), to,
                                 arith::ExtFOp::create(b, loc(), wide, value));
}

void KernelBody::store(unsigned ws, Value slot, Value value) {
  const ScanLowering::Workspace &w = lowering.workspaces[ws];
  Value mem = kernel.getArgument(lowering.firstWorkspaceArg + ws);
  SmallVector<Value> at = workspaceIndex(ws, slot);
  auto tile = dyn_cast<RankedTensorType>(value.getType());
  if (!tile) { // an f32 per slot
    memref::StoreOp::create(b, loc(), value, mem, at);
    return;
  }
  value = castElements(value, tile.clone(w.storage));
  SmallVector<int64_t> dims;
  for (int64_t d = 0; d < tile.getRank(); ++d) {
    at.push_back(index(0));
    dims.push_back(3 + d);
  }
  TileStoreOp::create(b, loc(), value, mem, at, b.getDenseI64ArrayAttr(dims),
                      /*rows=*/Value());
}

Value KernelBody::load(unsigned ws, Value slot) {
  return widen(ws, loadStored(ws, slot));
}

SmallVector<Value>
KernelBody::preparedWithLoads(Value c, ArrayRef<std::optional<unsigned>> stored,
                              Value slot) {
  bool all = llvm::all_of(stored, [](auto w) { return w.has_value(); });
  SmallVector<Value> values =
      all ? SmallVector<Value>(stored.size()) : prepare(c);
  for (auto [w, v] : llvm::zip(stored, values))
    if (w)
      v = load(*w, slot);
  return values;
}

Value KernelBody::innerValue(OpResult value, IRMapping &mapping) {
  // The op's place in the entry's prepare block is its place in this
  // kernel's (the kernel began as a copy of the entry).
  Block &original = lowering.original.getPrepare().front();
  Block &mine = scan.getPrepare().front();
  Operation *owner = value.getOwner();
  unsigned index = std::distance(original.begin(), owner->getIterator());
  Operation *copy = &*std::next(mine.begin(), index);
  return mapping.lookup(copy->getResult(value.getResultNumber()));
}

SmallVector<Value> KernelBody::prepareAndGet(Value c,
                                             ArrayRef<OpResult> wanted) {
  IRMapping mapping;
  inlineStage(scan.getPrepare(), c, &mapping);
  SmallVector<Value> out;
  for (OpResult v : wanted)
    out.push_back(innerValue(v, mapping));
  return out;
}

SmallVector<Value> KernelBody::preparedWithInnerLoads(
    Value c, ArrayRef<std::pair<OpResult, unsigned>> stored, Value slot) {
  SmallVector<Value> loaded;
  for (auto [value, ws] : stored)
    loaded.push_back(load(ws, slot));
  IRMapping mapping;
  SmallVector<Value> prepared = inlineStage(scan.getPrepare(), c, &mapping);
  for (auto [entry, l] : llvm::zip(stored, loaded)) {
    Value made = innerValue(entry.first, mapping);
    made.replaceAllUsesWith(l);
    for (Value &p : prepared)
      if (p == made)
        p = l;
  }
  return prepared;
}

void KernelBody::forThisChunk(function_ref<void(Value c, Value slot)> fn) {
  Value slot = programId(2);
  Value c = arith::AddIOp::create(b, loc(), lower(), slot);
  Value exists =
      arith::CmpIOp::create(b, loc(), arith::CmpIPredicate::ult, c, upper());
  ifThen(exists, [&] { fn(c, slot); });
}

Value KernelBody::loadStored(unsigned ws, Value slot) {
  const ScanLowering::Workspace &w = lowering.workspaces[ws];
  Value mem = kernel.getArgument(lowering.firstWorkspaceArg + ws);
  SmallVector<Value> at = workspaceIndex(ws, slot);
  auto tile = dyn_cast<RankedTensorType>(w.tile);
  if (!tile)
    return memref::LoadOp::create(b, loc(), mem, at);
  SmallVector<int64_t> dims;
  for (int64_t d = 0; d < tile.getRank(); ++d) {
    at.push_back(index(0));
    dims.push_back(3 + d);
  }
  return TileLoadOp::create(b, loc(), tile.clone(w.storage), mem, at,
                            b.getDenseI64ArrayAttr(dims), /*rows=*/Value());
}

SmallVector<Value> KernelBody::workspaceIndex(unsigned ws, Value slot) {
  const ScanLowering::Workspace &w = lowering.workspaces[ws];
  Value x = w.perHead ? head() : programId(0);
  if (!w.callSlots)
    return {x, programId(1), slot};
  return {x, index(0),
          arith::AddIOp::create(b, loc(), scan.getSlotBase(), slot)};
}

Value KernelBody::widen(unsigned ws, Value stored) {
  const ScanLowering::Workspace &w = lowering.workspaces[ws];
  return castElements(stored, w.tile);
}

SmallVector<Value> KernelBody::forLoop(
    Value lb, Value ub, ValueRange iters,
    function_ref<SmallVector<Value>(Value, ValueRange)> body) {
  auto loop = scf::ForOp::create(b, loc(), lb, ub, index(1), iters);
  OpBuilder::InsertionGuard guard(b);
  Block *block = loop.getBody();
  if (block->mightHaveTerminator())
    b.setInsertionPoint(block->getTerminator());
  else
    b.setInsertionPointToEnd(block);
  SmallVector<Value> next = body(loop.getInductionVar(), loop.getRegionIterArgs());
  if (!iters.empty())
    scf::YieldOp::create(b, loc(), next);
  return SmallVector<Value>(loop.getResults());
}

void KernelBody::ifThen(Value condition, function_ref<void()> body) {
  auto op = scf::IfOp::create(b, loc(), condition, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(op.thenBlock()->getTerminator());
  body();
}

Value KernelBody::matmul(Value lhs, Value rhs) {
  auto l = cast<RankedTensorType>(lhs.getType());
  auto r = cast<RankedTensorType>(rhs.getType());
  auto type = RankedTensorType::get({l.getDimSize(0), r.getDimSize(1)},
                                    b.getF32Type());
  return MatmulOp::create(b, loc(), type, lhs, rhs, /*decay=*/Value(),
                          /*acc=*/Value(), /*transpose_a=*/false, /*transpose_b=*/false,
                          MaskKind::none);
}

Value KernelBody::scale(Value tile, Value scalar) {
  Value splat = tensor::SplatOp::create(b, loc(), tile.getType(), scalar);
  return arith::MulFOp::create(b, loc(), tile, splat);
}

Value KernelBody::add(Value lhs, Value rhs) {
  return arith::AddFOp::create(b, loc(), lhs, rhs);
}

Value KernelBody::zeros(Type tileType) {
  return tensor::SplatOp::create(b, loc(), tileType, f32(0.0));
}
