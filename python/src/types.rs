//! `Layout`, `Shape` and `ProgramShape` as Python classes, and element
//! types to and from Python's `PrimitiveType`.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::sync::GILOnceCell;
use pyo3::types::{PyBytes, PyTuple, PyType};
use xla_shape::formats::{JsonOptions, LosslessMessage, ProtoFormats};
use xla_shape::{ArrayShape, Layout, MAX_NESTING_DEPTH, PrimitiveType, ProgramShape, Shape, Tile};
use xla_shape::{layout_util, shape_util, text};

use crate::errors::{IntoPyResult, invalid_argument, to_py};
use crate::seq::{Seq, cloned_shapes};

/// The Python `xla_shape.PrimitiveType` (an `enum.IntEnum` defined in the
/// package's `_primitive_type.py`, as jaxlib's is an `IntEnum`), imported
/// when first needed.
fn primitive_type_class(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
    static CLASS: GILOnceCell<Py<PyType>> = GILOnceCell::new();
    CLASS.import(py, "xla_shape._primitive_type", "PrimitiveType")
}

/// `t` as a member of Python's `PrimitiveType`.
pub fn primitive_type_to_py(py: Python<'_>, t: PrimitiveType) -> PyResult<Bound<'_, PyAny>> {
    primitive_type_class(py)?.call1((t as i32,))
}

/// The number of the element type `value` names (any form
/// `element_type_from` reads): `PrimitiveType("f32")` of the Python enum.
#[pyfunction]
#[pyo3(name = "_element_type_number")]
pub fn element_type_number(value: &Bound<'_, PyAny>) -> PyResult<i32> {
    element_type_from(value).map(|t| t as i32)
}

/// XLA's lowercase name of the element type numbered `number`:
/// `PrimitiveType.lowercase_name()` of the Python enum.
#[pyfunction]
#[pyo3(name = "_lowercase_name")]
pub fn lowercase_name(number: i32) -> PyResult<&'static str> {
    PrimitiveType::from_number(number)
        .map(PrimitiveType::lowercase_name)
        .ok_or_else(|| invalid_argument(format!("no PrimitiveType has number {number}")))
}

/// An element type from a `PrimitiveType`, a name (`"F32"`, `"f32"`), an
/// enum number, or a NumPy dtype (anything `numpy.dtype()` accepts, such
/// as `numpy.float32`).
pub fn element_type_from(value: &Bound<'_, PyAny>) -> PyResult<PrimitiveType> {
    if let Ok(name) = value.extract::<String>() {
        if let Some(t) = PrimitiveType::from_str_name(&name) {
            return Ok(t);
        }
        return match PrimitiveType::from_lowercase_name(&name) {
            Ok(t) => Ok(t),
            // Any name `numpy.dtype()` knows ("float32", "int8"), when NumPy
            // is there; else XLA's message for the unknown name.
            Err(e) => crate::dtype::element_type_of_dtype(value).map_err(|_| to_py(e)),
        };
    }
    if value.is_instance_of::<pyo3::types::PyBool>() {
        return Err(PyTypeError::new_err("an element type cannot be a bool"));
    }
    if let Ok(n) = value.extract::<i64>() {
        return i32::try_from(n)
            .ok()
            .and_then(PrimitiveType::from_number)
            .ok_or_else(|| invalid_argument(format!("no PrimitiveType has number {n}")));
    }
    crate::dtype::element_type_of_dtype(value)
}

/// The text forms of a message, shared by the model classes and
/// `LosslessMessage`: proto3 JSON as protobuf's `json_format.MessageToJson`
/// writes it, text format as `text_format.MessageToString`.
pub trait TextForms {
    /// The proto3 JSON with these options.
    fn json(&self, options: &JsonOptions) -> String;
    /// The text format, on one line or one field a line.
    fn text_format(&self, as_one_line: bool) -> String;
}

/// `TextForms` of types with these methods: the models (through
/// `ProtoFormats`) and `LosslessMessage` (its own).
macro_rules! text_forms {
    ($($t:ty => $json:ident),*) => {$(
        impl TextForms for $t {
            fn json(&self, options: &JsonOptions) -> String {
                self.$json(options)
            }
            fn text_format(&self, as_one_line: bool) -> String {
                if as_one_line {
                    self.to_text_format_one_line()
                } else {
                    self.to_text_format()
                }
            }
        }
    )*};
}

