//! `xla-shape` in the browser: the library compiled to WebAssembly and
//! bound to JavaScript with wasm-bindgen. The API follows the Python
//! package's names in JavaScript's spelling (`Shape.fromProtoBytes`,
//! `TiledLayout.byteSize`, `HloSharding.deviceSlices`), and the documents
//! the page shows are the CLI's own: `describe`, `strides`, `sharding`,
//! `padding` and `memory` give the JSON document `xla-shape COMMAND --json`
//! writes, `draw` and `Module.memorySvg` the SVG of `xla-shape draw` and
//! `xla-shape memory --svg`, from the same code (the CLI's commands run
//! in-process). Like the Python package, it converts arguments, results
//! and errors and calls the library, nothing more.
//!
//! Every error is a JavaScript `Error` named `XlaShapeError` with the
//! crate's `kind` (`ErrorKind::as_str`, or the CLI's `NoInput`,
//! `TooLarge`, `Usage`), its `message` (XLA's text where XLA has one) and,
//! for a parse error, `line` and `column` (1-based). Input never reaches a
//! panic: every input-derived failure is such an error.
//!
//! Numbers: methods that return one count (`TiledLayout.byteSize`, ...)
//! return a `bigint`, exact over all of `int64`. In the JSON documents an
//! integer is a `number` when JavaScript holds it exactly (below 2^53 in
//! magnitude) and its decimal text otherwise, so no figure is rounded.

use js_sys::{Array, Object, Reflect};
use serde_json::Value as Json;
use wasm_bindgen::prelude::*;
use xla_shape::formats::ProtoFormats;
use xla_shape::hlo::HloModule;
use xla_shape::memory::MemoryAnalysis;
use xla_shape::sharding::{DeviceSlice, HloSharding};
use xla_shape::tiling::TiledLayout as Tiled;
use xla_shape::{ArrayShape, Layout as XlaLayout, Shape as XlaShape, shape_util};
use xla_shape_cli::Context;
use xla_shape_cli::commands::{describe, draw, memory, padding, sharding, strides};
use xla_shape_cli::input::{self, Limits, Module as CliModule};
use xla_shape_cli::output::{Failure, Problem};

/// The largest input of a text field (a shape, sharding, mesh or
/// out-of-memory listing), in bytes: a listing of many thousand lines
/// fits, and nothing the page is given in one field is larger.
pub const MAX_TEXT_INPUT: u64 = 16 << 20;

/// The largest module read, in bytes: the CLI's default `--max-input`.
pub const MAX_MODULE_INPUT: u64 = input::DEFAULT_MAX_INPUT;

/// The most cells `draw` draws along each side (the CLI's limit).
const MAX_DRAWN: i64 = 256;

// ---------------------------------------------------------------------------
// Errors and values
// ---------------------------------------------------------------------------

/// A JavaScript `Error` named `XlaShapeError` carrying `problem`'s kind,
/// message and place.
fn problem_error(problem: &Problem) -> JsValue {
    let error = js_sys::Error::new(problem.message.trim_end());
    error.set_name("XlaShapeError");
    let set = |key: &str, value: JsValue| {
        // Setting a data property on a fresh Error cannot fail.
        let _ = Reflect::set(&error, &JsValue::from_str(key), &value);
    };
    set("kind", JsValue::from_str(&problem.kind));
    set(
        "line",
        problem
            .line
            .map_or(JsValue::NULL, |l| JsValue::from(l as f64)),
    );
    set(
        "column",
        problem
            .column
            .map_or(JsValue::NULL, |c| JsValue::from(c as f64)),
    );
    set("oneLine", JsValue::from_str(&problem.one_line()));
    set("details", to_js(&problem.to_json()));
    error.into()
}

fn lib_error(e: xla_shape::Error) -> JsValue {
    problem_error(&Problem::from(&e))
}

fn failure_error(f: Failure) -> JsValue {
    match f {
        Failure::Input(p) => problem_error(&p),
        Failure::Usage(message) => problem_error(&Problem::new("Usage", message)),
        Failure::Io(e) => problem_error(&Problem::new("Io", e.to_string())),
        // A command that reports on its own lines (padding of a listing
        // with a shape it cannot explain) has written its document.
        Failure::Reported => problem_error(&Problem::new("Reported", "reported in the output")),
    }
}

fn invalid(message: impl Into<String>) -> JsValue {
    problem_error(&Problem::new("InvalidArgument", message))
}

type JsResult<T> = Result<T, JsValue>;

/// The largest integer magnitude a JavaScript number holds exactly.
const MAX_SAFE_INTEGER: i64 = (1 << 53) - 1;

/// An integer as a number when exact, else its decimal text.
fn int_js(n: i64) -> JsValue {
    if n.abs() <= MAX_SAFE_INTEGER {
        JsValue::from(n as f64)
    } else {
        JsValue::from_str(&n.to_string())
    }
}

/// A JSON value as a JavaScript value (objects, arrays, strings, booleans,
/// null; integers as [`int_js`]).
fn to_js(v: &Json) -> JsValue {
    match v {
        Json::Null => JsValue::NULL,
        Json::Bool(b) => JsValue::from_bool(*b),
        Json::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => int_js(i),
            (None, Some(u)) => JsValue::from_str(&u.to_string()),
            _ => JsValue::from(n.as_f64().unwrap_or(f64::NAN)),
        },
        Json::String(s) => JsValue::from_str(s),
        Json::Array(items) => items.iter().map(to_js).collect::<Array>().into(),
        Json::Object(map) => {
            let object = Object::new();
            for (key, value) in map {
                let _ = Reflect::set(&object, &JsValue::from_str(key), &to_js(value));
            }
            object.into()
        }
    }
}

