module @jit__lambda attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=4, "y"=2]> {stablehlo.mesh = {axes = [{name = "x", size = 4 : i64}, {name = "y", size = 2 : i64}]}}
  func.func public @main(%arg0: tensor<16x12x5xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x", "y"}, {}, {}]>}) -> (tensor<16x12x5xf32> {jax.result_info = "result", sdy.sharding = #sdy.sharding<@mesh, [{"x", "y"}, {}, {}]>}) {
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x12x5xf32>
    %1 = stablehlo.multiply %arg0, %0 : tensor<16x12x5xf32>
    return %1 : tensor<16x12x5xf32>
  }
}
