//===- LoadStoreOpToNVVM.cpp - tiles in and out of global memory ----------===//
//
// Each thread loads and stores the elements its layout gives it (a blocked
// layout with order [1, 0] makes a warp's accesses row segments). Where the
// tile's columns are the memref's contiguous dimension, a thread's runs of
// consecutive columns (four in the blocked layout, two in the accumulator)
// move as one vector access of up to 16 bytes instead of one access per
// element; 16-bit accumulator tiles move 16 bytes a lane through a transpose
// within each quad of lanes. Rows past a ragged tail's count, and padding
// (a tile wider than its memref: a head size of 100 in a 128-wide tile), read
// as zero and are not written: a load reads the tile's first row or column
// instead (a chunk has at least one row, a head one column) and selects
// zero, a store is guarded. A vector access never straddles the padding's
// edge: its run divides the memref's row length.
//
//===----------------------------------------------------------------------===//

#include "TileLowering.h"

#include "gdn/Dialect/GDNDialect.h"
#include "gdn/Dialect/ScalarFormulas.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/TypeUtilities.h"

#include <map>

using namespace mlir;
using namespace mlir::gdn_gpu;

namespace {
/// The memref indices of tile element `coord`: the corner plus the tile's
/// coordinates along `dims`.
SmallVector<Value> indicesOf(OpBuilder &b, Location loc, ValueRange corner,
                             ArrayRef<int64_t> dims, ArrayRef<Value> coord) {
  SmallVector<Value> idx(corner.begin(), corner.end());
  for (auto [d, c] : llvm::zip(dims, coord))
    idx[d] = arith::AddIOp::create(b, loc, idx[d], c);
  return idx;
}

/// Whether the access at tile coordinates `coord` happens: its row is below
/// `rows` (when given) and it is not padding. Null when every access does.
/// For a load (`clamp`), rows and padded coordinates that do not are moved
/// to 0 in `coord`, so the load still reads inside the memref (its value is
/// then dropped); a store is guarded instead.
Value keepAccess(OpBuilder &b, Location loc,
                 ArrayRef<std::optional<int64_t>> padding, ValueRange corner,
                 ArrayRef<int64_t> dims, SmallVectorImpl<Value> &coord,
                 Value rows, bool clamp) {
  Value c0 = arith::ConstantIndexOp::create(b, loc, 0);
  Value keep;
  if (rows) {
    keep = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, coord[0],
                                 rows);
    if (clamp)
      coord[0] = arith::SelectOp::create(b, loc, keep, coord[0], c0);
  }
  if (llvm::none_of(padding, [](auto e) { return e.has_value(); }))
    return keep;
  Value inside = gdn::emitInsidePadding(
      b, loc, padding, dims, indicesOf(b, loc, corner, dims, coord));
  for (auto [i, extent] : llvm::enumerate(padding))
    if (extent && clamp)
      coord[i] = arith::SelectOp::create(b, loc, inside, coord[i], c0);
  return keep ? arith::AndIOp::create(b, loc, keep, inside).getResult()
              : inside;
}

/// Whether index `v` is a multiple of `n` for every value it takes: a
/// constant, or a sum or product built from such.
bool isMultipleOf(Value v, int64_t n) {
  if (n == 1)
    return true;
  if (auto c = getConstantIntValue(v))
    return *c % n == 0;
  if (auto mul = v.getDefiningOp<arith::MulIOp>())
    return isMultipleOf(mul.getLhs(), n) || isMultipleOf(mul.getRhs(), n);
  if (auto add = v.getDefiningOp<arith::AddIOp>())
    return isMultipleOf(add.getLhs(), n) && isMultipleOf(add.getRhs(), n);
  return false;
}

