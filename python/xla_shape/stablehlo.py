"""StableHLO, JAX's default artifact, read without MLIR.

``lowered.as_text()`` of ``jax.jit(f).lower(...)`` is MLIR text; this module
reads its types and signature as XLA's own conversion
(``lowered.compiler_ir('hlo')``) does, without jaxlib:

>>> from xla_shape import stablehlo
>>> text = '''
... func.func public @main(%arg0: tensor<2x3xf32> {tf.aliasing_output = 0 : i32}) -> tensor<3x2xf32> {
...   %0 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
...   return %0 : tensor<3x2xf32>
... }'''
>>> stablehlo.signature(text).entry_computation_layout
'(f32[2,3]{1,0})->f32[3,2]{0,1}'
>>> stablehlo.type_to_shape("tensor<?x3xf32, #stablehlo.bounds<4, ?>>")
Shape('f32[<=4,3]{1,0}')

``jax.export`` ships bytes: ``Exported.mlir_module_serialized`` (MLIR
bytecode) and ``Exported.serialize()``. ``signature`` and ``scan`` take
them too, and ``read_export`` reads the latter's avals, shardings and
platforms.
"""

from ._xla_shape import stablehlo as _native

__all__ = [name for name in dir(_native) if not name.startswith("_")]
globals().update({name: getattr(_native, name) for name in __all__})
