//! Reshape, transpose and bitcast algorithms (xla/shape_util.cc): when does a
//! reshape or transpose leave every element where it is, and how to choose
//! a layout so that it does.

use super::surgery::{compose_permutations, inverse_permutation};
use super::{elements_in, has_degenerate_dimensions};
use crate::error::{Error, Result};
use crate::index_util;
use crate::layout_util::require_layout;
use crate::model::{ArrayShape, Layout, ShapeEqual};

/// XLA's `CommonFactors(a, b)` (xla/util.h): boundaries `(i, j)` of the
/// shortest consecutive groups of `a` and `b` with equal products, the last
/// being `(a.len(), b.len())`.
///
/// Where XLA `CHECK`s that the products are equal, unequal products give
/// the one group `[(0, 0), (a.len(), b.len())]` (what its own code returns
/// when only the tails differ).
pub(crate) fn common_factors(a: &[i64], b: &[i64]) -> Vec<(usize, usize)> {
    let product = |x: &[i64]| x.iter().fold(1i64, |p, &d| p.wrapping_mul(d));
    let whole = || vec![(0, 0), (a.len(), b.len())];
    if a == b {
        return (0..=a.len()).map(|i| (i, i)).collect();
    }
    let mut bounds = Vec::new();
    let (mut i, mut j) = (0usize, 0usize);
    let (mut prior_i, mut prior_j) = (None::<usize>, None::<usize>);
    while i < a.len() && j < b.len() && a[i] == b[j] {
        (prior_i, prior_j) = (Some(i), Some(j));
        bounds.push((i, j));
        i += 1;
        j += 1;
    }
    let (tail_a, tail_b) = (product(&a[i..]), product(&b[j..]));
    if tail_a != tail_b {
        return whole();
    }
    if tail_a == 0 {
        bounds.push((i, j));
        bounds.push((a.len(), b.len()));
        return bounds;
    }
    let (mut pa, mut pb) = (1i64, 1i64);
    loop {
        let advanced = prior_i.is_none_or(|p| i > p) || prior_j.is_none_or(|p| j > p);
        if pa == pb && advanced {
            (prior_i, prior_j) = (Some(i), Some(j));
            bounds.push((i, j));
            continue;
        }
        let (in_i, in_j) = (i < a.len(), j < b.len());
        if !(in_i || in_j) {
            break;
        }
        let next_a = pa < pb || (in_i && (!in_j || (pa == pb && a[i] <= b[j])));
        let next_b = pb < pa || (in_j && (!in_i || (pb == pa && b[j] <= a[i])));
        // With equal positive products neither side runs out first; other
        // inputs (unbounded sizes) would make XLA read out of bounds.
        if (next_a && !in_i) || (next_b && !in_j) {
            return whole();
        }
        if next_a {
            pa = pa.wrapping_mul(a[i]);
            i += 1;
        }
        if next_b {
            pb = pb.wrapping_mul(b[j]);
            j += 1;
        }
    }
    bounds
}

/// XLA's `ShapeUtil::ShapeEqualityDescriptor`: how to go from one shape to
/// another by deleting and inserting dimensions of size 1.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[doc(alias = "ShapeUtil::ShapeEqualityDescriptor")]
pub struct ShapeEqualityDescriptor {
    /// Dimensions of the first shape that are deleted.
    pub deleted_dimensions: Vec<i64>,
    /// Dimensions of the second shape that are inserted.
    pub inserted_dimensions: Vec<i64>,
}