text_forms!(Shape => to_json_with, Layout => to_json_with, ProgramShape => to_json_with, LosslessMessage => to_json);

/// The Python methods of a class wrapping a `TextForms` value:
/// `to_json` and `to_text_format`, followed by the class's own methods
/// (PyO3 takes one `#[pymethods]` block per class).
macro_rules! text_form_methods {
    ($class:ident, $what:expr, { $($methods:tt)* }) => {
        #[pymethods]
        impl $class {
            #[doc = concat!("The proto3 JSON of ", $what, ", as protobuf's")]
            /// `json_format.MessageToJson` writes it (`pretty=True`) or
            /// compact.
            #[pyo3(signature = (preserving_proto_field_name=false, pretty=false))]
            fn to_json(&self, preserving_proto_field_name: bool, pretty: bool) -> String {
                $crate::types::TextForms::json(
                    &self.0,
                    &$crate::types::json_options(preserving_proto_field_name, pretty),
                )
            }

            #[doc = concat!("The protobuf text format of ", $what, ", as")]
            /// protobuf's `text_format.MessageToString` writes it.
            #[pyo3(signature = (as_one_line=false))]
            fn to_text_format(&self, as_one_line: bool) -> String {
                $crate::types::TextForms::text_format(&self.0, as_one_line)
            }

            $($methods)*
        }
    };
}
pub(crate) use text_form_methods;

/// The Python methods of a class wrapping a model type (`Shape`, `Layout`,
/// `ProgramShape`): the conversions to and from serialized bytes, protobuf
/// message objects, proto3 JSON and text format, pickling and `repr`
/// (`Shape("f32[2]{0}")`), followed by the class's own methods. The
/// other dunders come from the model's own traits, named once in each
/// class's `#[pyclass]`: `str` (`Display`: the HLO text), `eq`
/// (`PartialEq`), `hash` (`Hash`, where Python may hash the class).
macro_rules! proto_model_methods {
    ($class:ident($model:ident), $message:literal, { $($methods:tt)* }) => {
        text_form_methods! { $class, concat!("the `", $message, "`"), {
            #[doc = concat!("The value of serialized `", $message, "` bytes, validated as XLA's")]
            /// `FromProto` (jaxlib has no way to do this).
            #[staticmethod]
            fn from_proto_bytes(data: &[u8]) -> PyResult<Self> {
                $model::from_proto_bytes(data).py().map($class)
            }

            #[doc = concat!("The serialized `", $message, "`, byte-identical to XLA's (and to")]
            /// jaxlib's `to_serialized_proto`).
            fn to_serialized_proto<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
                PyBytes::new(py, &self.0.to_proto_bytes())
            }

            #[doc = concat!("The value of any `", $message, "` message object with")]
            /// `SerializeToString()`: TensorFlow's `xla_data_pb2`, jaxlib's, or
            /// one generated from xla_data.proto.
            #[staticmethod]
            fn from_proto(message: &Bound<'_, PyAny>) -> PyResult<Self> {
                let data = message.call_method0("SerializeToString")?;
                let data = data.downcast::<PyBytes>().map_err(|_| {
                    PyTypeError::new_err("SerializeToString() did not return bytes")
                })?;
                Self::from_proto_bytes(data.as_bytes())
            }

            #[doc = concat!("A message of the protobuf class `cls` (an `", $message, "` class")]
            /// such as TensorFlow's `xla_data_pb2`) holding this value.
            fn to_proto<'py>(&self, cls: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
                let message = cls.call0()?;
                message.call_method1("ParseFromString", (self.to_serialized_proto(cls.py()),))?;
                Ok(message)
            }

            #[doc = concat!("The value of a proto3 JSON `", $message, "`.")]
            #[staticmethod]
            fn from_json(json: &str) -> PyResult<Self> {
                $model::from_json(json).py().map($class)
            }

            #[doc = concat!("The value of an `", $message, "` in protobuf text format.")]
            #[staticmethod]
            fn from_text_format(text: &str) -> PyResult<Self> {
                $model::from_text_format(text).py().map($class)
            }

            fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Reduced<'py>> {
                reduce_to_proto_bytes(slf, slf.get().to_serialized_proto(slf.py()))
            }

            fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
                let name = slf.get_type().name()?;
                Ok(format!("{name}({:?})", slf.get().0.to_string()))
            }

            $($methods)*
        }}
    };
}

