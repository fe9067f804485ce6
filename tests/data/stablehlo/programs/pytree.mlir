module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2xf32>, %arg1: tensor<2x3xf32>) -> (tensor<2xf32> {jax.result_info = "result['a']"}, tensor<3x2xf32> {jax.result_info = "result['b'][0]"}, tensor<2xf32> {jax.result_info = "result['b'][1]"}) {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2xf32>
    %1 = stablehlo.add %arg0, %0 : tensor<2xf32>
    %2 = stablehlo.transpose %arg1, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
    return %1, %2, %arg0 : tensor<2xf32>, tensor<3x2xf32>, tensor<2xf32>
  }
}
