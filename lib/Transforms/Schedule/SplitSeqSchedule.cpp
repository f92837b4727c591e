//===- SplitSeqSchedule.cpp - segments in parallel, then replayed ---------===//
//
// For few long sequences (B * HV small against the SMs): a program's chunks
// are cut into segments of `segment-chunks` chunks (segment 0 takes one
// more when the count is one past a multiple of that).
//   1. transition (parallel over segments): each segment's effect on the
//      state, M_end = a M_start + M_start B + R, composed from the chunks'
//      `transition` stage;
//   2. replay (parallel over segments): segment s first applies the maps
//      of segments 0 .. s-1 to the program's initial state (a serial chain
//      of s steps: the state entering it), then runs the fused loop over its
//      chunks: outputs and checkpoints. The block of the program's last
//      segment stores the final state (the entry's epilogue).
// Replay reads the initial state from a copy transition made (initWs):
// replay's own blocks may overwrite the memory it came from. (Under
// first-segment=run initWs holds the state segment 0 ended with.)
// With `replay=load`, transition also stores the prepared values it reads
// (tiles as `intermediates`, vectors as f32) and replay loads them instead
// of computing them again (the WY factors are most of a chunk's latency).
// With `first-segment=run`, transition's segment-0 block runs its chunks
// (outputs, checkpoints) instead of composing their map and leaves the state
// it ends with for replay, which skips segment 0; the program's last segment
// gets no map (nothing reads it), and with replay=load prepares its chunks
// in replay. `first-segment-chunks` sets segment 0's length apart from the
// others' so that the kernels balance (H200: bench/RESULTS.md).
// With `prepare=separate` (replay=load), a kernel parallel over chunks
// stores every chunk's values first, and transition and replay both load
// them: the map composition then holds no WY solve beside its map.
// Composition: (a1, B1, R1) then (a2, B2, R2) is
//   a = a1 a2,  B = a2 B1 + a1 B2 + B1 B2,  R = a2 R1 + R1 B2 + R2,
// unless the transition stage folds (takes the map so far and composes it
// with its chunk itself, e.g. through a low-rank factor of B2).
//
//===----------------------------------------------------------------------===//

#include "ScanLowering.h"
#include "ScheduleKinds.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::gdn::schedule;

namespace {
/// The split-seq lowering of one scan: its workspaces, then the transition
/// and replay kernels, each built by a few named steps.
class SplitSeqLowering {
public:
  explicit SplitSeqLowering(ScanLowering &lowering)
      : lowering(lowering), scan(lowering.scan()),
        options(lowering.options()) {}

  LogicalResult run() {
    if (!scan.hasTransition())
      return scan.emitOpError()
             << "has no 'transition' stage; schedule '" << options.name
             << "' (split-seq) needs each chunk's effect on the state";
    declareWorkspaces();
    if (separatePrepare &&
        failed(lowering.addKernel("prepare", GridZ::Chunks,
                                  [&](KernelBody &k) -> FailureOr<Value> {
                                    buildPrepare(k);
                                    return Value();
                                  })))
      return failure();
    if (failed(lowering.addKernel("transition", GridZ::Segments,
                                  [&](KernelBody &k) -> FailureOr<Value> {
                                    buildTransition(k);
                                    if (failed(status))
                                      return failure();
                                    return Value();
                                  })) ||
        failed(status))
      return failure();
    return lowering.addKernel("replay", GridZ::Segments,
                              [&](KernelBody &k) -> FailureOr<Value> {
                                buildReplay(k);
                                if (failed(status))
                                  return failure();
                                return Value();
                              });
  }

private:
  ScanLowering &lowering;
  gdn::ChunkScanOp scan;
  const gdn::ScheduleOptions &options;
  RankedTensorType stateType;
  Type kkType;
  // The map (a, B, R) of each segment, and the state replay starts from.
  unsigned aWs = 0, bWs = 0, rWs = 0, initWs = 0;
  // replay=load: a workspace per prepared value transition stores.
  SmallVector<std::optional<unsigned>> preparedWs;
  int64_t segment = 0, firstSegment = 0;
  // separatePrepare: prepare=separate with something to store.
  bool replayLoads = false, runFirst = false, separatePrepare = false;
  LogicalResult status = success();