/// XLA's `ShapeUtil::InsertedOrDeleted1SizedDimensions`: if `shape_post`
/// is `shape_pre` with dimensions of size 1 (or 0, as upstream) deleted
/// and inserted, which ones.
///
/// ```
/// use xla_shape::{PrimitiveType as T, shape_util};
/// // ShapeUtilTest.InsertedOrDeleted1SizedDimensions
/// let d = shape_util::inserted_or_deleted_1_sized_dimensions(
///     &shape_util::make_shape(T::S32, &[9, 1, 4]),
///     &shape_util::make_shape(T::S32, &[1, 9, 4, 1]),
/// ).unwrap();
/// assert_eq!((d.deleted_dimensions, d.inserted_dimensions), (vec![1], vec![0, 3]));
/// ```
#[doc(alias = "ShapeUtil::InsertedOrDeleted1SizedDimensions")]
pub fn inserted_or_deleted_1_sized_dimensions(
    shape_pre: &ArrayShape,
    shape_post: &ArrayShape,
) -> Option<ShapeEqualityDescriptor> {
    let mut result = ShapeEqualityDescriptor::default();
    let unmodified = dimensions_unmodified_by_reshape(shape_pre, shape_post);
    let ends = (shape_pre.rank() as i64, shape_post.rank() as i64);
    let mut prior = (-1i64, -1i64);
    for &pair in unmodified.iter().chain(std::iter::once(&ends)) {
        for d in prior.0 + 1..pair.0 {
            if shape_pre.dimensions()[d as usize] > 1 {
                return None;
            }
            result.deleted_dimensions.push(d);
        }
        for d in prior.1 + 1..pair.1 {
            if shape_post.dimensions()[d as usize] > 1 {
                return None;
            }
            result.inserted_dimensions.push(d);
        }
        prior = pair;
    }
    Some(result)
}

/// XLA's `ShapeUtil::DimensionsUnmodifiedByReshape`: the pairs (input
/// dimension, output dimension) that a reshape from `input` to `output`
/// maps one to one (groups of one dimension on each side in XLA's
/// `CommonFactors`), sorted.
///
/// ```
/// use xla_shape::{PrimitiveType as T, shape_util};
/// // The example in xla/shape_util.h: T[a,b,x,y,cd] -> T[ab,x,1,y,c,d]
/// let pairs = shape_util::dimensions_unmodified_by_reshape(
///     &shape_util::make_shape(T::F32, &[2, 3, 5, 7, 30]),
///     &shape_util::make_shape(T::F32, &[6, 5, 1, 7, 5, 6]),
/// );
/// assert_eq!(pairs, [(2, 1), (3, 3)]);
/// ```
#[doc(alias = "ShapeUtil::DimensionsUnmodifiedByReshape")]
pub fn dimensions_unmodified_by_reshape(
    input: &ArrayShape,
    output: &ArrayShape,
) -> Vec<(i64, i64)> {
    let factors = common_factors(input.dimensions(), output.dimensions());
    factors
        .windows(2)
        .filter(|w| w[1].0 - w[0].0 == 1 && w[1].1 - w[0].1 == 1)
        .map(|w| (w[0].0 as i64, w[0].1 as i64))
        .collect()
}

/// XLA's `ShapeUtil::ReshapeLeavesDimensionsUnmodified`: the output
/// dimensions of `input_dims` if the reshape leaves each of them
/// unmodified; `None` if one is modified or `input_dims` is not sorted.
#[doc(alias = "ShapeUtil::ReshapeLeavesDimensionsUnmodified")]
pub fn reshape_leaves_dimensions_unmodified(
    from: &ArrayShape,
    to: &ArrayShape,
    input_dims: &[i64],
) -> Option<Vec<i64>> {
    if !input_dims.windows(2).all(|w| w[0] <= w[1]) {
        return None;
    }
    let unmodified = dimensions_unmodified_by_reshape(from, to);
    let mut i = 0;
    let mut output = Vec::with_capacity(input_dims.len());
    for &d in input_dims {
        while i < unmodified.len() && unmodified[i].0 < d {
            i += 1;
        }
        if i >= unmodified.len() || unmodified[i].0 != d {
            return None;
        }
        output.push(unmodified[i].1);
    }
    Some(output)
}

