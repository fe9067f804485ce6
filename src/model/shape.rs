//! [`Shape`] and [`ArrayShape`]: validated XLA shapes.

use crate::error::{Error, Result};
use crate::model::inline::{Dims, DynamicFlags, InlineVec};
use crate::model::layout::{Layout, LayoutEqual};
use crate::model::primitive_type::PrimitiveType;

/// A valid XLA shape (XLA's `Shape`): exactly one of an array, a tuple, a
/// token, an opaque value or a buffer.
///
/// A `Shape` always passes XLA's `ValidateShapeWithOptionalLayout`: its
/// element types are valid, dimensions are non-negative (or unbounded
/// dynamic), sizes do not overflow, and every layout fits its array. Invalid
/// shapes are rejected when they are built, decoded or parsed, with XLA's
/// message.
///
/// `==` is XLA's `Shape::operator==` (layouts compared, `M(n)` ignored);
/// [`Shape::equal_with`] takes XLA's `Shape::Equal` options.
///
/// ```
/// use xla_shape::{ArrayShape, PrimitiveType, Shape};
/// let a = ArrayShape::new(PrimitiveType::F32, [2, 3]).unwrap();
/// let t = Shape::Tuple(vec![Shape::Array(a), Shape::Token]);
/// assert_eq!(t.to_string(), "(f32[2,3]{1,0}, token[])");
/// let bytes = t.to_proto_bytes();
/// assert_eq!(Shape::from_proto_bytes(&bytes).unwrap(), t);
/// ```
#[derive(Clone, Debug)]
// An array keeps its short vectors in place (`model::inline`), so that
// building one allocates nothing; boxing it to shrink the enum would put
// that allocation back.
#[allow(clippy::large_enum_variant)]
pub enum Shape {
    /// An array: element type, dimensions, optional layout.
    Array(ArrayShape),
    /// A tuple of shapes; the empty tuple is XLA's "nil".
    Tuple(Vec<Shape>),
    /// `token[]`.
    Token,
    /// `opaque[]`.
    Opaque,
    /// `b(shape)`: a buffer holding an array.
    Buffer(Box<Shape>),
}

// At most 256 bytes, which glibc's `memcpy` moves without a loop: the
// rarely set layout attributes are boxed (`layout::Rare`) to keep it so.
const _: () = assert!(std::mem::size_of::<Shape>() <= 256);

/// A valid array shape: element type, dimensions (static, bounded dynamic
/// or unbounded dynamic), and an optional [`Layout`] that fits them.
///
/// ```
/// use xla_shape::{ArrayShape, Layout, PrimitiveType};
/// let a = ArrayShape::new(PrimitiveType::Bf16, [8, 128]).unwrap();
/// assert_eq!(a.dimensions(), [8, 128]);
/// assert_eq!(a.layout().unwrap().minor_to_major(), [1, 0]);
/// let err = a.clone().with_layout(Some(Layout::new([1, 1]))).unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "layout minor_to_major field has duplicate values: {1, 1}; shape: bf16[8,128]"
/// );
/// ```
#[derive(Clone, Debug)]
pub struct ArrayShape {
    pub(crate) element_type: PrimitiveType,
    pub(crate) dimensions: Dims,
    pub(crate) dynamic: DynamicFlags,
    pub(crate) layout: Option<Layout>,
}

impl ArrayShape {
    /// XLA's `Shape::kUnboundedSize`: the size of an unbounded dynamic
    /// dimension (`?` in HLO text).
    pub const UNBOUNDED_SIZE: i64 = i64::MIN;

    // The validated constructors (`new`, `with_dynamic_dimensions`,
    // `from_parts`, `with_layout`) are in `validate.rs`, beside the rules
    // they run.

    /// The element type (an array type).
    pub fn element_type(&self) -> PrimitiveType {
        self.element_type
    }

    /// Number of dimensions.
    pub fn rank(&self) -> usize {
        self.dimensions.len()
    }

    /// Dimension sizes in logical order: upper bounds for bounded dynamic
    /// dimensions, [`UNBOUNDED_SIZE`](Self::UNBOUNDED_SIZE) for unbounded
    /// ones.
    pub fn dimensions(&self) -> &[i64] {
        &self.dimensions
    }

    /// The size of dimension `i`.
    ///
    /// # Panics
    ///
    /// If `i >= rank()`.
    pub fn dimension(&self, i: usize) -> i64 {
        self.dimensions[i]
    }

    /// One flag per dimension: true where the dimension is dynamic.
    pub fn dynamic_dimensions(&self) -> &[bool] {
        &self.dynamic
    }