  void declareWorkspaces();
  Value chunkSlot(KernelBody &k, Value c);
  void forThisSegment(KernelBody &k, function_ref<void(Value, Value, Value)> fn);
  Value runChunks(KernelBody &k, Value first, Value end, Value state);
  void runSegment(KernelBody &k, Value first, Value end);
  SmallVector<Value> prepareAndStore(KernelBody &k, Value c);
  void buildPrepare(KernelBody &k);
  void composeMap(KernelBody &k, Value s, Value first, Value end);
  void buildTransition(KernelBody &k);
  Value stateEntering(KernelBody &k, Value s);
  Value loadedRun(KernelBody &k, Value first, Value end, Value state);
  void replaySegment(KernelBody &k, Value s, Value first, Value end);
  void buildReplay(KernelBody &k);
  void storeFinal(KernelBody &k, Value final) {
    if (failed(k.storeFinal(final)))
      status = failure();
  }
};
} // namespace

void SplitSeqLowering::declareWorkspaces() {
  MLIRContext *ctx = scan.getContext();
  Type f32 = Float32Type::get(ctx);
  stateType = cast<RankedTensorType>(scan.getInit().getType());
  int64_t kDim = stateType.getDimSize(1);
  kkType = RankedTensorType::get({kDim, kDim}, f32);
  aWs = lowering.addWorkspace(f32, f32, GridZ::Segments);
  // B is read only as a matmul operand (replay's prefix steps), so it is
  // stored like the other operand tiles (`intermediates`); a and R are
  // added and stay f32.
  bWs = lowering.addWorkspace(kkType, lowering.intermediateType(),
                              GridZ::Segments);
  rWs = lowering.addWorkspace(stateType, f32, GridZ::Segments);
  // The program's initial state, copied (slot 0) before replay: replay's
  // blocks all start from it, while the pool rows or pages it was read from
  // may be written by other blocks of replay (the final state in a pool
  // call; a checkpoint of the page the prefix ends in, in a paged one).
  // Under first-segment=run: the state segment 0 ended with (transition's
  // other blocks still load the initial state, as every kernel's prologue
  // does, while segment 0's block may write a checkpoint over it; they
  // load it but never use it).
  initWs = lowering.addWorkspace(stateType, f32, GridZ::Segments);
  segment = options.segmentChunks;
  // replay=load: the prepared values the transition stage reads are stored
  // by transition, which computes them anyway, and loaded by replay, except
  // those replay computes anyway while preparing the emit stage's values
  // (in gdn_chunked.mlir K and gamma, which Q K^T (.) D and the output
  // read: W and U are stored). What only fed the stored ones is dead in
  // replay and removed. With store=solve only those of the WY solve
  // (store=products: of the solve or of a product).
  replayLoads = options.replay == "load";
  if (replayLoads) {
    Block &transitionArgs = scan.getTransition().front();
    Block &emitArgs = scan.getEmit().front();
    SmallVector<bool> emitted;
    for (unsigned i = 0, e = scan.getPreparedTypes().size(); i < e; ++i)
      emitted.push_back(!emitArgs.getArgument(i + 1).use_empty());
    SmallVector<bool> preparedAnyway = lowering.preparedAlongside(emitted);
    SmallVector<bool> stored = lowering.preparedToStore();
    for (auto [i, t] : llvm::enumerate(scan.getPreparedTypes())) {
      if (transitionArgs.getArgument(i + 1).use_empty() || preparedAnyway[i] ||
          !stored[i]) {
        preparedWs.push_back(std::nullopt);
        continue;
      }
      preparedWs.push_back(
          lowering.addWorkspace(t, lowering.storageOf(t), GridZ::Chunks));
    }
    separatePrepare =
        options.prepare == "separate" &&
        llvm::any_of(preparedWs, [](auto w) { return w.has_value(); });
  }
  // first-segment=run: segment 0 runs its chunks in transition (outputs,
  // checkpoints) and leaves the state it ends with in initWs, which replay's
  // later segments start from; replay skips segment 0. The program's last
  // segment needs no map: transition skips it, and with replay=load replay
  // prepares its chunks itself (a segment's slot in transition is worth
  // more than the prepared values it would store).
  runFirst = options.firstSegment == "run";
  firstSegment = runFirst && options.firstSegmentChunks
                     ? options.firstSegmentChunks
                     : segment;
  if (runFirst)
    lowering.setFirstSegmentChunks(firstSegment);
  else
    lowering.setExtraChunkInSegmentZero(); // forThisSegment below
}

/// Slot of chunk `c` in a chunk workspace: its index in the program.
Value SplitSeqLowering::chunkSlot(KernelBody &k, Value c) {
  return arith::SubIOp::create(k.builder(), k.loc(), c, k.lower());
}

