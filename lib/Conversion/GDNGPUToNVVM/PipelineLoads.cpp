//===- PipelineLoads.cpp - token tiles by TMA through a ring of slots -----===//
//
// A chunk loop's first ops wait for its q / k / v tiles to come from memory,
// one instruction stream per block, every thread computing the addresses of
// its own pieces (the H200 profiles: long-scoreboard stalls at the top of
// the chunk, 1.6-3.3x the instructions of the peers' kernels). Here those
// tiles come by TMA instead: one thread asks for a chunk's boxes S chunks
// ahead, into slot i % S of a shared-memory ring, and they complete on the
// slot's mbarrier while the chunks before compute. Each thread then reads
// its elements from shared memory. The boxes land in the 128-byte swizzle
// that the tensor cores read (`#gdn_gpu.nvmma_shared`), which later work can
// hand to wgmma without a trip through registers.
//
//===----------------------------------------------------------------------===//

#include "TileLowering.h"
#include "gdn/Dialect/AttrNames.h"

#include "gdn/Dialect/GDNDialect.h"
#include "gdn/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::gdn {
#define GEN_PASS_DEF_GDNGPUPIPELINELOADS
#include "Passes.h.inc"
} // namespace mlir::gdn

using namespace mlir;
using namespace mlir::gdn_gpu;

namespace {
/// TMA boxes are 128 bytes a row under the 128-byte swizzle: 64 elements of
/// 16 bits. A wider tile is several boxes side by side (column slabs).
constexpr int64_t kBoxColumns = 64;
constexpr int64_t kSwizzleBytes = 128;

/// A tile load the ring takes over.
struct RingLoad {
  mutable gdn::TileLoadOp load; // ops' accessors are not const
  llvm::SetVector<Operation *> slice; // its address ops (nextAddressSlice)
  unsigned source = 0;                // the kernel argument it reads
  BlockArgument map;                  // its tensor-map parameter
  int64_t offset = 0;                 // bytes into the slot
  int64_t bytes = 0;                  // bytes in the slot

  int64_t rows() const { return load.getType().getDimSize(0); }
  int64_t boxes() const { return load.getType().getDimSize(1) / kBoxColumns; }
};

/// Whether TMA can bring `load`'s tile (a load of kernel argument
/// `source` of `kernel`) into a ring slot as 128-byte-swizzled boxes.
bool tmaCanBox(gdn::TileLoadOp load, gpu::GPUFuncOp kernel) {
  auto source = dyn_cast<BlockArgument>(load.getSource());
  if (!source || source.getOwner() != &kernel.getBody().front() ||
      source.getArgNumber() >= kernel.getNumArguments())
    return false;
  auto memref = cast<MemRefType>(source.getType());
  RankedTensorType type = load.getType();
  ArrayRef<int64_t> dims = load.getDims();
  int64_t rank = memref.getRank();
  if (memref.getMemorySpace() || !memref.getLayout().isIdentity() ||
      rank > 5 || memref.getElementTypeBitWidth() != 16 ||
      type.getElementTypeBitWidth() != 16 || type.getRank() != 2 ||
      dims.size() != 2 || dims[1] != rank - 1 || dims[0] == rank - 1 ||
      !getDistributedLayout(type))
    return false;
  // TMA strides are multiples of 16 bytes: a row of 8 elements at least.
  int64_t rowLength = memref.getShape().back();
  if (ShapedType::isDynamic(rowLength) || (rowLength * 2) % 16 != 0)
    return false;
  // A box is at most 256 rows; its row run is 64 elements.
  return type.getDimSize(0) <= 256 && type.getDimSize(1) % kBoxColumns == 0;
}

/// Whether `loop` runs once per execution of `kernel`: a ring's barrier
/// phases count fills from the kernel's start, so a loop that a second loop
/// runs again would wait on the phases of its previous run.
bool runsOnce(scf::ForOp loop, gpu::GPUFuncOp kernel) {
  for (Operation *p = loop->getParentOp(); p && p != kernel; p = p->getParentOp())
    if (isa<LoopLikeOpInterface>(p))
      return false;
  return true;
}

class RingBuilder {
public:
  RingBuilder(gpu::GPUFuncOp kernel, scf::ForOp loop, int64_t ring,
              int64_t stages, int64_t slotBytes, ArrayRef<RingLoad> loads)
      : kernel(kernel), loop(loop), ring(ring), stages(stages),
        slotBytes(slotBytes), loads(loads) {}

