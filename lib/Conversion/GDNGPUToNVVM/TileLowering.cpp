//===- TileLowering.cpp - tiles as per-thread registers -------------------===//

#include "TileLowering.h"

#include "gdn/Dialect/GDNDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::gdn_gpu;

//===----------------------------------------------------------------------===//
// Shared memory and types
//===----------------------------------------------------------------------===//

namespace {
constexpr int64_t kSharedAlignment = 1024;

int64_t tileBytes(Type type) {
  auto t = cast<RankedTensorType>(type);
  return t.getNumElements() * t.getElementTypeBitWidth() / 8;
}

/// Scratch bytes of one op's trip through shared memory (0: none).
int64_t scratchBytesOf(Operation *op) {
  return llvm::TypeSwitch<Operation *, int64_t>(op)
      .Case([](ConvertLayoutOp cvt) -> int64_t {
        bool moves = getDistributedLayout(cvt.getSource().getType()) &&
                     getDistributedLayout(cvt.getType());
        return moves ? tileBytes(cvt.getType()) : 0;
      })
      .Case([](tensor::ExtractOp e) -> int64_t {
        return getDistributedLayout(e.getTensor().getType())
                   ? tileBytes(e.getTensor().getType())
                   : 0;
      })
      .Case([](gdn::CumsumOp c) { return tileBytes(c.getType()); })
      .Case([](gdn::TriInverseOp t) { return triInverseScratchBytes(t.getType()); })
      .Case([](gdn::MatmulOp mm) -> int64_t {
        return mm.getDecay() ? tileBytes(mm.getDecay().getType()) : 0;
      })
      .Default([](Operation *) -> int64_t { return 0; });
}

struct Live {
  Operation *staging;
  int64_t start, end, bytes;
};
} // namespace

SharedMemoryPlan::SharedMemoryPlan(Operation *kernel, int64_t stagedBytes) {
  llvm::DenseMap<Operation *, int64_t> position;
  int64_t next = 0;
  kernel->walk<WalkOrder::PreOrder>([&](Operation *op) {
    position[op] = next++;
    scratch = std::max(scratch, scratchBytesOf(op));
  });
  scratch = llvm::alignTo(scratch, kSharedAlignment);
  // The rings next: a ring's slots are written by TMA at any time of the
  // kernel, so they share bytes with nothing.
  int64_t fixed = scratch;
  kernel->walk([&](LoadRingOp ring) {
    int64_t slots = ring.getStages() * ring.getSlotBytes();
    rings[ring.getRing()] = {fixed, fixed + slots};
    slotSizes[ring.getRing()] = ring.getSlotBytes();
    fixed += ringBytes(ring.getStages(), ring.getSlotBytes());
  });
  auto endOf = [&](Operation *op) {
    int64_t end = position[op];
    op->walk([&](Operation *nested) { end = std::max(end, position[nested]); });
    return end;
  };
  // Staging buffers, first fit in program order over the buffers still
  // live. With `share`, a staging whose bytes an earlier one of its block
  // already holds (the same tile in the same swizzle, staged for another
  // matmul or as the other operand) reads that buffer and stores nothing;
  // the buffer then lives until the later staging's last reader.
  auto place = [&](bool share) {
    offsets.clear();
    sharedWith.clear();
    SmallVector<Live> lives;
    llvm::DenseMap<std::pair<Value, unsigned>, size_t> imageOf;
    kernel->walk<WalkOrder::PreOrder>([&](ConvertLayoutOp cvt) {
      auto operand =
          dyn_cast_or_null<DotOperandAttr>(cvt.getType().getEncoding());
      if (!operand)
        return;
      int64_t end = position[cvt];
      for (Operation *user : cvt->getUsers())
        if (Operation *inBlock = cvt->getBlock()->findAncestorOpInBlock(*user))
          end = std::max(end, endOf(inBlock));
      std::pair<Value, unsigned> image{
          cvt.getSource(),
          stagedTransposed(cvt.getSource().getType(), operand, stagedBytes)};
      auto [known, fresh] = imageOf.try_emplace(image, lives.size());
      if (share && !fresh &&
          lives[known->second].staging->getBlock() == cvt->getBlock()) {
        Live &first = lives[known->second];
        first.end = std::max(first.end, end);
        sharedWith[cvt] = first.staging;
        return;
      }
      known->second = lives.size();
      lives.push_back(Live{cvt, position[cvt], end,
                           static_cast<int64_t>(llvm::alignTo(
                               cvt.getType().getNumElements() * stagedBytes,
                               kSharedAlignment))});
    });
    SmallVector<Live *> active;
    total = fixed;
    for (Live &live : lives) {
      llvm::erase_if(active, [&](Live *a) { return a->end < live.start; });
      llvm::sort(active, [&](Live *x, Live *y) {
        return offsets[x->staging] < offsets[y->staging];
      });
      int64_t offset = fixed;
      for (Live *a : active) {
        if (offset + live.bytes <= offsets[a->staging])
          break;
        offset = std::max(offset, offsets[a->staging] + a->bytes);
      }
      offsets[live.staging] = offset;
      total = std::max(total, offset + live.bytes);
      active.push_back(&live);
    }
    for (auto [staging, first] : sharedWith)
      offsets[staging] = offsets[first];
  };
  // Longer lives can cost bytes: a kernel that fits only without sharing
  // stages every operand afresh.
  place(/*share=*/true);
  if (total > kMaxSharedBytes) {
    int64_t shared = total;
    place(/*share=*/false);
    if (total > shared)
      place(/*share=*/true);
  }
}

