//! `xla_shape.shape_util`: XLA's `ShapeUtil` (xla/shape_util.h) under the
//! names of the Rust module `xla_shape::shape_util`.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};
use xla_shape::proto::ShapeProto;
use xla_shape::{ArrayShape, Error, ErrorKind, Shape, shape_util};

use super::ToPython;
use crate::errors::{IntoPyResult, invalid_argument, to_py};
use crate::types::{PyLayout, PyProgramShape, PyShape, as_array};

bind! { shape_util;
    /// Returns the bytes of an array, or of a tuple's index table
    /// (`pointer_size` per element), as XLA's `ShapeUtil::ByteSizeOf`.
    #[pyo3(signature = (shape, pointer_size=-1), text_signature = "(shape, pointer_size=-1)")]
    plain fn byte_size_of(shape: shape, pointer_size: i64);
    /// Returns the byte width of an element type, or None for types
    /// without one, as XLA's `ShapeUtil::ByteSizeOfPrimitiveType`.
    plain fn byte_size_of_primitive_type(element_type: etype);
    /// Returns the bytes of an array's elements without tile padding, as
    /// XLA's `ShapeUtil::ByteSizeOfElements`.
    plain fn byte_size_of_elements(shape: array);
    /// Returns the number of elements of an array, as XLA's
    /// `ShapeUtil::ElementsIn`.
    plain fn elements_in(shape: array);
    /// Returns the elements of every leaf, as XLA's
    /// `ShapeUtil::ElementsInRecursive`.
    plain fn elements_in_recursive(shape: shape);
    /// Returns the bytes of an array's buffer with tiles and padding, as
    /// XLA's `ShapeUtil::ArraySize`.
    plain fn array_size(shape: array);
    /// Returns `array_size` without the tail padding, as XLA's
    /// `ShapeUtil::ArrayDataSize`.
    plain fn array_data_size(shape: array);
    /// Returns the bytes of a literal of this shape in XLA's serialized
    /// form, as XLA's `ShapeUtil::SerializedSize`.
    plain fn serialized_size(shape: shape);
    /// Prints the shape without layouts (`f32[2,3]`), as XLA's
    /// `ShapeUtil::HumanString`.
    plain fn human_string(shape: shape);
    /// Prints the shape with its layouts (`f32[2,3]{1,0}`), as XLA's
    /// `ShapeUtil::HumanStringWithLayout`.
    plain fn human_string_with_layout(shape: shape);
    /// Raises when the shape (with its layout) is not valid, as XLA's
    /// `ShapeUtil::ValidateShape` (shapes of this package are valid when
    /// made; this checks again).
    plain fn validate_shape(shape: shape);
    /// Tells whether two shapes are equal, layouts included, as XLA's
    /// `ShapeUtil::Equal`.
    plain fn equal(lhs: shape, rhs: shape);
    /// Tells whether two shapes are equal ignoring layouts, as XLA's
    /// `ShapeUtil::Compatible`.
    plain fn compatible(lhs: shape, rhs: shape);
    /// Tells whether the shape is the empty tuple, as XLA's
    /// `ShapeUtil::IsEmptyTuple`.
    plain fn is_empty_tuple(shape: shape);
    /// Tells whether the shape is a tuple with a tuple element, as XLA's
    /// `ShapeUtil::IsNestedTuple`.
    plain fn is_nested_tuple(shape: shape);
    /// Tells whether two shapes have the same tuple tree, leaves aside, as
    /// XLA's `ShapeUtil::EqualStructure`.
    plain fn equal_structure(lhs: shape, rhs: shape);
    /// Tells whether two shapes are equal ignoring element types, as XLA's
    /// `ShapeUtil::EqualIgnoringElementType`.
    plain fn equal_ignoring_element_type(lhs: shape, rhs: shape);
    /// Tells whether two shapes are equal ignoring floating-point
    /// precision, as XLA's `ShapeUtil::EqualIgnoringFpPrecision`.
    plain fn equal_ignoring_fp_precision(lhs: shape, rhs: shape);
    /// Tells whether two shapes are compatible ignoring element types, as
    /// XLA's `ShapeUtil::CompatibleIgnoringElementType`.
    plain fn compatible_ignoring_element_type(lhs: shape, rhs: shape);
    /// Tells whether two shapes are compatible ignoring floating-point
    /// precision, as XLA's `ShapeUtil::CompatibleIgnoringFpPrecision`.
    plain fn compatible_ignoring_fp_precision(lhs: shape, rhs: shape);
    /// Tells whether two shapes have the same element type, as XLA's
    /// `ShapeUtil::SameElementType`.
    plain fn same_element_type(lhs: shape, rhs: shape);
    /// Tells whether the element type is floating point, as XLA's
    /// `ShapeUtil::ElementIsFloating`.
    plain fn element_is_floating(shape: shape);
    /// Tells whether the element type is an integer, as XLA's
    /// `ShapeUtil::ElementIsIntegral`.
    plain fn element_is_integral(shape: shape);
    /// Tells whether the element type is signed (signed integers and
    /// floating point), as XLA's `ShapeUtil::ElementIsSigned`.
    plain fn element_is_signed(shape: shape);
    /// Tells whether the element type is complex, as XLA's
    /// `ShapeUtil::ElementIsComplex`.
    plain fn element_is_complex(shape: shape);
    /// Counts the shape and every nested element, as XLA's
    /// `ShapeUtil::SubshapeCount`.
    plain fn subshape_count(shape: shape);
    /// Tells whether two arrays have the same rank, as XLA's
    /// `ShapeUtil::SameRank`.
    plain fn same_rank(lhs: array, rhs: array);
    /// Tells whether two arrays have the same dimensions, as XLA's
    /// `ShapeUtil::SameDimensions`.
    plain fn same_dimensions(lhs: array, rhs: array);
    /// Counts the dimensions of size other than 1, as XLA's
    /// `ShapeUtil::TrueNumDimensions`.
    plain fn true_num_dimensions(shape: array);
    /// Tells whether the shape is a rank-0 array, as XLA's
    /// `ShapeUtil::IsScalar`.
    plain fn is_scalar(shape: shape);
    /// Tells whether the shape is an array of one element, as XLA's
    /// `ShapeUtil::IsEffectiveScalar`.
    plain fn is_effective_scalar(shape: shape);
    /// Tells whether the shape is an array of no elements, as XLA's
    /// `ShapeUtil::IsZeroElementArray`.
    plain fn is_zero_element_array(shape: shape);
    /// Tells whether some dimension has size 1, as XLA's
    /// `ShapeUtil::HasDegenerateDimensions`.
    plain fn has_degenerate_dimensions(shape: array);
    /// Counts the elements of a tuple, as XLA's
    /// `ShapeUtil::TupleElementCount`.
    plain fn tuple_element_count(shape: shape);
    /// Counts the leaves (arrays, tokens, opaque values), as XLA's
    /// `ShapeUtil::GetLeafCount`.
    plain fn get_leaf_count(shape: shape);
    /// Returns `(index, shape)` for every leaf, as XLA's
    /// `ShapeUtil::GetLeafShapes`.
    plain fn get_leaf_shapes(shape: shape);
    /// Returns the subshape at a tuple index path, raising for an invalid
    /// one, as XLA's `ShapeUtil::TryGetSubshape` (`ShapeUtil::GetSubshape`
    /// `CHECK`-fails instead).
    plain fn get_subshape(shape: shape, index: ints) = shape_util::try_get_subshape;
    /// Permutes the dimensions of an array, as XLA's
    /// `ShapeUtil::PermuteDimensions(permutation, shape)`; raises when
    /// `permutation` is not one.
    guarded fn permute_dimensions(permutation: ints, shape: array);
    /// Deletes dimension `dim` of an array, as XLA's
    /// `ShapeUtil::DeleteDimension(dim, shape)`; raises when `dim` is not a
    /// dimension.
    guarded fn delete_dimension(dim: i64, shape: array);
    /// Deletes the dimensions of size 1, as XLA's
    /// `ShapeUtil::DropDegenerateDimensions`.
    plain fn drop_degenerate_dimensions(shape: array);
    /// Changes the element type of every array, as XLA's
    /// `ShapeUtil::ChangeElementType`.
    plain fn change_element_type(shape: shape, element_type: etype);
    /// Makes an array with the descending layout, as XLA's
    /// `ShapeUtil::MakeShapeWithDescendingLayout`; raises where XLA
    /// `CHECK`-fails.
    plain fn make_shape_with_descending_layout(element_type: etype, dimensions: ints)
        = shape_util::make_validated_shape_with_descending_layout;
    /// Makes every dynamic dimension static, as XLA's
    /// `ShapeUtil::MakeStaticShape`.
    plain fn make_static_shape(shape: shape);
    /// Drops tiles and memory space, as XLA's
    /// `ShapeUtil::DeviceShapeToHostShape`.
    plain fn device_shape_to_host_shape(shape: owned_shape);
    /// Tells whether a transpose from `input` to `output` is a bitcast, as
    /// XLA's `ShapeUtil::TransposeIsBitcast`; raises when
    /// `dimension_mapping` is not a permutation.
    #[pyo3(signature = (input, output, dimension_mapping, ignore_element_type=false))]
    guarded fn transpose_is_bitcast(input: array, output: array, dimension_mapping: ints, ignore_element_type: bool);
    /// Tells whether a reshape from `input` to `output` is a bitcast, as
    /// XLA's `ShapeUtil::ReshapeIsBitcast`.
    #[pyo3(signature = (input, output, ignore_element_type=false))]
    plain fn reshape_is_bitcast(input: array, output: array, ignore_element_type: bool);
}

