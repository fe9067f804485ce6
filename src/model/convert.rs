//! Conversions between the model and the wire types: `TryFrom<&proto::X>`
//! is XLA's `FromProto` followed by validation; `From<&X> for proto::X` is
//! XLA's `ToProto`, whose encoding is byte-identical to XLA's.

use std::cell::Cell;

use crate::error::{Error, ErrorKind, Nesting, Result};
use crate::limits::MAX_NESTING_DEPTH;
use crate::model::layout::{Layout, Rare};
use crate::model::primitive_type::PrimitiveType;
use crate::model::program_shape::ProgramShape;
use crate::model::raw::{RawLayout, RawProgramShape, RawShape};
use crate::model::shape::{ArrayShape, Shape};
use crate::model::tile::{SplitConfig, Tile};
use crate::model::validate::{self, LayoutFacts, shape_error};
use crate::model::wire;
use crate::proto::{LayoutProto, ProgramShapeProto, ShapeProto, SplitConfigProto, TileProto};

/// The category `FromProto` gives an element-type number: unknown numbers
/// become `Invalid`, as XLA's `set_element_type` does.
fn element_type_of(number: i32) -> PrimitiveType {
    PrimitiveType::from_number(number).unwrap_or(PrimitiveType::Invalid)
}

fn too_deep() -> Error {
    Error::too_deep(ErrorKind::Decode, "", Nesting::Shape)
}

impl LayoutFacts for RawLayout {
    fn minor_to_major(&self) -> &[i64] {
        &self.minor_to_major
    }
    fn tail_padding_alignment(&self) -> i64 {
        // Layout::FromProto reads 0 (absent) as 1 and rejects negatives.
        match self.tail_padding_alignment_in_elements {
            0 => 1,
            n => n,
        }
    }
    fn has_index_primitive_type(&self) -> bool {
        self.index_primitive_type != 0
    }
    fn has_pointer_primitive_type(&self) -> bool {
        self.pointer_primitive_type != 0
    }
    fn has_physical_shape(&self) -> bool {
        self.physical_shape.is_some()
    }
    fn has_invalid_tiles(&self) -> bool {
        self.tiles
            .iter()
            .any(|t| validate::invalid_tile(t.dimensions()))
    }
    fn element_size_in_bits(&self) -> i64 {
        self.element_size_in_bits
    }
}

/// Pass 1: the checks of XLA's `Shape::FromProto` / `Layout::FromProto`
/// (its `RET_CHECK`s), over the whole tree, before any validation.
fn check_from_proto(p: &RawShape, depth: usize) -> Result<()> {
    if depth > MAX_NESTING_DEPTH {
        return Err(too_deep());
    }
    let t = element_type_of(p.element_type);
    match t {
        PrimitiveType::Tuple => {
            for element in &p.tuple_shapes {
                check_from_proto(element, depth + 1)?;
            }
        }
        PrimitiveType::Buffer => {
            if p.tuple_shapes.len() != 1 {
                return Err(Error::malformed(
                    "Buffer shape must have exactly one tuple shape.",
                ));
            }
            check_from_proto(&p.tuple_shapes[0], depth + 1)?;
        }
        t if t.is_array_type()
            && !p.dynamic.is_empty()
            && p.dynamic.len() != p.dimensions.len() =>
        {
            return Err(Error::malformed(format!(
                "Malformed shape proto: number of is_dynamic_dimension fields ({}) does not match number of dimension fields ({}).",
                p.dynamic.len(),
                p.dimensions.len()
            )));
        }
        _ => {}
    }
    if let Some(layout) = &p.layout {
        if !t.is_array_type() {
            return Err(Error::malformed(format!(
                "Malformed shape proto: element_type {} should not have a layout.",
                t.as_str_name()
            )));
        }
        check_layout_from_proto(layout, depth + 1)?;
    }
    Ok(())
}

