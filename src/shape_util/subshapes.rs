//! Subshapes and traversal (xla/shape_util.h): tuple elements addressed by
//! [`ShapeIndex`], visited depth first.

use crate::error::{Error, Result};
use crate::model::{ArrayShape, Shape, ShapeIndex};

/// XLA's `ShapeUtil::IndexedShape`: a subshape and where it is.
#[derive(Clone, Debug, PartialEq, Eq)]
#[doc(alias = "ShapeUtil::IndexedShape")]
pub struct IndexedShape {
    /// The path to the subshape.
    pub index: ShapeIndex,
    /// A copy of the subshape.
    pub shape: Shape,
}

/// XLA's `ShapeUtil::IndexIsValid`: every step of `index` is an element
/// number of a tuple.
///
/// ```
/// use xla_shape::{Shape, shape_util};
/// let t: Shape = "(f32[2], (s32[], pred[3]))".parse()?;
/// assert!(shape_util::index_is_valid(&t, &[1, 0]));
/// assert!(!shape_util::index_is_valid(&t, &[2]));
/// assert!(shape_util::is_leaf_index(&t, &[1, 1]));
/// assert_eq!(shape_util::get_leaf_count(&t), 3);
/// // The tuple, its two elements and the two inside the second.
/// assert_eq!(shape_util::subshape_count(&t), 5);
/// # Ok::<(), xla_shape::Error>(())
/// ```
#[doc(alias = "ShapeUtil::IndexIsValid")]
pub fn index_is_valid(shape: &Shape, index: &[i64]) -> bool {
    try_get_subshape(shape, index).is_ok()
}

/// XLA's `ShapeUtil::GetSubshape`: the subshape at `index` (`{}` is the
/// shape itself).
///
/// ```
/// use xla_shape::{PrimitiveType as T, shape_util};
/// let a: xla_shape::Shape = shape_util::make_shape(T::F32, &[2]).into();
/// let t = shape_util::make_tuple_shape(vec![a.clone(), shape_util::make_tuple_shape(vec![a.clone()])]);
/// assert_eq!(shape_util::get_subshape(&t, &[1, 0]), &a);
/// ```
///
/// # Panics
///
/// If a step of `index` is taken into a non-tuple (XLA's `CHECK`) or is
/// not an element number (XLA reads out of bounds); use
/// [`try_get_subshape`] for indices from outside.
#[doc(alias = "ShapeUtil::GetSubshape")]
#[track_caller]
pub fn get_subshape<'a>(shape: &'a Shape, index: &[i64]) -> &'a Shape {
    match try_get_subshape(shape, index) {
        Ok(s) => s,
        Err(_) => panic!(
            "Invalid index {} for shape {shape}",
            ShapeIndex::from(index)
        ),
    }
}

/// XLA's `ShapeUtil::TryGetSubshape`.
///
/// # Errors
///
/// `Shape index {0,0} not a valid subshape index for tuple with shape ...`.
#[doc(alias = "ShapeUtil::TryGetSubshape")]
pub fn try_get_subshape<'a>(shape: &'a Shape, index: &[i64]) -> Result<&'a Shape> {
    let mut s = shape;
    for &i in index {
        s = s
            .tuple_shapes()
            .and_then(|e| usize::try_from(i).ok().and_then(|i| e.get(i)))
            .ok_or_else(|| invalid_index(shape, index))?;
    }
    Ok(s)
}

#[cold]
fn invalid_index(shape: &Shape, index: &[i64]) -> Error {
    Error::invalid_argument(format!(
        "Shape index {} not a valid subshape index for tuple with shape {shape}",
        ShapeIndex::from(index)
    ))
}

/// XLA's `ShapeUtil::GetMutableSubshape`. Whatever is written through the
/// reference is a valid [`Shape`], so the whole stays valid.
///
/// # Panics
///
/// As [`get_subshape`].
#[doc(alias = "ShapeUtil::GetMutableSubshape")]
#[track_caller]
pub fn get_mutable_subshape<'a>(shape: &'a mut Shape, index: &[i64]) -> &'a mut Shape {
    if !index_is_valid(shape, index) {
        panic!(
            "Invalid index {} for shape {shape}",
            ShapeIndex::from(index)
        );
    }
    let mut s = shape;
    for &i in index {
        s = match s {
            Shape::Tuple(e) => &mut e[i as usize],
            _ => unreachable!("checked by index_is_valid"),
        };
    }
    s
}

