//===- OutlineToGPU.cpp - bufferized kernels -> gpu.func with scratch -----===//

#include "gdn/Dialect/GDNDialect.h"
#include "gdn/Dialect/AttrNames.h"
#include "gdn/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::gdn {
#define GEN_PASS_DEF_GDNGPUOUTLINE
#include "Passes.h.inc"
} // namespace mlir::gdn

using namespace mlir;
using namespace mlir::gdn;

namespace {

constexpr int64_t kSlotAlignment = 256; // bytes; keeps vector accesses aligned

int64_t bytesOf(MemRefType type) {
  int64_t bits = type.getElementTypeBitWidth();
  return type.getNumElements() * ((bits + 7) / 8);
}

/// Whether every use reads or writes the buffer in place, so it can move
/// to another address space without retyping any other value.
bool staysInPlace(memref::AllocOp alloc) {
  for (Operation *user : alloc->getUsers())
    if (!isa<memref::LoadOp, memref::StoreOp, memref::CopyOp, memref::DimOp,
             linalg::LinalgOp>(user))
      return false;
  return true;
}

gpu::Dimension dimensionOf(int64_t axis) {
  return axis == 0 ? gpu::Dimension::x
         : axis == 1 ? gpu::Dimension::y
                     : gpu::Dimension::z;
}

struct OutlineToGPUPass
    : public gdn::impl::GDNGPUOutlineBase<OutlineToGPUPass> {
  using GDNGPUOutlineBase::GDNGPUOutlineBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    if (blockSize <= 0 || blockSize % 32 != 0) {
      module.emitError() << "block-size " << static_cast<int64_t>(blockSize)
                         << " is not a positive multiple of 32";
      return signalPassFailure();
    }
    SmallVector<func::FuncOp> kernels;
    for (auto f : module.getOps<func::FuncOp>())
      if (f.isPublic() && !f.isExternal())
        kernels.push_back(f);
    OpBuilder b(ctx);
    b.setInsertionPointToEnd(module.getBody());
    auto gpuModule = gpu::GPUModuleOp::create(b, module.getLoc(), "gdn_kernels");
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    b.getUnitAttr());
    for (func::FuncOp f : kernels)
      if (failed(outline(f, gpuModule)))
        return signalPassFailure();
    // Only the device code remains: host functions and globals (cloned into
    // the gpu.module where used) go.
    for (Operation &op : llvm::make_early_inc_range(*module.getBody()))
      if (!isa<gpu::GPUModuleOp>(op))
        op.erase();
  }

  /// `f` as a gpu.func of `gpuModule`: the steps below, in order.
  LogicalResult outline(func::FuncOp f, gpu::GPUModuleOp gpuModule) {
    if (!f.getBody().hasOneBlock())
      return f.emitError("gdn-gpu-outline expects a single-block kernel "
                         "(structured control flow only)");
    gpu::GPUFuncOp kernel = cloneAsKernel(f, gpuModule);
    programIdsToBlockIds(kernel);
    cloneUsedGlobals(kernel, gpuModule);
    copyCarriedBuffers(kernel);
    SmallVector<memref::AllocOp> allocs;
    if (failed(collectTileBuffers(kernel, allocs)))
      return failure();
    SmallVector<memref::AllocOp> offChip;
    placeInSharedMemory(kernel, allocs, offChip);
    placeInScratch(kernel, offChip);
    return success();
  }

  /// A gpu.func with `f`'s body and a trailing scratch buffer argument.
  gpu::GPUFuncOp cloneAsKernel(func::FuncOp f, gpu::GPUModuleOp gpuModule) {
    MLIRContext *ctx = &getContext();
    auto scratchType = MemRefType::get({ShapedType::kDynamic},
                                       IntegerType::get(ctx, 8));
    SmallVector<Type> types(f.getArgumentTypes());
    types.push_back(scratchType);
    OpBuilder b(ctx);
    b.setInsertionPointToEnd(gpuModule.getBody());
    auto kernel = gpu::GPUFuncOp::create(b, f.getLoc(), f.getName(),
                                         FunctionType::get(ctx, types, {}));
    kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
    kernel.setKnownBlockSizeAttr(b.getDenseI32ArrayAttr(
        {static_cast<int32_t>(blockSize), 1, 1}));
    // The schedule's `prefetch=none`, for gdn-gpu-prefetch-next-chunk.
    if (f->hasAttr(gdn::attrs::kNoPrefetch))
      kernel->setAttr(gdn::attrs::kNoPrefetch, b.getUnitAttr());
    // The schedule's `stages=N`, for gdn-gpu-pipeline-loads.
    if (Attribute stages = f->getAttr(gdn::attrs::kLoadStages))
      kernel->setAttr(gdn::attrs::kLoadStages, stages);

    Block &entry = kernel.getBody().front();
    IRMapping map;
    for (unsigned i = 0; i < f.getNumArguments(); ++i)
      map.map(f.getArgument(i), entry.getArgument(i));
    b.setInsertionPointToEnd(&entry);
    for (Operation &op : f.getBody().front()) {
      if (isa<func::ReturnOp>(op))
        gpu::ReturnOp::create(b, op.getLoc());
      else
        b.clone(op, map);
    }
    return kernel;
  }

  /// Program ids are block ids.
  static void programIdsToBlockIds(gpu::GPUFuncOp kernel) {
    kernel.walk([&](ProgramIdOp op) {
      OpBuilder ib(op);
      op.replaceAllUsesWith(gpu::BlockIdOp::create(
                                ib, op.getLoc(), dimensionOf(op.getAxis()))
                                .getResult());
      op.erase();
    });
  }

  /// Globals (constant tiles) used by the kernel move with it.
  void cloneUsedGlobals(gpu::GPUFuncOp kernel, gpu::GPUModuleOp gpuModule) {
    ModuleOp module = getOperation();
    kernel.walk([&](memref::GetGlobalOp get) {
      if (gpuModule.lookupSymbol(get.getName()))
        return;
      if (auto global = module.lookupSymbol<memref::GlobalOp>(get.getName())) {
        OpBuilder gb(&getContext());
        gb.setInsertionPointToStart(gpuModule.getBody());
        gb.clone(*global.getOperation());
      }
    });
  }

  /// A buffer a loop carries must not share its slot with the buffer the
  /// next value is built in: every alloc gets one fixed slot, so the body
  /// of iteration i + 1 would overwrite the value it was handed while
  /// still reading it. Each iteration first copies what it is handed into
  /// a buffer (and slot) of its own.
  static void copyCarriedBuffers(gpu::GPUFuncOp kernel) {
    kernel.walk([&](scf::ForOp loop) {
      Block *body = loop.getBody();
      for (BlockArgument carried : loop.getRegionIterArgs()) {
        auto type = dyn_cast<MemRefType>(carried.getType());
        if (!type || !type.hasStaticShape() || carried.use_empty())
          continue;
        OpBuilder cb = OpBuilder::atBlockBegin(body);
        auto own = memref::AllocOp::create(cb, loop.getLoc(), type);
        auto copy = memref::CopyOp::create(cb, loop.getLoc(), carried, own);
        carried.replaceAllUsesExcept(own, copy);
      }
    });
  }

  /// The kernel's tile buffers (statically shaped allocs); deallocs go,
  /// since every buffer gets a fixed slot.
  static LogicalResult collectTileBuffers(gpu::GPUFuncOp kernel,
                                          SmallVector<memref::AllocOp> &allocs) {
    WalkResult bad = kernel.walk([&](Operation *op) {
      if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
        if (!alloc.getType().hasStaticShape() ||
            !alloc.getType().getLayout().isIdentity()) {
          alloc.emitError("gdn-gpu-outline needs statically shaped tile "
                          "buffers, got ")
              << alloc.getType();
          return WalkResult::interrupt();
        }
        allocs.push_back(alloc);
      } else if (isa<memref::DeallocOp>(op)) {
        op->erase();
        return WalkResult::skip();
      }
      return WalkResult::advance();
    });
    return failure(bad.wasInterrupted());
  }

  /// Shared memory first: buffers only read and written in place (no
  /// view, cast or yield would have to change address space), smallest
  /// first, up to the budget, become views of the dynamic shared memory;
  /// the rest are left in `offChip` for global scratch.
  void placeInSharedMemory(gpu::GPUFuncOp kernel,
                           ArrayRef<memref::AllocOp> allocs,
                           SmallVector<memref::AllocOp> &offChip) {
    MLIRContext *ctx = &getContext();
    SmallVector<memref::AllocOp> onChip;
    SmallVector<memref::AllocOp> bySize(allocs);
    llvm::stable_sort(bySize, [](memref::AllocOp a, memref::AllocOp b) {
      return bytesOf(a.getType()) < bytesOf(b.getType());
    });
    int64_t sharedBytes = 0;
    for (memref::AllocOp alloc : bySize) {
      int64_t size = llvm::alignTo(bytesOf(alloc.getType()), kSlotAlignment);
      if (staysInPlace(alloc) && sharedBytes + size <= sharedMemoryBudget) {
        onChip.push_back(alloc);
        sharedBytes += size;
      } else {
        offChip.push_back(alloc);
      }
    }
    Block &entry = kernel.getBody().front();
    OpBuilder b = OpBuilder::atBlockBegin(&entry);
    if (!onChip.empty()) {
      auto workgroup = gpu::AddressSpaceAttr::get(
          ctx, gpu::GPUDialect::getWorkgroupAddressSpace());
      Value smem = gpu::DynamicSharedMemoryOp::create(
          b, kernel.getLoc(),
          MemRefType::get({ShapedType::kDynamic}, IntegerType::get(ctx, 8),
                          MemRefLayoutAttrInterface(), workgroup));
      int64_t offset = 0;
      for (memref::AllocOp alloc : onChip) {
        OpBuilder ab(alloc);
        MemRefType t = alloc.getType();
        auto type = MemRefType::get(t.getShape(), t.getElementType(),
                                    MemRefLayoutAttrInterface(), workgroup);
        Value view = memref::ViewOp::create(
            ab, alloc.getLoc(), type, smem,
            arith::ConstantIndexOp::create(ab, alloc.getLoc(), offset),
            ValueRange{});
        alloc.getResult().replaceAllUsesWith(view);
        alloc.erase();
        offset += llvm::alignTo(bytesOf(t), kSlotAlignment);
      }
    }
    kernel->setAttr(gdn::attrs::kSharedBytesPerBlock,
                    b.getI64IntegerAttr(sharedBytes));
  }

  /// The other buffers: fixed slots in the block's slice of the scratch
  /// argument (a block's slice starts at its linear block id x the bytes
  /// per block).
  static void placeInScratch(gpu::GPUFuncOp kernel,
                             ArrayRef<memref::AllocOp> offChip) {
    SmallVector<int64_t> offsets;
    int64_t perBlock = 0;
    for (memref::AllocOp alloc : offChip) {
      offsets.push_back(perBlock);
      perBlock += llvm::alignTo(bytesOf(alloc.getType()), kSlotAlignment);
    }
    Block &entry = kernel.getBody().front();
    // The first op of the body may have been an alloc erased before.
    OpBuilder b = OpBuilder::atBlockBegin(&entry);
    Location loc = kernel.getLoc();
    Value bx = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
    Value by = gpu::BlockIdOp::create(b, loc, gpu::Dimension::y);
    Value bz = gpu::BlockIdOp::create(b, loc, gpu::Dimension::z);
    Value gx = gpu::GridDimOp::create(b, loc, gpu::Dimension::x);
    Value gy = gpu::GridDimOp::create(b, loc, gpu::Dimension::y);
    Value linear = arith::AddIOp::create(
        b, loc, bx,
        arith::MulIOp::create(
            b, loc, gx,
            arith::AddIOp::create(b, loc, by,
                                  arith::MulIOp::create(b, loc, gy, bz))));
    Value base = arith::MulIOp::create(
        b, loc, linear, arith::ConstantIndexOp::create(b, loc, perBlock));
    Value scratch = entry.getArguments().back();
    for (auto [placed, offset] : llvm::zip(offChip, offsets)) {
      memref::AllocOp alloc = placed;
      OpBuilder ab(alloc);
      Value shift = arith::AddIOp::create(
          ab, alloc.getLoc(), base,
          arith::ConstantIndexOp::create(ab, alloc.getLoc(), offset));
      Value view = memref::ViewOp::create(ab, alloc.getLoc(), alloc.getType(),
                                          scratch, shift, ValueRange{});
      alloc.replaceAllUsesWith(view);
      alloc.erase();
    }
    kernel->setAttr(gdn::attrs::kScratchBytesPerBlock,
                    b.getI64IntegerAttr(perBlock));
  }
};

} // namespace