/// XLA's `ShapeUtil::TransposeIsBitcast`: whether the transpose of `input`
/// to `output` with `dimension_mapping` (`output.dims[i] =
/// input.dims[mapping[i]]`) leaves every element where it is, i.e.
/// `mapping ∘ output.minor_to_major == input.minor_to_major`. Only
/// `minor_to_major` is compared (tiles are ignored), as upstream.
///
/// # Errors
///
/// Either shape has no layout (XLA `CHECK`-fails).
///
/// # Panics
///
/// If `dimension_mapping` does not have one entry per dimension of
/// `output`, or an entry is not a dimension.
#[doc(alias = "ShapeUtil::TransposeIsBitcast")]
#[track_caller]
pub fn transpose_is_bitcast(
    input: &ArrayShape,
    output: &ArrayShape,
    dimension_mapping: &[i64],
    ignore_element_type: bool,
) -> Result<bool> {
    let (input_layout, output_layout) = (require_layout(input)?, require_layout(output)?);
    if !ignore_element_type && input.element_type() != output.element_type() {
        return Ok(false);
    }
    Ok(
        compose_permutations(dimension_mapping, output_layout.minor_to_major())
            == input_layout.minor_to_major(),
    )
}

/// One direction of XLA's `ReshapeIsBitcast` test: every unit index of
/// `input` (1 in one dimension of size > 1, 0 elsewhere) and the index of
/// `output` at the same row-major position are at the same physical
/// position.
fn unit_indices_agree(input: &ArrayShape, output: &ArrayShape) -> Result<bool> {
    let (di, dout) = (input.dimensions(), output.dimensions());
    let mut unit = vec![0i64; di.len()];
    let mut out_index = vec![0i64; dout.len()];
    for k in 0..di.len() {
        if di[k] <= 1 {
            continue;
        }
        // Row-major position of the unit index: the product of the
        // dimensions after k (less than the element count).
        let logical: i64 = di[k + 1..].iter().product();
        let mut rest = logical;
        for (j, &d) in dout.iter().enumerate().rev() {
            out_index[j] = rest % d;
            rest /= d;
        }
        unit[k] = 1;
        let a = index_util::multidimensional_index_to_linear_index(input, &unit)?;
        unit[k] = 0;
        let b = index_util::multidimensional_index_to_linear_index(output, &out_index)?;
        if a != b {
            return Ok(false);
        }
    }
    Ok(true)
}

/// XLA's `ShapeUtil::ReshapeIsBitcast`: whether reshaping `input` into
/// `output` (row-major, as HLO's reshape does) leaves every element where
/// it is, given both layouts (tiles ignored). Shapes of different element
/// counts never are; two empty shapes always are.
///
/// ```
/// use xla_shape::{PrimitiveType as T, shape_util};
/// // ShapeUtilTest.ReshapeIsBitcast_3x2x2_6x2_Dim1IsMostMinor
/// let a = shape_util::make_shape_with_dense_layout(T::F32, &[3, 2, 2], &[1, 0, 2]);
/// let b = shape_util::make_shape_with_dense_layout(T::F32, &[6, 2], &[0, 1]);
/// assert!(shape_util::reshape_is_bitcast(&a, &b, false)?);
/// # Ok::<(), xla_shape::Error>(())
/// ```
///
/// # Errors
///
/// Either shape has no layout (XLA `CHECK`-fails), or has an unbounded
/// dimension.
#[doc(alias = "ShapeUtil::ReshapeIsBitcast")]
pub fn reshape_is_bitcast(
    input: &ArrayShape,
    output: &ArrayShape,
    ignore_element_type: bool,
) -> Result<bool> {
    require_layout(input)?;
    require_layout(output)?;
    if !ignore_element_type && input.element_type() != output.element_type() {
        return Ok(false);
    }
    let n = elements_in(input)?;
    if n != elements_in(output)? {
        return Ok(false);
    }
    if n == 0 {
        return Ok(true);
    }
    Ok(unit_indices_agree(input, output)? && unit_indices_agree(output, input)?)
}

