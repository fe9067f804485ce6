"""XLA's IndexUtil (``xla/index_util.h``): linear and multidimensional indices.

The functions keep XLA's names in snake case (``ShapeUtil::ByteSizeOf`` is
``byte_size_of``) and the argument order of the Rust module
``xla_shape::index_util``.
"""

from ._xla_shape import index_util as _native

__all__ = [name for name in dir(_native) if not name.startswith("_")]
globals().update({name: getattr(_native, name) for name in __all__})