int64_t gdn_gpu::ringBytes(int64_t stages, int64_t slotBytes) {
  // The barriers' 8 bytes a slot, padded so that the next buffer keeps the
  // 1024-byte alignment of swizzled tiles.
  return stages * slotBytes + llvm::alignTo(stages * 8, kSharedAlignment);
}

static gpu::AddressSpaceAttr workgroupSpace(MLIRContext *ctx) {
  return gpu::AddressSpaceAttr::get(ctx,
                                    gpu::GPUDialect::getWorkgroupAddressSpace());
}

TileTypeConverter::TileTypeConverter(MLIRContext *ctx, MmaPrecision precision)
    : precision(precision) {
  addConversion([](Type type) { return type; });
  addConversion([this, ctx](RankedTensorType type) -> Type {
    Attribute enc = type.getEncoding();
    if (isa_and_nonnull<DistributedLayoutAttr>(enc))
      return VectorType::get({registersPerThread(type)}, type.getElementType());
    if (isa_and_nonnull<DotOperandAttr>(enc))
      return MemRefType::get({type.getNumElements()}, stagedElementType(ctx),
                             MemRefLayoutAttrInterface(), workgroupSpace(ctx));
    return type;
  });
}

Type TileTypeConverter::stagedElementType(MLIRContext *ctx) const {
  switch (precision) {
  case MmaPrecision::bf16:
    return BFloat16Type::get(ctx);
  case MmaPrecision::f16:
    return Float16Type::get(ctx);
  case MmaPrecision::tf32:
    break;
  }
  return Float32Type::get(ctx);
}

int64_t gdn_gpu::registersPerThread(RankedTensorType type) {
  auto layout = cast<DistributedLayoutAttr>(type.getEncoding());
  return layout.getElementCoords(type.getShape(), 0).size();
}

Value gdn_gpu::sharedView(OpBuilder &b, Location loc, int64_t offset,
                          int64_t elements, Type elementType) {
  MLIRContext *ctx = b.getContext();
  auto space = workgroupSpace(ctx);
  Value smem = gpu::DynamicSharedMemoryOp::create(
      b, loc,
      MemRefType::get({ShapedType::kDynamic}, IntegerType::get(ctx, 8),
                      MemRefLayoutAttrInterface(), space));
  auto type = MemRefType::get({elements}, elementType,
                              MemRefLayoutAttrInterface(), space);
  return memref::ViewOp::create(b, loc, type, smem,
                                arith::ConstantIndexOp::create(b, loc, offset),
                                ValueRange{});
}

Value gdn_gpu::sharedAddress(OpBuilder &b, Location loc, Value buffer) {
  Value idx = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buffer);
  return arith::IndexCastUIOp::create(b, loc, b.getI64Type(), idx);
}

bool gdn_gpu::isStagedMNMajor(RankedTensorType type, DotOperandAttr operand,
                              int64_t elementBytes) {
  return operand.getShared().getTransposed() && elementBytes == 2 &&
         type.getRank() == 2 && (type.getDimSize(1) * elementBytes) % 128 == 0;
}

bool gdn_gpu::stagedTransposed(RankedTensorType type, DotOperandAttr operand,
                               int64_t elementBytes) {
  return operand.getShared().getTransposed() &&
         !isStagedMNMajor(type, operand, elementBytes);
}