  void build() {
    Location loc = loop.getLoc();
    OpBuilder b(kernel.getContext());
    b.setInsertionPointToStart(&kernel.getBody().front());
    LoadRingOp::create(b, loc, ring, stages, slotBytes);

    // Slots 0 .. S-1 get the first S iterations, before the loop.
    b.setInsertionPoint(loop);
    for (int64_t s = 0; s < stages; ++s) {
      Value iv = arith::AddIOp::create(
          b, loc, loop.getLowerBound(),
          arith::MulIOp::create(b, loc, loop.getStep(), constant(b, loc, s)));
      fill(b, loc, iv, constant(b, loc, s));
    }

    // At the top of iteration i: wait for slot i % S, read its tiles.
    gdn::TileLoadOp first = loads.front().load;
    for (const RingLoad &l : loads)
      if (l.load->isBeforeInBlock(first))
        first = l.load;
    b.setInsertionPoint(first);
    Value iter = arith::DivUIOp::create(
        b, loc,
        arith::SubIOp::create(b, loc, loop.getInductionVar(),
                              loop.getLowerBound()),
        loop.getStep());
    Value slot = arith::RemUIOp::create(b, loc, iter, constant(b, loc, stages));
    Value fills = arith::DivUIOp::create(b, loc, iter, constant(b, loc, stages));
    Value phase = arith::RemUIOp::create(b, loc, fills, constant(b, loc, 2));
    RingWaitOp::create(b, loc, ring, slot, phase);
    Operation *last = first;
    for (const RingLoad &l : loads) {
      b.setInsertionPoint(l.load);
      auto read = RingReadOp::create(b, l.load.getLoc(), l.load.getType(), ring,
                                     slot, l.offset, l.load.getRows());
      l.load.getResult().replaceAllUsesWith(read.getResult());
      if (last->isBeforeInBlock(read))
        last = read;
    }

    // Once every thread has read the slot, it takes iteration i + S.
    b.setInsertionPointAfter(last);
    gpu::BarrierOp::create(b, loc);
    Value ahead = arith::AddIOp::create(
        b, loc, loop.getInductionVar(),
        arith::MulIOp::create(b, loc, loop.getStep(), constant(b, loc, stages)));
    fill(b, loc, ahead, slot);
    // Last: the fills read the loads' corners.
    for (const RingLoad &l : loads)
      l.load.erase();
  }

private:
  static Value constant(OpBuilder &b, Location loc, int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v);
  }

  /// Thread 0 fills `slot` with iteration `iv`'s tiles, if it exists.
  void fill(OpBuilder &b, Location loc, Value iv, Value slot) {
    Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
    Value issuer = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid,
                                         constant(b, loc, 0));
    Value exists = emitIterationExists(b, loc, loop, iv);
    Value go = arith::AndIOp::create(b, loc, issuer, exists);
    auto guard = scf::IfOp::create(b, loc, go, /*withElse=*/false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(guard.thenBlock());
    RingExpectOp::create(b, loc, ring, slot, slotBytes);
    IRMapping at;
    at.map(loop.getInductionVar(), iv);
    llvm::SetVector<Operation *> all;
    for (const RingLoad &l : loads)
      all.insert(l.slice.begin(), l.slice.end());
    cloneInBodyOrder(b, loop, all, at);
    for (const RingLoad &l : loads) {
      SmallVector<Value> corner = llvm::map_to_vector(
          l.load.getIndices(), [&](Value v) { return at.lookupOrDefault(v); });
      // Tensor-map coordinates run innermost first.
      SmallVector<Value> coords(corner.rbegin(), corner.rend());
      Value column = coords.front();
      for (int64_t box = 0; box < l.boxes(); ++box) {
        coords.front() = box == 0
                             ? column
                             : arith::AddIOp::create(
                                   b, loc, column,
                                   constant(b, loc, box * kBoxColumns))
                                   .getResult();
        TmaLoadOp::create(b, l.load.getLoc(), l.map, coords, ring, slot,
                          l.offset + box * l.rows() * kSwizzleBytes);
      }
    }
  }

  gpu::GPUFuncOp kernel;
  scf::ForOp loop;
  int64_t ring, stages, slotBytes;
  ArrayRef<RingLoad> loads;
};