/// Whether `memref` is laid out as an identity layout is below its outermost
/// dimension: identity, or strided with only the outermost stride free (a
/// state pool whose rows are padded apart; the runtimes check that the row
/// stride keeps every row on a 16-byte boundary).
bool denseBelowOutermost(MemRefType memref) {
  if (memref.getLayout().isIdentity())
    return true;
  SmallVector<int64_t> strides;
  int64_t offset = 0;
  if (failed(memref.getStridesAndOffset(strides, offset)) || offset != 0)
    return false;
  // Each stride below the outermost is the product of the sizes inside it.
  int64_t expected = 1;
  for (int64_t d = memref.getRank() - 1; d >= 1; --d) {
    if (strides[d] != expected)
      return false;
    if (d > 1) {
      if (ShapedType::isDynamic(memref.getDimSize(d)))
        return false;
      expected *= memref.getDimSize(d);
    }
  }
  return true;
}

/// Registers per global access. Runs of the layout along the tile's columns
/// become one access when those columns are the memref's contiguous
/// dimension and every run starts on a multiple of its length: the row
/// length (K or V), the corner column and the run's own offset are such
/// multiples, so with a base address aligned to 16 bytes (the runtimes
/// check) each vector access is aligned to its size.
int64_t globalRunLength(RankedTensorType type, MemRefType memref,
                        ValueRange corner, ArrayRef<int64_t> dims) {
  if (type.getRank() != 2 || dims.size() != 2 ||
      dims[1] != memref.getRank() - 1 || !denseBelowOutermost(memref))
    return 1;
  // The memory's element size sets the access width (a bf16 state pool
  // under an fp32 tile moves 2 bytes an element).
  if (!memref.getElementType().isIntOrFloat() ||
      memref.getElementTypeBitWidth() % 8 != 0)
    return 1;
  int64_t bytes = memref.getElementTypeBitWidth() / 8;
  int64_t run = vectorRunLength(type, 1, 16 / bytes);
  int64_t rowLength = memref.getShape().back();
  if (ShapedType::isDynamic(rowLength) || rowLength % run != 0 ||
      !isMultipleOf(corner[dims[1]], run))
    return 1;
  return run;
}

Value loadByQuadTranspose(OpBuilder &b, Location loc,
                          const TypeConverter &converter, RankedTensorType type,
                          Value source, ValueRange corner,
                          ArrayRef<int64_t> dims, Value rows);

/// The registers of a tile of `type` read from `source` at `corner` along
/// `dims`; rows at or past `rows` (when given) and padding are zero. A
/// narrower memory element (a bf16 state pool under an fp32 tile) is
/// widened in registers.
Value loadRegisters(OpBuilder &b, Location loc, const TypeConverter &converter,
                    RankedTensorType type, Value source, ValueRange corner,
                    ArrayRef<int64_t> dims, Value rows) {
  if (Value quad = loadByQuadTranspose(b, loc, converter, type, source, corner,
                                       dims, rows))
    return quad;
  Type element = type.getElementType();
  Type stored = cast<MemRefType>(source.getType()).getElementType();
  int64_t run = globalRunLength(type, cast<MemRefType>(source.getType()),
                                corner, dims);
  auto runType = VectorType::get({run}, stored);
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(runType));
  Value zeroElement = arith::ConstantOp::create(b, loc, b.getZeroAttr(stored));
  auto padding = gdn::tilePadding(cast<MemRefType>(source.getType()),
                                  type.getShape(), dims);
  SmallVector<SmallVector<Value>> coords = emitThreadCoords(b, loc, type);
  SmallVector<Value> out;
  for (size_t first = 0; first < coords.size(); first += run) {
    SmallVector<Value> coord = coords[first];
    Value keep =
        keepAccess(b, loc, padding, corner, dims, coord, rows, /*clamp=*/true);
    SmallVector<Value> idx = indicesOf(b, loc, corner, dims, coord);
    if (run == 1) {
      Value v = memref::LoadOp::create(b, loc, source, idx);
      if (keep)
        v = arith::SelectOp::create(b, loc, keep, v, zeroElement);
      out.push_back(mlir::gdn::emitFloatCast(b, loc, v, element));
      continue;
    }
    Value v = vector::LoadOp::create(
        b, loc, runType, source, idx, /*nontemporal=*/false,
        llvm::MaybeAlign(run * stored.getIntOrFloatBitWidth() / 8));
    if (keep)
      v = arith::SelectOp::create(b, loc, keep, v, zero);
    v = mlir::gdn::emitFloatCast(b, loc, v, element);
    for (int64_t i = 0; i < run; ++i)
      out.push_back(vector::ExtractOp::create(b, loc, v, i));
  }
  return vector::FromElementsOp::create(b, loc, converter.convertType(type), out);
}