bind! { shape_util;
    /// Makes an array with the default (descending) layout, as XLA's
    /// `ShapeUtil::MakeShape`; raises where XLA `CHECK`-fails (the errors of
    /// `make_validated_shape`).
    plain fn make_shape(element_type: etype, dimensions: ints) = shape_util::make_validated_shape;
    /// Makes an array with the default layout, as XLA's
    /// `ShapeUtil::MakeValidatedShape`; raises for a non-array element type,
    /// a negative size or an overflowing element count.
    plain fn make_validated_shape(element_type: etype, dimensions: ints);
    /// Makes an array with these dynamic flags, as XLA's
    /// `ShapeUtil::MakeShape(t, dims, dynamic_dimensions)`; raises where XLA
    /// `CHECK`-fails.
    plain fn make_shape_with_dynamic_dimensions(element_type: etype, dimensions: ints, dynamic_dimensions: bools)
        = shape_util::make_validated_shape_with_dynamic_dimensions;
    /// Makes an array with these dynamic flags, as XLA's
    /// `ShapeUtil::MakeValidatedShape(t, dims, dynamic_dimensions)`.
    plain fn make_validated_shape_with_dynamic_dimensions(element_type: etype, dimensions: ints, dynamic_dimensions: bools);
    /// Makes a rank-0 array with layout `{}`, as XLA's
    /// `ShapeUtil::MakeScalarShape`; raises for a non-array element type.
    plain fn make_scalar_shape(element_type: etype) = shape_util::make_validated_scalar_shape;
    /// Makes a rank-0 array, as XLA's `ShapeUtil::MakeValidatedScalarShape`.
    plain fn make_validated_scalar_shape(element_type: etype);
    /// Makes an array of the element type of a native type (a NumPy type
    /// such as `numpy.float32`, standing for XLA's C++ template argument), as
    /// XLA's `ShapeUtil::MakeShapeWithType<T>`; raises where XLA
    /// `CHECK`-fails.
    plain fn make_shape_with_type(native_type: etype, dimensions: ints) = shape_util::make_validated_shape;
    /// Makes an array of the element type of a native type (a NumPy type),
    /// as XLA's `ShapeUtil::MakeValidatedShapeWithType<T>`.
    plain fn make_validated_shape_with_type(native_type: etype, dimensions: ints) = shape_util::make_validated_shape;
    /// Makes a buffer `b(...)` holding an array with the default layout, as
    /// XLA's `ShapeUtil::MakeValidatedBufferShape(t, dims)`.
    plain fn make_validated_buffer_shape(element_type: etype, dimensions: ints);
    /// Makes a buffer holding `element_shape` (an array), as XLA's
    /// `ShapeUtil::MakeValidatedBufferShape(element_shape)`.
    plain fn make_validated_buffer_shape_from_shape(element_shape: owned_shape);
    /// Makes an array with exactly this `minor_to_major`, as XLA's
    /// `ShapeUtil::MakeShapeWithDenseLayout`; raises where XLA `CHECK`-fails.
    plain fn make_shape_with_dense_layout(element_type: etype, dimensions: ints, minor_to_major: ints)
        = shape_util::make_validated_shape_with_dense_layout;
    /// Makes an array with exactly this `minor_to_major`, as XLA's
    /// `ShapeUtil::MakeValidatedShapeWithDenseLayout`.
    plain fn make_validated_shape_with_dense_layout(element_type: etype, dimensions: ints, minor_to_major: ints);
    /// Makes an array with the attributes of `layout` (tiles, element size,
    /// memory space, ...), as XLA's `ShapeUtil::MakeShapeWithDenseLayout` with
    /// all its parameters; raises where XLA `CHECK`-fails.
    plain fn make_shape_with_dense_layout_from_layout(element_type: etype, dimensions: ints, layout: owned_layout)
        = shape_util::make_validated_shape_with_dense_layout_from_layout;
    /// Makes an array with the attributes of `layout`, as XLA's
    /// `ShapeUtil::MakeValidatedShapeWithDenseLayout` with all its parameters
    /// (an element size equal to the type's own is normalised to 0).
    plain fn make_validated_shape_with_dense_layout_from_layout(element_type: etype, dimensions: ints, layout: owned_layout);
    /// Makes an array with this `minor_to_major`, as XLA's
    /// `ShapeUtil::MakeValidatedShapeWithSparseLayout` (sparse layouts are
    /// gone upstream: the same as the dense form).
    plain fn make_validated_shape_with_sparse_layout(element_type: etype, dimensions: ints, minor_to_major: ints);
    /// Makes an array with the descending layout, as XLA's
    /// `ShapeUtil::MakeValidatedShapeWithDescendingLayout`.
    plain fn make_validated_shape_with_descending_layout(element_type: etype, dimensions: ints);
    /// Reorders an array's dimensions major to minor under the descending
    /// layout, elements staying where they are, as XLA's
    /// `ShapeUtil::MakeShapeWithDescendingLayoutAndSamePhysicalLayout`;
    /// raises where XLA `CHECK`-fails.
    plain fn make_shape_with_descending_layout_and_same_physical_layout(shape: array)
        = shape_util::make_validated_shape_with_descending_layout_and_same_physical_layout;
    /// Reorders an array's dimensions major to minor under the descending
    /// layout, as XLA's
    /// `ShapeUtil::MakeValidatedShapeWithDescendingLayoutAndSamePhysicalLayout`.
    plain fn make_validated_shape_with_descending_layout_and_same_physical_layout(shape: array);
    /// Clears every dynamic flag, as XLA's
    /// `ShapeUtil::MakeShapeWithStaticDimensions`.
    plain fn make_shape_with_static_dimensions(shape: shape);
    /// Makes a tuple of these shapes, as XLA's `ShapeUtil::MakeTupleShape`.
    plain fn make_tuple_shape(shapes: shapes);
    /// Makes a tuple of these shapes, as XLA's
    /// `ShapeUtil::MakeTupleShapeWithPtrs`.
    plain fn make_tuple_shape_with_ptrs(shapes: shape_refs);
    /// Makes a tuple of these shapes and validates it, as XLA's
    /// `ShapeUtil::MakeValidatedTupleShape`.
    plain fn make_validated_tuple_shape(shapes: shapes);
    /// Makes a tuple of these shapes and validates it, as XLA's
    /// `ShapeUtil::MakeValidatedTupleShapeWithPtrs`.
    plain fn make_validated_tuple_shape_with_ptrs(shapes: shape_refs);
    /// Returns the one shape given, or a tuple of them, as XLA's
    /// `ShapeUtil::MakeMaybeTupleShape`.
    plain fn make_maybe_tuple_shape(shapes: shapes);
    /// Returns the one shape given, or a validated tuple of them, as XLA's
    /// `ShapeUtil::MakeValidatedMaybeTupleShape`.
    plain fn make_validated_maybe_tuple_shape(shapes: shapes);
    /// Makes the empty tuple `()`, as XLA's `ShapeUtil::MakeNil`.
    plain fn make_nil();
    /// Makes `opaque[]`, as XLA's `ShapeUtil::MakeOpaqueShape`.
    plain fn make_opaque_shape();
    /// Makes `token[]`, as XLA's `ShapeUtil::MakeTokenShape`.
    plain fn make_token_shape();
    /// Makes a `ProgramShape` with unnamed parameters, as XLA's
    /// `ShapeUtil::MakeProgramShape`.
    plain fn make_program_shape(parameters: shapes, result: owned_shape);
    /// Returns a new shape of `element_type` and `dimensions` (arrays get the
    /// default layout), as XLA's `ShapeUtil::PopulateShape`, which overwrites
    /// `*shape`: here `shape` is left alone and the new shape returned.
    plain fn populate_shape(element_type: etype, dimensions: ints, shape: mut_shape) -> shape;
    /// Returns how many threads XLA's parallel index iteration would use,
    /// as `ShapeUtil::GetForEachIndexParallelThreadCount`.
    plain fn get_for_each_index_parallel_thread_count();

    /// Tells whether the shape or some element has this element type, as
    /// XLA's `ShapeUtil::HasPrimitiveType`.
    plain fn has_primitive_type(shape: shape, element_type: etype);
    /// Tells whether the shape is a scalar of this element type, as XLA's
    /// `ShapeUtil::IsScalarWithElementType`.
    plain fn is_scalar_with_element_type(shape: shape, element_type: etype);
    /// Returns element `index` of a tuple, as XLA's
    /// `ShapeUtil::GetTupleElementShape`; raises for an index out of range
    /// (where XLA `CHECK`-fails).
    guarded fn get_tuple_element_shape(shape: shape, index: usize);
    /// Returns the tuple of elements `start` to `limit` (excluded), as XLA's
    /// `ShapeUtil::SliceTuple`; raises for a range out of bounds (where XLA
    /// `CHECK`-fails).
    guarded fn slice_tuple(tuple: shape, start: usize, limit: usize);
    /// Returns `dimension_number`, counted from the end when negative, as
    /// XLA's `ShapeUtil::GetDimensionNumber`; raises when still negative
    /// (where XLA `CHECK`-fails).
    guarded fn get_dimension_number(shape: array, dimension_number: i64);
    /// Returns the size of dimension `dimension_number` (counted from the
    /// end when negative), as XLA's `ShapeUtil::GetDimension`; raises for a
    /// dimension out of range.
    guarded fn get_dimension(shape: array, dimension_number: i64);
    /// Returns the dimensions as a list (empty for a non-array), as XLA's
    /// `ShapeUtil::CreateDimensionVectorFromShape`.
    plain fn create_dimension_vector_from_shape(shape: shape);
    /// Tells whether the shape is an array whose element type has `bits`
    /// bits, as XLA's `ShapeUtil::ElementHasBitWidth`.
    plain fn element_has_bit_width(shape: shape, bits: u32);
    /// Tells whether the element type is an integer of `bits` bits, as XLA's
    /// `ShapeUtil::ElementIsIntegralWithBits`.
    plain fn element_is_integral_with_bits(shape: shape, bits: u32);
    /// Returns the element type of higher precision, or None where XLA
    /// aborts, as XLA's `ShapeUtil::HigherPrecisionElementType`.
    plain fn higher_precision_element_type(a: shape, b: shape);
    /// Tells whether `to_shape`'s element type is the higher precision one,
    /// as XLA's `ShapeUtil::ElementCanUpcast(from, to)`.
    plain fn element_can_upcast(from_shape: shape, to_shape: shape);
    /// Tells whether both element types are floating point or they are the
    /// same, as XLA's `ShapeUtil::SameElementTypeIgnoringFpPrecision`.
    plain fn same_element_type_ignoring_fp_precision(a: shape, b: shape);
    /// Tells whether only dimensions of size 1 are more major than
    /// `dimension`, as XLA's `ShapeUtil::IsEffectivelyMostMajorDimension`.
    plain fn is_effectively_most_major_dimension(shape: array, dimension: i64);
    /// Returns the packing factor of a rank-1 interleaved array
    /// (`bf16[1024]{0:T(1024)(128)(2,1)}` gives 2), as XLA's
    /// `ShapeUtil::PackedFactorFor1DInterleavedArray`.
    plain fn packed_factor_for_1d_interleaved_array(shape: array);
    /// Tells whether a dynamic array fits a bounded one, as XLA's
    /// `ShapeUtil::DynamicArrayShapeIsCompatible`.
    plain fn dynamic_array_shape_is_compatible(dynamic_shape: array, bounded_shape: array);
    /// Tells whether every dynamic array of `dynamic_shape` fits its
    /// counterpart, as XLA's `ShapeUtil::DynamicShapeIsCompatible`.
    plain fn dynamic_shape_is_compatible(dynamic_shape: shape, bounded_shape: shape);
    /// Tells whether both have the same tuple tree and leaf ranks, as XLA's
    /// `ShapeUtil::CompatibleKind`.
    plain fn compatible_kind(lhs: shape, rhs: shape);

    /// Returns `(product, overflowed)` of the dimensions, as XLA's
    /// `ShapeUtil::ExtentProduct<bounded_dynamic_ok>`.
    #[pyo3(signature = (shape, bounded_dynamic_ok=false))]
    plain fn extent_product(shape: array, bounded_dynamic_ok: bool);
    /// Returns the product of the dimensions that are not unbounded, as
    /// XLA's `ShapeUtil::StaticExtentProduct`.
    plain fn static_extent_product(shape: array);
    /// Returns `pointer_size` times a tuple's element count, as XLA's
    /// `ShapeUtil::ByteSizeOfTupleIndexTable`.
    plain fn byte_size_of_tuple_index_table(shape: shape, pointer_size: i64);
    /// Returns the bits of one element (the layout's `E(n)`, else 8 times
    /// the byte width), as XLA's `ShapeUtil::ElementSizeInBits`.
    plain fn element_size_in_bits(shape: array);
    /// Returns the byte strides of a dense array per dimension, or None
    /// where XLA's `ShapeUtil::ByteStrides(shape)` gives `nullopt`.
    plain fn byte_strides(shape: array);

    /// Tells whether every step of `index` is an element number of a tuple,
    /// as XLA's `ShapeUtil::IndexIsValid`.
    plain fn index_is_valid(shape: shape, index: ints);
    /// Returns the subshape at a tuple index path, as XLA's
    /// `ShapeUtil::TryGetSubshape`.
    plain fn try_get_subshape(shape: shape, index: ints);
    /// Tells whether the subshape at `index` is not a tuple, as XLA's
    /// `ShapeUtil::IsLeafIndex`; raises for an invalid index (where XLA
    /// `CHECK`-fails).
    guarded fn is_leaf_index(shape: shape, index: ints);
    /// Returns the leaf count of a tuple, as XLA's
    /// `ShapeUtil::GetLeafCountTuple`.
    plain fn get_leaf_count_tuple(shape: shape);
    /// Returns the leaves in order, as XLA's `ShapeUtil::FlattenTupleShape`.
    plain fn flatten_tuple_shape(shape: shape);
    /// Returns `tuple_shape` with element `index` replaced by `shape`, as
    /// XLA's `ShapeUtil::UpdateTupleShape`, which changes `tuple_shape` in
    /// place: here `tuple_shape` is left alone.
    guarded fn update_tuple_shape(shape: shape, index: usize, tuple_shape: mut_shape) -> tuple_shape;
    /// Returns `tuple_shape` with `shape` appended, as XLA's
    /// `ShapeUtil::AppendShapeToTuple`, which changes `tuple_shape` in place:
    /// here `tuple_shape` is left alone.
    plain fn append_shape_to_tuple(shape: shape, tuple_shape: mut_shape) -> tuple_shape;
    /// Returns `shape` with the dynamic flag of dimension `dim` of the array
    /// at `index` set to `is_dynamic`, as XLA's
    /// `ShapeUtil::UpdateDynamicDimension`, which changes `shape` in place:
    /// here `shape` is left alone.
    guarded fn update_dynamic_dimension(shape: mut_shape, index: ints, dim: usize, is_dynamic: bool) -> shape;

    /// Returns the array of the real parts of a complex array, as XLA's
    /// `ShapeUtil::ComplexComponentShape`.
    plain fn complex_component_shape(shape: array);
    /// Makes `dim` the most major dimension of every array, as XLA's
    /// `ShapeUtil::MoveDimToMajor`; raises when `dim` is not a dimension.
    guarded fn move_dim_to_major(shape: shape, dim: i64);
    /// Adds a dimension 0 of size `bound`, most major, as XLA's
    /// `ShapeUtil::PrependMajorDimension`.
    plain fn prepend_major_dimension(bound: i64, shape: array);
    /// Returns `shape` with a last dimension of size `bound`, most major in
    /// the layout, as XLA's `ShapeUtil::AppendMajorDimension`, which changes
    /// `shape` in place: here `shape` is left alone.
    plain fn append_major_dimension(bound: i64, shape: mut_array) -> shape;
    /// Returns `shape` with a last dimension of size `bound`, most minor in
    /// the layout, as XLA's `ShapeUtil::AppendMinorDimension`, which changes
    /// `shape` in place: here `shape` is left alone.
    plain fn append_minor_dimension(bound: i64, shape: mut_array) -> shape;
    /// Deletes the dimensions `dims` (in any order), as XLA's
    /// `ShapeUtil::DeleteDimensions`; raises for a repeated or missing
    /// dimension (where XLA `CHECK`-fails).
    guarded fn delete_dimensions(dims: ints, shape: array);
    /// Permutes the dimensions and renumbers the layout, as XLA's
    /// `ShapeUtil::ReorderLogicalDimensions`; raises when `permutation` is
    /// not one.
    guarded fn reorder_logical_dimensions(shape: array, permutation: ints);
    /// Returns `to_shape` with the dynamic flags of `from_shape`, as XLA's
    /// `ShapeUtil::CopyDynamicDimensions(to, from)`, which changes `to` in
    /// place: here `to_shape` is left alone.
    plain fn copy_dynamic_dimensions(to_shape: mut_array, from_shape: array) -> to_shape;
    /// Returns `shape` with every element size set to the sub-byte width
    /// (when `pack_subbyte_types`) or 0, as XLA's
    /// `ShapeUtil::UpdateElementSizeInBits`, which changes `shape` in place:
    /// here `shape` is left alone.
    plain fn update_element_size_in_bits(shape: mut_shape, pack_subbyte_types: bool) -> shape;

    /// Prints a program shape (`(x: f32[2]) -> f32[2]`), as XLA's
    /// `ShapeUtil::HumanString(const ProgramShape&)`.
    plain fn human_string_program_shape(program_shape: program);
    /// Validates the shape, missing layouts allowed, as XLA's
    /// `ShapeUtil::ValidateShapeWithOptionalLayout` (every `Shape` of this
    /// package passes).
    plain fn validate_shape_with_optional_layout(shape: shape);

    /// Returns `(deleted_dimensions, inserted_dimensions)` when `shape_post`
    /// is `shape_pre` with dimensions of size 1 deleted and inserted, else
    /// None, as XLA's `ShapeUtil::InsertedOrDeleted1SizedDimensions`.
    plain fn inserted_or_deleted_1_sized_dimensions(shape_pre: array, shape_post: array);
    /// Returns the `(input, output)` dimension pairs a reshape leaves
    /// unmodified, as XLA's `ShapeUtil::DimensionsUnmodifiedByReshape`.
    plain fn dimensions_unmodified_by_reshape(input: array, output: array);
    /// Returns the output dimensions of `input_dims` if a reshape from
    /// `from_shape` to `to_shape` leaves each unmodified, else None, as XLA's
    /// `ShapeUtil::ReshapeLeavesDimensionsUnmodified`.
    plain fn reshape_leaves_dimensions_unmodified(from_shape: array, to_shape: array, input_dims: ints);
    /// Tells whether `a` to `b` is a bitcast as a reshape or a transpose, as
    /// XLA's `ShapeUtil::IsReshapeOrTransposeBitcast`.
    #[pyo3(signature = (a, b, ignore_element_type=false))]
    plain fn is_reshape_or_transpose_bitcast(a: array, b: array, ignore_element_type: bool);
    /// Returns the dimensions of a transpose from `input` to `output` that is
    /// a bitcast, else None, as XLA's
    /// `ShapeUtil::DeduceTransposeDimensionsForBitcast`.
    plain fn deduce_transpose_dimensions_for_bitcast(input: array, output: array);
    /// Decomposes a bitcast into transpose, reshape, transpose, as XLA's
    /// `ShapeUtil::DecomposeBitcastToTrt`: `(transpose1_dims,
    /// transpose1_shape, reshape_shape, transpose2_dims)`.
    plain fn decompose_bitcast_to_trt(input: array, output: array);
    /// Decomposes a bitcast, as XLA's `ShapeUtil::DecomposeBitcast`:
    /// `("reshape", None)`, `("transpose", dims)` or `("trt", (transpose1_dims,
    /// transpose1_shape, reshape_shape, transpose2_dims))`.
    plain fn decompose_bitcast(input: array, output: array);
    /// Returns `output` with a layout that makes reshaping `input` into it a
    /// bitcast, else None, as XLA's `ShapeUtil::AlignLayouts`.
    plain fn align_layouts(input: array, output: array);
}

