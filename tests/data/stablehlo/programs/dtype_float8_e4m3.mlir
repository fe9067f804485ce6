module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3xf8E4M3>) -> (tensor<3x2xf8E4M3> {jax.result_info = "result[0]"}, tensor<6xf8E4M3> {jax.result_info = "result[1]"}) {
    %0 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<2x3xf8E4M3>) -> tensor<3x2xf8E4M3>
    %1 = stablehlo.reshape %arg0 : (tensor<2x3xf8E4M3>) -> tensor<6xf8E4M3>
    return %0, %1 : tensor<3x2xf8E4M3>, tensor<6xf8E4M3>
  }
}