/// XLA's `ShapeUtil::IsLeafIndex`: the subshape at `index` is not a tuple
/// (an empty tuple is not a leaf).
///
/// # Panics
///
/// As [`get_subshape`].
#[doc(alias = "ShapeUtil::IsLeafIndex")]
#[track_caller]
pub fn is_leaf_index(shape: &Shape, index: &[i64]) -> bool {
    !get_subshape(shape, index).is_tuple()
}

/// XLA's `ShapeUtil::GetLeafCount`: 1 for a non-tuple; for a tuple, the
/// leaves of its elements (an empty tuple has none).
#[doc(alias = "ShapeUtil::GetLeafCount")]
#[doc(alias = "xla_client.Shape.leaf_count")]
pub fn get_leaf_count(shape: &Shape) -> i64 {
    match shape {
        Shape::Tuple(e) => e.iter().map(get_leaf_count).sum(),
        _ => 1,
    }
}

/// XLA's `ShapeUtil::GetLeafCountTuple`: [`get_leaf_count`] of a tuple.
///
/// # Errors
///
/// `shape` is not a tuple (XLA `DCHECK`s).
#[doc(alias = "ShapeUtil::GetLeafCountTuple")]
pub fn get_leaf_count_tuple(shape: &Shape) -> Result<i64> {
    if !shape.is_tuple() {
        return Err(Error::invalid_argument(format!(
            "expected a tuple shape, got {shape}"
        )));
    }
    Ok(get_leaf_count(shape))
}

/// XLA's `ShapeUtil::GetLeafShapes`: every leaf with its index, in the
/// order of [`for_each_subshape`].
#[doc(alias = "ShapeUtil::GetLeafShapes")]
pub fn get_leaf_shapes(shape: &Shape) -> Vec<IndexedShape> {
    let mut leaves = Vec::new();
    for_each_leaf_shape(shape, |s, index| {
        leaves.push(IndexedShape {
            index: index.clone(),
            shape: s.clone(),
        })
    });
    leaves
}

/// XLA's `ShapeUtil::SubshapeCount`: the number of subshapes
/// [`for_each_subshape`] visits (the shape itself included).
#[doc(alias = "ShapeUtil::SubshapeCount")]
pub fn subshape_count(shape: &Shape) -> i64 {
    match shape {
        Shape::Tuple(e) => 1 + e.iter().map(subshape_count).sum::<i64>(),
        _ => 1,
    }
}

fn pre_order<E>(
    shape: &Shape,
    index: &mut ShapeIndex,
    f: &mut impl FnMut(&Shape, &ShapeIndex) -> std::result::Result<(), E>,
) -> std::result::Result<(), E> {
    f(shape, index)?;
    if let Shape::Tuple(elements) = shape {
        for (i, e) in elements.iter().enumerate() {
            index.push(i as i64);
            let r = pre_order(e, index, f);
            index.pop();
            r?;
        }
    }
    Ok(())
}

fn pre_order_mut<E>(
    shape: &mut Shape,
    index: &mut ShapeIndex,
    f: &mut impl FnMut(&mut Shape, &ShapeIndex) -> std::result::Result<(), E>,
) -> std::result::Result<(), E> {
    f(shape, index)?;
    if let Shape::Tuple(elements) = shape {
        for (i, e) in elements.iter_mut().enumerate() {
            index.push(i as i64);
            let r = pre_order_mut(e, index, f);
            index.pop();
            r?;
        }
    }
    Ok(())
}

fn post_order<E>(
    shape: &Shape,
    index: &mut ShapeIndex,
    f: &mut impl FnMut(&Shape, &ShapeIndex) -> std::result::Result<(), E>,
) -> std::result::Result<(), E> {
    if let Shape::Tuple(elements) = shape {
        for (i, e) in elements.iter().enumerate() {
            index.push(i as i64);
            let r = post_order(e, index, f);
            index.pop();
            r?;
        }
    }
    f(shape, index)
}

