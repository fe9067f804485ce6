//! The `shape_util`, `layout_util`, `index_util` and `strides` submodules:
//! XLA's utilities under the names of the Rust modules.

use std::panic::{AssertUnwindSafe, catch_unwind};

use pyo3::prelude::*;
use pyo3::types::PyDict;
use xla_shape::{ArrayShape, index_util, layout_util, shape_util, strides};

use crate::errors::{IntoPyResult, invalid_argument};
use crate::types::{PyLayout, PyShape, as_array, element_type_from};

/// Runs a library function whose documented `# Panics` cover numbers the
/// caller supplies (a dimension number out of range, a permutation that is
/// not one): from Python such a number is input, so the panic becomes an
/// `InvalidArgumentError` carrying the library's message.
fn guard<T>(f: impl FnOnce() -> T) -> PyResult<T> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|payload| {
        let message = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or("invalid argument");
        invalid_argument(message.to_string())
    })
}

/// A NumPy view of the destination bytes of a relayout: the dtype of the
/// element type with the dimensions major to minor when the layout has no
/// tiles and the buffer holds exactly one dtype item per element, else the
/// bytes themselves.
pub fn typed_view<'py>(
    py: Python<'py>,
    np: &Bound<'py, PyModule>,
    bytes: &Bound<'py, PyAny>,
    shape: &ArrayShape,
) -> PyResult<Bound<'py, PyAny>> {
    let Some(layout) = shape.layout() else {
        return Ok(bytes.clone());
    };
    let Some(d) = xla_shape::interop::numpy::dtype(shape.element_type()) else {
        return Ok(bytes.clone());
    };
    let elements = shape_util::elements_in(shape).py()?;
    let size = xla_shape::tiling::TiledLayout::new(shape).py()?.byte_size();
    let itemsize = i64::try_from(d.itemsize).unwrap_or(i64::MAX);
    if !layout.tiles().is_empty() || elements.checked_mul(itemsize) != Some(size) {
        return Ok(bytes.clone());
    }
    if d.ml_dtypes {
        py.import("ml_dtypes")?;
    }
    let major_to_minor: Vec<i64> = layout
        .minor_to_major()
        .iter()
        .rev()
        .map(|&dim| usize::try_from(dim).map_or(0, |i| shape.dimensions()[i]))
        .collect();
    let dtype = np.getattr("dtype")?.call1((d.name,))?;
    bytes
        .call_method1("view", (dtype,))?
        .call_method1("reshape", (major_to_minor,))
}

// ---- shape_util ----------------------------------------------------------

/// `ShapeUtil::ByteSizeOf(shape, pointer_size)`: the bytes of an array,
/// or of a tuple's index table (`pointer_size` per element).
#[pyfunction]
#[pyo3(signature = (shape, pointer_size=-1), text_signature = "(shape, pointer_size=-1)")]
fn byte_size_of(shape: PyRef<'_, PyShape>, pointer_size: i64) -> PyResult<i64> {
    shape_util::byte_size_of(&shape.0, pointer_size).py()
}

/// `ShapeUtil::ByteSizeOfPrimitiveType`; None for types without a size.
#[pyfunction]
fn byte_size_of_primitive_type(element_type: &Bound<'_, PyAny>) -> PyResult<Option<i64>> {
    Ok(shape_util::byte_size_of_primitive_type(element_type_from(
        element_type,
    )?))
}

/// `ShapeUtil::ByteSizeOfElements`: the bytes of an array's elements,
/// without tile padding.
#[pyfunction]
fn byte_size_of_elements(shape: PyRef<'_, PyShape>) -> PyResult<i64> {
    shape_util::byte_size_of_elements(as_array(&shape.0)?).py()
}

/// `ShapeUtil::ElementsIn`: the number of elements of an array.
#[pyfunction]
fn elements_in(shape: PyRef<'_, PyShape>) -> PyResult<i64> {
    shape_util::elements_in(as_array(&shape.0)?).py()
}

/// `ShapeUtil::ElementsInRecursive`: the elements of every leaf.
#[pyfunction]
fn elements_in_recursive(shape: PyRef<'_, PyShape>) -> PyResult<i64> {
    shape_util::elements_in_recursive(&shape.0).py()
}

