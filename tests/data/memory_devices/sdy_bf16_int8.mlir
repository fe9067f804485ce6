module @jit__lambda attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=4, "y"=2]> {stablehlo.mesh = {axes = [{name = "x", size = 4 : i64}, {name = "y", size = 2 : i64}]}}
  func.func public @main(%arg0: tensor<32x7xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}, %arg1: tensor<9x16xi8> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"y"}]>}) -> (tensor<32x7xbf16> {jax.result_info = "result[0]", sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}, tensor<9x16xi8> {jax.result_info = "result[1]", sdy.sharding = #sdy.sharding<@mesh, [{}, {"y"}]>}) {
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<bf16>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<bf16>) -> tensor<32x7xbf16>
    %1 = stablehlo.multiply %arg0, %0 : tensor<32x7xbf16>
    %c = stablehlo.constant dense<1> : tensor<i8>
    %2 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i8>) -> tensor<9x16xi8>
    %3 = stablehlo.add %arg1, %2 : tensor<9x16xi8>
    return %1, %3 : tensor<32x7xbf16>, tensor<9x16xi8>
  }
}
