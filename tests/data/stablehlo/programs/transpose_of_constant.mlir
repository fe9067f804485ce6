module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3xf32>) -> (tensor<3x4x2xf64> {jax.result_info = "result"}) {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f64>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<2x3x4xf64>
    %1 = stablehlo.transpose %0, dims = [1, 2, 0] : (tensor<2x3x4xf64>) -> tensor<3x4x2xf64>
    %2 = stablehlo.slice %arg0 [0:1, 0:1] : (tensor<2x3xf32>) -> tensor<1x1xf32>
    %3 = stablehlo.reshape %2 : (tensor<1x1xf32>) -> tensor<f32>
    %4 = stablehlo.convert %3 : (tensor<f32>) -> tensor<f64>
    %5 = stablehlo.broadcast_in_dim %4, dims = [] : (tensor<f64>) -> tensor<3x4x2xf64>
    %6 = stablehlo.add %1, %5 : tensor<3x4x2xf64>
    return %6 : tensor<3x4x2xf64>
  }
}