/// What `__reduce__` returns: a constructor and its arguments.
pub(crate) type Reduced<'py> = (Bound<'py, PyAny>, (Bound<'py, PyBytes>,));

/// `__reduce__` of a class that pickles as its serialized proto `bytes`:
/// the class's `from_proto_bytes`, called with them.
pub(crate) fn reduce_to_proto_bytes<'py, T: pyo3::PyClass>(
    slf: &Bound<'py, T>,
    bytes: Bound<'py, PyBytes>,
) -> PyResult<Reduced<'py>> {
    let ctor = slf.py().get_type::<T>().getattr("from_proto_bytes")?;
    Ok((ctor, (bytes,)))
}

/// `Display` of the model classes is their model's (the HLO text), which
/// the `str` of their `#[pyclass]` makes Python's `str`.
macro_rules! display_as_model {
    ($($class:ident),*) => {$(
        impl std::fmt::Display for $class {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                self.0.fmt(f)
            }
        }
    )*};
}

display_as_model!(PyLayout, PyShape, PyProgramShape);
pub(crate) use display_as_model;

fn tiles_from(tiling: Seq<Seq<i64>>) -> PyResult<Vec<Tile>> {
    tiling.iter().map(|t| Tile::new(&t[..]).py()).collect()
}

/// A layout (`xla.LayoutProto`): the order of the dimensions in memory,
/// tiles, element size and the rest, as jaxlib's `xla_client.Layout`.
#[pyclass(name = "Layout", module = "xla_shape", frozen, eq, hash, str)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct PyLayout(pub Layout);

proto_model_methods! { PyLayout(Layout), "xla.LayoutProto", {
    /// `Layout(minor_to_major)` or `Layout(minor_to_major, tiling,
    /// element_size_in_bits=0)`, as jaxlib; `tiling` is a sequence of tile
    /// bounds such as `[(8, 128), (2, 1)]`. `minor_to_major` may also be a
    /// layout of jaxlib (`xla_client.Layout`) or of jax
    /// (`jax.experimental.layout.Layout`, or a `Format` holding one), alone.
    #[new]
    #[pyo3(signature = (minor_to_major, tiling=None, element_size_in_bits=0))]
    fn py_new(
        minor_to_major: &Bound<'_, PyAny>,
        tiling: Option<Seq<Seq<i64>>>,
        element_size_in_bits: i64,
    ) -> PyResult<Self> {
        if let Some(layout) = foreign_layout(minor_to_major)? {
            if tiling.is_some() || element_size_in_bits != 0 {
                return Err(PyTypeError::new_err(
                    "Layout(layout) takes no tiling or element size: the layout has its own",
                ));
            }
            return Ok(PyLayout(layout));
        }
        let tiles = tiles_from(tiling.unwrap_or(Seq(Vec::new())))?;
        Ok(PyLayout(
            Layout::new(minor_to_major.extract::<Seq<i64>>()?.0)
                .with_tiles(tiles)
                .with_element_size_in_bits(element_size_in_bits),
        ))
    }

    /// The layout in HLO text (`{1,0:T(8,128)}`), parsed as XLA's
    /// `ParseLayout` does.
    #[staticmethod]
    fn parse(text: &str) -> PyResult<Self> {
        text::parse_layout(text).py().map(PyLayout)
    }

    /// The dimension numbers from minor to major.
    fn minor_to_major<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.0.minor_to_major())
    }

    /// The tiles, each a tuple of bounds (`-9223372036854775808`, XLA's
    /// `Tile::kCombineDimension`, for `*`).
    fn tiling<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyTuple>>> {
        self.0
            .tiles()
            .iter()
            .map(|t| PyTuple::new(py, t.dimensions()))
            .collect()
    }

    /// The element size in bits (`E(n)`), 0 for the type's own size.
    fn element_size_in_bits(&self) -> i64 {
        self.0.element_size_in_bits()
    }

    /// The tail padding alignment in elements (`L(n)`), 1 by default.
    fn tail_padding_alignment_in_elements(&self) -> i64 {
        self.0.tail_padding_alignment_in_elements()
    }

    /// The memory space (`S(n)`), 0 by default.
    fn memory_space(&self) -> i64 {
        self.0.memory_space()
    }

    /// The layout as HLO text prints it: `{1,0:T(8,128)}`.
    #[pyo3(name = "to_string")]
    fn to_text(&self) -> String {
        self.0.to_string()
    }

}}

