//! The PJRT C API: `PJRT_Buffer_Type` numbers and `PJRT_Buffer_MemoryLayout`
//! (tiled and strides forms) to and from XLA element types and layouts.
//!
//! The numbers are those of the `PJRT_Buffer_Type` enum of
//! `xla/pjrt/c/pjrt_c_api.h` (OpenXLA, the version vendored in TensorFlow
//! at commit `00011bd92c78`, whose last value is `PJRT_Buffer_Type_F4E2M1FN`
//! = 29). They are not XLA's `PrimitiveType` numbers: `BF16` is 13 here and
//! 16 in `xla_data.proto`, `C64` 14 and 15, `TOKEN` 23 and 17. The mapping
//! is by name, as XLA's `ConvertToPjRtBufferType` and
//! `ConvertFromPjRtBufferType` (`xla/pjrt/c/pjrt_c_api_helpers.cc`) do;
//! `S1`, `U1`, `F6E2M3FN`, `F6E3M2FN`, `TUPLE`, `OPAQUE_TYPE` and `BUFFER`
//! have no value in that header.
//!
//! Layouts convert as the same file's `ConvertToBufferMemoryLayoutData`
//! (an XLA layout becomes the tiled form: minor-to-major and the tiles
//! concatenated, with the size of each) and `ConvertToLayout` do.
//!
//! # Handing a shape to a Rust PJRT binding
//!
//! A binding's `PJRT_Client_BufferFromHostBuffer` or
//! `PJRT_Client_CreateUninitializedBuffer` call wants the element type
//! number, the dimensions and a `PJRT_Buffer_MemoryLayout`. From a
//! `ShapeProto` (bytes from JAX, a compiled executable, a file):
//!
//! ```
//! use xla_shape::Shape;
//! use xla_shape::interop::pjrt::{self, MemoryLayout};
//!
//! let shape: Shape = "bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}".parse()?;
//! let bytes = shape.to_proto_bytes(); // what a ShapeProto holds
//!
//! let shape = Shape::from_proto_bytes(&bytes)?;
//! let array = shape.as_array().expect("an array");
//! let element_type = pjrt::to_buffer_type(array.element_type())?; // PJRT_Buffer_Type
//! assert_eq!(element_type, pjrt::PJRT_BUFFER_TYPE_BF16);
//! let dims: &[i64] = array.dimensions();
//! let layout = MemoryLayout::from_layout(array.layout().expect("a layout"));
//! let MemoryLayout::Tiled { minor_to_major, tile_dims, tile_dim_sizes } = &layout else {
//!     unreachable!()
//! };
//! // Point PJRT_Buffer_MemoryLayout_Tiled at these (type = Tiled):
//! assert_eq!(minor_to_major, &[3, 2, 0, 1]);
//! assert_eq!(tile_dims, &[8, 128, 2, 1]);
//! assert_eq!(tile_dim_sizes, &[2, 2]);
//! # let _ = dims;
//!
//! // And back, as XLA's BuildXlaShapeFromC does with a buffer's layout.
//! let back = pjrt::build_shape(element_type, dims, Some(&layout))?;
//! assert_eq!(&back, array);
//! # Ok::<(), xla_shape::Error>(())
//! ```

use crate::error::{Error, Result};
use crate::model::{ArrayShape, Layout, PrimitiveType, Tile};

use PrimitiveType as P;