fn ints_js(values: &[i64]) -> JsValue {
    values.iter().map(|&n| int_js(n)).collect::<Array>().into()
}

/// A JavaScript array of integers (numbers or bigints) as `i64`s.
fn ints_of(value: &JsValue, what: &str) -> JsResult<Vec<i64>> {
    if !Array::is_array(value) {
        return Err(invalid(format!("{what} must be an array of integers")));
    }
    let array = Array::from(value);
    let mut out = Vec::with_capacity(array.length() as usize);
    for item in array.iter() {
        let n = if let Some(f) = item.as_f64() {
            if f.fract() != 0.0 || f.abs() > MAX_SAFE_INTEGER as f64 {
                return Err(invalid(format!("{what}: {f} is not an exact integer")));
            }
            f as i64
        } else if item.is_bigint() {
            i64::try_from(item.clone())
                .map_err(|_| invalid(format!("{what}: a bigint beyond int64")))?
        } else {
            return Err(invalid(format!("{what} must be an array of integers")));
        };
        out.push(n);
    }
    Ok(out)
}

/// Runs a CLI command into a buffer (`json`: as `--json`), with `limit`
/// as `--max-input`; its output, or its failure as an exception.
fn run_command(
    json: bool,
    limit: u64,
    command: impl FnOnce(&mut Context<Vec<u8>>) -> Result<(), Failure>,
) -> JsResult<Vec<u8>> {
    let mut cx = Context {
        json,
        limits: Limits {
            max_input: limit,
            max_line: input::DEFAULT_MAX_LINE,
        },
        out: Vec::new(),
    };
    command(&mut cx).map_err(failure_error)?;
    Ok(cx.out)
}

/// The one JSON document a command wrote, as a JavaScript value.
fn json_document(out: &[u8]) -> JsResult<JsValue> {
    let doc: Json = serde_json::from_slice(out)
        .map_err(|e| problem_error(&Problem::new("Format", e.to_string())))?;
    Ok(to_js(&doc))
}

fn text_of(out: Vec<u8>) -> String {
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// A text field as the CLI's literal INPUT: refused when over
/// [`MAX_TEXT_INPUT`], and when it starts with `@` (a file to the CLI,
/// which the page has not) or is `-` (standard input).
fn literal(text: &str) -> JsResult<String> {
    if text.len() as u64 > MAX_TEXT_INPUT {
        return Err(problem_error(&Problem::new(
            "TooLarge",
            format!("the input is larger than {MAX_TEXT_INPUT} bytes"),
        )));
    }
    let trimmed = text.trim_start();
    if trimmed.starts_with('@') || trimmed == "-" {
        return Err(invalid(
            "the page reads no files by name: paste the text, or choose the file",
        ));
    }
    Ok(text.to_string())
}

// ---------------------------------------------------------------------------
// Shape, Layout, TiledLayout, strides
// ---------------------------------------------------------------------------

/// The crate's version.
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}

/// The readers and writers of a model type, the same on `Shape` and
/// `Layout` (`$text`: what its HLO text is called, `$proto`: its message).
macro_rules! proto_formats {
    ($name:ident, $model:ty, $text:literal, $proto:literal) => {
        #[wasm_bindgen]
        impl $name {
            #[doc = concat!("Parses ", $text, " as XLA's parser does.")]
            #[wasm_bindgen(constructor)]
            pub fn new(text: &str) -> JsResult<$name> {
                $name::parse(text)
            }

            #[doc = concat!("Parses ", $text, " as XLA's parser does.")]
            pub fn parse(text: &str) -> JsResult<$name> {
                literal(text)?;
                text.parse().map($name).map_err(lib_error)
            }

            #[doc = concat!("Decodes `", $proto, "` bytes (XLA's `FromProto` and validation).")]
            #[wasm_bindgen(js_name = fromProtoBytes)]
            pub fn from_proto_bytes(data: &[u8]) -> JsResult<$name> {
                <$model>::from_proto_bytes(data)
                    .map($name)
                    .map_err(lib_error)
            }

            #[doc = concat!("Reads the proto3 JSON of a `", $proto, "`.")]
            #[wasm_bindgen(js_name = fromJson)]
            pub fn from_json(json: &str) -> JsResult<$name> {
                literal(json)?;
                <$model>::from_json(json).map($name).map_err(lib_error)
            }

            #[doc = concat!("Reads the protobuf text format of a `", $proto, "`.")]
            #[wasm_bindgen(js_name = fromTextFormat)]
            pub fn from_text_format(text: &str) -> JsResult<$name> {
                literal(text)?;
                <$model>::from_text_format(text)
                    .map($name)
                    .map_err(lib_error)
            }

            #[doc = concat!("The ", $text, ", as XLA prints it.")]
            #[wasm_bindgen(js_name = toString)]
            pub fn to_string_js(&self) -> String {
                self.0.to_string()
            }

            #[doc = concat!("The `", $proto, "` bytes XLA writes.")]
            #[wasm_bindgen(js_name = toSerializedProto)]
            pub fn to_serialized_proto(&self) -> Vec<u8> {
                self.0.to_proto_bytes()
            }

            #[doc = concat!("The proto3 JSON of its `", $proto, "`.")]
            #[wasm_bindgen(js_name = toJson)]
            pub fn to_json(&self) -> String {
                self.0.to_json()
            }

            #[doc = concat!("The protobuf text format of its `", $proto, "`.")]
            #[wasm_bindgen(js_name = toTextFormat)]
            pub fn to_text_format(&self) -> String {
                self.0.to_text_format()
            }
        }
    };
}