    /// Whether dimension `i` is dynamic.
    ///
    /// # Panics
    ///
    /// If `i >= rank()`.
    pub fn is_dynamic_dimension(&self, i: usize) -> bool {
        self.dynamic[i]
    }

    /// Whether dimension `i` is static.
    ///
    /// # Panics
    ///
    /// If `i >= rank()`.
    pub fn is_static_dimension(&self, i: usize) -> bool {
        !self.dynamic[i]
    }

    /// XLA's `is_unbounded_dynamic_dimension`: the size is
    /// [`UNBOUNDED_SIZE`](Self::UNBOUNDED_SIZE) (the flag is not looked at).
    ///
    /// # Panics
    ///
    /// If `i >= rank()`.
    pub fn is_unbounded_dynamic_dimension(&self, i: usize) -> bool {
        self.dimensions[i] == Self::UNBOUNDED_SIZE
    }

    /// XLA's `is_bounded_dynamic_dimension`: dynamic with an upper bound.
    ///
    /// # Panics
    ///
    /// If `i >= rank()`.
    pub fn is_bounded_dynamic_dimension(&self, i: usize) -> bool {
        self.dynamic[i] && self.dimensions[i] != Self::UNBOUNDED_SIZE
    }

    /// The layout, if the array has one.
    pub fn layout(&self) -> Option<&Layout> {
        self.layout.as_ref()
    }

    /// Whether the array has a layout.
    pub fn has_layout(&self) -> bool {
        self.layout.is_some()
    }

    /// Removes the layout.
    pub fn clear_layout(&mut self) {
        self.layout = None;
    }

    /// No dynamic dimension.
    pub fn is_static(&self) -> bool {
        !self.dynamic.iter().any(|&d| d)
    }

    /// The number of elements, the product of the dimensions (a bounded
    /// dynamic dimension counts its bound; a scalar has 1): XLA's
    /// `ShapeUtil::ElementsIn`, whose public spelling is
    /// [`shape_util::elements_in`](crate::shape_util::elements_in). Here
    /// so that the layers under `shape_util` (`index_util`) count
    /// elements too.
    ///
    /// # Errors
    ///
    /// An unbounded dimension (the count is undefined), or a product past
    /// `i64`.
    pub(crate) fn element_count(&self) -> Result<i64> {
        if self.dimensions.contains(&Self::UNBOUNDED_SIZE) {
            return Err(Error::invalid_argument(format!(
                "ElementsIn is undefined for the unbounded dynamic shape {self:#}"
            )));
        }
        self.dimensions
            .iter()
            .try_fold(1i64, |acc, &d| acc.checked_mul(d))
            .ok_or_else(|| Error::overflow(format!("element count of {self} overflows int64")))
    }

    pub(crate) fn equal_with(&self, other: &ArrayShape, o: &ShapeEqual) -> bool {
        if !o.ignore_element_type {
            let same = if o.ignore_fp_precision {
                (self.element_type.is_floating_point() && other.element_type.is_floating_point())
                    || self.element_type == other.element_type
            } else {
                self.element_type == other.element_type
            };
            if !same {
                return false;
            }
        }
        if self.rank() != other.rank() {
            return false;
        }
        if !o.ignore_dimensions {
            for (&a, &b) in self.dimensions.iter().zip(&other.dimensions) {
                if o.ignore_dynamic_dimension
                    && (a == Self::UNBOUNDED_SIZE || b == Self::UNBOUNDED_SIZE)
                {
                    continue;
                }
                if a != b {
                    return false;
                }
            }
        }
        if !o.ignore_layout {
            match (&self.layout, &other.layout) {
                (None, None) => {}
                (Some(a), Some(b)) => {
                    if !a.equal_with(b, &o.layout_options()) {
                        return false;
                    }
                }
                _ => return false,
            }
        }
        o.ignore_dynamic_dimension || self.dynamic == other.dynamic
    }
}

impl Shape {
    /// An empty array of type `Invalid`: the slot that the one-pass
    /// readers (`model::wire`, `text::fast`) fill in place.
    #[inline]
    pub(crate) fn slot() -> Shape {
        // A constant (see `InlineVec::empty`).
        const SLOT: Shape = Shape::Array(ArrayShape {
            element_type: PrimitiveType::Invalid,
            dimensions: Dims::empty(0),
            dynamic: DynamicFlags::empty(false),
            layout: None,
        });
        SLOT
    }