/// XLA's `ShapeUtil::IsReshapeOrTransposeBitcast`: `a` and `b` are equal
/// (element types aside), or a reshape or a transpose from `a` to `b` is a
/// bitcast.
///
/// # Errors
///
/// A shape has no layout (where XLA `CHECK`-fails), or an unbounded
/// dimension.
#[doc(alias = "ShapeUtil::IsReshapeOrTransposeBitcast")]
pub fn is_reshape_or_transpose_bitcast(
    a: &ArrayShape,
    b: &ArrayShape,
    ignore_element_type: bool,
) -> Result<bool> {
    if !ignore_element_type && a.element_type() != b.element_type() {
        return Ok(false);
    }
    if a.equal_with(b, &ShapeEqual::default().ignore_element_type()) {
        return Ok(true);
    }
    if reshape_is_bitcast(a, b, true)? {
        return Ok(true);
    }
    match deduce_transpose_dimensions_for_bitcast(a, b)? {
        Some(dims) => transpose_is_bitcast(b, a, &dims, true),
        None => Ok(false),
    }
}

/// XLA's `ShapeUtil::DeduceTransposeDimensionsForBitcast`: if `output` is
/// a transpose of `input` that is a bitcast, the transpose's dimensions
/// (`input.minor_to_major ∘ inverse(output.minor_to_major)`); `None` if
/// the ranks differ or the dimensions do not match.
///
/// ```
/// use xla_shape::{PrimitiveType as T, shape_util};
/// // ShapeUtilTest.DeduceTransposeDimensionsForBitcast
/// let a = shape_util::make_shape_with_dense_layout(T::F32, &[5, 3], &[1, 0]);
/// let b = shape_util::make_shape_with_dense_layout(T::F32, &[3, 5], &[0, 1]);
/// assert_eq!(shape_util::deduce_transpose_dimensions_for_bitcast(&a, &b)?, Some(vec![1, 0]));
/// # Ok::<(), xla_shape::Error>(())
/// ```
///
/// # Errors
///
/// Either shape has no layout (XLA `CHECK`-fails).
#[doc(alias = "ShapeUtil::DeduceTransposeDimensionsForBitcast")]
pub fn deduce_transpose_dimensions_for_bitcast(
    input: &ArrayShape,
    output: &ArrayShape,
) -> Result<Option<Vec<i64>>> {
    let (li, lo) = (require_layout(input)?, require_layout(output)?);
    if input.rank() != output.rank() {
        return Ok(None);
    }
    let perm = compose_permutations(
        li.minor_to_major(),
        &inverse_permutation(lo.minor_to_major()),
    );
    let dims: Vec<i64> = perm
        .iter()
        .map(|&p| input.dimensions()[p as usize])
        .collect();
    Ok((dims == output.dimensions()).then_some(perm))
}

/// XLA's `ShapeUtil::BitcastDecompositionTrt`: a bitcast as transpose,
/// reshape, transpose.
#[derive(Clone, Debug, PartialEq, Eq)]
#[doc(alias = "ShapeUtil::BitcastDecompositionTrt")]
pub struct BitcastDecompositionTrt {
    /// Dimensions of the first transpose.
    pub transpose1_dims: Vec<i64>,
    /// The shape after the first transpose (descending layout).
    pub transpose1_shape: ArrayShape,
    /// The shape after the reshape (descending layout).
    pub reshape_shape: ArrayShape,
    /// Dimensions of the second transpose.
    pub transpose2_dims: Vec<i64>,
}

impl BitcastDecompositionTrt {
    /// XLA's `IsTranspose1Identity`: the first transpose's dimensions are
    /// sorted.
    #[doc(alias = "ShapeUtil::IsTranspose1Identity")]
    pub fn is_transpose1_identity(&self) -> bool {
        self.transpose1_dims.windows(2).all(|w| w[0] <= w[1])
    }

    /// XLA's `IsTranspose2Identity`.
    #[doc(alias = "ShapeUtil::IsTranspose2Identity")]
    pub fn is_transpose2_identity(&self) -> bool {
        self.transpose2_dims.windows(2).all(|w| w[0] <= w[1])
    }
}

