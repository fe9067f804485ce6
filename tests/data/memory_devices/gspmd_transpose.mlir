module @jit__lambda attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<24x8xf32> {mhlo.sharding = "{devices=[4,2]<=[8]}"}) -> (tensor<8x24xf32> {jax.result_info = "result", mhlo.sharding = "{devices=[2,4]<=[4,2]T(1,0)}"}) {
    %0 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<24x8xf32>) -> tensor<8x24xf32>
    return %0 : tensor<8x24xf32>
  }
}