fn post_order_mut<E>(
    shape: &mut Shape,
    index: &mut ShapeIndex,
    f: &mut impl FnMut(&mut Shape, &ShapeIndex) -> std::result::Result<(), E>,
) -> std::result::Result<(), E> {
    if let Shape::Tuple(elements) = shape {
        for (i, e) in elements.iter_mut().enumerate() {
            index.push(i as i64);
            let r = post_order_mut(e, index, f);
            index.pop();
            r?;
        }
    }
    f(shape, index)
}

/// XLA's `ShapeUtil::ForEachSubshape`: calls `f` on every subshape and its
/// index, depth first, each node before its elements (pre-order), the
/// shape itself first with index `{}`.
///
/// ```
/// use xla_shape::{PrimitiveType as T, Shape, shape_util};
/// let a: Shape = shape_util::make_shape(T::F32, &[2]).into();
/// let t = shape_util::make_tuple_shape(vec![a.clone(), shape_util::make_tuple_shape(vec![a])]);
/// let mut seen = Vec::new();
/// shape_util::for_each_subshape(&t, |_, index| seen.push(index.to_string()));
/// assert_eq!(seen, ["{}", "{0}", "{1}", "{1,0}"]);
/// ```
#[doc(alias = "ShapeUtil::ForEachSubshape")]
pub fn for_each_subshape(shape: &Shape, mut f: impl FnMut(&Shape, &ShapeIndex)) {
    let _ = pre_order::<()>(shape, &mut ShapeIndex::new(), &mut |s, i| {
        f(s, i);
        Ok(())
    });
}

/// XLA's `ShapeUtil::ForEachMutableSubshape`: as [`for_each_subshape`],
/// with mutable access. A node's elements are visited as they are after
/// `f` has seen the node.
#[doc(alias = "ShapeUtil::ForEachMutableSubshape")]
pub fn for_each_mutable_subshape(shape: &mut Shape, mut f: impl FnMut(&mut Shape, &ShapeIndex)) {
    let _ = pre_order_mut::<()>(shape, &mut ShapeIndex::new(), &mut |s, i| {
        f(s, i);
        Ok(())
    });
}

/// XLA's `ShapeUtil::ForEachSubshapeWithStatus`: as [`for_each_subshape`],
/// stopping at the first error `f` returns, which is returned.
///
/// # Errors
///
/// The first error of `f`.
#[doc(alias = "ShapeUtil::ForEachSubshapeWithStatus")]
pub fn for_each_subshape_with_status<E>(
    shape: &Shape,
    mut f: impl FnMut(&Shape, &ShapeIndex) -> std::result::Result<(), E>,
) -> std::result::Result<(), E> {
    pre_order(shape, &mut ShapeIndex::new(), &mut f)
}

/// XLA's `ShapeUtil::ForEachMutableSubshapeWithStatus`.
///
/// # Errors
///
/// The first error of `f`.
#[doc(alias = "ShapeUtil::ForEachMutableSubshapeWithStatus")]
pub fn for_each_mutable_subshape_with_status<E>(
    shape: &mut Shape,
    mut f: impl FnMut(&mut Shape, &ShapeIndex) -> std::result::Result<(), E>,
) -> std::result::Result<(), E> {
    pre_order_mut(shape, &mut ShapeIndex::new(), &mut f)
}

/// XLA's `ShapeUtil::ForEachSubshapePostOrder`: elements before their
/// tuple, the shape itself last.
#[doc(alias = "ShapeUtil::ForEachSubshapePostOrder")]
pub fn for_each_subshape_post_order(shape: &Shape, mut f: impl FnMut(&Shape, &ShapeIndex)) {
    let _ = post_order::<()>(shape, &mut ShapeIndex::new(), &mut |s, i| {
        f(s, i);
        Ok(())
    });
}

/// XLA's `ShapeUtil::ForEachMutableSubshapePostOrder`.
#[doc(alias = "ShapeUtil::ForEachMutableSubshapePostOrder")]
pub fn for_each_mutable_subshape_post_order(
    shape: &mut Shape,
    mut f: impl FnMut(&mut Shape, &ShapeIndex),
) {
    let _ = post_order_mut::<()>(shape, &mut ShapeIndex::new(), &mut |s, i| {
        f(s, i);
        Ok(())
    });
}

