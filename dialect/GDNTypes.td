//===- GDNTypes.td - type constraints of tiles ------------*- tablegen -*-===//
//
// Tiles are builtin ranked tensors with static shapes; no new types.
//
//===----------------------------------------------------------------------===//

#ifndef GDN_TYPES_TD
#define GDN_TYPES_TD

include "mlir/IR/CommonTypeConstraints.td"

def GDN_FloatElt : AnyTypeOf<[F32, BF16, F16]>;
// Any tile: statically shaped tensor of rank 1 or 2 with a float element.
def GDN_Tile : Type<And<[
    StaticShapeTensorOf<[F32, BF16, F16]>.predicate,
    Or<[HasAnyRankOfPred<[1, 2]>]>]>,
    "rank-1 or rank-2 statically shaped tile of f32 / bf16 / f16", "::mlir::RankedTensorType">;
// Compute tiles are fp32.
def GDN_F32Vector : Type<And<[
    StaticShapeTensorOf<[F32]>.predicate, HasAnyRankOfPred<[1]>]>,
    "rank-1 statically shaped f32 tile", "::mlir::RankedTensorType">;
def GDN_F32Matrix : Type<And<[
    StaticShapeTensorOf<[F32]>.predicate, HasAnyRankOfPred<[2]>]>,
    "rank-2 statically shaped f32 tile", "::mlir::RankedTensorType">;
def GDN_F32Tile : Type<And<[
    StaticShapeTensorOf<[F32]>.predicate, HasAnyRankOfPred<[1, 2]>]>,
    "rank-1 or rank-2 statically shaped f32 tile", "::mlir::RankedTensorType">;
def GDN_MatmulOperand : Type<And<[
    StaticShapeTensorOf<[F32, BF16, F16]>.predicate, HasAnyRankOfPred<[2]>]>,
    "rank-2 statically shaped f32 / bf16 / f16 tile", "::mlir::RankedTensorType">;
def GDN_IndexArray : MemRefRankOf<[I32, I64], [1]>;

#endif // GDN_TYPES_TD
