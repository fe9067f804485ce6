module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5x2x3xf32>, %arg1: tensor<5x3x4xf32>) -> (tensor<4x5x2xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.dot_general %arg1, %arg0, batching_dims = [0] x [0], contracting_dims = [1] x [2], precision = [DEFAULT, DEFAULT] : (tensor<5x3x4xf32>, tensor<5x2x3xf32>) -> tensor<5x4x2xf32>
    %1 = stablehlo.transpose %0, dims = [1, 0, 2] : (tensor<5x4x2xf32>) -> tensor<4x5x2xf32>
    return %1 : tensor<4x5x2xf32>
  }
}