    /// The empty array `self` holds if it is a [`slot`](Self::slot) still
    /// unfilled (then nothing is moved), or a new one put in its place.
    #[inline(always)]
    pub(crate) fn array_slot(&mut self) -> &mut ArrayShape {
        // Matched on the storage itself: `is_empty` would first find the
        // values' slice.
        let fresh = matches!(
            self,
            Shape::Array(ArrayShape {
                dimensions: InlineVec::Inline { len: 0, .. },
                dynamic: InlineVec::Inline { len: 0, .. },
                layout: None,
                ..
            })
        );
        if !fresh {
            *self = Shape::slot();
        }
        match self {
            Shape::Array(a) => a,
            _ => unreachable!("an array was put here above"),
        }
    }

    /// The array `self` holds, emptied of its dimensions and flags but with
    /// its storage and layout kept (the one-pass decoder resets the layout
    /// in place or removes it), or a new empty one put in its place.
    #[inline]
    pub(crate) fn reused_array(&mut self) -> &mut ArrayShape {
        if let Shape::Array(a) = self {
            a.dimensions.clear_copies();
            a.dynamic.clear_copies();
        } else {
            *self = Shape::slot();
        }
        match self {
            Shape::Array(a) => a,
            _ => unreachable!("an array is here"),
        }
    }

    /// The elements of the tuple `self` is, kept as they are for reuse, or
    /// of a new empty tuple put in its place.
    #[inline]
    pub(crate) fn reused_tuple(&mut self) -> &mut Vec<Shape> {
        if !matches!(self, Shape::Tuple(_)) {
            *self = Shape::Tuple(Vec::new());
        }
        match self {
            Shape::Tuple(elements) => elements,
            _ => unreachable!("a tuple is here"),
        }
    }

    /// The element type field of this shape's proto: the array's element
    /// type, or `Tuple`, `Token`, `OpaqueType`, `Buffer`.
    #[doc(alias = "xla_client.Shape.xla_element_type")]
    pub fn element_type(&self) -> PrimitiveType {
        match self {
            Shape::Array(a) => a.element_type,
            Shape::Tuple(_) => PrimitiveType::Tuple,
            Shape::Token => PrimitiveType::Token,
            Shape::Opaque => PrimitiveType::OpaqueType,
            Shape::Buffer(_) => PrimitiveType::Buffer,
        }
    }

    /// Whether this is an array.
    pub fn is_array(&self) -> bool {
        matches!(self, Shape::Array(_))
    }

    /// Whether this is a tuple.
    pub fn is_tuple(&self) -> bool {
        matches!(self, Shape::Tuple(_))
    }

    /// Whether this is `token[]`.
    pub fn is_token(&self) -> bool {
        matches!(self, Shape::Token)
    }

    /// Whether this is `opaque[]`.
    pub fn is_opaque(&self) -> bool {
        matches!(self, Shape::Opaque)
    }

    /// Whether this is a buffer.
    pub fn is_buffer(&self) -> bool {
        matches!(self, Shape::Buffer(_))
    }

    /// The array, if this is one.
    pub fn as_array(&self) -> Option<&ArrayShape> {
        match self {
            Shape::Array(a) => Some(a),
            _ => None,
        }
    }

    /// The tuple elements, if this is a tuple.
    pub fn tuple_shapes(&self) -> Option<&[Shape]> {
        match self {
            Shape::Tuple(t) => Some(t),
            _ => None,
        }
    }

    /// The shape inside a buffer, if this is one.
    pub fn buffer_shape(&self) -> Option<&Shape> {
        match self {
            Shape::Buffer(b) => Some(b),
            _ => None,
        }
    }

    /// The array's dimensions; `None` for every other shape.
    ///
    /// XLA's `Shape::dimensions()` CHECK-fails on a non-array (xla/shape.h),
    /// and jaxlib's `Shape.dimensions()` aborts the process on a tuple; here
    /// a tuple, token, opaque or buffer shape gives `None`, so a caller
    /// cannot mistake it for a scalar's empty dimensions.
    ///
    /// ```
    /// use xla_shape::Shape;
    /// let array: Shape = "f32[2,3]".parse()?;
    /// assert_eq!(array.dimensions(), Some(&[2, 3][..]));
    /// let tuple: Shape = "(f32[2,3], s32[])".parse()?;
    /// assert_eq!(tuple.dimensions(), None);
    /// # Ok::<(), xla_shape::Error>(())
    /// ```
    pub fn dimensions(&self) -> Option<&[i64]> {
        self.as_array().map(ArrayShape::dimensions)
    }

    /// The array's number of dimensions; `None` for every other shape (XLA
    /// CHECK-fails there, see [`Shape::dimensions`]).
    ///
    /// ```
    /// use xla_shape::Shape;
    /// assert_eq!("f32[]".parse::<Shape>()?.rank(), Some(0));
    /// assert_eq!("(f32[2,3], s32[])".parse::<Shape>()?.rank(), None);
    /// # Ok::<(), xla_shape::Error>(())
    /// ```
    #[doc(alias = "dimensions_size")]
    pub fn rank(&self) -> Option<usize> {
        self.as_array().map(ArrayShape::rank)
    }