/// Chunks [first, end) of segment `program_id(2)`, when it has any.
/// Segments are `segment` chunks long, except segment 0, which is
/// `segment + extra`. Under first-segment=run extra is
/// first-segment-chunks - segment. Otherwise it is 1 for a program with
/// one chunk more than a multiple of `segment` (a paged call whose first
/// chunk starts before its first new token) and 0 else: a segment of its
/// own for that chunk would be launched after one wave of blocks and would
/// finish a segment's time late. planCall launches segments accordingly.
void SplitSeqLowering::forThisSegment(
    KernelBody &k, function_ref<void(Value, Value, Value)> fn) {
  OpBuilder &b = k.builder();
  Location loc = k.loc();
  Value s = k.programId(2);
  Value chunks = arith::SubIOp::create(
      b, loc, arith::MaxUIOp::create(b, loc, k.upper(), k.lower()), k.lower());
  Value longer = arith::AndIOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, chunks,
                            k.index(segment)),
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                            arith::RemUIOp::create(b, loc, chunks, k.index(segment)),
                            k.index(1)));
  Value extra =
      runFirst ? k.index(firstSegment - segment)
               : arith::SelectOp::create(b, loc, longer, k.index(1), k.index(0))
                     .getResult();
  Value notFirst = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, s,
                                         k.index(0));
  Value shift = arith::SelectOp::create(b, loc, notFirst, extra, k.index(0));
  Value offset = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, s, k.index(segment)), shift);
  Value first = arith::AddIOp::create(b, loc, k.lower(), offset);
  Value bound = arith::AddIOp::create(
      b, loc, k.lower(),
      arith::AddIOp::create(
          b, loc,
          arith::MulIOp::create(
              b, loc, arith::AddIOp::create(b, loc, s, k.index(1)),
              k.index(segment)),
          extra));
  Value end = arith::MinUIOp::create(b, loc, bound, k.upper());
  Value any = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                    first, end);
  k.ifThen(any, [&] { fn(s, first, end); });
}

/// Chunks [first, end) run from `state` as the fused schedule runs them
/// (prepare, step, emit); returns the state after them.
Value SplitSeqLowering::runChunks(KernelBody &k, Value first, Value end,
                                  Value state) {
  return k.forLoop(first, end, {state}, [&](Value c, ValueRange iters) {
    SmallVector<Value> prepared = k.prepare(c);
    SmallVector<Value> next = k.step(c, prepared, iters[0]);
    k.emit(c, prepared, iters[0], ArrayRef<Value>(next).drop_front());
    return SmallVector<Value>{next[0]};
  })[0];
}

/// Segment 0 under first-segment=run, from the initial state. The
/// program's last segment stores the final state; otherwise the state
/// goes to initWs for replay.
void SplitSeqLowering::runSegment(KernelBody &k, Value first, Value end) {
  Value final = separatePrepare ? loadedRun(k, first, end, k.init())
                                : runChunks(k, first, end, k.init());
  OpBuilder &b = k.builder();
  Value last = arith::CmpIOp::create(b, k.loc(), arith::CmpIPredicate::eq,
                                     end, k.upper());
  k.ifThen(last, [&] { storeFinal(k, final); });
  Value notLast = arith::CmpIOp::create(b, k.loc(), arith::CmpIPredicate::ne,
                                        end, k.upper());
  k.ifThen(notLast, [&] { k.store(initWs, k.index(0), final); });
}

/// Chunk c's prepared values, with replay=load those replay reads stored.
SmallVector<Value> SplitSeqLowering::prepareAndStore(KernelBody &k, Value c) {
  if (!replayLoads)
    return k.prepare(c);
  if (separatePrepare) // the prepare kernel stored them
    return k.preparedWithLoads(c, preparedWs, chunkSlot(k, c));
  // Before the stage: the stores go up among its ops.
  Value slot = chunkSlot(k, c);
  SmallVector<Value> prepared = k.prepare(c);
  // Each value is stored after the op of this chunk's body that yields it
  // (still the prepare stage's call here; gdn-gpu-stage-operands-early
  // moves the stores up to the values once the call is inlined).
  for (auto [w, v] : llvm::zip(preparedWs, prepared)) {
    if (!w)
      continue;
    OpBuilder::InsertionGuard guard(k.builder());
    Operation *def = v.getDefiningOp();
    if (def && def->getBlock() == k.builder().getInsertionBlock())
      k.builder().setInsertionPointAfter(def);
    k.store(*w, slot, v);
  }
  return prepared;
}

