// A small scan whose programs split rows: program x holds rows
// [v0, v0 + 64) of head h (gdn.program_rows over 128 rows). Each chunk
// solves a 64x64 system from %a (the same for every program of a head) and
// applies the inverse to the program's own rows of %x.
func.func @scan(%a: memref<?x?x64xf32>, %x: memref<?x?x128xf32>,
                %pool: memref<?x?x64x64xf32>, %out: memref<?x?x128xf32>,
                %n: index) attributes {llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %p = gdn.program_id 0
  %h, %v0 = gdn.program_rows %p of %c128 by %c64
  %m0 = gdn.state_load %pool[%c0, %h] : memref<?x?x64x64xf32> -> tensor<64x64xf32>
  %m = gdn.chunk_scan %c0 to %n init(%m0 : tensor<64x64xf32>)
  prepare {
  ^bb0(%c: index):
    %t = arith.muli %c, %c64 : index
    %at = gdn.tile_load %a[%t, %h, %c0] dims [0, 2] : memref<?x?x64xf32> -> tensor<64x64xf32>
    %inv = gdn.tri_inverse %at : tensor<64x64xf32>
    %xt = gdn.tile_load %x[%t, %h, %v0] dims [0, 2] : memref<?x?x128xf32> -> tensor<64x64xf32>
    %u = gdn.matmul %inv, %xt mask none : tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x64xf32>
    gdn.yield %u : tensor<64x64xf32>
  } step {
  ^bb0(%c: index, %u: tensor<64x64xf32>, %s: tensor<64x64xf32>):
    %s1 = arith.addf %s, %u : tensor<64x64xf32>
    gdn.yield %s1 : tensor<64x64xf32>
  } emit {
  ^bb0(%c: index, %u: tensor<64x64xf32>, %s: tensor<64x64xf32>):
    %t = arith.muli %c, %c64 : index
    %o = gdn.matmul %u, %s mask none : tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x64xf32>
    gdn.tile_store %o, %out[%t, %h, %v0] dims [0, 2] : tensor<64x64xf32>, memref<?x?x128xf32>
  }
  gdn.state_store %m, %pool[%c0, %h] : tensor<64x64xf32>, memref<?x?x64x64xf32>
  return
}