/// XLA's `ShapeUtil::ForEachSubshapePostOrderWithStatus`.
///
/// # Errors
///
/// The first error of `f`.
#[doc(alias = "ShapeUtil::ForEachSubshapePostOrderWithStatus")]
pub fn for_each_subshape_post_order_with_status<E>(
    shape: &Shape,
    mut f: impl FnMut(&Shape, &ShapeIndex) -> std::result::Result<(), E>,
) -> std::result::Result<(), E> {
    post_order(shape, &mut ShapeIndex::new(), &mut f)
}

/// XLA's `ShapeUtil::ForEachMutableSubshapePostOrderWithStatus`.
///
/// # Errors
///
/// The first error of `f`.
#[doc(alias = "ShapeUtil::ForEachMutableSubshapePostOrderWithStatus")]
pub fn for_each_mutable_subshape_post_order_with_status<E>(
    shape: &mut Shape,
    mut f: impl FnMut(&mut Shape, &ShapeIndex) -> std::result::Result<(), E>,
) -> std::result::Result<(), E> {
    post_order_mut(shape, &mut ShapeIndex::new(), &mut f)
}

/// XLA's `ShapeUtil::ForEachLeafShape`: [`for_each_subshape`] restricted
/// to the leaves (non-tuples).
///
/// ```
/// use xla_shape::{Shape, shape_util};
/// let t: Shape = "(f32[2], (s32[], pred[3]))".parse()?;
/// let mut leaves = Vec::new();
/// shape_util::for_each_leaf_shape(&t, |s, index| leaves.push(format!("{index} {s}")));
/// assert_eq!(leaves, ["{0} f32[2]{0}", "{1,0} s32[]", "{1,1} pred[3]{0}"]);
/// let flat: Vec<String> = shape_util::flatten_tuple_shape(&t).iter().map(|s| s.to_string()).collect();
/// assert_eq!(flat, ["f32[2]{0}", "s32[]", "pred[3]{0}"]);
/// # Ok::<(), xla_shape::Error>(())
/// ```
#[doc(alias = "ShapeUtil::ForEachLeafShape")]
pub fn for_each_leaf_shape(shape: &Shape, mut f: impl FnMut(&Shape, &ShapeIndex)) {
    for_each_subshape(shape, |s, i| {
        if !s.is_tuple() {
            f(s, i)
        }
    });
}

/// XLA's `ShapeUtil::ForEachMutableLeafShape`.
#[doc(alias = "ShapeUtil::ForEachMutableLeafShape")]
pub fn for_each_mutable_leaf_shape(shape: &mut Shape, mut f: impl FnMut(&mut Shape, &ShapeIndex)) {
    for_each_mutable_subshape(shape, |s, i| {
        if !s.is_tuple() {
            f(s, i)
        }
    });
}

/// XLA's `ShapeUtil::ForEachLeafShapeWithStatus`.
///
/// # Errors
///
/// The first error of `f`.
#[doc(alias = "ShapeUtil::ForEachLeafShapeWithStatus")]
pub fn for_each_leaf_shape_with_status<E>(
    shape: &Shape,
    mut f: impl FnMut(&Shape, &ShapeIndex) -> std::result::Result<(), E>,
) -> std::result::Result<(), E> {
    for_each_subshape_with_status(shape, |s, i| if s.is_tuple() { Ok(()) } else { f(s, i) })
}

/// XLA's `ShapeUtil::ForEachMutableLeafShapeWithStatus`.
///
/// # Errors
///
/// The first error of `f`.
#[doc(alias = "ShapeUtil::ForEachMutableLeafShapeWithStatus")]
pub fn for_each_mutable_leaf_shape_with_status<E>(
    shape: &mut Shape,
    mut f: impl FnMut(&mut Shape, &ShapeIndex) -> std::result::Result<(), E>,
) -> std::result::Result<(), E> {
    for_each_mutable_subshape_with_status(shape, |s, i| if s.is_tuple() { Ok(()) } else { f(s, i) })
}

