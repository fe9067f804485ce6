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
    InvalidArgumentError,
    InvalidLayoutError,
    InvalidShapeError,
    Layout,
    LosslessMessage,
    MalformedProtoError,
    ParseError,
    PrimitiveType,
    ProgramShape,
    Shape,
    SizeOverflowError,
    TiledLayout,
    XlaShapeError,
    relayout,
    scan_hlo,
)
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

__all__ = [
    "MAX_NESTING_DEPTH",
    "BufferSizeError",
    "DecodeError",
    "Diagnostic",
    "ErrorContext",
    "FormatError",
    "HloShape",
    "InvalidArgumentError",
    "InvalidLayoutError",
    "InvalidShapeError",
    "Layout",
    "LosslessMessage",
    "MalformedProtoError",
    "ParseError",
    "PrimitiveType",
    "ProgramShape",
    "Shape",
    "SizeOverflowError",
    "TiledLayout",
    "XlaShapeError",
    "index_util",
    "layout_util",
    "relayout",
    "scan_hlo",
    "shape_util",
    "stablehlo",
    "strides",
]
