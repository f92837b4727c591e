func.func @wy(%km: memref<?x?x64xf32>, %out: memref<?x?x64xf32>, %gm: memref<?x?xf32>, %n: index) {
  %h = gdn.program_id 0
  %c0 = arith.constant 0 : index
  %k = gdn.tile_load %km[%c0, %h, %c0] dims [0, 2] rows %n : memref<?x?x64xf32> -> tensor<64x64xf32>
  %g = gdn.tile_load %gm[%c0, %h] dims [0] rows %n : memref<?x?xf32> -> tensor<64xf32>
  %gamma = gdn.cumsum %g : tensor<64xf32>
  %kk = gdn.matmul %k, %k transpose_b mask strict decay(%gamma : tensor<64xf32>) : tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x64xf32>
  %t = gdn.tri_inverse %kk : tensor<64x64xf32>
  %w = gdn.matmul %t, %k mask none : tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x64xf32>
  gdn.tile_store %w, %out[%c0, %h, %c0] dims [0, 2] rows %n : tensor<64x64xf32>, memref<?x?x64xf32>
  return
}