/// For each 32-column block of a row that a quad (four lanes, lane % 4 =
/// 0..3) holds in an accumulator layout: the first registers of its four
/// column pairs, in thread 0's coordinates (columns c, c + 8, c + 16,
/// c + 24; lane t holds columns + 2t). Empty when the registers do not fall
/// into such blocks.
SmallVector<std::array<int64_t, 4>> quadBlocks(RankedTensorType type) {
  auto layout = cast<DistributedLayoutAttr>(type.getEncoding());
  SmallVector<SmallVector<int64_t>> offsets =
      layout.getElementCoords(type.getShape(), 0);
  if (offsets.size() % 2 != 0)
    return {};
  std::map<std::pair<int64_t, int64_t>, std::array<int64_t, 4>> blocks;
  for (size_t reg = 0; reg + 1 < offsets.size(); reg += 2) {
    int64_t row = offsets[reg][0], col = offsets[reg][1];
    if (col % 8 || offsets[reg + 1][0] != row || offsets[reg + 1][1] != col + 1)
      return {};
    auto [it, fresh] = blocks.try_emplace({row, col / 32});
    if (fresh)
      it->second.fill(-1);
    int64_t &slot = it->second[col % 32 / 8];
    if (slot != -1)
      return {};
    slot = reg;
  }
  SmallVector<std::array<int64_t, 4>> out;
  for (auto &[key, regs] : blocks) {
    if (llvm::is_contained(regs, -1))
      return {};
    out.push_back(regs);
  }
  return out;
}

/// The quad blocks (quadBlocks) of a 16-bit accumulator tile that moves 16
/// bytes a thread between registers and `memref` at `corner`; empty where the
/// tile does not have that shape. The wgmma layout gives a thread two
/// consecutive columns of each 8-column block, so a direct access is one
/// 4-byte access per pair, and ptxas recomputes the address of each (the
/// H200 profile of the fused kernel had `o`'s sixteen stores a thread and
/// their address arithmetic at 7% of a chunk). Instead the four lanes of a
/// quad transpose their 4 x 4 words through shuffles (transposeQuad), so
/// that lane t holds the 8 columns of block t, one vector access each.
SmallVector<std::array<int64_t, 4>>
quadTransposeBlocks(RankedTensorType type, MemRefType memref, ValueRange corner,
                    ArrayRef<int64_t> dims) {
  if (!isa<WarpgroupMmaAttr>(type.getEncoding()) || type.getRank() != 2 ||
      dims.size() != 2 || dims[1] != memref.getRank() - 1 ||
      !memref.getLayout().isIdentity() || type.getElementTypeBitWidth() != 16)
    return {};
  int64_t rowLength = memref.getShape().back();
  if (ShapedType::isDynamic(rowLength) || rowLength % 8 != 0 ||
      !isMultipleOf(corner[dims[1]], 8))
    return {};
  // Thread 0's coordinates speak for every thread only when no warpgroup's
  // columns wrap around the tile (then lane t's pairs sit at + 2t, and its
  // block at + 8t, inside the tile).
  auto mma = cast<WarpgroupMmaAttr>(type.getEncoding());
  int64_t passColumns = mma.getInstrN() * mma.getWarpsPerCTA()[1];
  if (type.getDimSize(1) % passColumns != 0)
    return {};
  return quadBlocks(type);
}

/// The lane's place in its quad (lane % 4), as an index and as an i32.
std::pair<Value, Value> quadLane(OpBuilder &b, Location loc) {
  Value lane = arith::RemUIOp::create(b, loc, threadIdHere(b, loc),
                                      arith::ConstantIndexOp::create(b, loc, 4));
  return {lane, arith::IndexCastOp::create(b, loc, b.getI32Type(), lane)};
}