/// `ShapeUtil::ArraySize`: the bytes of an array's buffer with tiles and
/// padding.
#[pyfunction]
fn array_size(shape: PyRef<'_, PyShape>) -> PyResult<i64> {
    shape_util::array_size(as_array(&shape.0)?).py()
}

/// `ShapeUtil::ArrayDataSize`: `array_size` without the tail padding.
#[pyfunction]
fn array_data_size(shape: PyRef<'_, PyShape>) -> PyResult<i64> {
    shape_util::array_data_size(as_array(&shape.0)?).py()
}

/// `ShapeUtil::SerializedSize`: the bytes of a serialized array.
#[pyfunction]
fn serialized_size(shape: PyRef<'_, PyShape>) -> PyResult<i64> {
    shape_util::serialized_size(&shape.0).py()
}

/// `ShapeUtil::HumanString`: the shape without layouts (`f32[2,3]`).
#[pyfunction]
fn human_string(shape: PyRef<'_, PyShape>) -> String {
    shape_util::human_string(&shape.0)
}

/// `ShapeUtil::HumanStringWithLayout`.
#[pyfunction]
fn human_string_with_layout(shape: PyRef<'_, PyShape>) -> String {
    shape_util::human_string_with_layout(&shape.0)
}

/// `ShapeUtil::ValidateShape`: raises when the shape (with its layout) is
/// not valid. Shapes of this package are valid when made; this re-checks.
#[pyfunction]
fn validate_shape(shape: PyRef<'_, PyShape>) -> PyResult<()> {
    shape_util::validate_shape(&shape.0).py()
}

/// `ShapeUtil::Equal`.
#[pyfunction]
fn equal(lhs: PyRef<'_, PyShape>, rhs: PyRef<'_, PyShape>) -> bool {
    shape_util::equal(&lhs.0, &rhs.0)
}

/// `ShapeUtil::Compatible`: equal ignoring layouts.
#[pyfunction]
fn compatible(lhs: PyRef<'_, PyShape>, rhs: PyRef<'_, PyShape>) -> bool {
    shape_util::compatible(&lhs.0, &rhs.0)
}

