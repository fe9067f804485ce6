"""Strides of layouts, and layouts of strides (NumPy's ``array.strides``).

The functions keep XLA's names in snake case (``ShapeUtil::ByteSizeOf`` is
``byte_size_of``) and the argument order of the Rust module
``xla_shape::strides``.
"""

from ._xla_shape import strides as _native

__all__ = [name for name in dir(_native) if not name.startswith("_")]
globals().update({name: getattr(_native, name) for name in __all__})
