//===- GDNAttrs.td - enum attributes of the gdn dialect ---*- tablegen -*-===//

#ifndef GDN_ATTRS_TD
#define GDN_ATTRS_TD

include "GDNDialect.td"
include "mlir/IR/EnumAttr.td"

// Which (i, j) entries of a square product survive.
def GDN_MaskNone   : I32EnumAttrCase<"none", 0>;
def GDN_MaskCausal : I32EnumAttrCase<"causal", 1>;   // j <= i
def GDN_MaskStrict : I32EnumAttrCase<"strict", 2>;   // j < i
def GDN_MaskKind : I32EnumAttr<"MaskKind", "triangular mask of a matmul",
    [GDN_MaskNone, GDN_MaskCausal, GDN_MaskStrict]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::gdn";
}
def GDN_MaskKindAttr : EnumAttr<GDN_Dialect, GDN_MaskKind, "mask"> {
  let assemblyFormat = "$value";
}

// How the decay gate is given (SPEC.md, "Gates").
def GDN_GateRaw    : I32EnumAttrCase<"raw", 0>;     // -exp(A_log) softplus(a + dt_bias)
def GDN_GateLog    : I32EnumAttrCase<"log", 1>;     // g given
def GDN_GateLinear : I32EnumAttrCase<"linear", 2>;  // alpha = exp(g) given
def GDN_GateDomain : I32EnumAttr<"GateDomain", "how a decay gate is given",
    [GDN_GateRaw, GDN_GateLog, GDN_GateLinear]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::gdn";
}
def GDN_GateDomainAttr : EnumAttr<GDN_Dialect, GDN_GateDomain, "gate_domain"> {
  let assemblyFormat = "$value";
}

#endif // GDN_ATTRS_TD