proto_formats!(Shape, XlaShape, "an HLO shape string", "ShapeProto");
proto_formats!(
    Layout,
    XlaLayout,
    "a layout string such as `{1,0:T(8,128)}`",
    "LayoutProto"
);

/// An XLA shape (array, tuple, token, ...), as Python's `xla_shape.Shape`.
#[wasm_bindgen]
pub struct Shape(XlaShape);

#[wasm_bindgen]
impl Shape {
    /// The dimensions of an array (empty for other shapes).
    #[wasm_bindgen(unchecked_return_type = "number[]")]
    pub fn dimensions(&self) -> JsValue {
        ints_js(self.0.as_array().map_or(&[][..], ArrayShape::dimensions))
    }

    /// The number of dimensions of an array (0 for other shapes).
    pub fn rank(&self) -> usize {
        self.0.as_array().map_or(0, ArrayShape::rank)
    }

    /// The element type's name (`f32`, `bf16`), `tuple`, `token`, ...
    #[wasm_bindgen(js_name = elementType)]
    pub fn element_type(&self) -> String {
        match &self.0 {
            XlaShape::Array(a) => a.element_type().to_string(),
            XlaShape::Tuple(_) => "tuple".into(),
            XlaShape::Token => "token".into(),
            XlaShape::Opaque => "opaque".into(),
            XlaShape::Buffer(_) => "buffer".into(),
        }
    }

    /// Whether it is an array.
    #[wasm_bindgen(js_name = isArray)]
    pub fn is_array(&self) -> bool {
        matches!(self.0, XlaShape::Array(_))
    }

    /// Whether it is a tuple.
    #[wasm_bindgen(js_name = isTuple)]
    pub fn is_tuple(&self) -> bool {
        matches!(self.0, XlaShape::Tuple(_))
    }

    /// Whether it is a token.
    #[wasm_bindgen(js_name = isToken)]
    pub fn is_token(&self) -> bool {
        matches!(self.0, XlaShape::Token)
    }

    /// The elements of a tuple.
    #[wasm_bindgen(js_name = tupleShapes)]
    pub fn tuple_shapes(&self) -> Vec<Shape> {
        match &self.0 {
            XlaShape::Tuple(t) => t.iter().cloned().map(Shape).collect(),
            _ => Vec::new(),
        }
    }

    /// The layout of an array, if it has one.
    pub fn layout(&self) -> Option<Layout> {
        self.0
            .as_array()
            .and_then(ArrayShape::layout)
            .cloned()
            .map(Layout)
    }

    /// XLA's `ShapeUtil::ByteSizeOf` (8-byte pointers).
    #[wasm_bindgen(js_name = byteSizeOf)]
    pub fn byte_size_of(&self) -> JsResult<i64> {
        shape_util::byte_size_of(&self.0, 8).map_err(lib_error)
    }

    /// Equal shapes, as `==` in Python.
    pub fn equals(&self, other: &Shape) -> bool {
        self.0 == other.0
    }
}

/// A layout, as Python's `xla_shape.Layout`.
#[wasm_bindgen]
pub struct Layout(XlaLayout);

#[wasm_bindgen]
impl Layout {
    /// The dimensions from the most minor to the most major.
    #[wasm_bindgen(js_name = minorToMajor, unchecked_return_type = "number[]")]
    pub fn minor_to_major(&self) -> JsValue {
        ints_js(self.0.minor_to_major())
    }

    /// The tiles, each a list of sizes (`-1` for XLA's combined dimension).
    #[wasm_bindgen(unchecked_return_type = "number[][]")]
    pub fn tiling(&self) -> JsValue {
        self.0
            .tiles()
            .iter()
            .map(|t| ints_js(t.dimensions()))
            .collect::<Array>()
            .into()
    }

    /// The element size in bits the layout gives (0: the type's own).
    #[wasm_bindgen(js_name = elementSizeInBits)]
    pub fn element_size_in_bits(&self) -> i64 {
        self.0.element_size_in_bits()
    }

    /// The memory space (0: the default).
    #[wasm_bindgen(js_name = memorySpace)]
    pub fn memory_space(&self) -> i64 {
        self.0.memory_space()
    }
}

fn array_of(shape: &XlaShape) -> JsResult<&ArrayShape> {
    shape
        .as_array()
        .ok_or_else(|| invalid(format!("{shape} is not an array shape")))
}

/// Every tile of an array's layout applied (after XLA's tiled-layout
/// document), as Python's `xla_shape.TiledLayout`.
#[wasm_bindgen]
pub struct TiledLayout(Tiled);

#[wasm_bindgen]
impl TiledLayout {
    /// Every tile of `shape`'s layout applied (an array shape).
    #[wasm_bindgen(constructor)]
    pub fn new(shape: &Shape) -> JsResult<TiledLayout> {
        Tiled::new(array_of(&shape.0)?)
            .map(TiledLayout)
            .map_err(lib_error)
    }

    /// The dimensions in memory, tiles applied, major to minor.
    #[wasm_bindgen(js_name = physicalShape, unchecked_return_type = "number[]")]
    pub fn physical_shape(&self) -> JsValue {
        ints_js(self.0.physical_shape())
    }

    /// Bits per element in memory: `E(n)` if set, else 8 times XLA's
    /// `ByteWidth`.
    #[wasm_bindgen(js_name = elementSizeInBits)]
    pub fn element_size_in_bits(&self) -> i64 {
        self.0.element_size_in_bits()
    }