/// The `RET_CHECK`s of XLA's `Layout::FromProto` and `Tile::FromProto`.
/// Unlike XLA, a `*` tile bound (`INT64_MIN`) is accepted, so that what
/// `ToProto` writes can be read back (docs/differences.md).
fn check_layout_from_proto(p: &RawLayout, depth: usize) -> Result<()> {
    // Tiles and split configs are messages one level below their layout,
    // as the physical shape is.
    let has_messages = !p.tiles.is_empty() || !p.split_configs.is_empty();
    if depth > MAX_NESTING_DEPTH || (depth == MAX_NESTING_DEPTH && has_messages) {
        return Err(too_deep());
    }
    for tile in &p.tiles {
        let bad = tile
            .dimensions()
            .iter()
            .find(|&&d| d < 0 && d != Tile::COMBINE_DIMENSION);
        if let Some(d) = bad {
            return Err(Error::malformed(format!(
                "Malformed layout proto: tile dimension {d} is negative (dimension >= 0)"
            )));
        }
    }
    if p.tail_padding_alignment_in_elements < 0 {
        return Err(Error::malformed(format!(
            "Malformed layout proto: tail_padding_alignment_in_elements is {} (alignment > 0)",
            p.tail_padding_alignment_in_elements
        )));
    }
    if let Some(physical) = &p.physical_shape {
        check_from_proto(physical, depth + 1)?;
    }
    Ok(())
}

/// Pass 2: XLA's `ValidateNonLayoutProperties`, over the whole tree.
fn check_non_layout(p: &RawShape) -> Result<()> {
    match element_type_of(p.element_type) {
        PrimitiveType::Invalid => Err(shape_error(
            "Invalid element type.",
            PrimitiveType::Invalid,
            "primitive_type_invalid[]",
        )),
        PrimitiveType::Tuple => p.tuple_shapes.iter().try_for_each(check_non_layout),
        PrimitiveType::Buffer => check_non_layout(&p.tuple_shapes[0]),
        PrimitiveType::Token | PrimitiveType::OpaqueType => Ok(()),
        t => validate::validate_array_dimensions(t, &p.dimensions, &p.dynamic),
    }
}

/// Pass 3: XLA's `ValidateLayoutInShape` (missing layouts allowed), while
/// building the model shape from the raw tree's own vectors.
fn build(p: RawShape) -> Result<Shape> {
    Ok(match element_type_of(p.element_type) {
        PrimitiveType::Tuple => Shape::Tuple(
            p.tuple_shapes
                .into_iter()
                .map(build)
                .collect::<Result<_>>()?,
        ),
        PrimitiveType::Buffer => match p.tuple_shapes.into_iter().next() {
            Some(inner) => Shape::Buffer(Box::new(build(inner)?)),
            None => {
                return Err(Error::malformed(
                    "Buffer shape must have exactly one tuple shape.",
                ));
            }
        },
        PrimitiveType::Token => Shape::Token,
        PrimitiveType::OpaqueType => Shape::Opaque,
        t => {
            let dynamic = if p.dynamic.is_empty() {
                p.dimensions.iter().map(|_| false).collect()
            } else {
                p.dynamic
            };
            let layout = match p.layout {
                Some(l) => {
                    validate::validate_layout_for_array(&l, t, &p.dimensions, &dynamic)?;
                    // Validation has ruled out a physical shape and the
                    // sparse index types, so nothing below can fail.
                    Some(layout_fields(l, None))
                }
                None => None,
            };
            Shape::Array(ArrayShape {
                element_type: t,
                dimensions: p.dimensions,
                dynamic,
                layout,
            })
        }
    })
}

