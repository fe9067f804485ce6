module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2xf32>, %arg1: tensor<2xf32>, %arg2: tensor<2xf32>, %arg3: tensor<2xf32>, %arg4: tensor<2xf32>, %arg5: tensor<2xf32>, %arg6: tensor<2xf32>, %arg7: tensor<2xf32>, %arg8: tensor<2xf32>, %arg9: tensor<2xf32>, %arg10: tensor<2xf32>, %arg11: tensor<2xf32>, %arg12: tensor<2xf32>, %arg13: tensor<2xf32>, %arg14: tensor<2xf32>, %arg15: tensor<2xf32>, %arg16: tensor<2xf32>, %arg17: tensor<2xf32>, %arg18: tensor<2xf32>, %arg19: tensor<2xf32>) -> (tensor<2xf32> {jax.result_info = "result"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2xf32>
    %1 = stablehlo.add %0, %arg0 : tensor<2xf32>
    %2 = stablehlo.add %1, %arg1 : tensor<2xf32>
    %3 = stablehlo.add %2, %arg2 : tensor<2xf32>
    %4 = stablehlo.add %3, %arg3 : tensor<2xf32>
    %5 = stablehlo.add %4, %arg4 : tensor<2xf32>
    %6 = stablehlo.add %5, %arg5 : tensor<2xf32>
    %7 = stablehlo.add %6, %arg6 : tensor<2xf32>
    %8 = stablehlo.add %7, %arg7 : tensor<2xf32>
    %9 = stablehlo.add %8, %arg8 : tensor<2xf32>
    %10 = stablehlo.add %9, %arg9 : tensor<2xf32>
    %11 = stablehlo.add %10, %arg10 : tensor<2xf32>
    %12 = stablehlo.add %11, %arg11 : tensor<2xf32>
    %13 = stablehlo.add %12, %arg12 : tensor<2xf32>
    %14 = stablehlo.add %13, %arg13 : tensor<2xf32>
    %15 = stablehlo.add %14, %arg14 : tensor<2xf32>
    %16 = stablehlo.add %15, %arg15 : tensor<2xf32>
    %17 = stablehlo.add %16, %arg16 : tensor<2xf32>
    %18 = stablehlo.add %17, %arg17 : tensor<2xf32>
    %19 = stablehlo.add %18, %arg18 : tensor<2xf32>
    %20 = stablehlo.add %19, %arg19 : tensor<2xf32>
    return %20 : tensor<2xf32>
  }
}