/// XLA's `ShapeUtil::BitcastDecomposition`: the simplest form of a
/// bitcast.
#[derive(Clone, Debug, PartialEq, Eq)]
#[doc(alias = "ShapeUtil::BitcastDecomposition")]
pub enum BitcastDecomposition {
    /// A single reshape (XLA's `BitcastDecompositionReshape`).
    Reshape,
    /// A single transpose with these dimensions
    /// (`BitcastDecompositionTranspose`).
    Transpose(Vec<i64>),
    /// Transpose, reshape, transpose.
    Trt(Box<BitcastDecompositionTrt>),
}

fn reverse_iota(n: usize) -> Vec<i64> {
    (0..n as i64).rev().collect()
}

/// XLA's `ShapeUtil::DecomposeBitcastToTrt`: a bitcast from `input` to
/// `output` as a transpose to the descending layout, a reshape, and a
/// transpose to `output`'s layout.
///
/// # Errors
///
/// A shape has no layout, or `input` -> `output` is not a bitcast (XLA
/// `CHECK`-fails on both).
#[doc(alias = "ShapeUtil::DecomposeBitcastToTrt")]
pub fn decompose_bitcast_to_trt(
    input: &ArrayShape,
    output: &ArrayShape,
) -> Result<BitcastDecompositionTrt> {
    let (li, lo) = (require_layout(input)?, require_layout(output)?);
    let transpose1_shape =
        super::make_validated_shape_with_descending_layout_and_same_physical_layout(input)?;
    let reshape_shape =
        super::make_validated_shape_with_descending_layout_and_same_physical_layout(output)?;
    if !reshape_is_bitcast(&transpose1_shape, &reshape_shape, true)? {
        return Err(Error::invalid_argument(format!(
            "DecomposeBitcastToTrt: {input} -> {output} is not a bitcast"
        )));
    }
    Ok(BitcastDecompositionTrt {
        transpose1_dims: compose_permutations(li.minor_to_major(), &reverse_iota(input.rank())),
        transpose1_shape,
        reshape_shape,
        transpose2_dims: compose_permutations(
            &reverse_iota(output.rank()),
            &inverse_permutation(lo.minor_to_major()),
        ),
    })
}

/// XLA's `ShapeUtil::DecomposeBitcast`: a reshape if that is a bitcast,
/// else a transpose if one is, else [`decompose_bitcast_to_trt`].
///
/// ```
/// use xla_shape::{PrimitiveType as T, shape_util, shape_util::BitcastDecomposition};
/// // ShapeUtilTest.DecomposeBitcastToTranspose
/// let a = shape_util::make_shape_with_dense_layout(T::F32, &[3, 7, 6, 4], &[3, 2, 1, 0]);
/// let b = shape_util::make_shape_with_dense_layout(T::F32, &[3, 6, 4, 7], &[2, 1, 3, 0]);
/// assert_eq!(
///     shape_util::decompose_bitcast(&a, &b)?,
///     BitcastDecomposition::Transpose(vec![0, 2, 3, 1])
/// );
/// # Ok::<(), xla_shape::Error>(())
/// ```
///
/// # Errors
///
/// As [`decompose_bitcast_to_trt`].
#[doc(alias = "ShapeUtil::DecomposeBitcast")]
pub fn decompose_bitcast(input: &ArrayShape, output: &ArrayShape) -> Result<BitcastDecomposition> {
    if reshape_is_bitcast(input, output, true)? {
        return Ok(BitcastDecomposition::Reshape);
    }
    if let Some(dims) = deduce_transpose_dimensions_for_bitcast(input, output)? {
        return Ok(BitcastDecomposition::Transpose(dims));
    }
    Ok(BitcastDecomposition::Trt(Box::new(
        decompose_bitcast_to_trt(input, output)?,
    )))
}

