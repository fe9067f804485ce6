module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3xf32>) -> (tensor<2x3xf32> {jax.result_info = "result"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2xf32>
    %1 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<3x2xf32>
    %c = stablehlo.constant dense<0> : tensor<i64>
    %3:4 = stablehlo.while(%iterArg = %1, %iterArg_1 = %c, %iterArg_2 = %0, %iterArg_3 = %2) : tensor<3x2xf32>, tensor<i64>, tensor<2xf32>, tensor<3x2xf32>
    cond {
      %c_4 = stablehlo.constant dense<3> : tensor<i64>
      %5 = stablehlo.compare LT, %iterArg_1, %c_4, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %5 : tensor<i1>
    } do {
      %5 = func.call @dynamic_index_in_dim(%iterArg, %iterArg_1) : (tensor<3x2xf32>, tensor<i64>) -> tensor<2xf32>
      %6:2 = func.call @closed_call(%iterArg_2, %5) : (tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
      %7 = func.call @dynamic_update_index_in_dim(%iterArg_3, %6#1, %iterArg_1) : (tensor<3x2xf32>, tensor<2xf32>, tensor<i64>) -> tensor<3x2xf32>
      %c_4 = stablehlo.constant dense<1> : tensor<i64>
      %8 = stablehlo.add %iterArg_1, %c_4 : tensor<i64>
      stablehlo.return %iterArg, %8, %6#0, %7 : tensor<3x2xf32>, tensor<i64>, tensor<2xf32>, tensor<3x2xf32>
    }
    %4 = stablehlo.transpose %3#3, dims = [1, 0] : (tensor<3x2xf32>) -> tensor<2x3xf32>
    return %4 : tensor<2x3xf32>
  }
  func.func private @dynamic_index_in_dim(%arg0: tensor<3x2xf32>, %arg1: tensor<i64>) -> tensor<2xf32> {
    %c = stablehlo.constant dense<0> : tensor<i64>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, sizes = [1, 2] : (tensor<3x2xf32>, tensor<i64>, tensor<i64>) -> tensor<1x2xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x2xf32>) -> tensor<2xf32>
    return %1 : tensor<2xf32>
  }
  func.func private @closed_call(%arg0: tensor<2xf32>, %arg1: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
    %0 = stablehlo.add %arg0, %arg1 : tensor<2xf32>
    return %0, %arg0 : tensor<2xf32>, tensor<2xf32>
  }
  func.func private @dynamic_update_index_in_dim(%arg0: tensor<3x2xf32>, %arg1: tensor<2xf32>, %arg2: tensor<i64>) -> tensor<3x2xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<2xf32>) -> tensor<1x2xf32>
    %c = stablehlo.constant dense<0> : tensor<i64>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c : (tensor<3x2xf32>, tensor<1x2xf32>, tensor<i64>, tensor<i64>) -> tensor<3x2xf32>
    return %1 : tensor<3x2xf32>
  }
}