/// Returns the byte strides of a dense array per dimension, as XLA's
/// `ShapeUtil::ByteStrides(shape, strides)`: a new list (the caller's
/// buffer of the C++ and Rust forms has no use in Python); raises where
/// `byte_strides` gives None.
#[pyfunction]
fn byte_strides_into(py: Python<'_>, shape: PyRef<'_, PyShape>) -> PyResult<PyObject> {
    let a = as_array(&shape.0)?;
    let mut strides = vec![0; a.rank()];
    shape_util::byte_strides_into(a, &mut strides)
        .map(|()| strides)
        .to_python(py)
}

/// Returns the serialized size of a literal of `shape` whose `ShapeProto`
/// is `proto` (serialized bytes, or a message with `SerializeToString()`),
/// as XLA's `ShapeUtil::SerializedSizeWithProto`.
#[pyfunction]
fn serialized_size_with_proto(
    shape: PyRef<'_, PyShape>,
    proto: &Bound<'_, PyAny>,
) -> PyResult<i64> {
    use prost::Message;
    let bytes = match proto.downcast::<PyBytes>() {
        Ok(b) => b.clone(),
        Err(_) if proto.hasattr("SerializeToString")? => proto
            .call_method0("SerializeToString")?
            .downcast_into::<PyBytes>()?,
        Err(_) => {
            return Err(PyTypeError::new_err(
                "proto must be bytes or a ShapeProto message with SerializeToString()",
            ));
        }
    };
    let proto = ShapeProto::decode(bytes.as_bytes())
        .map_err(|e| to_py(Error::new(ErrorKind::Decode, e.to_string())))?;
    shape_util::serialized_size_with_proto(&shape.0, &proto).py()
}

