// running-sum.mlir with a folding transition: it takes the map of the
// chunks before (a, B, R) and yields it composed with its chunk's (R + x_c).
func.func @scan(%x: memref<?x64xf32>, %pool: memref<?x?x64x64xf32>,
                %out: memref<?x64xf32>, %n: index)
    attributes {llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %m0 = gdn.state_load %pool[%c0, %c0] : memref<?x?x64x64xf32> -> tensor<64x64xf32>
  %m = gdn.chunk_scan %c0 to %n init(%m0 : tensor<64x64xf32>)
  prepare {
  ^bb0(%c: index):
    %t = arith.muli %c, %c64 : index
    %xt = gdn.tile_load %x[%t, %c0] dims [0, 1] : memref<?x64xf32> -> tensor<64x64xf32>
    gdn.yield %xt : tensor<64x64xf32>
  } step {
  ^bb0(%c: index, %xt: tensor<64x64xf32>, %s: tensor<64x64xf32>):
    %s1 = arith.addf %s, %xt : tensor<64x64xf32>
    gdn.yield %s1 : tensor<64x64xf32>
  } emit {
  ^bb0(%c: index, %xt: tensor<64x64xf32>, %s: tensor<64x64xf32>):
    %t = arith.muli %c, %c64 : index
    %o = gdn.matmul %xt, %s mask none : tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x64xf32>
    gdn.tile_store %o, %out[%t, %c0] dims [0, 1] : tensor<64x64xf32>, memref<?x64xf32>
  } transition {
  ^bb0(%c: index, %xt: tensor<64x64xf32>, %a: f32, %b: tensor<64x64xf32>,
       %r: tensor<64x64xf32>):
    %r1 = arith.addf %r, %xt : tensor<64x64xf32>
    gdn.yield %a, %b, %r1 : f32, tensor<64x64xf32>, tensor<64x64xf32>
  }
  gdn.state_store %m, %pool[%c0, %c0] : tensor<64x64xf32>, memref<?x?x64x64xf32>
  return
}