/// prepare=separate: the values of chunk `lower + program_id(2)` of this
/// program, when it exists, stored for transition and replay.
void SplitSeqLowering::buildPrepare(KernelBody &k) {
  k.forThisChunk([&](Value c, Value) {
    for (auto [w, v] : llvm::zip(preparedWs, k.prepare(c)))
      if (w)
        k.store(*w, chunkSlot(k, c), v);
  });
}

/// The map (a, B, R) of segment s, stored in its slots.
void SplitSeqLowering::composeMap(KernelBody &k, Value s, Value first,
                                  Value end) {
  SmallVector<Value> init{k.f32(1.0), k.zeros(kkType), k.zeros(stateType)};
  SmallVector<Value> abr = k.forLoop(
      first, end, init, [&](Value c, ValueRange acc) {
        SmallVector<Value> prepared = prepareAndStore(k, c);
        auto t = k.transition(c, prepared, acc);
        if (failed(t)) {
          status = failure();
          return llvm::to_vector(acc);
        }
        if (scan.transitionFolds())
          return *t;
        Value a2 = (*t)[0], b2 = (*t)[1], r2 = (*t)[2];
        Value a1 = acc[0], b1 = acc[1], r1 = acc[2];
        OpBuilder &b = k.builder();
        Value a = arith::MulFOp::create(b, k.loc(), a1, a2);
        Value bNew = k.add(k.add(k.scale(b1, a2), k.scale(b2, a1)),
                           k.matmul(b1, b2));
        Value r = k.add(k.add(k.scale(r1, a2), k.matmul(r1, b2)), r2);
        return SmallVector<Value>{a, bNew, r};
      });
  k.store(aWs, s, abr[0]);
  k.store(bWs, s, abr[1]);
  k.store(rWs, s, abr[2]);
}

/// transition: each segment composes its map; segment 0 copies the initial
/// state for replay, or under first-segment=run runs its chunks.
void SplitSeqLowering::buildTransition(KernelBody &k) {
  forThisSegment(k, [&](Value s, Value first, Value end) {
    OpBuilder &b = k.builder();
    Value isFirst = arith::CmpIOp::create(b, k.loc(), arith::CmpIPredicate::eq,
                                          s, k.index(0));
    if (runFirst) {
      k.ifThen(isFirst, [&] { runSegment(k, first, end); });
      Value later = arith::CmpIOp::create(b, k.loc(), arith::CmpIPredicate::ne,
                                          s, k.index(0));
      Value notLast = arith::CmpIOp::create(
          b, k.loc(), arith::CmpIPredicate::ne, end, k.upper());
      k.ifThen(arith::AndIOp::create(b, k.loc(), later, notLast),
               [&] { composeMap(k, s, first, end); });
      return;
    }
    k.ifThen(isFirst, [&] { k.store(initWs, k.index(0), k.init()); });
    composeMap(k, s, first, end);
  });
}

/// The state entering segment s: the maps of segments firstMap .. s-1
/// applied to the state in initWs (the program's initial state as
/// transition copied it, or with first-segment=run the state segment 0
/// ended with). Segment j + 1's B is loaded during step j and carried (the
/// product m B waits for its B; R is needed only after the product, a is a
/// scalar); the last step loads its own B again. Slot firstMap exists:
/// segment s >= firstMap does. (Under first-segment=run a segment 1 that
/// is the last reads slot 1, which no map wrote, and uses nothing of it:
/// workspaces are allocated poisoned.)
Value SplitSeqLowering::stateEntering(KernelBody &k, Value s) {
  OpBuilder &b = k.builder();
  Location loc = k.loc();
  Value firstMap = k.index(runFirst ? 1 : 0);
  Value lastMap = arith::SubIOp::create(b, loc, s, k.index(1));
  SmallVector<Value> prefix = k.forLoop(
      firstMap, s, {k.load(initWs, k.index(0)), k.loadStored(bWs, firstMap)},
      [&](Value j, ValueRange iters) {
        Value m = iters[0], bMat = iters[1];
        Value after = arith::AddIOp::create(b, loc, j, k.index(1));
        Value bNext =
            k.loadStored(bWs, arith::MinUIOp::create(b, loc, after, lastMap));
        Value a = k.load(aWs, j), r = k.load(rWs, j);
        Value next =
            k.add(k.add(k.scale(m, a), k.matmul(m, k.widen(bWs, bMat))), r);
        return SmallVector<Value>{next, bNext};
      });
  return prefix[0];
}