/// The layout of an object of jaxlib or jax, or None for anything else
/// (a sequence of dimension numbers):
///
/// - jaxlib's `xla_client.Layout` (it has `to_string()` and
///   `minor_to_major()`): its HLO text, parsed;
/// - jax's `jax.experimental.layout.Layout` (`major_to_minor`, `tiling`,
///   `sub_byte_element_size_in_bits`): the layout its `_to_xla_layout`
///   makes for a dtype of 8 bits or more (jax 0.10.2, `jax/_src/layout.py`):
///   `major_to_minor` reversed; with tiles, the tiles and the element size;
/// - jax's `Format` (`layout` and `sharding`): its layout's.
fn foreign_layout(value: &Bound<'_, PyAny>) -> PyResult<Option<Layout>> {
    if value.is_instance_of::<pyo3::types::PyString>() {
        return Ok(None);
    }
    if value.hasattr("sharding")? && value.hasattr("layout")? {
        let inner = value.getattr("layout")?;
        return match foreign_layout(&inner)? {
            Some(layout) => Ok(Some(layout)),
            None => Err(PyTypeError::new_err(format!(
                "the Format's layout is not a concrete layout: {}",
                inner.repr()?
            ))),
        };
    }
    if value.hasattr("major_to_minor")? && value.hasattr("sub_byte_element_size_in_bits")? {
        let mut minor_to_major = value.getattr("major_to_minor")?.extract::<Seq<i64>>()?.0;
        minor_to_major.reverse();
        let tiling: Option<Seq<Seq<i64>>> = value.getattr("tiling")?.extract()?;
        let layout = Layout::new(minor_to_major);
        return Ok(Some(match tiling {
            None => layout,
            Some(tiling) => layout
                .with_tiles(tiles_from(tiling)?)
                .with_element_size_in_bits(
                    value.getattr("sub_byte_element_size_in_bits")?.extract()?,
                ),
        }));
    }
    if value.hasattr("minor_to_major")? && value.hasattr("to_string")? {
        let text = value.call_method0("to_string")?;
        return text::parse_layout(&text.extract::<String>()?)
            .py()
            .map(Some);
    }
    Ok(None)
}

pub fn json_options(preserving_proto_field_name: bool, pretty: bool) -> JsonOptions {
    JsonOptions::new()
        .preserve_proto_field_names(preserving_proto_field_name)
        .pretty(pretty)
}

/// The deepest tuple nesting below `shape` (0 for a leaf). Every `Shape`
/// this module hands out nests at most `MAX_NESTING_DEPTH` levels (the
/// parsers' and decoders' limit, kept by `tuple_shape`), so this recursion
/// is bounded.
fn nesting(shape: &Shape) -> usize {
    shape
        .tuple_shapes()
        .map_or(0, |t| 1 + t.iter().map(nesting).max().unwrap_or(0))
}

/// `shape` as a Python `Shape`, refused when its tuples nest deeper than
/// `MAX_NESTING_DEPTH` levels: every shape handed to Python can be
/// serialized and read back, and `nesting` stays bounded. Near the limit
/// the levels are counted as the decoder counts them (layouts and physical
/// shapes nest messages too).
pub fn checked_shape(shape: Shape) -> PyResult<PyShape> {
    if !shape.is_tuple() {
        return Ok(PyShape(shape));
    }
    let depth = nesting(&shape);
    if depth > MAX_NESTING_DEPTH {
        return Err(invalid_argument(format!(
            "tuple nesting of {depth} levels exceeds the limit of {MAX_NESTING_DEPTH}"
        )));
    }
    if depth > MAX_NESTING_DEPTH / 2 && Shape::from_proto_bytes(&shape.to_proto_bytes()).is_err() {
        return Err(invalid_argument(format!(
            "tuple nesting of {depth} levels exceeds the limit of {MAX_NESTING_DEPTH} nested messages"
        )));
    }
    Ok(PyShape(shape))
}