macro_rules! buffer_types {
    ($($(#[$doc:meta])* $konst:ident = $n:literal => $name:literal, $xla:ident;)*) => {
        $( $(#[$doc])* pub const $konst: i32 = $n; )*
        /// Every `PJRT_Buffer_Type` of the header: (number, name without
        /// the `PJRT_Buffer_Type_` prefix, XLA type of the same name).
        pub const BUFFER_TYPES: [(i32, &str, PrimitiveType); 30] = [
            $( ($n, $name, P::$xla), )*
        ];
    };
}

buffer_types! {
    /// `PJRT_Buffer_Type_INVALID`.
    PJRT_BUFFER_TYPE_INVALID = 0 => "INVALID", Invalid;
    /// `PJRT_Buffer_Type_PRED`.
    PJRT_BUFFER_TYPE_PRED = 1 => "PRED", Pred;
    /// `PJRT_Buffer_Type_S8`.
    PJRT_BUFFER_TYPE_S8 = 2 => "S8", S8;
    /// `PJRT_Buffer_Type_S16`.
    PJRT_BUFFER_TYPE_S16 = 3 => "S16", S16;
    /// `PJRT_Buffer_Type_S32`.
    PJRT_BUFFER_TYPE_S32 = 4 => "S32", S32;
    /// `PJRT_Buffer_Type_S64`.
    PJRT_BUFFER_TYPE_S64 = 5 => "S64", S64;
    /// `PJRT_Buffer_Type_U8`.
    PJRT_BUFFER_TYPE_U8 = 6 => "U8", U8;
    /// `PJRT_Buffer_Type_U16`.
    PJRT_BUFFER_TYPE_U16 = 7 => "U16", U16;
    /// `PJRT_Buffer_Type_U32`.
    PJRT_BUFFER_TYPE_U32 = 8 => "U32", U32;
    /// `PJRT_Buffer_Type_U64`.
    PJRT_BUFFER_TYPE_U64 = 9 => "U64", U64;
    /// `PJRT_Buffer_Type_F16`.
    PJRT_BUFFER_TYPE_F16 = 10 => "F16", F16;
    /// `PJRT_Buffer_Type_F32`.
    PJRT_BUFFER_TYPE_F32 = 11 => "F32", F32;
    /// `PJRT_Buffer_Type_F64`.
    PJRT_BUFFER_TYPE_F64 = 12 => "F64", F64;
    /// `PJRT_Buffer_Type_BF16` (XLA's `BF16` is 16).
    PJRT_BUFFER_TYPE_BF16 = 13 => "BF16", Bf16;
    /// `PJRT_Buffer_Type_C64`.
    PJRT_BUFFER_TYPE_C64 = 14 => "C64", C64;
    /// `PJRT_Buffer_Type_C128`.
    PJRT_BUFFER_TYPE_C128 = 15 => "C128", C128;
    /// `PJRT_Buffer_Type_F8E5M2`.
    PJRT_BUFFER_TYPE_F8E5M2 = 16 => "F8E5M2", F8e5m2;
    /// `PJRT_Buffer_Type_F8E4M3FN`.
    PJRT_BUFFER_TYPE_F8E4M3FN = 17 => "F8E4M3FN", F8e4m3fn;
    /// `PJRT_Buffer_Type_F8E4M3B11FNUZ`.
    PJRT_BUFFER_TYPE_F8E4M3B11FNUZ = 18 => "F8E4M3B11FNUZ", F8e4m3b11fnuz;
    /// `PJRT_Buffer_Type_F8E5M2FNUZ`.
    PJRT_BUFFER_TYPE_F8E5M2FNUZ = 19 => "F8E5M2FNUZ", F8e5m2fnuz;
    /// `PJRT_Buffer_Type_F8E4M3FNUZ`.
    PJRT_BUFFER_TYPE_F8E4M3FNUZ = 20 => "F8E4M3FNUZ", F8e4m3fnuz;
    /// `PJRT_Buffer_Type_S4`.
    PJRT_BUFFER_TYPE_S4 = 21 => "S4", S4;
    /// `PJRT_Buffer_Type_U4`.
    PJRT_BUFFER_TYPE_U4 = 22 => "U4", U4;
    /// `PJRT_Buffer_Type_TOKEN`.
    PJRT_BUFFER_TYPE_TOKEN = 23 => "TOKEN", Token;
    /// `PJRT_Buffer_Type_S2`.
    PJRT_BUFFER_TYPE_S2 = 24 => "S2", S2;
    /// `PJRT_Buffer_Type_U2`.
    PJRT_BUFFER_TYPE_U2 = 25 => "U2", U2;
    /// `PJRT_Buffer_Type_F8E4M3`.
    PJRT_BUFFER_TYPE_F8E4M3 = 26 => "F8E4M3", F8e4m3;
    /// `PJRT_Buffer_Type_F8E3M4`.
    PJRT_BUFFER_TYPE_F8E3M4 = 27 => "F8E3M4", F8e3m4;
    /// `PJRT_Buffer_Type_F8E8M0FNU`.
    PJRT_BUFFER_TYPE_F8E8M0FNU = 28 => "F8E8M0FNU", F8e8m0fnu;
    /// `PJRT_Buffer_Type_F4E2M1FN`.
    PJRT_BUFFER_TYPE_F4E2M1FN = 29 => "F4E2M1FN", F4e2m1fn;
}

/// XLA's `ConvertToPjRtBufferType`: the `PJRT_Buffer_Type` of `t`
/// (`INVALID` for `PRIMITIVE_TYPE_INVALID`, as XLA maps it).
///
/// # Errors
///
/// [`ErrorKind::InvalidArgument`](crate::ErrorKind::InvalidArgument) with
/// the text of XLA's `CHECK` failure, `Element type of the shape is not
/// supported in C API layer: s1`, for a type the header has no value for.
pub fn to_buffer_type(t: PrimitiveType) -> Result<i32> {
    BUFFER_TYPES
        .iter()
        .find(|(_, _, x)| *x == t)
        .map(|&(n, _, _)| n)
        .ok_or_else(|| {
            Error::invalid_argument(format!(
                "Element type of the shape is not supported in C API layer: {}",
                t.lowercase_name()
            ))
        })
}

/// XLA's `ConvertFromPjRtBufferType`: the element type of a
/// `PJRT_Buffer_Type` number.
///
/// # Errors
///
/// [`ErrorKind::InvalidArgument`](crate::ErrorKind::InvalidArgument):
/// `PJRT_Buffer_Type_INVALID` with the text of XLA's `CHECK` failure
/// (`Buffer type is not supported in C API layer.`), a number the header
/// does not define with `Unknown PJRT_Buffer_Type 30`.
pub fn from_buffer_type(n: i32) -> Result<PrimitiveType> {
    match BUFFER_TYPES.iter().find(|(m, _, _)| *m == n) {
        Some(&(_, _, P::Invalid)) => Err(Error::invalid_argument(
            "Buffer type is not supported in C API layer.",
        )),
        Some(&(_, _, t)) => Ok(t),
        None => Err(Error::invalid_argument(format!(
            "Unknown PJRT_Buffer_Type {n}"
        ))),
    }
}

/// The name of a `PJRT_Buffer_Type` number (`PJRT_Buffer_Type_BF16`).
pub fn buffer_type_name(n: i32) -> Option<String> {
    BUFFER_TYPES
        .iter()
        .find(|(m, _, _)| *m == n)
        .map(|(_, name, _)| format!("PJRT_Buffer_Type_{name}"))
}

/// `PJRT_Buffer_MemoryLayout`, owning its arrays.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum MemoryLayout {
    /// `PJRT_Buffer_MemoryLayout_Type_Tiled`
    /// (`PJRT_Buffer_MemoryLayout_Tiled`).
    Tiled {
        /// `minor_to_major`, one entry per dimension.
        minor_to_major: Vec<i64>,
        /// `tile_dims`: the dimensions of every tile, concatenated.
        tile_dims: Vec<i64>,
        /// `tile_dim_sizes`: how many of `tile_dims` each tile takes
        /// (`num_tiles` is its length).
        tile_dim_sizes: Vec<usize>,
    },
    /// `PJRT_Buffer_MemoryLayout_Type_Strides`
    /// (`PJRT_Buffer_MemoryLayout_Strides`).
    Strides {
        /// `byte_strides`, one per dimension; the header allows negative
        /// ones.
        byte_strides: Vec<i64>,
    },
}

impl MemoryLayout {
    /// XLA's `ConvertToBufferMemoryLayoutData(const Layout&)`: the tiled
    /// form of `layout` (its other fields, such as the element size or
    /// memory space, have no place in it and are dropped, as in XLA).
    pub fn from_layout(layout: &Layout) -> Self {
        MemoryLayout::Tiled {
            minor_to_major: layout.minor_to_major().to_vec(),
            tile_dims: layout
                .tiles()
                .iter()
                .flat_map(|t| t.dimensions().iter().copied())
                .collect(),
            tile_dim_sizes: layout
                .tiles()
                .iter()
                .map(|t| t.dimensions().len())
                .collect(),
        }
    }

    /// The strides form of `shape`'s layout: its byte strides
    /// ([`crate::strides::byte_strides`]).
    ///
    /// # Errors
    ///
    /// Those of [`crate::strides::byte_strides`]: no layout, tiles that do
    /// not keep elements evenly spaced, sub-byte elements.
    pub fn strides_of(shape: &ArrayShape) -> Result<Self> {
        Ok(MemoryLayout::Strides {
            byte_strides: crate::strides::byte_strides(shape)?,
        })
    }

    /// XLA's `ConvertToLayout(const PJRT_Buffer_MemoryLayout_Tiled&)` for
    /// the tiled form.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidArgument`](crate::ErrorKind::InvalidArgument):
    /// the strides form, with the message of XLA's `BuildXlaShapeFromC`
    /// (`PJRT_Buffer_MemoryLayout_Type_Strides is not supported to be
    /// converted to a xla::Shape`; see [`layout_from_byte_strides`]);
    /// `tile_dim_sizes` that add up to more or fewer than `tile_dims`
    /// (XLA reads past the array); a tile [`Tile::new`] refuses.
    pub fn to_layout(&self) -> Result<Layout> {
        match self {
            MemoryLayout::Strides { .. } => Err(Error::invalid_argument(
                "PJRT_Buffer_MemoryLayout_Type_Strides is not supported to be converted to a xla::Shape",
            )),
            MemoryLayout::Tiled {
                minor_to_major,
                tile_dims,
                tile_dim_sizes,
            } => {
                let mut tiles = Vec::with_capacity(tile_dim_sizes.len().min(tile_dims.len()));
                let mut rest: &[i64] = tile_dims;
                for &n in tile_dim_sizes {
                    if n > rest.len() {
                        return Err(Error::invalid_argument(format!(
                            "PJRT_Buffer_MemoryLayout_Tiled: tile_dim_sizes {tile_dim_sizes:?} need more than the {} tile_dims",
                            tile_dims.len()
                        )));
                    }
                    let (tile, tail) = rest.split_at(n);
                    tiles.push(Tile::new(tile)?);
                    rest = tail;
                }
                if !rest.is_empty() {
                    return Err(Error::invalid_argument(format!(
                        "PJRT_Buffer_MemoryLayout_Tiled: tile_dim_sizes {tile_dim_sizes:?} leave {} of the {} tile_dims unused",
                        rest.len(),
                        tile_dims.len()
                    )));
                }
                Ok(Layout::new(minor_to_major.clone()).with_tiles(tiles))
            }
        }
    }
}

/// The dense layout of byte strides (the strides form), where one exists:
/// [`crate::strides::layout_from_byte_strides`]. XLA's `BuildXlaShapeFromC`
/// refuses the strides form instead.
///
/// # Errors
///
/// Those of [`crate::strides::layout_from_byte_strides`].
pub fn layout_from_byte_strides(
    element_type: PrimitiveType,
    dims: &[i64],
    byte_strides: &[i64],
) -> Result<Layout> {
    crate::strides::layout_from_byte_strides(element_type, dims, byte_strides)
}

/// XLA's `BuildXlaShapeFromC`: the shape of a buffer from its
/// `PJRT_Buffer_Type`, dimensions and optional memory layout, validated.
///
/// # Errors
///
/// Those of [`from_buffer_type`], [`MemoryLayout::to_layout`] and of
/// building a valid [`ArrayShape`] with that layout.
pub fn build_shape(
    element_type: i32,
    dims: &[i64],
    layout: Option<&MemoryLayout>,
) -> Result<ArrayShape> {
    let t = from_buffer_type(element_type)?;
    let mut shape = ArrayShape::new(t, dims.to_vec())?;
    if let Some(layout) = layout {
        shape = shape.with_layout(Some(layout.to_layout()?))?;
    }
    Ok(shape)
}