/// The fields of `Layout::FromProto`, with the physical shape supplied by
/// the caller. The vectors are moved, not copied.
fn layout_fields(p: RawLayout, physical_shape: Option<Shape>) -> Layout {
    let rare = Rare {
        tail_padding_alignment_in_elements: match p.tail_padding_alignment_in_elements {
            0 => 1,
            n => n,
        },
        index_primitive_type: element_type_of(p.index_primitive_type),
        pointer_primitive_type: element_type_of(p.pointer_primitive_type),
        split_configs: p.split_configs,
        physical_shape: physical_shape.map(Box::new),
        dynamic_shape_metadata_prefix_bytes: p.dynamic_shape_metadata_prefix_bytes,
    };
    Layout {
        minor_to_major: p.minor_to_major,
        tiles: p.tiles,
        element_size_in_bits: p.element_size_in_bits,
        memory_space: p.memory_space,
        rare: (rare != Rare::default()).then(|| Box::new(rare)),
    }
}

/// XLA's `FromProto` and validation, over a raw tree (its vectors become
/// the shape's).
pub(crate) fn shape_from_raw(p: RawShape) -> Result<Shape> {
    check_from_proto(&p, 0)?;
    check_non_layout(&p)?;
    build(p)
}

/// XLA's `Layout::FromProto` of a raw layout. The physical shape, if any,
/// is converted (and so validated) as a [`Shape`]; an index or pointer type
/// number the schema does not know is rejected.
pub(crate) fn layout_from_raw(mut p: RawLayout) -> Result<Layout> {
    check_layout_from_proto(&p, 0)?;
    for (what, n) in [
        ("index", p.index_primitive_type),
        ("pointer", p.pointer_primitive_type),
    ] {
        if PrimitiveType::from_number(n).is_none() {
            return Err(Error::malformed(format!(
                "Malformed layout proto: unknown {what}_primitive_type {n}"
            )));
        }
    }
    let physical = p
        .physical_shape
        .take()
        .map(|b| shape_from_raw(*b))
        .transpose()?;
    Ok(layout_fields(p, physical))
}

impl TryFrom<&ShapeProto> for Shape {
    type Error = Error;

    /// XLA's `Shape::FromProto` followed by
    /// `ShapeUtil::ValidateShapeWithOptionalLayout`.
    ///
    /// # Errors
    ///
    /// [`MalformedProto`](crate::ErrorKind::MalformedProto) for what
    /// `FromProto` rejects, [`InvalidShape`](crate::ErrorKind::InvalidShape)
    /// and [`InvalidLayout`](crate::ErrorKind::InvalidLayout) for what
    /// validation rejects, with XLA's messages.
    fn try_from(p: &ShapeProto) -> Result<Shape> {
        shape_from_raw(RawShape::from(p.clone()))
    }
}

impl TryFrom<ShapeProto> for Shape {
    type Error = Error;
    fn try_from(p: ShapeProto) -> Result<Shape> {
        shape_from_raw(RawShape::from(p))
    }
}

impl From<&Shape> for ShapeProto {
    /// XLA's `Shape::ToProto`: arrays write one `is_dynamic_dimension` per
    /// dimension, and their layout if they have one.
    fn from(s: &Shape) -> ShapeProto {
        let mut p = ShapeProto {
            element_type: s.element_type() as i32,
            ..Default::default()
        };
        match s {
            Shape::Array(a) => {
                p.dimensions = a.dimensions.to_vec();
                p.is_dynamic_dimension = a.dynamic.to_vec();
                p.layout = a.layout.as_ref().map(|l| Box::new(LayoutProto::from(l)));
            }
            Shape::Tuple(elements) => {
                p.tuple_shapes = elements.iter().map(ShapeProto::from).collect()
            }
            Shape::Buffer(inner) => p.tuple_shapes = vec![ShapeProto::from(&**inner)],
            Shape::Token | Shape::Opaque => {}
        }
        p
    }
}

impl From<Shape> for ShapeProto {
    fn from(s: Shape) -> ShapeProto {
        ShapeProto::from(&s)
    }
}