Value gdn_gpu::swizzledIndex(OpBuilder &b, Location loc, Value row, Value k,
                             int64_t rows, int64_t elementBytes) {
  auto c = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); };
  // Byte kb of row `row`: slab kb / 128 (slabs of rows x 128 bytes), then
  // the row's 16-byte unit (kb % 128) / 16 XOR row % 8.
  Value kb = arith::MulIOp::create(b, loc, k, c(elementBytes));
  Value slab = arith::DivUIOp::create(b, loc, kb, c(128));
  Value inRow = arith::RemUIOp::create(b, loc, kb, c(128));
  Value unit = arith::DivUIOp::create(b, loc, inRow, c(16));
  Value phase = arith::RemUIOp::create(b, loc, row, c(8));
  Value swizzled = arith::XOrIOp::create(b, loc, unit, phase);
  Value byte = arith::AddIOp::create(
      b, loc,
      arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, slab, c(rows * 128)),
          arith::MulIOp::create(b, loc, row, c(128))),
      arith::AddIOp::create(b, loc,
                            arith::MulIOp::create(b, loc, swizzled, c(16)),
                            arith::RemUIOp::create(b, loc, inRow, c(16))));
  return arith::DivUIOp::create(b, loc, byte, c(elementBytes));
}

Value gdn_gpu::rowMajorIndex(OpBuilder &b, Location loc, ArrayRef<Value> coord,
                             ArrayRef<int64_t> shape) {
  Value index = coord[0];
  for (size_t d = 1; d < coord.size(); ++d)
    index = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, index,
                              arith::ConstantIndexOp::create(b, loc, shape[d])),
        coord[d]);
  return index;
}

Value gdn_gpu::writeToScratch(OpBuilder &b, Location loc, SharedMemoryPlan &plan,
                              Value regs, RankedTensorType type) {
  Value scratch = sharedView(b, loc, plan.scratchOffset(), type.getNumElements(),
                             type.getElementType());
  // The scratch area may still be read by the previous move.
  emitBlockBarrier(b, loc);
  // Row-major: registers consecutive along the last dimension are one
  // vector store of up to 16 bytes.
  unsigned last = type.getRank() - 1;
  int64_t bits = type.getElementTypeBitWidth();
  int64_t bytes = std::max<int64_t>(1, bits / 8);
  int64_t run = bits % 8 ? 1 : vectorRunLength(type, last, 16 / bytes);
  auto coords = emitThreadCoords(b, loc, type);
  for (size_t reg = 0; reg < coords.size(); reg += run) {
    Value index = rowMajorIndex(b, loc, coords[reg], type.getShape());
    if (run == 1) {
      memref::StoreOp::create(b, loc, vector::ExtractOp::create(b, loc, regs, reg),
                              scratch, index);
      continue;
    }
    vector::StoreOp::create(b, loc, registerRun(b, loc, regs, reg, run), scratch,
                            index, /*nontemporal=*/false,
                            llvm::MaybeAlign(run * bytes));
  }
  emitBlockBarrier(b, loc);
  return scratch;
}

void gdn_gpu::emitBlockBarrier(OpBuilder &b, Location loc, bool asyncProxy) {
  if (asyncProxy)
    NVVM::FenceProxyOp::create(
        b, loc, NVVM::ProxyKind::async_shared,
        NVVM::SharedSpaceAttr::get(b.getContext(), NVVM::SharedSpace::shared_cta));
  NVVM::Barrier0Op::create(b, loc);
}

//===----------------------------------------------------------------------===//
// Thread maps at run time
//===----------------------------------------------------------------------===//

