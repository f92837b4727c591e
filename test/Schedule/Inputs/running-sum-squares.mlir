// running-sum.mlir with a state that sums the squares of x's tiles (a value
// only the step and the transition read) while each chunk's output is x_c
// times the state entering it: split-seq replay=load stores the squares
// and prepares x again in replay.
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
    %sq = arith.mulf %xt, %xt : tensor<64x64xf32>
    gdn.yield %xt, %sq : tensor<64x64xf32>, tensor<64x64xf32>
  } step {
  ^bb0(%c: index, %xt: tensor<64x64xf32>, %sq: tensor<64x64xf32>, %s: tensor<64x64xf32>):
    %s1 = arith.addf %s, %sq : tensor<64x64xf32>
    gdn.yield %s1 : tensor<64x64xf32>
  } emit {
  ^bb0(%c: index, %xt: tensor<64x64xf32>, %sq: tensor<64x64xf32>, %s: tensor<64x64xf32>):
    %t = arith.muli %c, %c64 : index
    %o = gdn.matmul %xt, %s mask none : tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x64xf32>
    gdn.tile_store %o, %out[%t, %c0] dims [0, 1] : tensor<64x64xf32>, memref<?x64xf32>
  } transition {
  ^bb0(%c: index, %xt: tensor<64x64xf32>, %sq: tensor<64x64xf32>):
    %one = arith.constant 1.0 : f32
    %zero = arith.constant 0.0 : f32
    %none = tensor.splat %zero : tensor<64x64xf32>
    gdn.yield %one, %none, %sq : f32, tensor<64x64xf32>, tensor<64x64xf32>
  }
  gdn.state_store %m, %pool[%c0, %c0] : tensor<64x64xf32>, memref<?x?x64x64xf32>
  return
}
