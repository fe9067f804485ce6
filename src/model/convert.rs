//! Conversions between the model and the wire types: `TryFrom<&proto::X>`
//! is XLA's `FromProto` followed by validation; `From<&X> for proto::X` is
//! XLA's `ToProto`, whose encoding is byte-identical to XLA's.

use crate::error::{Error, Result};
use crate::model::layout::Layout;
use crate::model::primitive_type::PrimitiveType;
use crate::model::program_shape::ProgramShape;
use crate::model::shape::{ArrayShape, Shape};
use crate::model::tile::{SplitConfig, Tile};
use crate::model::validate::{self, shape_error};
use crate::proto::{LayoutProto, ProgramShapeProto, ShapeProto, SplitConfigProto, TileProto};

/// The deepest nesting accepted, counted in messages below the root
/// (tuple elements, buffer contents, physical shapes): protobuf's default
/// recursion limit, which C++ and the Python runtime apply when decoding.
pub const MAX_NESTING_DEPTH: usize = 100;

/// The category `FromProto` gives an element-type number: unknown numbers
/// become `Invalid`, as XLA's `set_element_type` does.
fn element_type_of(number: i32) -> PrimitiveType {
    PrimitiveType::from_number(number).unwrap_or(PrimitiveType::Invalid)
}

fn too_deep() -> Error {
    Error::decode(format!(
        "shape nesting exceeds the protobuf recursion limit of {MAX_NESTING_DEPTH} levels"
    ))
}