/// XLA's `ShapeUtil::AlignLayouts`: a layout for `output` such that
/// reshaping `input` (whose layout is kept) into it is a bitcast, as
/// `output` with that layout; `None` if there is none.
///
/// Dimensions of size 1 are set aside and put back as the most major, in
/// descending order, with a plain `minor_to_major` layout; otherwise the
/// result is made by `MakeShapeWithDenseLayout`, so, as upstream, it has
/// only `minor_to_major` and the dynamic flags `make_shape` gives.
///
/// ```
/// use xla_shape::{PrimitiveType as T, shape_util};
/// // AlignmentTest.AlignLayoutsWithoutTrivialDimensions
/// let a = shape_util::make_shape_with_dense_layout(T::F32, &[3, 8, 5, 7, 11], &[3, 2, 1, 0, 4]);
/// let b = shape_util::make_shape(T::F32, &[4, 3, 2, 7, 5, 11]);
/// let aligned = shape_util::align_layouts(&a, &b)?.unwrap();
/// assert_eq!(aligned.to_string(), "f32[4,3,2,7,5,11]{4,3,2,1,0,5}");
/// # Ok::<(), xla_shape::Error>(())
/// ```
///
/// # Errors
///
/// `input` has no layout, the shapes differ in element count or element
/// type, or have an unbounded dimension (XLA `CHECK`-fails or reads out of
/// bounds).
#[doc(alias = "ShapeUtil::AlignLayouts")]
pub fn align_layouts(input: &ArrayShape, output: &ArrayShape) -> Result<Option<ArrayShape>> {
    if elements_in(input)? != elements_in(output)? || input.element_type() != output.element_type()
    {
        return Err(Error::invalid_argument(format!(
            "AlignLayouts: {input} cannot be reshaped into {output}"
        )));
    }
    if has_degenerate_dimensions(input) || has_degenerate_dimensions(output) {
        let simple = align_layouts(
            &super::drop_degenerate_dimensions(input)?,
            &super::drop_degenerate_dimensions(output)?,
        )?;
        let Some(simple) = simple else {
            return Ok(None);
        };
        let dim_map: Vec<i64> = (0..output.rank() as i64)
            .filter(|&i| output.dimensions()[i as usize] != 1)
            .collect();
        let mut mtm: Vec<i64> = simple
            .layout()
            .map(|l| {
                l.minor_to_major()
                    .iter()
                    .map(|&d| dim_map[d as usize])
                    .collect()
            })
            .unwrap_or_default();
        mtm.extend(
            (0..output.rank() as i64)
                .rev()
                .filter(|&i| output.dimensions()[i as usize] == 1),
        );
        return output.clone().with_layout(Some(Layout::new(mtm))).map(Some);
    }
    let in_mtm = require_layout(input)?.minor_to_major();
    let factors = common_factors(input.dimensions(), output.dimensions());
    let mut input_to_factor = vec![0usize; input.rank()];
    for (pos, w) in factors.windows(2).enumerate() {
        let (start, end) = (w[0].0, w[1].0);
        let Some(slot) = input_to_factor.get_mut(start) else {
            continue;
        };
        *slot = pos;
        let mut physical = in_mtm
            .iter()
            .position(|&d| d == start as i64)
            .unwrap_or(in_mtm.len()) as i64;
        for (i, slot) in input_to_factor
            .iter_mut()
            .enumerate()
            .take(end)
            .skip(start + 1)
        {
            physical -= 1;
            if physical < 0 || in_mtm[physical as usize] != i as i64 {
                return Ok(None);
            }
            *slot = pos;
        }
    }
    let mut output_layout = Vec::with_capacity(output.rank());
    let mut input_minor = 0usize;
    while output_layout.len() < output.rank() {
        let Some(&input_dim) = in_mtm.get(input_minor) else {
            return Ok(None);
        };
        let f = input_to_factor[input_dim as usize];
        let (start, end) = (factors[f], factors[f + 1]);
        output_layout.extend((start.1..end.1).rev().map(|d| d as i64));
        input_minor += end.0 - start.0;
    }
    let aligned = super::make_validated_shape_with_dense_layout(
        output.element_type(),
        output.dimensions(),
        &output_layout,
    )?;
    if !reshape_is_bitcast(input, &aligned, false)? {
        return Err(Error::invalid_argument(format!(
            "reshape is not a bitcast for input_shape: {input} and output_shape_with_layout: {aligned}"
        )));
    }
    Ok(Some(aligned))
}
