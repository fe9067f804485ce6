module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3xf8E4M3FNUZ>) -> (tensor<3x2xf8E4M3FNUZ> {jax.result_info = "result[0]"}, tensor<6xf8E4M3FNUZ> {jax.result_info = "result[1]"}) {
    %0 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<2x3xf8E4M3FNUZ>) -> tensor<3x2xf8E4M3FNUZ>
    %1 = stablehlo.reshape %arg0 : (tensor<2x3xf8E4M3FNUZ>) -> tensor<6xf8E4M3FNUZ>
    return %0, %1 : tensor<3x2xf8E4M3FNUZ>, tensor<6xf8E4M3FNUZ>
  }
}