namespace {
/// Per dimension: the calling thread's first coordinate and the extent one
/// pass of the layout covers. Register r then holds base + offset(r), where
/// offset(r) is thread 0's coordinate (getElementCoords), wrapped when the
/// tile is smaller than the layout's pass.
struct ThreadBase {
  SmallVector<Value> base;
  SmallVector<int64_t> extent;
};

ThreadBase threadBase(OpBuilder &b, Location loc, DistributedLayoutAttr layout,
                      Value tid) {
  auto c = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); };
  Value lane = arith::RemUIOp::create(b, loc, tid, c(kWarpSize));
  Value warp = arith::DivUIOp::create(b, loc, tid, c(kWarpSize));
  return llvm::TypeSwitch<Attribute, ThreadBase>(layout)
      .Case([&](BlockedAttr blocked) {
        unsigned rank = blocked.getRank();
        ThreadBase tb{SmallVector<Value>(rank), SmallVector<int64_t>(rank)};
        SmallVector<Value> laneIdx(rank), warpIdx(rank);
        Value l = lane, w = warp;
        for (unsigned d : blocked.getOrder()) {
          laneIdx[d] = arith::RemUIOp::create(b, loc, l, c(blocked.getThreadsPerWarp()[d]));
          l = arith::DivUIOp::create(b, loc, l, c(blocked.getThreadsPerWarp()[d]));
          warpIdx[d] = arith::RemUIOp::create(b, loc, w, c(blocked.getWarpsPerCTA()[d]));
          w = arith::DivUIOp::create(b, loc, w, c(blocked.getWarpsPerCTA()[d]));
        }
        for (unsigned d = 0; d < rank; ++d) {
          int64_t spt = blocked.getSizePerThread()[d];
          int64_t tpw = blocked.getThreadsPerWarp()[d];
          Value t = arith::AddIOp::create(
              b, loc, arith::MulIOp::create(b, loc, warpIdx[d], c(tpw)), laneIdx[d]);
          tb.base[d] = arith::MulIOp::create(b, loc, t, c(spt));
          tb.extent[d] = spt * tpw * blocked.getWarpsPerCTA()[d];
        }
        return tb;
      })
      .Case([&](WarpgroupMmaAttr mma) {
        int64_t wm = mma.getWarpsPerCTA()[0], n = mma.getInstrN();
        Value warpM = arith::RemUIOp::create(b, loc, warp, c(wm));
        Value warpN = arith::DivUIOp::create(b, loc, warp, c(wm));
        Value row = arith::AddIOp::create(
            b, loc, arith::MulIOp::create(b, loc, warpM, c(16)),
            arith::DivUIOp::create(b, loc, lane, c(4)));
        Value col = arith::AddIOp::create(
            b, loc, arith::MulIOp::create(b, loc, warpN, c(n)),
            arith::MulIOp::create(b, loc, arith::RemUIOp::create(b, loc, lane, c(4)), c(2)));
        return ThreadBase{{row, col}, {16 * wm, n * int64_t(mma.getWarpsPerCTA()[1])}};
      })
      .Case([&](SliceAttr slice) {
        ThreadBase parent = threadBase(b, loc, slice.getParent(), tid);
        unsigned keep = 1 - slice.getDim();
        return ThreadBase{{parent.base[keep]}, {parent.extent[keep]}};
      })
      .Default([](Attribute) -> ThreadBase {
        llvm_unreachable("not a distributed layout");
      });
}
} // namespace

Value gdn_gpu::threadIdHere(OpBuilder &b, Location loc) {
  auto read = LLVM::InlineAsmOp::create(
      b, loc, b.getI32Type(), ValueRange{}, "mov.u32 $0, %tid.x;", "=r",
      /*has_side_effects=*/true, /*is_align_stack=*/false,
      LLVM::tailcallkind::TailCallKind::None, /*asm_dialect=*/nullptr,
      /*operand_attrs=*/nullptr);
  return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), read.getRes());
}

FailureOr<MmaPrecision> gdn_gpu::parseMmaPrecision(StringRef text,
                                                   StringRef pass,
                                                   Operation *where) {
  if (text == "bf16")
    return MmaPrecision::bf16;
  if (text == "f16")
    return MmaPrecision::f16;
  if (text == "tf32")
    return MmaPrecision::tf32;
  if (text == "auto") {
    // Every kernel of the module alike: the state kernel of a staged
    // schedule reads only fp32 workspaces, yet its products carry the
    // inputs' precision as the others do. The inputs are the token tensors
    // (q / k / v / o, [T, heads, size]); a state pool ([P, HV, V, K]) in
    // fp16 under bf16 tokens keeps bf16 products (fp16 would overflow
    // where bf16 tokens exceed 65504).
    bool f16Inputs = false;
    where->walk([&](gpu::GPUFuncOp kernel) {
      for (Type t : kernel.getArgumentTypes())
        if (auto m = dyn_cast<MemRefType>(t);
            m && m.getRank() == 3 && m.getElementType().isF16())
          f16Inputs = true;
    });
    return f16Inputs ? MmaPrecision::f16 : MmaPrecision::bf16;
  }
  // On the location only: the op is the module, which a note would print.
  return mlir::emitError(where->getLoc())
         << pass << ": mma-precision must be auto, bf16, f16 or tf32, got '"
         << text << "'";
}

