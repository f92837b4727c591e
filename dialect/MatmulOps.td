//===- MatmulOps.td - masked decayed matmul, triangular inverse -*- tablegen -*-===//

#ifndef GDN_MATMUL_OPS_TD
#define GDN_MATMUL_OPS_TD

include "GDNAttrs.td"
include "GDNTypes.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def GDN_MatmulOp : GDN_Op<"matmul", [Pure, AttrSizedOperandSegments]> {
  let summary = "tile matmul with optional transposes, triangular mask and decay";
  let description = [{
    `result[i, j] = F(i, j) * sum_k op(lhs)[i, k] * op(rhs)[k, j]` where
    `op(x)` is `x` or `x^T` (`transpose_a`, `transpose_b`) and, for a square
    result,

    - `mask none`: `F = 1`; `causal`: `F = 0` for `j > i`; `strict`: `F = 0`
      for `j >= i`;
    - with `decay(gamma)`: `F` is further multiplied by `exp(gamma_i - gamma_j)`
      on the entries the mask keeps. A decay needs a `causal` or `strict`
      mask: above the diagonal the factor would be `exp(+large)`, the
      overflow docs/Spec.md forbids.

    Operands are f32, bf16 or f16 (both the same); products accumulate in
    f32 and the result is f32.

    With `acc(%c)` (only under `mask none`) the products are added to `%c`,
    of the result's type: `result = c + lhs * rhs`. On the GPU the
    accumulator starts from `%c`'s registers, so the sum needs no second
    tile of registers. `gdn-fold-matmul-accumulate` makes such matmuls out
    of `arith.addf(c, gdn.matmul)`.

    ```mlir
    // A = (K K^T) (.) exp(gamma_i - gamma_j), j < i
    %kk = gdn.matmul %k, %k transpose_b mask strict decay(%gamma : tensor<64xf32>)
        : tensor<64x128xf32>, tensor<64x128xf32> -> tensor<64x64xf32>
    ```
  }];
  let arguments = (ins GDN_MatmulOperand:$lhs, GDN_MatmulOperand:$rhs,
                       Optional<GDN_F32Vector>:$decay,
                       Optional<GDN_F32Matrix>:$acc,
                       UnitAttr:$transpose_a, UnitAttr:$transpose_b,
                       DefaultValuedAttr<GDN_MaskKindAttr, "::mlir::gdn::MaskKind::none">:$mask);
  let results = (outs GDN_F32Matrix:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs (`transpose_a` $transpose_a^)? (`transpose_b` $transpose_b^)?
    `mask` $mask (`decay` `(` $decay^ `:` type($decay) `)`)?
    (`acc` `(` $acc^ `:` type($acc) `)`)? attr-dict
    `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
  let hasVerifier = 1;
}

def GDN_TriInverseOp : GDN_Op<"tri_inverse", [Pure, SameOperandsAndResultType]> {
  let summary = "(I + A)^-1 of a strictly lower triangular A";
  let description = [{
    Returns `Tm = (I + A)^-1`, unit lower triangular, for `A` strictly lower
    triangular (entries on and above the diagonal are ignored). Computed by
    forward substitution, no division: `Tm` of the WY construction.

    ```mlir
    %tm = gdn.tri_inverse %a : tensor<64x64xf32>
    ```
  }];
  let arguments = (ins GDN_F32Matrix:$input);
  let results = (outs GDN_F32Matrix:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

#endif // GDN_MATMUL_OPS_TD
