module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main() {
    return loc(#loc6)
  } loc(#loc)
} loc(#loc)
#loc = loc(unknown)
#loc1 = loc("tests/data/oracle/stablehlo_gen.py":284:22 to :51)
#loc2 = loc("tests/data/oracle/stablehlo_gen.py":596:4 to :18)
#loc3 = loc("run_programs"(#loc1))
#loc4 = loc("<module>"(#loc2))
#loc5 = loc(callsite(#loc3 at #loc4))
#loc6 = loc("jit(<lambda>)"(#loc5))