/// An XLA shape: an array, a tuple, a token (`xla.ShapeProto`), with the
/// methods of jaxlib's `xla_client.Shape` and more. `Shape(text)` parses
/// HLO text such as `"bf16[8,128]{1,0:T(8,128)(2,1)}"`.
#[pyclass(name = "Shape", module = "xla_shape", frozen, eq, hash, str)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct PyShape(pub Shape);

/// What `seq::cloned_shapes` clones.
impl AsRef<Shape> for PyShape {
    fn as_ref(&self) -> &Shape {
        &self.0
    }
}

impl PyShape {
    /// The shape jaxlib's accessors describe: a buffer `b(...)` answers as
    /// its array (jaxlib 0.10.2 reports `b(f32[2,3])` as an F32 array of
    /// dimensions (2, 3), golden record special/0156).
    fn jax(&self) -> &Shape {
        self.0.buffer_shape().unwrap_or(&self.0)
    }

    fn array(&self) -> PyResult<&ArrayShape> {
        as_array(self.jax())
    }
}

/// `dimension` as an index of a dimension of `array`, or an
/// `InvalidArgumentError` when it is out of range.
fn dimension_of(array: &ArrayShape, dimension: i64) -> PyResult<usize> {
    usize::try_from(dimension)
        .ok()
        .filter(|&i| i < array.rank())
        .ok_or_else(|| {
            invalid_argument(format!("dimension {dimension} is out of range for {array}"))
        })
}

/// The array of `shape`, or an `InvalidArgumentError` naming it.
pub fn as_array(shape: &Shape) -> PyResult<&ArrayShape> {
    shape
        .as_array()
        .ok_or_else(|| invalid_argument(format!("expected an array shape, got {shape}")))
}

