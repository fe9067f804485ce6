module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3xf32>) -> (tensor<3x2xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3x2xf32>
    %2 = stablehlo.compare GT, %0, %1, FLOAT : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xi1>
    %3 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %4 = call @_where(%2, %3, %cst_0) : (tensor<3x2xi1>, tensor<3x2xf32>, tensor<f64>) -> tensor<3x2xf32>
    return %4 : tensor<3x2xf32>
  }
  func.func private @_where(%arg0: tensor<3x2xi1>, %arg1: tensor<3x2xf32>, %arg2: tensor<f64>) -> tensor<3x2xf32> {
    %0 = stablehlo.convert %arg2 : (tensor<f64>) -> tensor<f32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<3x2xf32>
    %2 = stablehlo.select %arg0, %arg1, %1 : tensor<3x2xi1>, tensor<3x2xf32>
    return %2 : tensor<3x2xf32>
  }
}