    /// The number of elements.
    #[wasm_bindgen(js_name = elementCount)]
    pub fn element_count(&self) -> i64 {
        self.0.element_count()
    }

    /// The number of slots after tiling, before tail padding.
    #[wasm_bindgen(js_name = tiledElementCount)]
    pub fn tiled_element_count(&self) -> i64 {
        self.0.tiled_element_count()
    }

    /// The number of slots in the buffer (offsets are less than this).
    #[wasm_bindgen(js_name = slotCount)]
    pub fn slot_count(&self) -> i64 {
        self.0.slot_count()
    }

    /// The bytes in memory, padding included.
    #[wasm_bindgen(js_name = byteSize)]
    pub fn byte_size(&self) -> i64 {
        self.0.byte_size()
    }

    /// The bytes of the elements alone.
    #[wasm_bindgen(js_name = unpaddedByteSize)]
    pub fn unpadded_byte_size(&self) -> i64 {
        self.0.unpadded_byte_size()
    }

    /// The bytes of padding.
    #[wasm_bindgen(js_name = paddingByteSize)]
    pub fn padding_byte_size(&self) -> i64 {
        self.0.padding_byte_size()
    }

    /// Whether the tiles add padding.
    #[wasm_bindgen(js_name = hasPadding)]
    pub fn has_padding(&self) -> bool {
        self.0.has_padding()
    }

    /// The offset in memory, in elements, of the element at `index`.
    pub fn offset(
        &self,
        #[wasm_bindgen(unchecked_param_type = "number[]")] index: JsValue,
    ) -> JsResult<i64> {
        self.0.offset(&ints_of(&index, "index")?).map_err(lib_error)
    }

    /// The index of the element at `offset`, or `undefined` for padding.
    #[wasm_bindgen(unchecked_return_type = "number[] | undefined")]
    pub fn slot(&self, offset: i64) -> JsResult<JsValue> {
        let rank = self.0.dimensions().len();
        let mut index = vec![0; rank];
        let element = self.0.slot_into(offset, &mut index).map_err(lib_error)?;
        Ok(if element {
            ints_js(&index)
        } else {
            JsValue::UNDEFINED
        })
    }

    /// The tile of the layout's first tiling that holds the element at
    /// `index`: its place in memory (the offset divided by the elements of
    /// one tile) and, per dimension of the array, which tile along it
    /// (`index / tile size` on the dimensions the tile covers, `0` on the
    /// others). `undefined` without tiles.
    #[wasm_bindgen(js_name = tileOf, unchecked_return_type = "{ number: number, coordinates: number[] } | undefined")]
    pub fn tile_of(
        &self,
        #[wasm_bindgen(unchecked_param_type = "number[]")] index: JsValue,
    ) -> JsResult<JsValue> {
        let index = ints_of(&index, "index")?;
        let offset = self.0.offset(&index).map_err(lib_error)?;
        let array = self.0.shape();
        let Some(layout) = array.layout() else {
            return Ok(JsValue::UNDEFINED);
        };
        let Some(tile) = layout.tiles().first() else {
            return Ok(JsValue::UNDEFINED);
        };
        // The tile covers the most minor dimensions, its last size the
        // most minor one (XLA's tiled-layout document).
        let sizes = tile.dimensions();
        let mut coordinates = vec![0; index.len()];
        let mut per_tile: i64 = 1;
        for (k, &size) in sizes.iter().rev().enumerate() {
            let Some(&dim) = layout.minor_to_major().get(k) else {
                break;
            };
            let dim = usize::try_from(dim).map_err(|_| invalid("a negative dimension"))?;
            if size > 0 {
                if let (Some(c), Some(&i)) = (coordinates.get_mut(dim), index.get(dim)) {
                    *c = i / size;
                }
                per_tile = per_tile.saturating_mul(size);
            }
        }
        let object = Object::new();
        let _ = Reflect::set(&object, &"number".into(), &int_js(offset / per_tile.max(1)));
        let _ = Reflect::set(&object, &"coordinates".into(), &ints_js(&coordinates));
        Ok(object.into())
    }
}

/// Element strides of an array's layout (DLPack's), or why it has none.
#[wasm_bindgen(js_name = elementStrides, unchecked_return_type = "number[]")]
pub fn element_strides(shape: &Shape) -> JsResult<JsValue> {
    xla_shape::strides::element_strides(array_of(&shape.0)?)
        .map(|s| ints_js(&s))
        .map_err(lib_error)
}

/// Byte strides of an array's layout (NumPy's), or why it has none.
#[wasm_bindgen(js_name = byteStrides, unchecked_return_type = "number[]")]
pub fn byte_strides(shape: &Shape) -> JsResult<JsValue> {
    xla_shape::strides::byte_strides(array_of(&shape.0)?)
        .map(|s| ints_js(&s))
        .map_err(lib_error)
}

// ---------------------------------------------------------------------------
// HloSharding
// ---------------------------------------------------------------------------

/// XLA's sharding (`OpSharding`), as Python's `xla_shape.HloSharding`.
#[wasm_bindgen(js_name = HloSharding)]
pub struct Sharding(HloSharding);

fn slices_js(slices: &[DeviceSlice]) -> JsValue {
    slices
        .iter()
        .map(|d| {
            let object = Object::new();
            let _ = Reflect::set(&object, &"device".into(), &int_js(d.device));
            let _ = Reflect::set(&object, &"offsets".into(), &ints_js(&d.offsets));
            let _ = Reflect::set(&object, &"limits".into(), &ints_js(&d.limits));
            JsValue::from(object)
        })
        .collect::<Array>()
        .into()
}

