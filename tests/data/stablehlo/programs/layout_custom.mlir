module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @empty_mesh = <[]> {stablehlo.mesh = {axes = []}}
  func.func public @main(%arg0: tensor<2x3xf32> {mhlo.layout_mode = "{0,1}", sdy.sharding = #sdy.sharding<@empty_mesh, [{}, {}]>}) -> (tensor<2x3xf32> {jax.result_info = "result", sdy.sharding = #sdy.sharding<@empty_mesh, [{}, {}]>}) {
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x3xf32>
    %1 = stablehlo.multiply %arg0, %0 : tensor<2x3xf32>
    return %1 : tensor<2x3xf32>
  }
}