/// Pass 1: the checks of XLA's `Shape::FromProto` / `Layout::FromProto`
/// (its `RET_CHECK`s), over the whole tree, before any validation.
fn check_from_proto(p: &ShapeProto, depth: usize) -> Result<()> {
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
            && !p.is_dynamic_dimension.is_empty()
            && p.is_dynamic_dimension.len() != p.dimensions.len() =>
        {
            return Err(Error::malformed(format!(
                "Malformed shape proto: number of is_dynamic_dimension fields ({}) does not match number of dimension fields ({}).",
                p.is_dynamic_dimension.len(),
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
        check_layout_from_proto(layout, depth)?;
    }
    Ok(())
}

/// The `RET_CHECK`s of XLA's `Layout::FromProto` and `Tile::FromProto`.
/// Unlike XLA, a `*` tile bound (`INT64_MIN`) is accepted, so that what
/// `ToProto` writes can be read back (docs/differences.md).
fn check_layout_from_proto(p: &LayoutProto, depth: usize) -> Result<()> {
    for tile in &p.tiles {
        if let Some(d) = tile
            .dimensions
            .iter()
            .find(|&&d| d < 0 && d != Tile::COMBINE_DIMENSION)
        {
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
fn check_non_layout(p: &ShapeProto) -> Result<()> {
    match element_type_of(p.element_type) {
        PrimitiveType::Invalid => Err(shape_error(
            "Invalid element type.",
            PrimitiveType::Invalid,
            "primitive_type_invalid[]",
        )),
        PrimitiveType::Tuple => p.tuple_shapes.iter().try_for_each(check_non_layout),
        PrimitiveType::Buffer => check_non_layout(&p.tuple_shapes[0]),
        PrimitiveType::Token | PrimitiveType::OpaqueType => Ok(()),
        t => validate::validate_array_dimensions(t, &p.dimensions, &p.is_dynamic_dimension),
    }
}

/// Pass 3: XLA's `ValidateLayoutInShape` (missing layouts allowed), while
/// building the model shape.
fn build(p: &ShapeProto) -> Result<Shape> {
    Ok(match element_type_of(p.element_type) {
        PrimitiveType::Tuple => {
            Shape::Tuple(p.tuple_shapes.iter().map(build).collect::<Result<_>>()?)
        }
        PrimitiveType::Buffer => Shape::Buffer(Box::new(build(&p.tuple_shapes[0])?)),
        PrimitiveType::Token => Shape::Token,
        PrimitiveType::OpaqueType => Shape::Opaque,
        t => {
            let dynamic = if p.is_dynamic_dimension.is_empty() {
                vec![false; p.dimensions.len()]
            } else {
                p.is_dynamic_dimension.clone()
            };
            let layout = match &p.layout {
                Some(lp) => {
                    validate::validate_layout_for_array(&**lp, t, &p.dimensions, &dynamic)?;
                    // Validation has ruled out a physical shape and the
                    // sparse index types, so nothing below can fail.
                    Some(layout_fields_from_proto(lp, None))
                }
                None => None,
            };
            Shape::Array(ArrayShape {
                element_type: t,
                dimensions: p.dimensions.clone(),
                dynamic,
                layout,
            })
        }
    })
}

/// The fields of `Layout::FromProto`, with the physical shape (and the
/// sparse index types, which must be known numbers) supplied by the caller.
fn layout_fields_from_proto(p: &LayoutProto, physical_shape: Option<Shape>) -> Layout {
    Layout {
        minor_to_major: p.minor_to_major.clone(),
        tiles: p
            .tiles
            .iter()
            .map(|t| Tile::from_vec_unchecked(t.dimensions.clone()))
            .collect(),
        tail_padding_alignment_in_elements: match p.tail_padding_alignment_in_elements {
            0 => 1,
            n => n,
        },
        index_primitive_type: element_type_of(p.index_primitive_type),
        pointer_primitive_type: element_type_of(p.pointer_primitive_type),
        element_size_in_bits: p.element_size_in_bits,
        memory_space: p.memory_space,
        split_configs: p
            .split_configs
            .iter()
            .map(|s| SplitConfig::new(s.dimension, s.split_indices.clone()))
            .collect(),
        physical_shape: physical_shape.map(Box::new),
        dynamic_shape_metadata_prefix_bytes: p.dynamic_shape_metadata_prefix_bytes,
    }
}

pub(crate) fn shape_from_proto(p: &ShapeProto) -> Result<Shape> {
    check_from_proto(p, 0)?;
    check_non_layout(p)?;
    build(p)
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
        shape_from_proto(p)
    }
}

impl TryFrom<ShapeProto> for Shape {
    type Error = Error;
    fn try_from(p: ShapeProto) -> Result<Shape> {
        shape_from_proto(&p)
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
                p.dimensions = a.dimensions.clone();
                p.is_dynamic_dimension = a.dynamic.clone();
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
        LayoutProto {
            minor_to_major: l.minor_to_major.clone(),
            tiles: l.tiles.iter().map(TileProto::from).collect(),
            tail_padding_alignment_in_elements: l.tail_padding_alignment_in_elements,
            element_size_in_bits: l.element_size_in_bits,
            memory_space: l.memory_space,
            index_primitive_type: l.index_primitive_type as i32,
            pointer_primitive_type: l.pointer_primitive_type as i32,
            physical_shape: l
                .physical_shape
                .as_ref()
                .map(|s| Box::new(ShapeProto::from(&**s))),
            dynamic_shape_metadata_prefix_bytes: l.dynamic_shape_metadata_prefix_bytes,
            split_configs: l.split_configs.iter().map(SplitConfigProto::from).collect(),
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
        check_layout_from_proto(p, 0)?;
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
            .as_deref()
            .map(Shape::try_from)
            .transpose()?;
        Ok(layout_fields_from_proto(p, physical))
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
        Tile::new(p.dimensions.clone())
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

impl TryFrom<&ProgramShapeProto> for ProgramShape {
    type Error = Error;
    /// XLA's `ProgramShape::FromProto`, with every shape validated (an
    /// absent result is the invalid shape, which is rejected).
    fn try_from(p: &ProgramShapeProto) -> Result<ProgramShape> {
        if p.parameters.len() != p.parameter_names.len() {
            return Err(Error::malformed(format!(
                "ProgramShapeProto has different numbers of parameters and parameter names: {} vs {}",
                p.parameters.len(),
                p.parameter_names.len()
            )));
        }
        let parameters = p
            .parameters
            .iter()
            .map(Shape::try_from)
            .collect::<Result<Vec<_>>>()?;
        let result = Shape::try_from(p.result.as_ref().unwrap_or(&ShapeProto::default()))?;
        Ok(ProgramShape::new(
            p.parameter_names.iter().cloned().zip(parameters).collect(),
            result,
        ))
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
        let p = <ShapeProto as prost::Message>::decode(bytes)?;
        shape_from_proto(&p)
    }

    /// This shape as a `ShapeProto`: XLA's `ToProto`.
    pub fn to_proto(&self) -> ShapeProto {
        ShapeProto::from(self)
    }

    /// The serialized `ShapeProto`, byte-identical to what XLA writes.
    pub fn to_proto_bytes(&self) -> Vec<u8> {
        prost::Message::encode_to_vec(&self.to_proto())
    }
}

impl Layout {
    /// Decodes serialized `LayoutProto` bytes (XLA's `Layout::FromProto`).
    ///
    /// # Errors
    ///
    /// As [`Shape::from_proto_bytes`].
    pub fn from_proto_bytes(bytes: &[u8]) -> Result<Layout> {
        let p = <LayoutProto as prost::Message>::decode(bytes)?;
        Layout::try_from(&p)
    }

    /// This layout as a `LayoutProto`: XLA's `ToProto`.
    pub fn to_proto(&self) -> LayoutProto {
        LayoutProto::from(self)
    }

    /// The serialized `LayoutProto`, byte-identical to what XLA writes.
    pub fn to_proto_bytes(&self) -> Vec<u8> {
        prost::Message::encode_to_vec(&self.to_proto())
    }
}

impl ProgramShape {
    /// Decodes serialized `ProgramShapeProto` bytes.
    ///
    /// # Errors
    ///
    /// As [`Shape::from_proto_bytes`].
    pub fn from_proto_bytes(bytes: &[u8]) -> Result<ProgramShape> {
        let p = <ProgramShapeProto as prost::Message>::decode(bytes)?;
        ProgramShape::try_from(&p)
    }

    /// The serialized `ProgramShapeProto`.
    pub fn to_proto_bytes(&self) -> Vec<u8> {
        prost::Message::encode_to_vec(&ProgramShapeProto::from(self))
    }
}