#[wasm_bindgen(js_class = HloSharding)]
impl Sharding {
    /// XLA's text: `{devices=[2,1]0,1}`, `{replicated}`, ...
    #[wasm_bindgen(js_name = fromString)]
    pub fn from_string(text: &str) -> JsResult<Sharding> {
        literal(text)?;
        text.parse().map(Sharding).map_err(lib_error)
    }

    /// An `mhlo.sharding` attribute's value, as XLA's conversion reads it.
    #[wasm_bindgen(js_name = fromMhloSharding)]
    pub fn from_mhlo_sharding(text: &str) -> JsResult<Sharding> {
        literal(text)?;
        HloSharding::from_mhlo_sharding(text)
            .map(Sharding)
            .map_err(lib_error)
    }

    /// `OpSharding` bytes (XLA's `HloSharding::FromProto`).
    #[wasm_bindgen(js_name = fromProto)]
    pub fn from_proto(data: &[u8]) -> JsResult<Sharding> {
        HloSharding::from_proto_bytes(data)
            .map(Sharding)
            .map_err(lib_error)
    }

    /// Any form the CLI's `sharding` reads: XLA's text, an `mhlo.sharding`
    /// value, OpSharding hex, JSON or text format, or Shardy's
    /// `#sdy.sharding<...>` over `mesh` (or the `sdy.mesh` line before it).
    pub fn read(text: &str, mesh: Option<String>) -> JsResult<Sharding> {
        literal(text)?;
        input::read_sharding(text.as_bytes(), None, mesh.as_deref())
            .map(|(s, _)| Sharding(s))
            .map_err(lib_error)
    }

    /// XLA's `ToString`.
    #[wasm_bindgen(js_name = toString)]
    pub fn to_string_js(&self) -> String {
        self.0.to_string()
    }

    /// The `OpSharding` bytes XLA's `ToProto` writes.
    #[wasm_bindgen(js_name = toProto)]
    pub fn to_proto(&self) -> Vec<u8> {
        self.0.to_proto_bytes()
    }

    /// The number of devices it names.
    #[wasm_bindgen(js_name = numDevices)]
    pub fn num_devices(&self) -> JsResult<i64> {
        self.0.num_devices().map_err(lib_error)
    }

    /// Whether every device holds the whole array.
    #[wasm_bindgen(js_name = isReplicated)]
    pub fn is_replicated(&self) -> bool {
        self.0.is_replicated()
    }

    /// Whether one device holds the whole array.
    #[wasm_bindgen(js_name = isMaximal)]
    pub fn is_maximal(&self) -> bool {
        self.0.is_maximal()
    }

    /// Whether the array is partitioned by hand.
    #[wasm_bindgen(js_name = isManual)]
    pub fn is_manual(&self) -> bool {
        self.0.is_manual()
    }

    /// Whether the array is split into tiles among devices.
    #[wasm_bindgen(js_name = isTiled)]
    pub fn is_tiled(&self) -> bool {
        self.0.is_tiled()
    }

    /// Whether it is a tuple.
    #[wasm_bindgen(js_name = isTuple)]
    pub fn is_tuple(&self) -> bool {
        self.0.is_tuple()
    }

    /// The tile assignment's dimensions.
    #[wasm_bindgen(js_name = tileAssignmentDimensions, unchecked_return_type = "number[]")]
    pub fn tile_assignment_dimensions(&self) -> JsResult<JsValue> {
        self.0
            .tile_assignment_dimensions()
            .map(|d| ints_js(&d))
            .map_err(lib_error)
    }

    /// The devices of the tile assignment, in order.
    #[wasm_bindgen(js_name = tileAssignmentDevices, unchecked_return_type = "number[]")]
    pub fn tile_assignment_devices(&self) -> JsResult<JsValue> {
        self.0
            .tile_assignment_devices()
            .map(|d| ints_js(&d))
            .map_err(lib_error)
    }

    /// XLA's `TileShape`: the shape each device holds.
    pub fn tile(&self, shape: &Shape) -> JsResult<Shape> {
        self.0.tile_shape(&shape.0).map(Shape).map_err(lib_error)
    }

    /// The bytes each device holds of `shape`, tiles and padding included.
    #[wasm_bindgen(js_name = shardByteSize)]
    pub fn shard_byte_size(&self, shape: &Shape) -> JsResult<i64> {
        self.0.shard_byte_size(&shape.0).map_err(lib_error)
    }

    /// jax's `shard_shape`.
    #[wasm_bindgen(js_name = shardShape, unchecked_return_type = "number[]")]
    pub fn shard_shape(
        &self,
        #[wasm_bindgen(unchecked_param_type = "number[]")] dims: JsValue,
    ) -> JsResult<JsValue> {
        self.0
            .shard_shape(&ints_of(&dims, "dims")?)
            .map(|d| ints_js(&d))
            .map_err(lib_error)
    }

    /// Each device's part as XLA's partitioner cuts it (uneven splits
    /// included): `{device, offsets, limits}`.
    #[wasm_bindgen(js_name = deviceSlices, unchecked_return_type = "{ device: number, offsets: number[], limits: number[] }[]")]
    pub fn device_slices(
        &self,
        #[wasm_bindgen(unchecked_param_type = "number[]")] dims: JsValue,
    ) -> JsResult<JsValue> {
        self.0
            .device_slices(&ints_of(&dims, "dims")?)
            .map(|s| slices_js(&s))
            .map_err(lib_error)
    }