/// Transposes the 4 x 4 words of a quad: on entry x[s] is this lane's word
/// of slot s, on return x[u] is lane u's word of slot t (t this lane). Step
/// m swaps the off-diagonal halves along bit m: the slot whose bit m
/// differs from the lane's goes to the partner. The transpose is its own
/// inverse, so loads and stores use the same network; the shuffles run on
/// every lane (control flow is converged here).
void transposeQuad(OpBuilder &b, Location loc, Value laneI32,
                   MutableArrayRef<Value> x) {
  Value width = arith::ConstantIntOp::create(b, loc, kWarpSize, 32);
  for (int32_t m : {2, 1}) {
    Value bit = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::ne,
        arith::AndIOp::create(b, loc, laneI32,
                              arith::ConstantIntOp::create(b, loc, m, 32)),
        arith::ConstantIntOp::create(b, loc, 0, 32));
    Value offset = arith::ConstantIntOp::create(b, loc, m, 32);
    for (int64_t s = 0; s < 4; ++s) {
      if (s & m)
        continue;
      Value send = arith::SelectOp::create(b, loc, bit, x[s], x[s | m]);
      Value got = gpu::ShuffleOp::create(b, loc, send, offset, width,
                                         gpu::ShuffleMode::XOR)
                      .getShuffleResult();
      x[s] = arith::SelectOp::create(b, loc, bit, got, x[s]);
      x[s | m] = arith::SelectOp::create(b, loc, bit, x[s | m], got);
    }
  }
}

/// The coordinates of the 8 columns a lane moves for `block`: lane t's
/// block starts 6t columns right of its first pair (2t).
SmallVector<Value> quadBlockCoord(OpBuilder &b, Location loc,
                                  ArrayRef<Value> firstPair, Value lane) {
  SmallVector<Value> coord(firstPair);
  coord[1] = arith::AddIOp::create(
      b, loc, coord[1],
      arith::MulIOp::create(b, loc, lane, arith::ConstantIndexOp::create(b, loc, 6)));
  return coord;
}