impl From<&Layout> for LayoutProto {
    /// XLA's `Layout::ToProto` (the alignment is written even when 1).
    fn from(l: &Layout) -> LayoutProto {
        let r = l.rare();
        LayoutProto {
            minor_to_major: l.minor_to_major.to_vec(),
            tiles: l.tiles.iter().map(TileProto::from).collect(),
            tail_padding_alignment_in_elements: r.tail_padding_alignment_in_elements,
            element_size_in_bits: l.element_size_in_bits,
            memory_space: l.memory_space,
            index_primitive_type: r.index_primitive_type as i32,
            pointer_primitive_type: r.pointer_primitive_type as i32,
            physical_shape: r
                .physical_shape
                .as_ref()
                .map(|s| Box::new(ShapeProto::from(&**s))),
            dynamic_shape_metadata_prefix_bytes: r.dynamic_shape_metadata_prefix_bytes,
            split_configs: r.split_configs.iter().map(SplitConfigProto::from).collect(),
            ..Default::default()
        }
    }
}

impl TryFrom<&LayoutProto> for Layout {
    type Error = Error;

    /// XLA's `Layout::FromProto`. The physical shape, if any, is converted
    /// (and so validated) as a [`Shape`]; an index or pointer type number
    /// that the schema does not know is rejected (XLA keeps it).
    fn try_from(p: &LayoutProto) -> Result<Layout> {
        layout_from_raw(RawLayout::from(p.clone()))
    }
}

impl From<&Tile> for TileProto {
    fn from(t: &Tile) -> TileProto {
        TileProto {
            dimensions: t.dimensions().to_vec(),
        }
    }
}

impl TryFrom<&TileProto> for Tile {
    type Error = Error;
    /// XLA's `Tile::FromProto`, accepting `*` bounds (see
    /// docs/differences.md).
    fn try_from(p: &TileProto) -> Result<Tile> {
        Tile::new(&p.dimensions)
    }
}

impl From<&SplitConfig> for SplitConfigProto {
    fn from(s: &SplitConfig) -> SplitConfigProto {
        SplitConfigProto {
            dimension: s.dimension(),
            split_indices: s.split_indices().to_vec(),
        }
    }
}

impl From<&SplitConfigProto> for SplitConfig {
    fn from(p: &SplitConfigProto) -> SplitConfig {
        SplitConfig::new(p.dimension, p.split_indices.clone())
    }
}

/// XLA's `ProgramShape::FromProto`, with every shape validated (an absent
/// result is the invalid shape, which is rejected).
fn program_shape_from_raw(p: RawProgramShape) -> Result<ProgramShape> {
    if p.parameters.len() != p.parameter_names.len() {
        return Err(Error::malformed(format!(
            "ProgramShapeProto has different numbers of parameters and parameter names: {} vs {}",
            p.parameters.len(),
            p.parameter_names.len()
        )));
    }
    let parameters = p
        .parameters
        .into_iter()
        .map(shape_from_raw)
        .collect::<Result<Vec<_>>>()?;
    let result = shape_from_raw(p.result.unwrap_or_default())?;
    Ok(ProgramShape::new(
        p.parameter_names.into_iter().zip(parameters).collect(),
        result,
    ))
}

impl TryFrom<&ProgramShapeProto> for ProgramShape {
    type Error = Error;
    /// XLA's `ProgramShape::FromProto`, with every shape validated (an
    /// absent result is the invalid shape, which is rejected).
    fn try_from(p: &ProgramShapeProto) -> Result<ProgramShape> {
        program_shape_from_raw(RawProgramShape::from(p.clone()))
    }
}

impl From<&ProgramShape> for ProgramShapeProto {
    fn from(p: &ProgramShape) -> ProgramShapeProto {
        ProgramShapeProto {
            parameters: p.parameters().iter().map(ShapeProto::from).collect(),
            result: Some(ShapeProto::from(p.result())),
            parameter_names: p.parameter_names().to_vec(),
        }
    }
}

