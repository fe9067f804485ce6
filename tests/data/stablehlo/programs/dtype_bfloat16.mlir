module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3xbf16>) -> (tensor<3x2xbf16> {jax.result_info = "result[0]"}, tensor<6xbf16> {jax.result_info = "result[1]"}) {
    %0 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<2x3xbf16>) -> tensor<3x2xbf16>
    %1 = stablehlo.reshape %arg0 : (tensor<2x3xbf16>) -> tensor<6xbf16>
    return %0, %1 : tensor<3x2xbf16>, tensor<6xbf16>
  }
}