/// replay=load: chunks [first, end) from `state` with the prepared values
/// transition stored. Chunk c + 1's are loaded at the top of chunk c and
/// carried, so their latency hides behind c's work. The segment's last
/// chunk loads its own again rather than the next segment's first (or a
/// slot past the program's last). Returns the state after them.
Value SplitSeqLowering::loadedRun(KernelBody &k, Value first, Value end,
                                  Value state) {
  SmallVector<Value> init{state};
  for (std::optional<unsigned> w : preparedWs)
    if (w)
      init.push_back(k.loadStored(*w, chunkSlot(k, first)));
  SmallVector<Value> final = k.forLoop(
      first, end, init, [&](Value c, ValueRange iters) {
        Value m = iters[0];
        SmallVector<Value> fetched;
        OpBuilder &b = k.builder();
        Value after = arith::AddIOp::create(b, k.loc(), c, k.index(1));
        Value last = arith::SubIOp::create(b, k.loc(), end, k.index(1));
        Value next = arith::MinUIOp::create(b, k.loc(), after, last);
        for (std::optional<unsigned> w : preparedWs)
          if (w)
            fetched.push_back(k.loadStored(*w, chunkSlot(k, next)));
        SmallVector<Value> prepared = k.prepare(c);
        unsigned carried = 1;
        for (auto [w, v] : llvm::zip(preparedWs, prepared))
          if (w)
            v = k.widen(*w, iters[carried++]);
        SmallVector<Value> stepped = k.step(c, prepared, m);
        k.emit(c, prepared, m, ArrayRef<Value>(stepped).drop_front());
        SmallVector<Value> yielded{stepped[0]};
        llvm::append_range(yielded, fetched);
        return yielded;
      });
  return final[0];
}

/// Segment s of replay: the state entering it, then its chunks (outputs,
/// checkpoints); the block of the program's last segment stores the final
/// state.
void SplitSeqLowering::replaySegment(KernelBody &k, Value s, Value first,
                                     Value end) {
  OpBuilder &b = k.builder();
  Location loc = k.loc();
  Value entering = stateEntering(k, s);
  // Built where it is used (after the chunk loop where there is one).
  auto isLast = [&] {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, end,
                                 k.upper());
  };
  if (!replayLoads) {
    Value final = runChunks(k, first, end, entering);
    k.ifThen(isLast(), [&] { storeFinal(k, final); });
    return;
  }
  // Under first-segment=run transition left the last segment's values
  // unprepared (unless a prepare kernel stored them): it runs its chunks
  // as segment 0 did.
  if (runFirst && !separatePrepare) {
    k.ifThen(isLast(),
             [&] { storeFinal(k, runChunks(k, first, end, entering)); });
    Value notLast = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                          end, k.upper());
    k.ifThen(notLast, [&] { loadedRun(k, first, end, entering); });
    return;
  }
  Value final = loadedRun(k, first, end, entering);
  k.ifThen(isLast(), [&] { storeFinal(k, final); });
}

/// replay: every segment from the state entering it (under
/// first-segment=run, all but segment 0, which transition ran).
void SplitSeqLowering::buildReplay(KernelBody &k) {
  // A program without chunks keeps its initial state: segment 0's block
  // stores it, as the scan would return it. First, so that the initial
  // state is not held across the chunk loop for it.
  OpBuilder &b = k.builder();
  Value none = arith::CmpIOp::create(b, k.loc(), arith::CmpIPredicate::uge,
                                     k.lower(), k.upper());
  Value segment0 = arith::CmpIOp::create(b, k.loc(), arith::CmpIPredicate::eq,
                                         k.programId(2), k.index(0));
  k.ifThen(arith::AndIOp::create(b, k.loc(), none, segment0),
           [&] { storeFinal(k, k.init()); });
  forThisSegment(k, [&](Value s, Value first, Value end) {
    if (runFirst) // transition ran segment 0
      k.ifThen(arith::CmpIOp::create(k.builder(), k.loc(),
                                     arith::CmpIPredicate::ne, s, k.index(0)),
               [&] { replaySegment(k, s, first, end); });
    else
      replaySegment(k, s, first, end);
  });
}

LogicalResult mlir::gdn::schedule::lowerSplitSeq(ScanLowering &lowering) {
  return SplitSeqLowering(lowering).run();
}