impl Shape {
    /// Decodes serialized `ShapeProto` bytes and converts them as
    /// [`TryFrom<&ShapeProto>`](#impl-TryFrom%3C%26ShapeProto%3E-for-Shape)
    /// does (XLA's `FromProto` and validation).
    ///
    /// # Errors
    ///
    /// [`Decode`](crate::ErrorKind::Decode) for bytes that are not a
    /// `ShapeProto` (truncated, wrong wire types, nesting past
    /// [`MAX_NESTING_DEPTH`]); otherwise as the conversion.
    ///
    /// ```
    /// use xla_shape::Shape;
    /// let s = Shape::from_proto_bytes(&[0x10, 0x0b, 0x1a, 0x01, 0x02]).unwrap();
    /// assert_eq!(s.to_string(), "f32[2]");
    /// assert_eq!(s.to_proto_bytes(), [0x10, 0x0b, 0x1a, 0x01, 0x02, 0x32, 0x01, 0x00]);
    /// ```
    pub fn from_proto_bytes(bytes: &[u8]) -> Result<Shape> {
        let mut shape = Shape::slot();
        if wire::decode_valid_shape_into(bytes, &mut shape).is_some() {
            return Ok(shape);
        }
        shape_from_raw(wire::decode_shape(bytes)?)
    }

    /// Decodes serialized `ShapeProto` bytes into `self`, as
    /// [`from_proto_bytes`](Self::from_proto_bytes) does, reusing the
    /// storage `self` holds (an array's dimensions and layout, a tuple's
    /// elements and their own storage), as C++ protobuf's `ParseFromString`
    /// reuses a message: decoding many shapes into one value allocates
    /// little or nothing after the first. The counterpart of
    /// [`encode_to`](Self::encode_to).
    ///
    /// # Errors
    ///
    /// As [`from_proto_bytes`](Self::from_proto_bytes); `self` is then the
    /// empty tuple `()`.
    ///
    /// ```
    /// use xla_shape::Shape;
    /// let mut shape = Shape::Tuple(vec![]);
    /// for s in ["f32[2,3]{1,0}", "(s8[], pred[4]{0})", "bf16[8]{0}"] {
    ///     let bytes = s.parse::<Shape>()?.to_proto_bytes();
    ///     shape.decode_from(&bytes)?;
    ///     assert_eq!(shape.to_string(), s);
    /// }
    /// assert!(shape.decode_from(&[0x10, 0xff]).is_err());
    /// assert_eq!(shape, Shape::Tuple(vec![]));
    /// # Ok::<(), xla_shape::Error>(())
    /// ```
    #[doc(alias = "ParseFromString")]
    pub fn decode_from(&mut self, bytes: &[u8]) -> Result<()> {
        if wire::decode_valid_shape_into(bytes, self).is_some() {
            return Ok(());
        }
        // What the one pass left is dropped: it may not be valid.
        *self = Shape::Tuple(Vec::new());
        *self = shape_from_raw(wire::decode_shape(bytes)?)?;
        Ok(())
    }

    /// This shape as a `ShapeProto`: XLA's `ToProto`.
    pub fn to_proto(&self) -> ShapeProto {
        ShapeProto::from(self)
    }

    /// The serialized `ShapeProto`, byte-identical to what XLA writes.
    #[doc(alias = "xla_client.Shape.to_serialized_proto")]
    pub fn to_proto_bytes(&self) -> Vec<u8> {
        encoded(|out| self.encode_to(out))
    }

    /// Appends the serialized `ShapeProto` to `out`, as
    /// [`to_proto_bytes`](Self::to_proto_bytes) returns it: one buffer can
    /// serve many shapes without a new allocation each.
    ///
    /// ```
    /// use xla_shape::Shape;
    /// let mut out = Vec::new();
    /// for s in ["f32[2]", "s8[]"] {
    ///     let shape: Shape = s.parse()?;
    ///     out.clear();
    ///     shape.encode_to(&mut out);
    ///     assert_eq!(out, shape.to_proto_bytes());
    /// }
    /// # Ok::<(), xla_shape::Error>(())
    /// ```
    #[doc(alias = "SerializeToString")]
    pub fn encode_to(&self, out: &mut Vec<u8>) {
        wire::put_shape(out, self);
    }
}