proto_model_methods! { PyShape(Shape), "xla.ShapeProto", {
    /// The shape of HLO text (`"f32[2,3]{1,0}"`), as XLA's `ParseShape`;
    /// or of any object with `to_serialized_proto()` (a jaxlib
    /// `xla_client.Shape`), as `from_proto_bytes` reads it.
    #[new]
    fn py_new(value: &Bound<'_, PyAny>) -> PyResult<Self> {
        if let Ok(text) = value.downcast::<pyo3::types::PyString>() {
            return Self::parse(&text.to_cow()?);
        }
        if value.hasattr("to_serialized_proto")? {
            let data = value.call_method0("to_serialized_proto")?;
            let data = data.downcast::<PyBytes>().map_err(|_| {
                PyTypeError::new_err("to_serialized_proto() did not return bytes")
            })?;
            return Self::from_proto_bytes(data.as_bytes());
        }
        Err(PyTypeError::new_err(format!(
            "Shape() takes HLO text or an object with to_serialized_proto(), not {}",
            value.get_type().name()?
        )))
    }

    /// The shape of HLO text (`"f32[2,3]{1,0}"`), as XLA's `ParseShape`;
    /// raises `ParseError` with XLA's message, `line` and `column`.
    #[staticmethod]
    fn parse(text: &str) -> PyResult<Self> {
        text::parse_shape(text).py().map(PyShape)
    }

    /// An array shape, as jaxlib's `Shape.array_shape`: `element_type` is
    /// a `PrimitiveType`, a NumPy dtype or a name; `layout` a
    /// minor-to-major sequence (default: major-to-minor);
    /// `dynamic_dimensions` one bool per dimension.
    #[staticmethod]
    #[pyo3(signature = (element_type, dims, layout=None, dynamic_dimensions=None))]
    fn array_shape(
        element_type: &Bound<'_, PyAny>,
        dims: Seq<i64>,
        layout: Option<Seq<i64>>,
        dynamic_dimensions: Option<Seq<bool>>,
    ) -> PyResult<Self> {
        let t = element_type_from(element_type)?;
        let dynamic = dynamic_dimensions.map_or_else(|| vec![false; dims.len()], |d| d.0);
        let array =
            shape_util::make_validated_shape_with_dynamic_dimensions(t, &dims, &dynamic).py()?;
        let layout = match layout {
            Some(m2m) => Layout::new(m2m.0),
            None => layout_util::get_default_layout_for_rank(dims.len()),
        };
        let array = array.with_layout(Some(layout)).py()?;
        Ok(PyShape(array.into()))
    }

    /// A scalar shape of this element type, as jaxlib's
    /// `Shape.scalar_shape`.
    #[staticmethod]
    fn scalar_shape(element_type: &Bound<'_, PyAny>) -> PyResult<Self> {
        let t = element_type_from(element_type)?;
        Ok(PyShape(
            shape_util::make_validated_scalar_shape(t).py()?.into(),
        ))
    }

    /// A tuple of these shapes, as jaxlib's `Shape.tuple_shape`.
    #[staticmethod]
    fn tuple_shape(shapes: Seq<PyRef<'_, PyShape>>) -> PyResult<Self> {
        let elements = cloned_shapes(&shapes)?;
        checked_shape(shape_util::make_validated_tuple_shape(elements).py()?)
    }

    /// The token shape `token[]`, as jaxlib's `Shape.token_shape`.
    #[staticmethod]
    fn token_shape() -> Self {
        PyShape(shape_util::make_token_shape())
    }

    /// The dimension sizes of an array; raises for other shapes (where
    /// jaxlib aborts the process).
    fn dimensions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.array()?.dimensions())
    }

    /// The number of dimensions of an array; raises for other shapes
    /// (where jaxlib aborts the process).
    fn rank(&self) -> PyResult<usize> {
        Ok(self.array()?.rank())
    }

    /// The element type as a NumPy dtype, as jaxlib (`numpy.dtype('O')`
    /// for tuples, tokens and opaque shapes, as jaxlib).
    fn numpy_dtype<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        crate::dtype::numpy_dtype(py, self.jax().element_type())
    }

    /// The element type as jaxlib's `element_type()` gives it: the NumPy
    /// dtype of an array; raises for other shapes, as jaxlib.
    fn element_type<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let shape = self.jax();
        if !shape.is_array() {
            return Err(invalid_argument(format!(
                "Unimplemented primitive type {}",
                shape.element_type().as_str_name()
            )));
        }
        crate::dtype::numpy_dtype(py, shape.element_type())
    }

    /// The element type as a `PrimitiveType` (`TUPLE`, `TOKEN` for those;
    /// a buffer's array's, as jaxlib).
    fn xla_element_type<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        primitive_type_to_py(py, self.jax().element_type())
    }

    /// Whether this is an array (a buffer of one too, as jaxlib).
    fn is_array(&self) -> bool {
        self.jax().is_array()
    }

    /// Whether this is a buffer `b(...)` of an array.
    fn is_buffer(&self) -> bool {
        self.0.is_buffer()
    }

    /// Whether this is a tuple.
    fn is_tuple(&self) -> bool {
        self.0.is_tuple()
    }

    /// Whether this is a token.
    fn is_token(&self) -> bool {
        self.0.is_token()
    }

    /// Whether no dimension, at any nesting level, is dynamic.
    fn is_static(&self) -> bool {
        self.0.is_static()
    }

    /// Whether some dimension, at any nesting level, is dynamic.
    fn is_dynamic(&self) -> bool {
        self.0.is_dynamic()
    }

    /// Whether dimension `dimension` of an array is dynamic; raises for
    /// an index out of range (where jaxlib aborts).
    fn is_dynamic_dimension(&self, dimension: i64) -> PyResult<bool> {
        let a = self.array()?;
        Ok(a.is_dynamic_dimension(dimension_of(a, dimension)?))
    }

    /// This shape with dimension `dimension` of the array dynamic (its
    /// size the bound, `<=N`) or static, as jaxlib's
    /// `set_dynamic_dimension(dimension, is_dynamic)`; jaxlib changes its
    /// shape in place and returns None, while `Shape` here is immutable and
    /// hashable, so the new shape is returned (assign it:
    /// `s = s.set_dynamic_dimension(0, True)`). Raises for a dimension out
    /// of range or a shape that is not an array (where jaxlib aborts).
    fn set_dynamic_dimension(&self, dimension: i64, is_dynamic: bool) -> PyResult<PyShape> {
        let dim = dimension_of(as_array(&self.0)?, dimension)?;
        let mut shape = self.0.clone();
        shape_util::update_dynamic_dimension(&mut shape, &[], dim, is_dynamic).py()?;
        Ok(PyShape(shape))
    }

    /// The element shapes of a tuple (an empty list for other shapes, as
    /// jaxlib).
    fn tuple_shapes(&self) -> Vec<PyShape> {
        self.0
            .tuple_shapes()
            .map(|t| t.iter().cloned().map(PyShape).collect())
            .unwrap_or_default()
    }

    /// The number of leaves (arrays, tokens, opaque values), as XLA's
    /// `ShapeUtil::GetLeafCount`.
    fn leaf_count(&self) -> i64 {
        shape_util::get_leaf_count(&self.0)
    }

    /// The layout of an array; raises when there is none (where jaxlib
    /// aborts) and for a buffer (where jaxlib gives None).
    fn layout(&self) -> PyResult<PyLayout> {
        if self.0.is_buffer() {
            return Err(invalid_argument(format!("{} has no layout", self.0)));
        }
        self.0
            .layout()
            .cloned()
            .map(PyLayout)
            .ok_or_else(|| invalid_argument(format!("{} has no layout", self.0)))
    }

    /// Whether the shape (every leaf of a tuple) has a layout.
    fn has_layout(&self) -> bool {
        layout_util::has_layout(&self.0)
    }

    /// This shape with XLA's default layout where it has none, as jaxlib:
    /// an array without a layout gets the major-to-minor one; a tuple gets
    /// it on every leaf (a tuple itself never has a layout, so jaxlib's
    /// `ForEachMutableSubshape` resets the whole tuple).
    fn with_major_to_minor_layout_if_absent(&self) -> PyShape {
        match &self.0 {
            _ if self.0.layout().is_some() => self.clone(),
            // jaxlib fills the array of a buffer (golden record proto/0366).
            Shape::Buffer(inner) => PyShape(Shape::Buffer(Box::new(
                layout_util::get_with_default_layout(inner),
            ))),
            other => PyShape(layout_util::get_with_default_layout(other)),
        }
    }

    /// The shape as HLO text prints it, layout included (`f32[2,3]{1,0}`).
    #[pyo3(name = "to_string")]
    fn to_text(&self) -> String {
        self.0.to_string()
    }

}}