/// Returns the array keeping the dimensions `i` for which `keep(i)` is
/// true, as XLA's `ShapeUtil::FilterDimensions`; an exception raised by
/// `keep` propagates.
#[pyfunction]
fn filter_dimensions(
    py: Python<'_>,
    keep: &Bound<'_, PyAny>,
    shape: PyRef<'_, PyShape>,
) -> PyResult<PyObject> {
    let a = as_array(&shape.0)?;
    let mut raised = None;
    let result = shape_util::filter_dimensions(
        |i| match keep.call1((i,)).and_then(|r| r.is_truthy()) {
            Ok(k) => k,
            Err(e) => {
                raised.get_or_insert(e);
                false
            }
        },
        a,
    );
    if let Some(e) = raised {
        return Err(e);
    }
    result.to_python(py)
}

/// The highest rank `indices` takes: the Rust iterator's rank is a
/// compile-time constant, so the binding instantiates it for ranks 0 to
/// this one.
const MAX_INDICES_RANK: usize = 12;

/// `shape_util::Indices<N>` for every rank `indices` takes.
macro_rules! ranked_indices {
    ($($n:literal => $v:ident),*) => {
        enum RankedIndices {
            $($v(shape_util::Indices<$n>)),*
        }

        impl RankedIndices {
            fn new(shape: &ArrayShape) -> PyResult<Self> {
                match shape.rank() {
                    $($n => shape_util::indices::<$n>(shape).py().map(RankedIndices::$v),)*
                    rank => Err(invalid_argument(format!(
                        "indices takes arrays of rank at most {MAX_INDICES_RANK}, got rank {rank}; \
                         index_util.bump_indices walks any rank"
                    ))),
                }
            }

            fn next<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyTuple>>> {
                match self {
                    $(RankedIndices::$v(i) => i.next().map(|x| PyTuple::new(py, x)).transpose(),)*
                }
            }

            fn len(&self) -> usize {
                match self {
                    $(RankedIndices::$v(i) => i.len(),)*
                }
            }
        }
    };
}