/// A 16-bit accumulator tile stored 16 bytes a thread (quadTransposeBlocks).
/// Returns false (and emits nothing) where the tile does not have that
/// shape.
bool storeByQuadTranspose(OpBuilder &b, Location loc, RankedTensorType type,
                          Value regs, Value dest, ValueRange corner,
                          ArrayRef<int64_t> dims, Value rows) {
  SmallVector<std::array<int64_t, 4>> blocks = quadTransposeBlocks(
      type, cast<MemRefType>(dest.getType()), corner, dims);
  if (blocks.empty())
    return false;
  auto padding = gdn::tilePadding(cast<MemRefType>(dest.getType()),
                                  type.getShape(), dims);
  Type i32 = b.getI32Type();
  auto [lane, laneI32] = quadLane(b, loc);
  SmallVector<SmallVector<Value>> coords = emitThreadCoords(b, loc, type);
  auto word = [&](int64_t reg) {
    Value pair = registerRun(b, loc, regs, reg, 2);
    Value packed = vector::BitCastOp::create(
        b, loc, VectorType::get({1}, i32), pair);
    return vector::ExtractOp::create(b, loc, packed, 0).getResult();
  };
  for (const auto &block : blocks) {
    SmallVector<Value> x;
    for (int64_t reg : block)
      x.push_back(word(reg));
    transposeQuad(b, loc, laneI32, x);
    Value words = vector::FromElementsOp::create(
        b, loc, VectorType::get({4}, i32), x);
    Value v = vector::BitCastOp::create(
        b, loc, VectorType::get({8}, type.getElementType()), words);
    SmallVector<Value> coord = quadBlockCoord(b, loc, coords[block[0]], lane);
    Value keep =
        keepAccess(b, loc, padding, corner, dims, coord, rows, /*clamp=*/false);
    SmallVector<Value> idx = indicesOf(b, loc, corner, dims, coord);
    auto store = [&](OpBuilder &at) {
      vector::StoreOp::create(at, loc, v, dest, idx, /*nontemporal=*/false,
                              llvm::MaybeAlign(16));
    };
    if (!keep) {
      store(b);
      continue;
    }
    auto guard = scf::IfOp::create(b, loc, keep, /*withElse=*/false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(guard.thenBlock());
    store(b);
  }
  return true;
}

/// A 16-bit accumulator tile loaded 16 bytes a thread (quadTransposeBlocks):
/// each lane loads one block's 8 columns, and the quad transposes them into
/// its pairs. split-seq's replay carries U so. Rows past `rows` and padding
/// read row or column 0 and become zero. Null where the tile does not
/// have that shape.
Value loadByQuadTranspose(OpBuilder &b, Location loc,
                          const TypeConverter &converter, RankedTensorType type,
                          Value source, ValueRange corner,
                          ArrayRef<int64_t> dims, Value rows) {
  SmallVector<std::array<int64_t, 4>> blocks = quadTransposeBlocks(
      type, cast<MemRefType>(source.getType()), corner, dims);
  if (blocks.empty())
    return Value();
  Type i32 = b.getI32Type();
  Type element = type.getElementType();
  auto vecType = VectorType::get({8}, element);
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(vecType));
  auto padding = gdn::tilePadding(cast<MemRefType>(source.getType()),
                                  type.getShape(), dims);
  auto [lane, laneI32] = quadLane(b, loc);
  SmallVector<SmallVector<Value>> coords = emitThreadCoords(b, loc, type);
  SmallVector<Value> out(coords.size());
  for (const auto &block : blocks) {
    SmallVector<Value> coord = quadBlockCoord(b, loc, coords[block[0]], lane);
    Value keep =
        keepAccess(b, loc, padding, corner, dims, coord, rows, /*clamp=*/true);
    SmallVector<Value> idx = indicesOf(b, loc, corner, dims, coord);
    Value v = vector::LoadOp::create(b, loc, vecType, source, idx,
                                     /*nontemporal=*/false, llvm::MaybeAlign(16));
    if (keep)
      v = arith::SelectOp::create(b, loc, keep, v, zero);
    Value words = vector::BitCastOp::create(b, loc, VectorType::get({4}, i32), v);
    SmallVector<Value> x;
    for (int64_t s = 0; s < 4; ++s)
      x.push_back(vector::ExtractOp::create(b, loc, words, s));
    transposeQuad(b, loc, laneI32, x);
    for (auto [s, reg] : llvm::enumerate(block)) {
      Value word = vector::FromElementsOp::create(
          b, loc, VectorType::get({1}, i32), x[s]);
      Value pair = vector::BitCastOp::create(
          b, loc, VectorType::get({2}, element), word);
      out[reg] = vector::ExtractOp::create(b, loc, pair, 0);
      out[reg + 1] = vector::ExtractOp::create(b, loc, pair, 1);
    }
  }
  return vector::FromElementsOp::create(b, loc, converter.convertType(type), out);
}

