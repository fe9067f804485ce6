module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3xf8E8M0FNU>) -> (tensor<3x2xf8E8M0FNU> {jax.result_info = "result[0]"}, tensor<6xf8E8M0FNU> {jax.result_info = "result[1]"}) {
    %0 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<2x3xf8E8M0FNU>) -> tensor<3x2xf8E8M0FNU>
    %1 = stablehlo.reshape %arg0 : (tensor<2x3xf8E8M0FNU>) -> tensor<6xf8E8M0FNU>
    return %0, %1 : tensor<3x2xf8E8M0FNU>, tensor<6xf8E8M0FNU>
  }
}