Value gdn_gpu::opaqueHere(OpBuilder &b, Location loc, Value value) {
  return LLVM::InlineAsmOp::create(
             b, loc, b.getI64Type(), ValueRange{value}, "mov.b64 $0, $1;",
             "=l,l", /*has_side_effects=*/true, /*is_align_stack=*/false,
             LLVM::tailcallkind::TailCallKind::None, /*asm_dialect=*/nullptr,
             /*operand_attrs=*/nullptr)
      .getRes();
}

SmallVector<SmallVector<Value>> gdn_gpu::emitThreadCoords(OpBuilder &b,
                                                          Location loc,
                                                          RankedTensorType type) {
  auto layout = cast<DistributedLayoutAttr>(type.getEncoding());
  ArrayRef<int64_t> shape = type.getShape();
  Value tid = threadIdHere(b, loc);
  ThreadBase tb = threadBase(b, loc, layout, tid);
  SmallVector<SmallVector<Value>> coords;
  for (const auto &offsets : layout.getElementCoords(shape, 0)) {
    SmallVector<Value> c;
    for (unsigned d = 0; d < shape.size(); ++d) {
      Value v = arith::AddIOp::create(
          b, loc, tb.base[d], arith::ConstantIndexOp::create(b, loc, offsets[d]));
      if (shape[d] < tb.extent[d])
        v = arith::RemUIOp::create(b, loc, v,
                                   arith::ConstantIndexOp::create(b, loc, shape[d]));
      c.push_back(v);
    }
    coords.push_back(std::move(c));
  }
  return coords;
}

int64_t gdn_gpu::vectorRunLength(RankedTensorType type, unsigned dim,
                                 int64_t maxLength) {
  auto layout = cast<DistributedLayoutAttr>(type.getEncoding());
  ArrayRef<int64_t> shape = type.getShape();
  // Every thread's first coordinate along `dim` is a multiple of `align`
  // (threadBase), and one pass of the layout covers `extent` elements; a
  // smaller tile wraps, and runs could wrap with it.
  int64_t align = 1, extent = 0;
  if (auto blocked = dyn_cast<BlockedAttr>(layout)) {
    align = blocked.getSizePerThread()[dim];
    extent = align * blocked.getThreadsPerWarp()[dim] * blocked.getWarpsPerCTA()[dim];
  } else if (auto mma = dyn_cast<WarpgroupMmaAttr>(layout); mma && dim == 1) {
    align = 2; // columns 2 (lane % 4) and 2 (lane % 4) + 1; instrN is even
    extent = mma.getInstrN() * mma.getWarpsPerCTA()[1];
  }
  if (extent == 0 || shape[dim] < extent)
    return 1;
  SmallVector<SmallVector<int64_t>> offsets = layout.getElementCoords(shape, 0);
  for (int64_t length = std::min(align, maxLength); length > 1; length /= 2) {
    if (align % length || shape[dim] % length || offsets.size() % length)
      continue;
    bool runs = true;
    for (size_t first = 0; runs && first < offsets.size(); first += length) {
      runs = offsets[first][dim] % length == 0;
      for (int64_t j = 1; runs && j < length; ++j)
        for (unsigned d = 0; d < shape.size(); ++d)
          runs &= offsets[first + j][d] ==
                  offsets[first][d] + (d == dim ? j : 0);
    }
    if (runs)
      return length;
  }
  return 1;
}

Value gdn_gpu::registerRun(OpBuilder &b, Location loc, Value regs, int64_t first,
                           int64_t length) {
  return vector::ExtractStridedSliceOp::create(b, loc, regs, {first}, {length},
                                               {1});
}

SmallVector<int64_t> gdn_gpu::sliceRegisterOf(RankedTensorType parent,
                                              unsigned dim) {
  auto layout = cast<DistributedLayoutAttr>(parent.getEncoding());
  auto slice = cast<DistributedLayoutAttr>(
      SliceAttr::get(parent.getContext(), dim, layout));
  unsigned keep = 1 - dim;
  auto sliceCoords = slice.getElementCoords({parent.getDimSize(keep)}, 0);
  SmallVector<int64_t> map;
  for (const auto &c : layout.getElementCoords(parent.getShape(), 0)) {
    auto it = llvm::find_if(sliceCoords, [&](const SmallVector<int64_t> &s) {
      return s[0] == c[keep];
    });
    assert(it != sliceCoords.end() && "a parent register outside its slice");
    map.push_back(it - sliceCoords.begin());
  }
  return map;
}
