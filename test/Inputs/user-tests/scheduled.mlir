// A user's own lit test, kept outside the repository's test/ folder: the
// staged schedule gives each entry three kernels.
// RUN: gdn-opt %kernels/gdn_chunked.mlir --gdn-schedule=schedule=staged | FileCheck %s
// CHECK-DAG: func.func @gdn_pool__prepare(
// CHECK-DAG: func.func @gdn_pool__state(
// CHECK-DAG: func.func @gdn_pool__output(