impl Layout {
    /// Decodes serialized `LayoutProto` bytes (XLA's `Layout::FromProto`).
    ///
    /// # Errors
    ///
    /// As [`Shape::from_proto_bytes`].
    pub fn from_proto_bytes(bytes: &[u8]) -> Result<Layout> {
        layout_from_raw(wire::decode_layout(bytes)?)
    }

    /// This layout as a `LayoutProto`: XLA's `ToProto`.
    pub fn to_proto(&self) -> LayoutProto {
        LayoutProto::from(self)
    }

    /// The serialized `LayoutProto`, byte-identical to what XLA writes.
    pub fn to_proto_bytes(&self) -> Vec<u8> {
        encoded(|out| self.encode_to(out))
    }

    /// Appends the serialized `LayoutProto` to `out`, as
    /// [`to_proto_bytes`](Self::to_proto_bytes) returns it.
    pub fn encode_to(&self, out: &mut Vec<u8>) {
        wire::put_layout(out, self);
    }
}

impl ProgramShape {
    /// Decodes serialized `ProgramShapeProto` bytes, reading its shapes
    /// exactly as [`Shape::from_proto_bytes`] reads a `ShapeProto` (Google's
    /// wire semantics), then XLA's `ProgramShape::FromProto` with every
    /// shape validated.
    ///
    /// # Errors
    ///
    /// As [`Shape::from_proto_bytes`]; also
    /// [`MalformedProto`](crate::ErrorKind::MalformedProto) when the
    /// numbers of parameters and parameter names differ.
    pub fn from_proto_bytes(bytes: &[u8]) -> Result<ProgramShape> {
        program_shape_from_raw(wire::decode_program_shape(bytes)?)
    }

    /// The serialized `ProgramShapeProto`, as XLA's `ToProto` and C++
    /// serialization write it.
    pub fn to_proto_bytes(&self) -> Vec<u8> {
        encoded(|out| self.encode_to(out))
    }

    /// Appends the serialized `ProgramShapeProto` to `out`, as
    /// [`to_proto_bytes`](Self::to_proto_bytes) returns it.
    pub fn encode_to(&self, out: &mut Vec<u8>) {
        wire::put_program_shape(out, self);
    }
}

/// What `encode` appends to an empty vector, in a vector of exactly its
/// length (as prost's `encode_to_vec`).
///
/// The writers reserve an upper bound once (`wire`'s `*_max_len`, up to
/// about ten times the encoded length for a small shape) and write without
/// a check per byte. Handing that vector out would hold the rest for as
/// long as the caller keeps the bytes, and shrinking it costs a `realloc`;
/// so the bytes are written into a per-thread scratch vector and copied
/// out into one allocation of their length. For the rank-4 shape of
/// `bench/compare` (callgrind, instructions per call): 825 handing out the
/// bound, 1,540 shrinking it, 799 through the scratch. A scratch grown
/// past `SCRATCH_KEEP` by a large tuple is freed rather than kept.
fn encoded(encode: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    const SCRATCH_KEEP: usize = 64 << 10;
    thread_local! {
        static SCRATCH: Cell<Vec<u8>> = const { Cell::new(Vec::new()) };
    }
    match SCRATCH.try_with(Cell::take) {
        Ok(mut buf) => {
            buf.clear();
            encode(&mut buf);
            let out = buf.as_slice().to_vec();
            if buf.capacity() <= SCRATCH_KEEP {
                // Fails only while the thread's locals are torn down.
                let _ = SCRATCH.try_with(|cell| cell.set(buf));
            }
            out
        }
        // The thread's locals are being torn down: encode without them.
        Err(_) => {
            let mut out = Vec::new();
            encode(&mut out);
            out.shrink_to_fit();
            out
        }
    }
}
