module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3xf32>) -> (tensor<3x2xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
    %c = stablehlo.constant dense<0> : tensor<i64>
    %1:2 = stablehlo.while(%iterArg = %c, %iterArg_0 = %0) : tensor<i64>, tensor<3x2xf32>
    cond {
      %c_1 = stablehlo.constant dense<3> : tensor<i64>
      %2 = stablehlo.compare LT, %iterArg, %c_1, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %2 : tensor<i1>
    } do {
      %2 = func.call @closed_call(%iterArg_0) : (tensor<3x2xf32>) -> tensor<3x2xf32>
      %c_1 = stablehlo.constant dense<1> : tensor<i64>
      %3 = stablehlo.add %iterArg, %c_1 : tensor<i64>
      stablehlo.return %3, %2 : tensor<i64>, tensor<3x2xf32>
    }
    return %1#1 : tensor<3x2xf32>
  }
  func.func private @closed_call(%arg0: tensor<3x2xf32>) -> tensor<3x2xf32> {
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3x2xf32>
    %1 = stablehlo.multiply %arg0, %0 : tensor<3x2xf32>
    return %1 : tensor<3x2xf32>
  }
}
