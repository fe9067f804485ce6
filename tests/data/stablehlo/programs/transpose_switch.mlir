module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<i32>, %arg1: tensor<2x3xf32>) -> (tensor<3x2xf32> {jax.result_info = "result"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<2> : tensor<i32>
    %0 = stablehlo.clamp %c, %arg0, %c_0 : tensor<i32>
    %1 = "stablehlo.case"(%0) ({
      %2 = stablehlo.transpose %arg1, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
      stablehlo.return %2 : tensor<3x2xf32>
    }, {
      %2 = stablehlo.transpose %arg1, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
      %3 = stablehlo.negate %2 : tensor<3x2xf32>
      stablehlo.return %3 : tensor<3x2xf32>
    }, {
      %2 = stablehlo.transpose %arg1, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
      %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %3 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3x2xf32>
      %4 = stablehlo.add %2, %3 : tensor<3x2xf32>
      stablehlo.return %4 : tensor<3x2xf32>
    }) : (tensor<i32>) -> tensor<3x2xf32>
    return %1 : tensor<3x2xf32>
  }
}
