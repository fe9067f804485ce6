module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3xf32>) -> (tensor<5x4xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
    %c = stablehlo.constant dense<0> : tensor<i64>
    %1 = call @_pad(%0, %c) : (tensor<3x2xf32>, tensor<i64>) -> tensor<5x4xf32>
    return %1 : tensor<5x4xf32>
  }
  func.func private @_pad(%arg0: tensor<3x2xf32>, %arg1: tensor<i64>) -> tensor<5x4xf32> {
    %0 = stablehlo.convert %arg1 : (tensor<i64>) -> tensor<f32>
    %1 = stablehlo.pad %arg0, %0, low = [1, 1], high = [1, 1], interior = [0, 0] : (tensor<3x2xf32>, tensor<f32>) -> tensor<5x4xf32>
    return %1 : tensor<5x4xf32>
  }
}
