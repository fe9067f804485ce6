"""XLA's shape data model without jaxlib.

Shapes and layouts as XLA defines them (``xla.ShapeProto`` and
``xla.LayoutProto`` of xla_data.proto), HLO shape strings such as
``bf16[8,128]{1,0:T(8,128)(2,1)}``, XLA's ShapeUtil / LayoutUtil / IndexUtil,
tiled layouts, strides, and copies of array data between layouts. Every
answer is XLA's, byte for byte; the work is done by the Rust crate
``xla-shape``.

``Shape``, ``Layout`` and ``ProgramShape`` have the methods of jaxlib's
``xla_client.Shape``, ``Layout`` and ``ProgramShape`` with the same results,
and more: ``Shape.parse``, ``Shape.from_proto_bytes``, proto3 JSON and text
format, hashing and pickling.

>>> import xla_shape
>>> s = xla_shape.Shape("f32[2,3]{0,1}")
>>> s.dimensions(), s.layout().minor_to_major()
((2, 3), (0, 1))
>>> xla_shape.Shape.from_proto_bytes(s.to_serialized_proto()) == s
True
"""

from . import _xla_shape
from ._xla_shape import (
    MAX_NESTING_DEPTH,
    BufferSizeError,
    DecodeError,
    Diagnostic,
    ErrorContext,
    FormatError,
    HloShape,
    HloSharding,
    InvalidArgumentError,
    InvalidLayoutError,
    InvalidShapeError,
    Layout,
    LosslessMessage,
    MalformedProtoError,
    MemoryAnalysis,
    Padding,
    PaddingCause,
    PaddingEntry,
    PaddingSuggestion,
    ParseError,
    PeakBuffer,
    ProgramShape,
    Shape,
    SizeOverflowError,
    TiledLayout,
    XlaShapeError,
    assemble,
    byte_ranges,
    explain_padding,
    memory_analysis,
    padding,
    relayout,
    scan_hlo,
    shard,
)
from ._primitive_type import PrimitiveType
from . import index_util, layout_util, shape_util, stablehlo, strides

# Errors raised by the library carry these attributes; the class defaults
# make them readable on any instance.
XlaShapeError.kind = None
XlaShapeError.message = None
XlaShapeError.line = None
XlaShapeError.column = None
XlaShapeError.offset = None
XlaShapeError.diagnostics = ()
XlaShapeError.context = ()

__version__ = "0.1.0"


def memory_of(compiled):
    """The memory a jax ``Compiled`` (``jax.jit(f).lower(...).compile()``)
    needs, exactly as XLA assigned it: its optimized module
    (``compiled.runtime_executable().hlo_modules()[0]``) with XLA's buffer
    assignment (``compiled.memory_analysis().serialized_buffer_assignment_proto``),
    given to ``memory_analysis``. jax is not imported here: any object with
    these methods will do."""
    module = compiled.runtime_executable().hlo_modules()[0]
    stats = compiled.memory_analysis()
    return memory_analysis(
        module.as_serialized_hlo_module_proto(),
        stats.serialized_buffer_assignment_proto,
    )

__all__ = [
    "MAX_NESTING_DEPTH",
    "BufferSizeError",
    "DecodeError",
    "Diagnostic",
    "ErrorContext",
    "FormatError",
    "HloShape",
    "HloSharding",
    "InvalidArgumentError",
    "InvalidLayoutError",
    "InvalidShapeError",
    "Layout",
    "LosslessMessage",
    "MalformedProtoError",
    "MemoryAnalysis",
    "Padding",
    "PaddingCause",
    "PaddingEntry",
    "PaddingSuggestion",
    "ParseError",
    "PeakBuffer",
    "PrimitiveType",
    "ProgramShape",
    "Shape",
    "SizeOverflowError",
    "TiledLayout",
    "XlaShapeError",
    "assemble",
    "byte_ranges",
    "explain_padding",
    "index_util",
    "layout_util",
    "memory_analysis",
    "memory_of",
    "padding",
    "relayout",
    "scan_hlo",
    "shard",
    "shape_util",
    "stablehlo",
    "strides",
]