/// A computation's signature: parameter shapes and a result shape
/// (`xla.ProgramShapeProto`), as jaxlib's `xla_client.ProgramShape`.
#[pyclass(name = "ProgramShape", module = "xla_shape", frozen, eq, str)]
#[derive(Clone, PartialEq, Eq)]
pub struct PyProgramShape(pub ProgramShape);

proto_model_methods! { PyProgramShape(ProgramShape), "xla.ProgramShapeProto", {
    /// `ProgramShape(parameter_shapes, result_shape)`, as jaxlib;
    /// `parameter_names` optionally names the parameters.
    #[new]
    #[pyo3(signature = (parameter_shapes, result_shape, parameter_names=None))]
    fn py_new(
        parameter_shapes: Seq<PyRef<'_, PyShape>>,
        result_shape: PyRef<'_, PyShape>,
        parameter_names: Option<Seq<String>>,
    ) -> PyResult<Self> {
        let names = match parameter_names {
            Some(n) if n.len() != parameter_shapes.len() => {
                return Err(invalid_argument(format!(
                    "{} parameter names given for {} parameters",
                    n.len(),
                    parameter_shapes.len()
                )));
            }
            Some(n) => n.0,
            None => vec![String::new(); parameter_shapes.len()],
        };
        let parameters = names
            .into_iter()
            .zip(cloned_shapes(&parameter_shapes)?)
            .collect();
        Ok(PyProgramShape(ProgramShape::new(
            parameters,
            result_shape.0.clone(),
        )))
    }

    /// The parameter shapes.
    fn parameter_shapes(&self) -> Vec<PyShape> {
        self.0.parameters().iter().cloned().map(PyShape).collect()
    }

    /// The parameter names (empty strings where unnamed).
    fn parameter_names(&self) -> Vec<String> {
        self.0.parameter_names().to_vec()
    }

    /// The result shape.
    fn result_shape(&self) -> PyShape {
        PyShape(self.0.result().clone())
    }

}}