/// The registers `regs` of a tile of `type` written to `dest`; rows at or
/// past `rows` (when given) and padding are not written. To a narrower
/// memory element (a bf16 state pool) the values are rounded to nearest
/// even in registers.
void storeRegisters(OpBuilder &b, Location loc, RankedTensorType type, Value regs,
                    Value dest, ValueRange corner, ArrayRef<int64_t> dims,
                    Value rows) {
  if (storeByQuadTranspose(b, loc, type, regs, dest, corner, dims, rows))
    return;
  int64_t run = globalRunLength(type, cast<MemRefType>(dest.getType()),
                                corner, dims);
  Type stored = cast<MemRefType>(dest.getType()).getElementType();
  auto padding = gdn::tilePadding(cast<MemRefType>(dest.getType()),
                                  type.getShape(), dims);
  SmallVector<SmallVector<Value>> coords = emitThreadCoords(b, loc, type);
  for (size_t first = 0; first < coords.size(); first += run) {
    SmallVector<Value> coord = coords[first];
    Value keep =
        keepAccess(b, loc, padding, corner, dims, coord, rows, /*clamp=*/false);
    Value v = run == 1 ? vector::ExtractOp::create(b, loc, regs, first).getResult()
                       : registerRun(b, loc, regs, first, run);
    v = mlir::gdn::emitFloatCast(b, loc, v, stored);
    SmallVector<Value> idx = indicesOf(b, loc, corner, dims, coord);
    auto store = [&](OpBuilder &at) {
      if (run == 1)
        memref::StoreOp::create(at, loc, v, dest, idx);
      else
        vector::StoreOp::create(
            at, loc, v, dest, idx, /*nontemporal=*/false,
            llvm::MaybeAlign(run * stored.getIntOrFloatBitWidth() / 8));
    };
    if (!keep) {
      store(b);
      continue;
    }
    auto guard = scf::IfOp::create(b, loc, keep, /*withElse=*/false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(guard.thenBlock());
    store(b);
  }
}

/// pool[page, head, row, 0]: the corner of a state tile (row 0, or the first
/// row of a V-split's block) and the dimensions it walks.
SmallVector<Value> stateCorner(OpBuilder &b, Location loc, Value page, Value head,
                               Value row) {
  Value c0 = arith::ConstantIndexOp::create(b, loc, 0);
  return {page, head, row ? row : c0, c0};
}
constexpr int64_t kStateDims[] = {2, 3};

struct TileLoadOnRegisters : OpConversionPattern<gdn::TileLoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(gdn::TileLoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!getDistributedLayout(op.getType()))
      return failure();
    rewriter.replaceOp(op, loadRegisters(rewriter, op.getLoc(), *getTypeConverter(),
                                         op.getType(), adaptor.getSource(),
                                         adaptor.getIndices(), op.getDims(),
                                         adaptor.getRows()));
    return success();
  }
};

struct TileStoreOnRegisters : OpConversionPattern<gdn::TileStoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(gdn::TileStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getValue().getType());
    if (!getDistributedLayout(type))
      return failure();
    storeRegisters(rewriter, op.getLoc(), type, adaptor.getValue(), adaptor.getDest(),
                   adaptor.getIndices(), op.getDims(), adaptor.getRows());
    rewriter.eraseOp(op);
    return success();
  }
};

struct StateLoadOnRegisters : OpConversionPattern<gdn::StateLoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(gdn::StateLoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!getDistributedLayout(op.getType()))
      return failure();
    Location loc = op.getLoc();
    rewriter.replaceOp(
        op, loadRegisters(rewriter, loc, *getTypeConverter(), op.getType(),
                          adaptor.getPool(),
                          stateCorner(rewriter, loc, adaptor.getPage(), adaptor.getHead(),
                                      adaptor.getRow()),
                          kStateDims, Value()));
    return success();
  }
};

struct StateStoreOnRegisters : OpConversionPattern<gdn::StateStoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(gdn::StateStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getValue().getType());
    if (!getDistributedLayout(type))
      return failure();
    Location loc = op.getLoc();
    storeRegisters(rewriter, loc, type, adaptor.getValue(), adaptor.getPool(),
                   stateCorner(rewriter, loc, adaptor.getPage(), adaptor.getHead(),
                                      adaptor.getRow()),
                   kStateDims, Value());
    rewriter.eraseOp(op);
    return success();
  }
};
/// The page-table walk: scalar loads, the same on every thread.
struct PageLookupToLoads : OpConversionPattern<gdn::PageLookupOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(gdn::PageLookupOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, gdn::emitPageLookup(rewriter, op.getLoc(),
                                               adaptor.getPageIndices(),
                                               adaptor.getPageIndptr(),
                                               adaptor.getSeq(), adaptor.getPage()));
    return success();
  }
};
} // namespace

void gdn_gpu::populateLoadStoreOpToNVVMPatterns(TileTypeConverter &converter,
                                                RewritePatternSet &patterns) {
  patterns.add<TileLoadOnRegisters, TileStoreOnRegisters, StateLoadOnRegisters,
               StateStoreOnRegisters, PageLookupToLoads>(converter,
                                                         patterns.getContext());
}