    /// jax's `devices_indices_map` over `numDevices` devices.
    #[wasm_bindgen(js_name = devicesIndicesMap, unchecked_return_type = "{ device: number, offsets: number[], limits: number[] }[]")]
    pub fn devices_indices_map(
        &self,
        #[wasm_bindgen(unchecked_param_type = "number[]")] dims: JsValue,
        num_devices: i64,
    ) -> JsResult<JsValue> {
        self.0
            .devices_indices_map(&ints_of(&dims, "dims")?, num_devices)
            .map(|s| slices_js(&s))
            .map_err(lib_error)
    }

    /// XLA's `HloSharding::Validate` for `shape` (and `numDevices`).
    pub fn validate(&self, shape: &Shape, num_devices: Option<i64>) -> JsResult<()> {
        self.0.validate(&shape.0, num_devices).map_err(lib_error)
    }
}

// ---------------------------------------------------------------------------
// The CLI's documents
// ---------------------------------------------------------------------------

/// `xla-shape describe --json INPUT`: a shape or layout in any format the
/// CLI detects (HLO text, hex, JSON, text format).
#[wasm_bindgen]
pub fn describe(input: &str) -> JsResult<JsValue> {
    let args = describe::Args {
        input: Some(literal(input)?),
        ..Default::default()
    };
    json_document(&run_command(true, MAX_TEXT_INPUT, |cx| {
        describe::run(&args, cx)
    })?)
}

/// `xla-shape describe INPUT`: the summary as text.
#[wasm_bindgen(js_name = describeText)]
pub fn describe_text(input: &str) -> JsResult<String> {
    let args = describe::Args {
        input: Some(literal(input)?),
        ..Default::default()
    };
    Ok(text_of(run_command(false, MAX_TEXT_INPUT, |cx| {
        describe::run(&args, cx)
    })?))
}

/// `xla-shape strides --json INPUT`.
#[wasm_bindgen]
pub fn strides(input: &str) -> JsResult<JsValue> {
    let args = strides::Args {
        input: Some(literal(input)?),
        ..Default::default()
    };
    json_document(&run_command(true, MAX_TEXT_INPUT, |cx| {
        strides::run(&args, cx)
    })?)
}

/// `xla-shape sharding --json [--shape SHAPE] [--mesh MESH] INPUT`: the
/// sharding's text, bytes and kind, and with `shape` each device's shape
/// and index ranges. Each device's `bytes` (its shape in memory, tiles
/// and padding included: `TiledLayout.byteSize` of the device's shape) is
/// added to the CLI's document.
#[wasm_bindgen]
pub fn sharding(input: &str, shape: Option<String>, mesh: Option<String>) -> JsResult<JsValue> {
    let args = sharding::Args {
        input: Some(literal(input)?),
        from: None,
        shape: shape.as_deref().map(literal).transpose()?,
        mesh: mesh.as_deref().map(literal).transpose()?,
    };
    let out = run_command(true, MAX_TEXT_INPUT, |cx| sharding::run(&args, cx))?;
    let mut doc: Json = serde_json::from_slice(&out)
        .map_err(|e| problem_error(&Problem::new("Format", e.to_string())))?;
    if let Some(Json::Array(devices)) = doc.get_mut("devices") {
        for device in devices {
            let bytes = device
                .get("shape")
                .and_then(Json::as_str)
                .and_then(|s| s.parse::<XlaShape>().ok())
                .and_then(|s| s.as_array().and_then(|a| Tiled::new(a).ok()))
                .map(|t| t.byte_size());
            device["bytes"] = serde_json::json!(bytes);
        }
    }
    Ok(to_js(&doc))
}

/// `xla-shape padding --json [--tiles TILES]... INPUT`: padding explained
/// for a shape string, or for every shape of an out-of-memory listing.
/// A listing with shapes that cannot be explained still gives its
/// document (each such entry carries its `error`).
#[wasm_bindgen]
pub fn padding(
    input: &str,
    #[wasm_bindgen(unchecked_param_type = "string[] | undefined")] tiles: JsValue,
) -> JsResult<JsValue> {
    let tiles: Vec<String> = if tiles.is_undefined() || tiles.is_null() {
        Vec::new()
    } else if Array::is_array(&tiles) {
        Array::from(&tiles)
            .iter()
            .map(|t| {
                t.as_string()
                    .ok_or_else(|| invalid("tiles must be strings"))
            })
            .collect::<JsResult<_>>()?
    } else {
        return Err(invalid("tiles must be an array of strings"));
    };
    let args = padding::Args {
        input: Some(literal(input)?),
        tiles,
    };
    let mut cx = Context {
        json: true,
        limits: Limits {
            max_input: MAX_TEXT_INPUT,
            max_line: input::DEFAULT_MAX_LINE,
        },
        out: Vec::new(),
    };
    match padding::run(&args, &mut cx) {
        Ok(()) | Err(Failure::Reported) => json_document(&cx.out),
        Err(f) => Err(failure_error(f)),
    }
}

/// Python's `explain_padding(shape)`: what a shape's tiled layout costs
/// and why: `xla-shape padding --json SHAPE`'s one entry (`unpadded`,
/// `padded`, `expansion`, `causes`, `suggestions`).
#[wasm_bindgen(js_name = explainPadding)]
pub fn explain_padding(
    shape: &str,
    #[wasm_bindgen(unchecked_param_type = "string[] | undefined")] tiles: JsValue,
) -> JsResult<JsValue> {
    let doc = padding(shape, tiles)?;
    let shapes = Reflect::get(&doc, &"shapes".into())?;
    Ok(Array::from(&shapes).get(0))
}

