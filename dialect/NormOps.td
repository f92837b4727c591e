//===- NormOps.td - row normalisation and row scaling -----*- tablegen -*-===//

#ifndef GDN_NORM_OPS_TD
#define GDN_NORM_OPS_TD

include "GDNDialect.td"
include "GDNTypes.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def GDN_L2NormOp : GDN_Op<"l2norm", [Pure, SameOperandsAndResultType]> {
  let summary = "l2-normalise every row of a tile";
  let description = [{
    `x[r, :] <- x[r, :] * rsqrt(sum_c x[r, c]^2 + eps)`, in fp32, per row
    (one q or k row of one head). `eps` defaults to `1e-6` (docs/Spec.md).

    ```mlir
    %qn = gdn.l2norm %q : tensor<64x128xf32>
    ```
  }];
  let arguments = (ins GDN_F32Matrix:$input,
                       DefaultValuedAttr<F32Attr, "1.0e-6f">:$eps);
  let results = (outs GDN_F32Matrix:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def GDN_ScaleRowsOp : GDN_Op<"scale_rows", [Pure, AllTypesMatch<["input", "result"]>]> {
  let summary = "multiply each row of a tile by a per-row factor";
  let description = [{
    `result = diag(scale) input`: `result[r, :] = scale[r] * input[r, :]`.
    Gives `beta (.) A`, `diag(beta exp(gamma)) K` and `diag(beta) V` of the
    WY construction.

    ```mlir
    %bk = gdn.scale_rows %k, %beta : tensor<64x128xf32>, tensor<64xf32>
    ```
  }];
  let arguments = (ins GDN_F32Matrix:$input, GDN_F32Vector:$scale);
  let results = (outs GDN_F32Matrix:$result);
  let assemblyFormat = "$input `,` $scale attr-dict `:` type($input) `,` type($scale)";
  let hasVerifier = 1;
}

#endif // GDN_NORM_OPS_TD