struct PipelineLoadsPass
    : public gdn::impl::GDNGPUPipelineLoadsBase<PipelineLoadsPass> {
  using Base::Base;

  void runOnOperation() override {
    FailureOr<MmaPrecision> precision =
        parseMmaPrecision(mmaPrecision, "gdn-gpu-pipeline-loads", getOperation());
    if (failed(precision))
      return signalPassFailure();
    getOperation().walk([&](gpu::GPUFuncOp kernel) {
      auto stages = kernel->getAttrOfType<IntegerAttr>(gdn::attrs::kLoadStages);
      if (kernel.isKernel() && stages && stages.getInt() > 1)
        pipeline(kernel, stages.getInt(), stagedElementBytes(*precision));
    });
  }

  void pipeline(gpu::GPUFuncOp kernel, int64_t wanted, int64_t stagedBytes) {
    MLIRContext *ctx = kernel.getContext();
    // What the kernel plans in shared memory already; each ring must fit
    // beside it.
    int64_t used = SharedMemoryPlan(kernel, stagedBytes).totalBytes();
    SmallVector<scf::ForOp> loops;
    kernel.walk([&](scf::ForOp loop) {
      if (runsOnce(loop, kernel))
        loops.push_back(loop);
    });
    SmallVector<Attribute> maps;
    if (auto existing = kernel->getAttrOfType<ArrayAttr>(gdn::attrs::kTensorMaps))
      maps.assign(existing.begin(), existing.end());
    llvm::DenseMap<std::pair<unsigned, Attribute>, BlockArgument> mapArgs;
    int64_t ring = 0;
    kernel.walk([&](LoadRingOp op) { ring = std::max<int64_t>(ring, op.getRing() + 1); });
    for (scf::ForOp loop : loops) {
      SmallVector<RingLoad> loads;
      int64_t slotBytes = 0;
      for (Operation &op : *loop.getBody()) {
        auto load = dyn_cast<gdn::TileLoadOp>(&op);
        if (!load || !tmaCanBox(load, kernel) ||
            llvm::any_of(load->getUsers(), [&](Operation *user) {
              return user == loop.getBody()->getTerminator();
            }))
          continue;
        std::optional<llvm::SetVector<Operation *>> slice =
            nextAddressSlice(load, loop);
        if (!slice)
          continue;
        RingLoad l;
        l.load = load;
        l.slice = std::move(*slice);
        l.source = cast<BlockArgument>(load.getSource()).getArgNumber();
        l.offset = slotBytes;
        l.bytes = l.boxes() * l.rows() * kSwizzleBytes;
        slotBytes += llvm::alignTo(l.bytes, 1024);
        loads.push_back(std::move(l));
      }
      if (loads.empty())
        continue;
      int64_t stages = wanted;
      while (stages > 0 && used + ringBytes(stages, slotBytes) >
                               SharedMemoryPlan::kMaxSharedBytes)
        --stages;
      if (stages == 0) {
        emitRemark(loop.getLoc()) << "stages=" << wanted << " in "
                              << kernel.getName() << ": a ring of "
                            << slotBytes << " bytes a slot does not fit beside "
                            << used << " bytes of shared memory; the loads of "
                            << "this loop stay as they are";
        continue;
      }
      if (stages < wanted)
        emitRemark(loop.getLoc()) << "stages=" << wanted << " in "
                              << kernel.getName() << ": " << stages
                            << " slot(s) of " << slotBytes
                            << " bytes fit in shared memory";
      used += ringBytes(stages, slotBytes);
      // A tensor-map parameter per (argument, box), after the scratch.
      for (RingLoad &l : loads) {
        auto memref = cast<MemRefType>(kernel.getArgument(l.source).getType());
        SmallVector<int64_t> box(memref.getRank(), 1);
        box[0] = kBoxColumns;
        box[memref.getRank() - 1 - l.load.getDims()[0]] = l.rows();
        Attribute boxAttr = DenseI64ArrayAttr::get(ctx, box);
        auto key = std::make_pair(l.source, boxAttr);
        auto it = mapArgs.find(key);
        if (it == mapArgs.end()) {
          unsigned index = kernel.getNumArguments();
          if (failed(kernel.insertArgument(index, LLVM::LLVMPointerType::get(ctx),
                                           DictionaryAttr::get(ctx), l.load.getLoc())))
            return signalPassFailure();
          Builder b(ctx);
          maps.push_back(b.getDictionaryAttr(
              {b.getNamedAttr("source", b.getI64IntegerAttr(l.source)),
               b.getNamedAttr("box", boxAttr),
               b.getNamedAttr("swizzle", b.getI64IntegerAttr(kSwizzleBytes))}));
          it = mapArgs.try_emplace(key, kernel.getArgument(index)).first;
        }
        l.map = it->second;
      }
      RingBuilder(kernel, loop, ring++, stages, slotBytes, loads).build();
    }
    if (!maps.empty())
      kernel->setAttr(gdn::attrs::kTensorMaps, ArrayAttr::get(ctx, maps));
  }
};
} // namespace
