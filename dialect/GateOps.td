//===- GateOps.td - gates and cumulative decay ------------*- tablegen -*-===//

#ifndef GDN_GATE_OPS_TD
#define GDN_GATE_OPS_TD

include "GDNAttrs.td"
include "GDNTypes.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def GDN_GateOp : GDN_Op<"gate", [Pure, AttrSizedOperandSegments,
                                 AllTypesMatch<["input", "result"]>]> {
  let summary = "log-decay g of a chunk from the gate as given";
  let description = [{
    Returns the per-token log-decay `g <= 0` (docs/Spec.md, "Gates"):

    - `raw`: `g = -exp(A_log) * softplus(input + dt_bias)`, with
      `softplus(x) = log1p(exp(x))` for `x <= 20` and `x` above; `A_log` and
      `dt_bias` are the head's f32 scalars and are required.
    - `log`: `g = input`.
    - `linear`: `g = max(log(input), -200)` (`input` is `alpha = exp(g)`;
      the floor keeps `alpha = 0`, a full reset, finite: `exp(-200)` is
      already 0 in f32).

    ```mlir
    %g = gdn.gate raw %a A_log(%alog) dt_bias(%dtb) : tensor<64xf32>
    %g2 = gdn.gate linear %alpha : tensor<64xf32>
    ```
  }];
  let arguments = (ins GDN_GateDomainAttr:$domain, GDN_F32Vector:$input,
                       Optional<F32>:$A_log, Optional<F32>:$dt_bias);
  let results = (outs GDN_F32Vector:$result);
  let assemblyFormat = [{
    $domain $input (`A_log` `(` $A_log^ `)`)? (`dt_bias` `(` $dt_bias^ `)`)?
    attr-dict `:` type($input)
  }];
  let hasVerifier = 1;
}

def GDN_SigmoidOp : GDN_Op<"sigmoid", [Pure, SameOperandsAndResultType]> {
  let summary = "elementwise logistic function";
  let description = [{
    `1 / (1 + exp(-x))`, evaluated without overflow for large `|x|`; turns a
    `beta` logit into `beta`.

    ```mlir
    %beta = gdn.sigmoid %b : tensor<64xf32>
    ```
  }];
  let arguments = (ins GDN_F32Tile:$input);
  let results = (outs GDN_F32Tile:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def GDN_CumsumOp : GDN_Op<"cumsum", [Pure, SameOperandsAndResultType]> {
  let summary = "inclusive prefix sum of a chunk's log-decays";
  let description = [{
    `gamma_i = g_0 + ... + g_i` (inclusive), the cumulative decay of a chunk.

    ```mlir
    %gamma = gdn.cumsum %g : tensor<64xf32>
    ```
  }];
  let arguments = (ins GDN_F32Vector:$input);
  let results = (outs GDN_F32Vector:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

#endif // GDN_GATE_OPS_TD
