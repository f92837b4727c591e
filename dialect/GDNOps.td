//===- GDNOps.td - all ops of the gdn dialect -------------*- tablegen -*-===//
//
// One .td per concern; this file gathers them for one ODS invocation.
//
//===----------------------------------------------------------------------===//

#ifndef GDN_OPS_TD
#define GDN_OPS_TD

include "TileOps.td"
include "GateOps.td"
include "NormOps.td"
include "MatmulOps.td"
include "StateOps.td"
include "ScanOps.td"

#endif // GDN_OPS_TD
