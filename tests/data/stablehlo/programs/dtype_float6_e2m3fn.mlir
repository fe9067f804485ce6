module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3xf6E2M3FN>) -> (tensor<3x2xf6E2M3FN> {jax.result_info = "result[0]"}, tensor<6xf6E2M3FN> {jax.result_info = "result[1]"}) {
    %0 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<2x3xf6E2M3FN>) -> tensor<3x2xf6E2M3FN>
    %1 = stablehlo.reshape %arg0 : (tensor<2x3xf6E2M3FN>) -> tensor<6xf6E2M3FN>
    return %0, %1 : tensor<3x2xf6E2M3FN>, tensor<6xf6E2M3FN>
  }
}