/// Options of [`draw`], as the CLI's flags.
fn draw_args(input: String, options: &JsValue) -> JsResult<draw::Args> {
    let get = |key: &str| -> JsValue {
        if options.is_object() {
            Reflect::get(options, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
        } else {
            JsValue::UNDEFINED
        }
    };
    let string = |key: &str| -> JsResult<Option<String>> {
        let v = get(key);
        if v.is_undefined() || v.is_null() {
            return Ok(None);
        }
        let s = v
            .as_string()
            .ok_or_else(|| invalid(format!("{key} must be a string")))?;
        literal(&s).map(Some)
    };
    let count = |key: &str, default: i64| -> JsResult<i64> {
        let v = get(key);
        if v.is_undefined() || v.is_null() {
            return Ok(default);
        }
        match v.as_f64() {
            Some(f) if f.fract() == 0.0 && (1.0..=MAX_DRAWN as f64).contains(&f) => Ok(f as i64),
            _ => Err(invalid(format!(
                "{key} must be an integer from 1 to {MAX_DRAWN}"
            ))),
        }
    };
    let wrap = {
        let v = get("wrap");
        if v.is_undefined() || v.is_null() {
            None
        } else {
            Some(count("wrap", 1)?)
        }
    };
    // A Shardy sharding is drawn over its mesh: the `sdy.mesh` line
    // before it, as `draw --sharding` reads it.
    let sharding = match (string("sharding")?, string("mesh")?) {
        (Some(s), Some(m)) if s.trim_start().starts_with("#sdy") => Some(format!("{m}\n{s}")),
        (s, _) => s,
    };
    Ok(draw::Args {
        input: Some(input),
        from: None,
        slice: string("slice")?,
        max_rows: count("maxRows", 16)?,
        max_cols: count("maxCols", 16)?,
        wrap,
        sharding,
    })
}

/// `xla-shape draw [OPTIONS] INPUT`: the SVG picture of an array's memory
/// layout (each element's offset, tiles outlined, padding hatched), or
/// with `options.sharding` (and `options.mesh` for Shardy) how the
/// sharding splits it among devices. Options: `sharding`, `mesh`,
/// `slice`, `maxRows`, `maxCols`, `wrap`, as the CLI's flags.
#[wasm_bindgen]
pub fn draw(
    input: &str,
    #[wasm_bindgen(
        unchecked_param_type = "{ sharding?: string, mesh?: string, slice?: string, maxRows?: number, maxCols?: number, wrap?: number } | undefined"
    )]
    options: JsValue,
) -> JsResult<String> {
    let args = draw_args(literal(input)?, &options)?;
    Ok(text_of(run_command(false, MAX_TEXT_INPUT, |cx| {
        draw::run(&args, cx)
    })?))
}

// ---------------------------------------------------------------------------
// Modules
// ---------------------------------------------------------------------------

/// A module read whole: HLO text, a binary `HloModuleProto`, `HloProto`
/// (with XLA's buffer assignment) or `HloSnapshot`, or StableHLO (text,
/// MLIR bytecode, a `jax.export` serialization), detected as the CLI
/// detects it.
#[wasm_bindgen]
pub struct Module {
    module: CliModule,
    analysis: Result<MemoryAnalysis, xla_shape::Error>,
    /// The instruction list, made once for every search.
    rows: Vec<Row>,
}

/// One row of the instruction list.
struct Row {
    computation: String,
    name: String,
    opcode: String,
    shape: String,
    byte_size: Option<i64>,
}

fn hlo_rows(module: &HloModule) -> Vec<Row> {
    module
        .instructions()
        .map(|(c, i)| {
            let (shape, byte_size) = match &i.shape {
                Ok(s) => (s.to_string(), shape_util::byte_size_of(s, 8).ok()),
                Err(r) => (r.written.clone(), None),
            };
            Row {
                computation: c.name.clone(),
                name: i.name.clone(),
                opcode: i.opcode.clone(),
                shape,
                byte_size,
            }
        })
        .collect()
}

/// The instruction list of `module` (StableHLO: its operations, with
/// their results' shapes).
fn rows_of(module: &CliModule) -> Vec<Row> {
    match module {
        CliModule::Hlo(m) => hlo_rows(m),
        CliModule::StableHlo(m) => m
            .functions
            .iter()
            .flat_map(|f| {
                f.operations.iter().map(move |op| {
                    let shapes: Vec<String> = op
                        .result_types
                        .iter()
                        .map(|t| match t.to_shape() {
                            Ok(s) => s.to_string(),
                            Err(_) => t.to_string(),
                        })
                        .collect();
                    Row {
                        computation: f.name.clone(),
                        name: op.results.clone(),
                        opcode: op.name.clone(),
                        shape: shapes.join(", "),
                        byte_size: None,
                    }
                })
            })
            .collect(),
    }
}

#[wasm_bindgen]
impl Module {
    /// Reads `data` (at most 64 MiB) as a module, and analyses its memory.
    pub fn read(data: &[u8]) -> JsResult<Module> {
        if data.len() as u64 > MAX_MODULE_INPUT {
            return Err(problem_error(&Problem::new(
                "TooLarge",
                format!("the module is larger than {MAX_MODULE_INPUT} bytes"),
            )));
        }
        if data.trim_ascii().is_empty() {
            return Err(problem_error(&input::no_input()));
        }
        let module = input::module_of(data).map_err(lib_error)?;
        let analysis = memory::analysis_of(&module);
        let rows = rows_of(&module);
        Ok(Module {
            module,
            analysis,
            rows,
        })
    }