    /// The array's layout; `None` for arrays without one and every other
    /// shape.
    pub fn layout(&self) -> Option<&Layout> {
        self.as_array().and_then(ArrayShape::layout)
    }

    /// XLA's `is_static`: no dynamic dimension anywhere (tuples: all
    /// elements static; tokens, opaque and buffers: static).
    pub fn is_static(&self) -> bool {
        match self {
            Shape::Array(a) => a.is_static(),
            Shape::Tuple(t) => t.iter().all(Shape::is_static),
            _ => true,
        }
    }

    /// `!is_static()`.
    pub fn is_dynamic(&self) -> bool {
        !self.is_static()
    }

    /// XLA's `is_unbounded_dynamic`: some array dimension anywhere is
    /// unbounded.
    pub fn is_unbounded_dynamic(&self) -> bool {
        match self {
            Shape::Array(a) => a.dimensions.contains(&ArrayShape::UNBOUNDED_SIZE),
            Shape::Tuple(t) => t.iter().any(Shape::is_unbounded_dynamic),
            _ => false,
        }
    }

    /// XLA's `is_bounded_dynamic`: some array dimension anywhere is bounded
    /// dynamic.
    pub fn is_bounded_dynamic(&self) -> bool {
        match self {
            Shape::Array(a) => (0..a.rank()).any(|i| a.is_bounded_dynamic_dimension(i)),
            Shape::Tuple(t) => t.iter().any(Shape::is_bounded_dynamic),
            _ => false,
        }
    }

    /// XLA's `AreAllLeavesIntegers`: every leaf is an integral array (an
    /// empty tuple: true; PRED, floats, tokens, opaque: false).
    pub fn are_all_leaves_integers(&self) -> bool {
        match self {
            Shape::Tuple(t) => t.iter().all(Shape::are_all_leaves_integers),
            other => other.element_type().is_integral(),
        }
    }

    /// Equality under XLA's `Shape::Equal` options.
    ///
    /// ```
    /// use xla_shape::{ArrayShape, Layout, PrimitiveType, Shape, ShapeEqual};
    /// let b = Shape::from(ArrayShape::new(PrimitiveType::F32, [3, 2]).unwrap());
    /// let a = Shape::from(
    ///     ArrayShape::new(PrimitiveType::F32, [3, 2]).unwrap()
    ///         .with_layout(Some(Layout::new([0, 1]))).unwrap(),
    /// );
    /// assert_ne!(a, b);
    /// assert!(a.equal_with(&b, &ShapeEqual::default().ignore_layout()));
    /// ```
    pub fn equal_with(&self, other: &Shape, o: &ShapeEqual) -> bool {
        if let Shape::Tuple(a) = self {
            return match other {
                Shape::Tuple(b) => {
                    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.equal_with(y, o))
                }
                _ => false,
            };
        }
        if self.is_buffer() || other.is_buffer() {
            if !o.ignore_buffer {
                return match (self, other) {
                    (Shape::Buffer(a), Shape::Buffer(b)) => a == b,
                    _ => false,
                };
            }
            // Upstream compares the underlying shapes with default equality.
            let (a, b) = (
                self.underlying_buffer_shape(),
                other.underlying_buffer_shape(),
            );
            return a.equal_with(b, &ShapeEqual::default());
        }
        match (self, other) {
            (Shape::Array(a), Shape::Array(b)) => a.equal_with(b, o),
            (Shape::Array(_), _) => false,
            _ => self.element_type() == other.element_type(),
        }
    }
}

impl Shape {
    fn underlying_buffer_shape(&self) -> &Shape {
        match self {
            Shape::Buffer(b) => b,
            other => other,
        }
    }
}

impl PartialEq for Shape {
    /// XLA's `Shape::operator==` (`Shape::Equal()` with default options).
    fn eq(&self, other: &Self) -> bool {
        self.equal_with(other, &ShapeEqual::default())
    }
}

impl Eq for Shape {}

impl PartialEq for ArrayShape {
    /// XLA's `Shape::operator==` on arrays.
    fn eq(&self, other: &Self) -> bool {
        self.equal_with(other, &ShapeEqual::default())
    }
}

impl Eq for ArrayShape {}

