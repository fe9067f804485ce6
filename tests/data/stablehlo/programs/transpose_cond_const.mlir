module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3xf32>) -> (tensor<3x2xf32> {jax.result_info = "result"}) {
    %c = stablehlo.constant dense<1> : tensor<i32>
    %0 = "stablehlo.case"(%c) ({
      %1 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
      %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
      %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3x2xf32>
      %3 = stablehlo.multiply %1, %2 : tensor<3x2xf32>
      stablehlo.return %3 : tensor<3x2xf32>
    }, {
      %1 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
      stablehlo.return %1 : tensor<3x2xf32>
    }) : (tensor<i32>) -> tensor<3x2xf32>
    return %0 : tensor<3x2xf32>
  }
}