/// Shape queries that take shapes and return what the Rust function
/// returns; `array` ones take arrays and raise for other shapes.
macro_rules! shape_queries {
    ($($(#[$doc:meta])* $kind:ident fn $name:ident($($arg:ident),+) -> $ret:ty;)*) => {$(
        $(#[$doc])*
        #[pyfunction]
        fn $name($($arg: PyRef<'_, PyShape>),+) -> PyResult<$ret> {
            Ok(shape_util::$name($(shape_queries!(@$kind $arg)),+))
        }
    )*};
    (@shape $arg:ident) => { &$arg.0 };
    (@array $arg:ident) => { as_array(&$arg.0)? };
}

shape_queries! {
    /// `ShapeUtil::IsEmptyTuple`.
    shape fn is_empty_tuple(shape) -> bool;
    /// `ShapeUtil::IsNestedTuple`: a tuple with a tuple element.
    shape fn is_nested_tuple(shape) -> bool;
    /// `ShapeUtil::EqualStructure`: the same tuple tree, leaves aside.
    shape fn equal_structure(lhs, rhs) -> bool;
    /// `ShapeUtil::EqualIgnoringElementType`.
    shape fn equal_ignoring_element_type(lhs, rhs) -> bool;
    /// `ShapeUtil::EqualIgnoringFpPrecision`.
    shape fn equal_ignoring_fp_precision(lhs, rhs) -> bool;
    /// `ShapeUtil::CompatibleIgnoringElementType`.
    shape fn compatible_ignoring_element_type(lhs, rhs) -> bool;
    /// `ShapeUtil::CompatibleIgnoringFpPrecision`.
    shape fn compatible_ignoring_fp_precision(lhs, rhs) -> bool;
    /// `ShapeUtil::SameElementType`.
    shape fn same_element_type(lhs, rhs) -> bool;
    /// `ShapeUtil::ElementIsFloating`.
    shape fn element_is_floating(shape) -> bool;
    /// `ShapeUtil::ElementIsIntegral`.
    shape fn element_is_integral(shape) -> bool;
    /// `ShapeUtil::ElementIsSigned`: signed integers and floating point.
    shape fn element_is_signed(shape) -> bool;
    /// `ShapeUtil::ElementIsComplex`.
    shape fn element_is_complex(shape) -> bool;
    /// `ShapeUtil::SubshapeCount`: the shape and every nested element.
    shape fn subshape_count(shape) -> i64;
    /// `ShapeUtil::SameRank` of two arrays.
    array fn same_rank(lhs, rhs) -> bool;
    /// `ShapeUtil::SameDimensions` of two arrays.
    array fn same_dimensions(lhs, rhs) -> bool;
    /// `ShapeUtil::TrueNumDimensions`: the dimensions of size other than 1.
    array fn true_num_dimensions(shape) -> i64;
}

/// `ShapeUtil::IsScalar`.
#[pyfunction]
fn is_scalar(shape: PyRef<'_, PyShape>) -> bool {
    shape_util::is_scalar(&shape.0)
}

/// `ShapeUtil::IsEffectiveScalar`: an array of one element.
#[pyfunction]
fn is_effective_scalar(shape: PyRef<'_, PyShape>) -> bool {
    shape_util::is_effective_scalar(&shape.0)
}

/// `ShapeUtil::IsZeroElementArray`.
#[pyfunction]
fn is_zero_element_array(shape: PyRef<'_, PyShape>) -> bool {
    shape_util::is_zero_element_array(&shape.0)
}

/// `ShapeUtil::HasDegenerateDimensions`: some dimension of size 1.
#[pyfunction]
fn has_degenerate_dimensions(shape: PyRef<'_, PyShape>) -> PyResult<bool> {
    Ok(shape_util::has_degenerate_dimensions(as_array(&shape.0)?))
}

/// `ShapeUtil::TupleElementCount`.
#[pyfunction]
fn tuple_element_count(shape: PyRef<'_, PyShape>) -> PyResult<i64> {
    shape_util::tuple_element_count(&shape.0).py()
}

/// `ShapeUtil::GetLeafCount`.
#[pyfunction]
fn get_leaf_count(shape: PyRef<'_, PyShape>) -> i64 {
    shape_util::get_leaf_count(&shape.0)
}

/// `ShapeUtil::GetLeafShapes`: `(index, shape)` for every leaf.
#[pyfunction]
fn get_leaf_shapes(shape: PyRef<'_, PyShape>) -> Vec<(Vec<i64>, PyShape)> {
    shape_util::get_leaf_shapes(&shape.0)
        .into_iter()
        .map(|l| (l.index.into(), PyShape(l.shape)))
        .collect()
}

/// `ShapeUtil::TryGetSubshape`: the subshape at a tuple index path.
#[pyfunction]
fn get_subshape(shape: PyRef<'_, PyShape>, index: Vec<i64>) -> PyResult<PyShape> {
    shape_util::try_get_subshape(&shape.0, &index)
        .py()
        .map(|s| PyShape(s.clone()))
}

/// `ShapeUtil::PermuteDimensions(permutation, shape)`.
#[pyfunction]
fn permute_dimensions(permutation: Vec<i64>, shape: PyRef<'_, PyShape>) -> PyResult<PyShape> {
    let a = as_array(&shape.0)?;
    Ok(PyShape(
        guard(|| shape_util::permute_dimensions(&permutation, a))?
            .py()?
            .into(),
    ))
}

/// `ShapeUtil::DeleteDimension(dim, shape)`.
#[pyfunction]
fn delete_dimension(dim: i64, shape: PyRef<'_, PyShape>) -> PyResult<PyShape> {
    let a = as_array(&shape.0)?;
    Ok(PyShape(
        guard(|| shape_util::delete_dimension(dim, a))?.py()?.into(),
    ))
}

/// `ShapeUtil::DropDegenerateDimensions`.
#[pyfunction]
fn drop_degenerate_dimensions(shape: PyRef<'_, PyShape>) -> PyResult<PyShape> {
    Ok(PyShape(
        shape_util::drop_degenerate_dimensions(as_array(&shape.0)?)
            .py()?
            .into(),
    ))
}

/// `ShapeUtil::ChangeElementType`.
#[pyfunction]
fn change_element_type(
    shape: PyRef<'_, PyShape>,
    element_type: &Bound<'_, PyAny>,
) -> PyResult<PyShape> {
    let t = element_type_from(element_type)?;
    shape_util::change_element_type(&shape.0, t)
        .py()
        .map(PyShape)
}

/// `ShapeUtil::MakeShapeWithDescendingLayout`.
#[pyfunction]
fn make_shape_with_descending_layout(
    element_type: &Bound<'_, PyAny>,
    dimensions: Vec<i64>,
) -> PyResult<PyShape> {
    let t = element_type_from(element_type)?;
    Ok(PyShape(
        shape_util::make_validated_shape_with_descending_layout(t, &dimensions)
            .py()?
            .into(),
    ))
}

/// `ShapeUtil::MakeStaticShape`: dynamic dimensions made static.
#[pyfunction]
fn make_static_shape(shape: PyRef<'_, PyShape>) -> PyShape {
    PyShape(shape_util::make_static_shape(&shape.0))
}

/// `ShapeUtil::DeviceShapeToHostShape`: tiles and memory space dropped.
#[pyfunction]
fn device_shape_to_host_shape(shape: PyRef<'_, PyShape>) -> PyShape {
    PyShape(shape_util::device_shape_to_host_shape(shape.0.clone()))
}

/// `ShapeUtil::TransposeIsBitcast(input, output, dimension_mapping)`.
#[pyfunction]
#[pyo3(signature = (input, output, dimension_mapping, ignore_element_type=false))]
fn transpose_is_bitcast(
    input: PyRef<'_, PyShape>,
    output: PyRef<'_, PyShape>,
    dimension_mapping: Vec<i64>,
    ignore_element_type: bool,
) -> PyResult<bool> {
    let (i, o) = (as_array(&input.0)?, as_array(&output.0)?);
    guard(|| shape_util::transpose_is_bitcast(i, o, &dimension_mapping, ignore_element_type))?.py()
}

/// `ShapeUtil::ReshapeIsBitcast(input, output)`.
#[pyfunction]
#[pyo3(signature = (input, output, ignore_element_type=false))]
fn reshape_is_bitcast(
    input: PyRef<'_, PyShape>,
    output: PyRef<'_, PyShape>,
    ignore_element_type: bool,
) -> PyResult<bool> {
    let (i, o) = (as_array(&input.0)?, as_array(&output.0)?);
    shape_util::reshape_is_bitcast(i, o, ignore_element_type).py()
}

// ---- layout_util ---------------------------------------------------------

/// `LayoutUtil::MakeLayout(minor_to_major)`.
#[pyfunction]
fn make_layout(minor_to_major: Vec<i64>) -> PyResult<PyLayout> {
    guard(|| layout_util::make_layout(&minor_to_major)).map(PyLayout)
}

/// `LayoutUtil::MakeLayoutFromMajorToMinor(major_to_minor)`.
#[pyfunction]
fn make_layout_from_major_to_minor(major_to_minor: Vec<i64>) -> PyResult<PyLayout> {
    guard(|| layout_util::make_layout_from_major_to_minor(&major_to_minor)).map(PyLayout)
}

/// `LayoutUtil::MakeDescendingLayout(rank)`: `{rank-1,...,0}`.
#[pyfunction]
fn make_descending_layout(rank: usize) -> PyResult<PyLayout> {
    check_rank(rank)?;
    Ok(PyLayout(layout_util::make_descending_layout(rank)))
}

/// `LayoutUtil::MakeAscendingLayout(rank)`: `{0,...,rank-1}`.
#[pyfunction]
fn make_ascending_layout(rank: usize) -> PyResult<PyLayout> {
    check_rank(rank)?;
    Ok(PyLayout(layout_util::make_ascending_layout(rank)))
}

/// `LayoutUtil::GetDefaultLayoutForRank(rank)`.
#[pyfunction]
fn get_default_layout_for_rank(rank: usize) -> PyResult<PyLayout> {
    check_rank(rank)?;
    Ok(PyLayout(layout_util::get_default_layout_for_rank(rank)))
}

/// Ranks past this many dimensions are refused before memory is
/// allocated for them: XLA's shapes hold far fewer, and a Python caller
/// could otherwise ask for terabytes.
const MAX_RANK: usize = 1 << 20;

fn check_rank(rank: usize) -> PyResult<()> {
    if rank > MAX_RANK {
        return Err(invalid_argument(format!(
            "rank {rank} exceeds the limit of {MAX_RANK}"
        )));
    }
    Ok(())
}

/// `LayoutUtil::GetWithDefaultLayout`: the shape with XLA's default
/// layout on every array.
#[pyfunction]
fn get_with_default_layout(shape: PyRef<'_, PyShape>) -> PyShape {
    PyShape(layout_util::get_with_default_layout(&shape.0))
}

/// `LayoutUtil::ClearLayout`: the shape without layouts.
#[pyfunction]
fn clear_layout(shape: PyRef<'_, PyShape>) -> PyShape {
    let mut s = shape.0.clone();
    layout_util::clear_layout(&mut s);
    PyShape(s)
}

/// `LayoutUtil::ValidateLayoutForShape`: raises when `layout` does not
/// fit `shape`.
#[pyfunction]
fn validate_layout_for_shape(
    layout: PyRef<'_, PyLayout>,
    shape: PyRef<'_, PyShape>,
) -> PyResult<()> {
    layout_util::validate_layout_for_shape(&layout.0, &shape.0).py()
}

/// `LayoutUtil::ValidateLayoutInShape`.
#[pyfunction]
#[pyo3(signature = (shape, allow_missing_layouts=false))]
fn validate_layout_in_shape(
    shape: PyRef<'_, PyShape>,
    allow_missing_layouts: bool,
) -> PyResult<()> {
    layout_util::validate_layout_in_shape(&shape.0, allow_missing_layouts).py()
}

/// `LayoutUtil::IsDenseArray`.
#[pyfunction]
fn is_dense_array(shape: PyRef<'_, PyShape>) -> bool {
    layout_util::is_dense_array(&shape.0)
}

/// `LayoutUtil::HasLayout`: every leaf has a layout.
#[pyfunction]
fn has_layout(shape: PyRef<'_, PyShape>) -> bool {
    layout_util::has_layout(&shape.0)
}

/// `LayoutUtil::HasAnyLayout`.
#[pyfunction]
fn has_any_layout(shape: PyRef<'_, PyShape>) -> bool {
    layout_util::has_any_layout(&shape.0)
}

/// `LayoutUtil::HasDescendingLayout`.
#[pyfunction]
fn has_descending_layout(layout: PyRef<'_, PyLayout>) -> bool {
    layout_util::has_descending_layout(&layout.0)
}

/// `LayoutUtil::Equal`.
#[pyfunction(name = "equal")]
fn layout_equal(lhs: PyRef<'_, PyLayout>, rhs: PyRef<'_, PyLayout>) -> bool {
    layout_util::equal(&lhs.0, &rhs.0)
}

/// `LayoutUtil::HumanString(layout)`.
#[pyfunction(name = "human_string")]
fn layout_human_string(layout: PyRef<'_, PyLayout>) -> String {
    layout_util::human_string(&layout.0)
}

/// `LayoutUtil::LayoutsInShapesEqual`.
#[pyfunction]
fn layouts_in_shapes_equal(lhs: PyRef<'_, PyShape>, rhs: PyRef<'_, PyShape>) -> bool {
    layout_util::layouts_in_shapes_equal(&lhs.0, &rhs.0)
}

/// `LayoutUtil::MinorToMajor(shape)`.
#[pyfunction]
fn minor_to_major(shape: PyRef<'_, PyShape>) -> PyResult<Vec<i64>> {
    Ok(layout_util::minor_to_major(as_array(&shape.0)?)
        .py()?
        .to_vec())
}

/// `LayoutUtil::MakeLogicalToPhysical(layout)`.
#[pyfunction]
fn make_logical_to_physical(layout: PyRef<'_, PyLayout>) -> PyResult<Vec<i64>> {
    layout_util::make_logical_to_physical(&layout.0).py()
}

/// `LayoutUtil::Major(layout, physical)`: the logical dimension at
/// position `physical` counted from the major end.
#[pyfunction]
fn major(layout: PyRef<'_, PyLayout>, physical: usize) -> PyResult<i64> {
    guard(|| layout_util::major(&layout.0, physical))
}

/// `LayoutUtil::Minor(layout, physical)`: the logical dimension at
/// position `physical` counted from the minor end.
#[pyfunction]
fn minor(layout: PyRef<'_, PyLayout>, physical: usize) -> PyResult<i64> {
    guard(|| layout_util::minor(&layout.0, physical))
}

/// `LayoutUtil::LinearIndex(shape, index)`: the element offset of `index`
/// in the shape's (tiled) layout.
#[pyfunction]
fn linear_index(shape: PyRef<'_, PyShape>, index: Vec<i64>) -> PyResult<i64> {
    layout_util::linear_index(as_array(&shape.0)?, &index).py()
}

/// `LayoutUtil::MoveDimToMajor(layout, dim)`.
#[pyfunction]
fn move_dim_to_major(layout: PyRef<'_, PyLayout>, dim: i64) -> PyResult<PyLayout> {
    guard(|| layout_util::move_dim_to_major(&layout.0, dim)).map(PyLayout)
}

// ---- index_util ----------------------------------------------------------

/// `IndexUtil::MultidimensionalIndexToLinearIndex(shape, index)`.
#[pyfunction]
fn multidimensional_index_to_linear_index(
    shape: PyRef<'_, PyShape>,
    index: Vec<i64>,
) -> PyResult<i64> {
    index_util::multidimensional_index_to_linear_index(as_array(&shape.0)?, &index).py()
}

/// `IndexUtil::LinearIndexToMultidimensionalIndex(shape, linear_index)`.
#[pyfunction]
fn linear_index_to_multidimensional_index(
    shape: PyRef<'_, PyShape>,
    linear_index: i64,
) -> PyResult<Vec<i64>> {
    index_util::linear_index_to_multidimensional_index(as_array(&shape.0)?, linear_index).py()
}

/// `IndexUtil::BumpIndices(shape, index)`: `(True, next_index)`, or
/// `(False, index)` at the last index.
#[pyfunction]
fn bump_indices(shape: PyRef<'_, PyShape>, index: Vec<i64>) -> PyResult<(bool, Vec<i64>)> {
    let mut index = index;
    let bumped = index_util::bump_indices(as_array(&shape.0)?, &mut index).py()?;
    Ok((bumped, index))
}

/// `IndexUtil::GetDimensionStride(shape, dimension)`: the element stride
/// of a dimension in the shape's dense layout.
#[pyfunction]
fn get_dimension_stride(shape: PyRef<'_, PyShape>, dimension: i64) -> PyResult<i64> {
    index_util::get_dimension_stride(as_array(&shape.0)?, dimension).py()
}

/// `IndexUtil::IndexInBounds(shape, index)`.
#[pyfunction]
fn index_in_bounds(shape: PyRef<'_, PyShape>, index: Vec<i64>) -> PyResult<bool> {
    Ok(index_util::index_in_bounds(as_array(&shape.0)?, &index))
}

/// `IndexUtil::CompareIndices(lhs, rhs)`: -1, 0 or 1.
#[pyfunction]
fn compare_indices(lhs: Vec<i64>, rhs: Vec<i64>) -> i32 {
    index_util::compare_indices(&lhs, &rhs) as i32
}

// ---- strides -------------------------------------------------------------

/// The element strides of an array's layout, per logical dimension.
#[pyfunction]
fn element_strides(shape: PyRef<'_, PyShape>) -> PyResult<Vec<i64>> {
    strides::element_strides(as_array(&shape.0)?).py()
}

/// The byte strides of an array's layout, per logical dimension (NumPy's
/// `strides` of the same buffer).
#[pyfunction]
fn byte_strides(shape: PyRef<'_, PyShape>) -> PyResult<Vec<i64>> {
    strides::byte_strides(as_array(&shape.0)?).py()
}

/// The layout whose element strides are `strides` for dimensions `dims`.
#[pyfunction]
fn layout_from_strides(dims: Vec<i64>, strides: Vec<i64>) -> PyResult<PyLayout> {
    strides::layout_from_strides(&dims, &strides)
        .py()
        .map(PyLayout)
}

/// The layout of a buffer with NumPy byte strides (`array.strides`).
#[pyfunction]
fn layout_from_byte_strides(
    element_type: &Bound<'_, PyAny>,
    dims: Vec<i64>,
    byte_strides: Vec<i64>,
) -> PyResult<PyLayout> {
    let t = element_type_from(element_type)?;
    strides::layout_from_byte_strides(t, &dims, &byte_strides)
        .py()
        .map(PyLayout)
}

/// Creates submodule `name` with `doc`, filled by `fill`, and registers it
/// as `xla_shape._xla_shape.<name>`.
fn submodule<'py>(
    parent: &Bound<'py, PyModule>,
    name: &str,
    doc: &str,
    fill: impl FnOnce(&Bound<'py, PyModule>) -> PyResult<()>,
) -> PyResult<()> {
    let py = parent.py();
    let m = PyModule::new(py, name)?;
    m.setattr("__doc__", doc)?;
    fill(&m)?;
    parent.add_submodule(&m)?;
    let modules = py.import("sys")?.getattr("modules")?;
    let modules = modules.downcast::<PyDict>()?;
    modules.set_item(format!("xla_shape._xla_shape.{name}"), &m)?;
    Ok(())
}

macro_rules! add_functions {
    ($m:expr, $($f:ident),* $(,)?) => {{
        $( $m.add_function(wrap_pyfunction!($f, $m)?)?; )*
    }};
}

/// Adds the submodules.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    submodule(
        m,
        "shape_util",
        "XLA's ShapeUtil: sizes, queries, comparisons and dimension surgery.",
        |s| {
            add_functions!(
                s,
                byte_size_of,
                byte_size_of_primitive_type,
                byte_size_of_elements,
                elements_in,
                elements_in_recursive,
                array_size,
                array_data_size,
                serialized_size,
                human_string,
                human_string_with_layout,
                validate_shape,
                equal,
                compatible,
                is_scalar,
                is_effective_scalar,
                is_zero_element_array,
                has_degenerate_dimensions,
                tuple_element_count,
                get_leaf_count,
                get_leaf_shapes,
                get_subshape,
                permute_dimensions,
                delete_dimension,
                drop_degenerate_dimensions,
                change_element_type,
                make_shape_with_descending_layout,
                make_static_shape,
                device_shape_to_host_shape,
                transpose_is_bitcast,
                reshape_is_bitcast,
                is_empty_tuple,
                is_nested_tuple,
                equal_structure,
                equal_ignoring_element_type,
                equal_ignoring_fp_precision,
                compatible_ignoring_element_type,
                compatible_ignoring_fp_precision,
                same_element_type,
                element_is_floating,
                element_is_integral,
                element_is_signed,
                element_is_complex,
                subshape_count,
                same_rank,
                same_dimensions,
                true_num_dimensions,
            );
            Ok(())
        },
    )?;
    submodule(
        m,
        "layout_util",
        "XLA's LayoutUtil: making, checking and comparing layouts.",
        |s| {
            add_functions!(
                s,
                make_layout,
                make_layout_from_major_to_minor,
                make_descending_layout,
                make_ascending_layout,
                get_default_layout_for_rank,
                get_with_default_layout,
                clear_layout,
                validate_layout_for_shape,
                validate_layout_in_shape,
                is_dense_array,
                has_layout,
                has_any_layout,
                has_descending_layout,
                layout_equal,
                layout_human_string,
                layouts_in_shapes_equal,
                minor_to_major,
                make_logical_to_physical,
                major,
                minor,
                linear_index,
                move_dim_to_major,
            );
            Ok(())
        },
    )?;
    submodule(
        m,
        "index_util",
        "XLA's IndexUtil: linear and multidimensional indices.",
        |s| {
            add_functions!(
                s,
                multidimensional_index_to_linear_index,
                linear_index_to_multidimensional_index,
                bump_indices,
                get_dimension_stride,
                index_in_bounds,
                compare_indices,
            );
            Ok(())
        },
    )?;
    submodule(
        m,
        "strides",
        "Strides of layouts and layouts of strides (NumPy's, DLPack's).",
        |s| {
            add_functions!(
                s,
                element_strides,
                byte_strides,
                layout_from_strides,
                layout_from_byte_strides
            );
            Ok(())
        },
    )?;
    Ok(())
}
