module @jit__lambda attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<32x7xbf16> {mhlo.sharding = "{devices=[4,1,2]<=[8] last_tile_dim_replicate}"}, %arg1: tensor<9x16xi8> {mhlo.sharding = "{devices=[1,2,4]<=[4,2]T(1,0) last_tile_dim_replicate}"}) -> (tensor<32x7xbf16> {jax.result_info = "result[0]", mhlo.sharding = "{devices=[4,1,2]<=[8] last_tile_dim_replicate}"}, tensor<9x16xi8> {jax.result_info = "result[1]", mhlo.sharding = "{devices=[1,2,4]<=[4,2]T(1,0) last_tile_dim_replicate}"}) {
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<bf16>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<bf16>) -> tensor<32x7xbf16>
    %1 = stablehlo.multiply %arg0, %0 : tensor<32x7xbf16>
    %c = stablehlo.constant dense<1> : tensor<i8>
    %2 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i8>) -> tensor<9x16xi8>
    %3 = stablehlo.add %arg1, %2 : tensor<9x16xi8>
    return %1, %3 : tensor<32x7xbf16>, tensor<9x16xi8>
  }
}