impl std::hash::Hash for ArrayShape {
    /// Hashes what the default equality compares (element type,
    /// dimensions, dynamic flags, the layout as [`Layout`] hashes it), so
    /// equal arrays hash equally, as XLA's `AbslHashValue(Shape)` does.
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.element_type.hash(state);
        self.dimensions.hash(state);
        self.dynamic.hash(state);
        self.layout.hash(state);
    }
}

impl std::hash::Hash for Shape {
    /// Consistent with `Shape`'s `Eq` (XLA's `Shape::operator==`).
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.element_type().hash(state);
        match self {
            Shape::Array(a) => a.hash(state),
            Shape::Tuple(elements) => elements.hash(state),
            Shape::Buffer(inner) => inner.hash(state),
            Shape::Token | Shape::Opaque => {}
        }
    }
}

impl TryFrom<Shape> for ArrayShape {
    type Error = Error;

    /// The array inside `shape`.
    ///
    /// # Errors
    ///
    /// [`InvalidArgument`](crate::ErrorKind::InvalidArgument) for a tuple,
    /// buffer, token or opaque shape.
    fn try_from(shape: Shape) -> Result<ArrayShape> {
        match shape {
            Shape::Array(a) => Ok(a),
            other => Err(Error::invalid_argument(format!(
                "{other} is not an array shape"
            ))),
        }
    }
}

impl From<ArrayShape> for Shape {
    fn from(a: ArrayShape) -> Self {
        Shape::Array(a)
    }
}

/// The options of XLA's `Shape::Equal`: what to leave out of a comparison.
///
/// ```
/// use xla_shape::{ArrayShape, PrimitiveType, Shape, ShapeEqual};
/// let a = Shape::from(ArrayShape::new(PrimitiveType::F32, [4, 3]).unwrap());
/// let b = Shape::from(ArrayShape::new(PrimitiveType::F16, [4, 3]).unwrap());
/// assert!(a.equal_with(&b, &ShapeEqual::default().ignore_fp_precision()));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ShapeEqual {
    ignore_layout: bool,
    ignore_tiles_in_layout: bool,
    ignore_element_size_in_layout: bool,
    ignore_memory_space_in_layout: bool,
    ignore_tail_padding_alignment_in_elements_in_layout: bool,
    ignore_split_config_in_layout: bool,
    ignore_element_type: bool,
    ignore_fp_precision: bool,
    ignore_dynamic_dimension: bool,
    ignore_dimensions: bool,
    ignore_buffer: bool,
}

equal_options! { ShapeEqual {
    /// XLA's `IgnoreLayout`.
    ignore_layout;
    /// XLA's `IgnoreTilesInLayout`.
    ignore_tiles_in_layout;
    /// XLA's `IgnoreElementSizeInLayout`.
    ignore_element_size_in_layout;
    /// XLA's `IgnoreMemorySpaceInLayout`.
    ignore_memory_space_in_layout;
    /// XLA's `IgnoreTailPaddingAlignmentInElements`.
    ignore_tail_padding_alignment_in_elements_in_layout;
    /// XLA's `IgnoreSplitConfigInLayout`.
    ignore_split_config_in_layout;
    /// XLA's `IgnoreElementType`.
    ignore_element_type;
    /// XLA's `IgnoreFpPrecision`: any two floating types compare equal.
    ignore_fp_precision;
    /// XLA's `IgnoreDynamicDimension`: dynamic flags are not compared, and
    /// a dimension unbounded on either side matches any size.
    ignore_dynamic_dimension;
    /// XLA's `IgnoreDimensions` (ranks must still match).
    ignore_dimensions;
    /// XLA's `IgnoreBuffer`: a buffer compares as the array inside it.
    ignore_buffer;
} }

impl ShapeEqual {
    /// XLA's `MinorToMajorOnlyInLayout`: ignores tiles, element size, memory
    /// space, tail padding and split configs of layouts.
    pub fn minor_to_major_only_in_layout(self) -> Self {
        self.ignore_tiles_in_layout()
            .ignore_element_size_in_layout()
            .ignore_memory_space_in_layout()
            .ignore_tail_padding_alignment_in_elements_in_layout()
            .ignore_split_config_in_layout()
    }

    fn layout_options(&self) -> LayoutEqual {
        let mut l = LayoutEqual::default();
        if self.ignore_tiles_in_layout {
            l = l.ignore_tiles();
        }
        if self.ignore_element_size_in_layout {
            l = l.ignore_element_size();
        }
        if self.ignore_memory_space_in_layout {
            l = l.ignore_memory_space();
        }
        if self.ignore_tail_padding_alignment_in_elements_in_layout {
            l = l.ignore_tail_padding_alignment_in_elements();
        }
        if self.ignore_split_config_in_layout {
            l = l.ignore_split_configs();
        }
        l
    }
}
