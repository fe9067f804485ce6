"""XLA's ShapeUtil (``xla/shape_util.h``): sizes, queries, comparisons and dimension surgery.

The functions keep XLA's names in snake case (``ShapeUtil::ByteSizeOf`` is
``byte_size_of``) and the argument order of the Rust module
``xla_shape::shape_util``.
"""

from ._xla_shape import shape_util as _native

__all__ = [name for name in dir(_native) if not name.startswith("_")]
globals().update({name: getattr(_native, name) for name in __all__})