    /// `hlo-text`, `hlo-binary` or `stablehlo`.
    pub fn kind(&self) -> String {
        match &self.module {
            CliModule::StableHlo(_) => "stablehlo".into(),
            CliModule::Hlo(m) if m.source == xla_shape::hlo::ModuleSource::Text => {
                "hlo-text".into()
            }
            CliModule::Hlo(_) => "hlo-binary".into(),
        }
    }

    /// The module's name.
    pub fn name(&self) -> String {
        match &self.module {
            CliModule::StableHlo(m) => m.name.clone().unwrap_or_default(),
            CliModule::Hlo(m) => m.name.clone(),
        }
    }

    fn analysis(&self) -> JsResult<&MemoryAnalysis> {
        self.analysis.as_ref().map_err(|e| lib_error(e.clone()))
    }

    /// `xla-shape memory --json --top TOP`: arguments, outputs, aliased
    /// bytes, temporaries and their peak, the allocations by kind, the
    /// largest buffers live at the peak.
    pub fn memory(&self, top: usize) -> JsResult<JsValue> {
        Ok(to_js(&memory::to_json(self.analysis()?, top)))
    }

    /// `xla-shape memory --svg --top TOP`: the live bytes over the program,
    /// the peak marked, the largest buffers at the peak.
    #[wasm_bindgen(js_name = memorySvg)]
    pub fn memory_svg(&self, top: usize) -> JsResult<String> {
        Ok(memory::svg(self.analysis()?, top))
    }

    /// The padding of the largest buffers live at the peak (at most `top`
    /// distinct shapes, largest first): for each, `xla-shape padding --json
    /// SHAPE`'s entry.
    #[wasm_bindgen(js_name = paddingTable)]
    pub fn padding_table(&self, top: usize) -> JsResult<JsValue> {
        let analysis = self.analysis()?;
        let mut seen = std::collections::HashSet::new();
        let rows = Array::new();
        for b in &analysis.peak_buffers {
            if rows.length() as usize >= top {
                break;
            }
            if !seen.insert(b.shape.clone()) {
                continue;
            }
            let args = padding::Args {
                input: Some(b.shape.clone()),
                tiles: Vec::new(),
            };
            let mut cx = Context {
                json: true,
                limits: Limits {
                    max_input: MAX_TEXT_INPUT,
                    max_line: input::DEFAULT_MAX_LINE,
                },
                out: Vec::new(),
            };
            let answer = padding::run(&args, &mut cx);
            let doc: Json = match answer {
                Ok(()) | Err(Failure::Reported) => serde_json::from_slice(&cx.out)
                    .map_err(|e| problem_error(&Problem::new("Format", e.to_string())))?,
                Err(Failure::Input(p)) => {
                    serde_json::json!({ "shapes": [{ "shape": b.shape, "error": p.to_json() }] })
                }
                Err(f) => return Err(failure_error(f)),
            };
            let row = serde_json::json!({
                "instruction": b.instruction,
                "computation": b.computation,
                "bytes": b.bytes,
                "shape": b.shape,
                "padding": doc.get("shapes").and_then(|s| s.get(0)).cloned(),
            });
            rows.push(&to_js(&row));
        }
        Ok(rows.into())
    }

    /// The instructions (StableHLO: the operations) whose computation,
    /// name, opcode or shape contains `query` (all for an empty one; case
    /// is ignored), at most `limit` of them: `{ total, matched, rows }`,
    /// each row `{ computation, name, opcode, shape, byte_size }`
    /// (`byte_size`: XLA's `ByteSizeOf`, as `xla-shape scan` prints it).
    pub fn instructions(&self, query: &str, limit: usize) -> JsValue {
        let rows = &self.rows;
        let query = query.to_lowercase();
        let total = rows.len();
        let mut matched = 0usize;
        let out = Array::new();
        for r in rows {
            let hit = query.is_empty()
                || [&r.computation, &r.name, &r.opcode, &r.shape]
                    .iter()
                    .any(|f| f.to_lowercase().contains(&query));
            if !hit {
                continue;
            }
            matched += 1;
            if out.length() as usize >= limit {
                continue;
            }
            let object = Object::new();
            let _ = Reflect::set(
                &object,
                &"computation".into(),
                &r.computation.as_str().into(),
            );
            let _ = Reflect::set(&object, &"name".into(), &r.name.as_str().into());
            let _ = Reflect::set(&object, &"opcode".into(), &r.opcode.as_str().into());
            let _ = Reflect::set(&object, &"shape".into(), &r.shape.as_str().into());
            let _ = Reflect::set(
                &object,
                &"byte_size".into(),
                &r.byte_size.map_or(JsValue::NULL, int_js),
            );
            out.push(&object);
        }
        let result = Object::new();
        let _ = Reflect::set(&result, &"total".into(), &JsValue::from(total as f64));
        let _ = Reflect::set(&result, &"matched".into(), &JsValue::from(matched as f64));
        let _ = Reflect::set(&result, &"rows".into(), &out);
        result.into()
    }
}

/// Python's `memory_analysis(module)`: `xla-shape memory --json` of the
/// module in `data`.
#[wasm_bindgen(js_name = memoryAnalysis)]
pub fn memory_analysis(data: &[u8], top: Option<usize>) -> JsResult<JsValue> {
    Module::read(data)?.memory(top.unwrap_or(10))
}