/// XLA's `ShapeUtil::FlattenTupleShape`: the leaves in order (empty tuples
/// vanish). Upstream's overload that appends to a vector is
/// `v.extend(flatten_tuple_shape(s))`.
#[doc(alias = "ShapeUtil::FlattenTupleShape")]
pub fn flatten_tuple_shape(shape: &Shape) -> Vec<&Shape> {
    fn go<'a>(s: &'a Shape, out: &mut Vec<&'a Shape>) {
        match s {
            Shape::Tuple(e) => e.iter().for_each(|x| go(x, out)),
            other => out.push(other),
        }
    }
    let mut out = Vec::new();
    go(shape, &mut out);
    out
}

/// XLA's `ShapeUtil::UpdateTupleShape`: replaces element `index` of
/// `tuple_shape` with `shape`.
///
/// # Errors
///
/// `tuple_shape` is not a tuple.
///
/// # Panics
///
/// If `index` is not less than the element count (XLA `CHECK`-fails).
#[doc(alias = "ShapeUtil::UpdateTupleShape")]
pub fn update_tuple_shape(shape: &Shape, index: usize, tuple_shape: &mut Shape) -> Result<()> {
    match tuple_shape {
        Shape::Tuple(e) => {
            assert!(
                index < e.len(),
                "tuple element {index} is out of range for a tuple of {}",
                e.len()
            );
            e[index] = shape.clone();
            Ok(())
        }
        other => Err(Error::invalid_argument(format!(
            "expected a tuple shape, got {other}"
        ))),
    }
}

/// XLA's `ShapeUtil::AppendShapeToTuple`: appends a copy of `shape`.
///
/// # Errors
///
/// `tuple_shape` is not a tuple.
///
/// ```
/// use xla_shape::{Shape, shape_util};
/// let mut t: Shape = "(f32[2])".parse()?;
/// shape_util::append_shape_to_tuple(&shape_util::make_token_shape(), &mut t)?;
/// assert_eq!(t.to_string(), "(f32[2]{0}, token[])");
/// shape_util::update_tuple_shape(&"s8[]".parse()?, 0, &mut t)?;
/// assert_eq!(t.to_string(), "(s8[], token[])");
/// # Ok::<(), xla_shape::Error>(())
/// ```
#[doc(alias = "ShapeUtil::AppendShapeToTuple")]
pub fn append_shape_to_tuple(shape: &Shape, tuple_shape: &mut Shape) -> Result<()> {
    match tuple_shape {
        Shape::Tuple(e) => {
            e.push(shape.clone());
            Ok(())
        }
        other => Err(Error::invalid_argument(format!(
            "expected a tuple shape, got {other}"
        ))),
    }
}

/// XLA's `ShapeUtil::UpdateDynamicDimension`: sets the dynamic flag of
/// dimension `dim` of the array at `index`.
///
/// # Errors
///
/// `index` is not a valid index, or leads to a non-array; or the dimension
/// is unbounded and `is_dynamic` is false (XLA `CHECK`-fails on each).
///
/// # Panics
///
/// If `dim` is not a dimension of that array.
#[doc(alias = "ShapeUtil::UpdateDynamicDimension")]
pub fn update_dynamic_dimension(
    shape: &mut Shape,
    index: &[i64],
    dim: usize,
    is_dynamic: bool,
) -> Result<()> {
    if !index_is_valid(shape, index) {
        return Err(invalid_index(shape, index));
    }
    match get_mutable_subshape(shape, index) {
        Shape::Array(a) => set_dynamic_dimension(a, dim, is_dynamic),
        other => Err(Error::invalid_argument(format!(
            "UpdateDynamicDimension: {other} is not an array"
        ))),
    }
}

/// `Shape::set_dynamic_dimension`, which XLA `CHECK`s keeps the size valid.
pub(super) fn set_dynamic_dimension(
    a: &mut ArrayShape,
    dim: usize,
    is_dynamic: bool,
) -> Result<()> {
    assert!(dim < a.rank(), "dimension {dim} is out of range for {a}");
    if !is_dynamic && a.dimensions[dim] == ArrayShape::UNBOUNDED_SIZE {
        return Err(Error::invalid_argument(format!(
            "Invalid dimension size {}, is_dynamic=false (dimension {dim} of {a})",
            ArrayShape::UNBOUNDED_SIZE
        )));
    }
    a.dynamic[dim] = is_dynamic;
    Ok(())
}
