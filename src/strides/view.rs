//! `ndarray` views over XLA array buffers (feature `ndarray`).

use ndarray::{ArrayViewD, IxDyn, ShapeBuilder};

use crate::error::{Error, ErrorKind, Result};
use crate::model::{ArrayShape, PrimitiveType};
use crate::strides::element_strides;
use crate::tiling::TiledLayout;

mod sealed {
    pub trait Sealed {}
}

/// A Rust type an [`ndarray_view`] can hold: plain numbers, valid for every
/// bit pattern. Floating and signed types view their own XLA type only;
/// the unsigned integers also view any XLA type of their width as raw bits
/// (`u16` for `bf16` and `f16`, `u8` for `pred` and the 8-bit floats).
pub trait ViewElement: sealed::Sealed + Copy + 'static {
    /// Whether this type can view elements of `t`.
    fn views(t: PrimitiveType) -> bool;
}

macro_rules! element {
    ($t:ty, $bytes:literal, exact $x:ident) => {
        impl sealed::Sealed for $t {}
        impl ViewElement for $t {
            fn views(t: PrimitiveType) -> bool {
                t == PrimitiveType::$x
            }
        }
    };
    ($t:ty, $bytes:literal, raw) => {
        impl sealed::Sealed for $t {}
        impl ViewElement for $t {
            fn views(t: PrimitiveType) -> bool {
                t.byte_width() == Some($bytes) && !t.is_sub_byte_non_pred()
            }
        }
    };
}
element!(i8, 1, exact S8);
element!(i16, 2, exact S16);
element!(i32, 4, exact S32);
element!(i64, 8, exact S64);
element!(f32, 4, exact F32);
element!(f64, 8, exact F64);
element!(u8, 1, raw);
element!(u16, 2, raw);
element!(u32, 4, raw);
element!(u64, 8, raw);

/// An `ndarray` view of `bytes`, the buffer of an array of `shape` (XLA's
/// little-endian layout on a little-endian machine), for any layout that
/// has strides ([`element_strides`]): permutations, and tiles that leave
/// every dimension evenly spaced.
///
/// ```
/// use xla_shape::strides::ndarray_view;
/// use xla_shape::{ArrayShape, Layout, PrimitiveType};
///
/// let col_major = ArrayShape::new(PrimitiveType::U8, [2, 3])?
///     .with_layout(Some(Layout::new([0, 1])))?;
/// let v = ndarray_view::<u8>(&col_major, &[1, 4, 2, 5, 3, 6])?;
/// assert_eq!(v[[0, 1]], 2);
/// assert_eq!(v[[1, 2]], 6);
/// # Ok::<(), xla_shape::Error>(())
/// ```
///
/// # Errors
///
/// - `InvalidArgument`: `T` does not view the element type, the layout has
///   no strides, or the machine is big-endian;
/// - `BufferSize`: `bytes` is not the array's byte size, or not aligned
///   for `T`.
pub fn ndarray_view<'a, T: ViewElement>(
    shape: &ArrayShape,
    bytes: &'a [u8],
) -> Result<ArrayViewD<'a, T>> {
    let size = std::mem::size_of::<T>();
    if !T::views(shape.element_type()) || cfg!(target_endian = "big") {
        return Err(Error::invalid_argument(format!(
            "a view of {} elements cannot hold {shape}",
            std::any::type_name::<T>()
        )));
    }
    let tiled = TiledLayout::new(shape)?;
    if tiled.element_size_in_bits() != 8 * size as i64 {
        return Err(Error::invalid_argument(format!(
            "{shape} stores {} bits per element, not the {} of {}",
            tiled.element_size_in_bits(),
            8 * size,
            std::any::type_name::<T>()
        )));
    }
    let strides = element_strides(shape)?;
    let need = usize::try_from(tiled.byte_size()).unwrap_or(usize::MAX);
    if bytes.len() != need {
        return Err(Error::new(
            ErrorKind::BufferSize,
            format!(
                "buffer has {} bytes but {shape} takes {need} bytes",
                bytes.len()
            ),
        ));
    }
    let dims: Vec<usize> = shape.dimensions().iter().map(|&d| d as usize).collect();
    if tiled.element_count() == 0 {
        // No element to read: no alignment to check, and ndarray refuses
        // strides that reach past an empty buffer (u8[0,5]'s are [5,1]),
        // so the view takes its default strides.
        return ArrayViewD::from_shape(IxDyn(&dims), &[]).map_err(|e| {
            Error::invalid_argument(format!("ndarray refuses the view of {shape}: {e}"))
        });
    }
    if bytes.as_ptr().align_offset(std::mem::align_of::<T>()) != 0 {
        return Err(Error::new(
            ErrorKind::BufferSize,
            format!(
                "buffer at {:p} is not aligned for {}",
                bytes.as_ptr(),
                std::any::type_name::<T>()
            ),
        ));
    }
    // SAFETY: `bytes` is aligned for `T` (checked above), the slice covers
    // `bytes.len() / size` whole elements inside `bytes`, and `T` is one of
    // the plain number types sealed above, valid for any bit pattern. The
    // view borrows `bytes` for 'a, so nothing writes to it meanwhile.
    let elements: &'a [T] =
        unsafe { std::slice::from_raw_parts(bytes.as_ptr().cast::<T>(), bytes.len() / size) };
    let strides: Vec<usize> = strides.iter().map(|&s| s as usize).collect();
    ArrayViewD::from_shape(IxDyn(&dims).strides(IxDyn(&strides)), elements)
        .map_err(|e| Error::invalid_argument(format!("ndarray refuses the view of {shape}: {e}")))
}