ranked_indices!(0 => R0, 1 => R1, 2 => R2, 3 => R3, 4 => R4, 5 => R5, 6 => R6, 7 => R7,
    8 => R8, 9 => R9, 10 => R10, 11 => R11, 12 => R12);

/// The iterator `indices` returns: each index a tuple.
#[pyclass(name = "Indices", module = "xla_shape.shape_util")]
struct PyIndices(RankedIndices);

#[pymethods]
impl PyIndices {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyTuple>>> {
        self.0.next(py)
    }

    fn __length_hint__(&self) -> usize {
        self.0.len()
    }
}

/// Iterates over every index of an array in the order of its layout, the
/// most minor dimension fastest, each a tuple, as the Rust
/// `shape_util::indices` (no XLA counterpart; the order of XLA's
/// `ShapeUtil::ForEachIndex`). Takes ranks up to 12; raises for an array
/// without a layout or with an unbounded dimension.
#[pyfunction]
fn indices(shape: PyRef<'_, PyShape>) -> PyResult<PyIndices> {
    RankedIndices::new(as_array(&shape.0)?).map(PyIndices)
}

/// Adds the functions of `xla_shape.shape_util`.
pub fn add(m: &Bound<'_, PyModule>) -> PyResult<()> {
    add_functions!(
        m,
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
        make_shape,
        make_validated_shape,
        make_shape_with_dynamic_dimensions,
        make_validated_shape_with_dynamic_dimensions,
        make_scalar_shape,
        make_validated_scalar_shape,
        make_shape_with_type,
        make_validated_shape_with_type,
        make_validated_buffer_shape,
        make_validated_buffer_shape_from_shape,
        make_shape_with_dense_layout,
        make_validated_shape_with_dense_layout,
        make_shape_with_dense_layout_from_layout,
        make_validated_shape_with_dense_layout_from_layout,
        make_validated_shape_with_sparse_layout,
        make_validated_shape_with_descending_layout,
        make_shape_with_descending_layout_and_same_physical_layout,
        make_validated_shape_with_descending_layout_and_same_physical_layout,
        make_shape_with_static_dimensions,
        make_tuple_shape,
        make_tuple_shape_with_ptrs,
        make_validated_tuple_shape,
        make_validated_tuple_shape_with_ptrs,
        make_maybe_tuple_shape,
        make_validated_maybe_tuple_shape,
        make_nil,
        make_opaque_shape,
        make_token_shape,
        make_program_shape,
        populate_shape,
        get_for_each_index_parallel_thread_count,
        has_primitive_type,
        is_scalar_with_element_type,
        get_tuple_element_shape,
        slice_tuple,
        get_dimension_number,
        get_dimension,
        create_dimension_vector_from_shape,
        element_has_bit_width,
        element_is_integral_with_bits,
        higher_precision_element_type,
        element_can_upcast,
        same_element_type_ignoring_fp_precision,
        is_effectively_most_major_dimension,
        packed_factor_for_1d_interleaved_array,
        dynamic_array_shape_is_compatible,
        dynamic_shape_is_compatible,
        compatible_kind,
        extent_product,
        static_extent_product,
        byte_size_of_tuple_index_table,
        element_size_in_bits,
        byte_strides,
        index_is_valid,
        try_get_subshape,
        is_leaf_index,
        get_leaf_count_tuple,
        flatten_tuple_shape,
        update_tuple_shape,
        append_shape_to_tuple,
        update_dynamic_dimension,
        complex_component_shape,
        move_dim_to_major,
        prepend_major_dimension,
        append_major_dimension,
        append_minor_dimension,
        delete_dimensions,
        reorder_logical_dimensions,
        copy_dynamic_dimensions,
        update_element_size_in_bits,
        human_string_program_shape,
        validate_shape_with_optional_layout,
        inserted_or_deleted_1_sized_dimensions,
        dimensions_unmodified_by_reshape,
        reshape_leaves_dimensions_unmodified,
        is_reshape_or_transpose_bitcast,
        deduce_transpose_dimensions_for_bitcast,
        decompose_bitcast_to_trt,
        decompose_bitcast,
        align_layouts,
        byte_strides_into,
        serialized_size_with_proto,
        filter_dimensions,
        indices,
    );
    Ok(())
}
