"""The utility functions of ``xla_shape.shape_util``, ``layout_util`` and
``index_util`` against XLA's own test cases: each case cites its upstream
test in xla/shape_util_test.cc, xla/layout_util_test.cc or
xla/index_util_test.cc, or says where its expected value comes from
(XLA's definition in the header, derived beside the case, or the Rust
crate's test of the same function against XLA, named).

The Rust functions that change an argument in place return the new value
here and leave the argument alone; those cases check both."""

import numpy as np
import pytest

import xla_shape as xs
from xla_shape import index_util as iu
from xla_shape import layout_util as lu
from xla_shape import shape_util as su

S = xs.Shape
T = xs.PrimitiveType
# Shape::kUnboundedSize (xla/shape.h): std::numeric_limits<int64_t>::min().
UNBOUNDED = -(2**63)


def dense(t, dims, minor_to_major):
    """ShapeUtil::MakeShapeWithDenseLayout, as the upstream tests write it."""
    return su.make_shape_with_dense_layout(t, dims, minor_to_major)


# ---- construction ----------------------------------------------------------


def test_make_shape_family_prints_as_xla():
    # MakeShape gives the default layout {n-1,...,0} (LayoutUtil::
    # GetDefaultLayoutForRank), and the scalar layout {} which
    # ScalarDefaultLayoutEqualsScalarEmptyMin2Maj compares equal.
    for make in (su.make_shape, su.make_validated_shape):
        assert str(make(T.F32, [2, 3])) == "f32[2,3]{1,0}"
        assert make(T.F32, []) == dense(T.F32, [], [])
    for make in (su.make_scalar_shape, su.make_validated_scalar_shape):
        assert make("f32") == su.make_shape(T.F32, [])
        with pytest.raises(xs.XlaShapeError):
            make(T.TOKEN)
    # MakeShapeWithType<T>: the element type of the native type (numpy.float64
    # is F64 in jaxlib's dtype table).
    for make in (su.make_shape_with_type, su.make_validated_shape_with_type):
        assert str(make(np.float64, [5])) == "f64[5]{0}"
    # MakeShape(t, dims, dynamic_dimensions): a dynamic dimension prints <=N.
    for make in (su.make_shape_with_dynamic_dimensions, su.make_validated_shape_with_dynamic_dimensions):
        assert str(make(T.S32, [4, 3], [True, False])) == "s32[<=4,3]{1,0}"
        # ShapeUtilTest.InvalidDynamicDimension: an unbounded size marked static.
        with pytest.raises(xs.XlaShapeError, match="Invalid dimension size"):
            make(T.F32, [UNBOUNDED, UNBOUNDED], [True, False])
    for make in (su.make_shape, su.make_validated_shape):
        with pytest.raises(xs.XlaShapeError, match="Invalid dimension size"):
            make(T.F32, [-2])


def test_dense_layout_constructors():
    for make in (
        su.make_shape_with_dense_layout,
        su.make_validated_shape_with_dense_layout,
        su.make_validated_shape_with_sparse_layout,
    ):
        assert str(make(T.F32, [2, 3], [0, 1])) == "f32[2,3]{0,1}"
        # MakeValidatedShapeWithDenseLayout's own message.
        with pytest.raises(xs.XlaShapeError, match="Dimensions size is 2, but layout size is 1."):
            make(T.F32, [2, 3], [0])
    for make in (su.make_shape_with_dense_layout_from_layout, su.make_validated_shape_with_dense_layout_from_layout):
        layout = xs.Layout([1, 0], [(2, 128)], 4)
        assert str(make(T.S4, [123, 456], layout)) == "s4[123,456]{1,0:T(2,128)E(4)}"
        # An element size equal to the type's own (32 bits for F32) is not
        # set, as MakeShapeWithDenseLayout does upstream.
        assert str(make(T.F32, [2], xs.Layout([0], None, 32))) == "f32[2]{0}"
    assert str(su.make_validated_shape_with_descending_layout(T.F32, [2, 3])) == "f32[2,3]{1,0}"


def test_descending_layout_and_same_physical_layout():
    # ShapeUtilTest.MakeShapeWithDescendingLayoutAndSamePhysicalLayout.
    for make in (
        su.make_shape_with_descending_layout_and_same_physical_layout,
        su.make_validated_shape_with_descending_layout_and_same_physical_layout,
    ):
        s = dense(T.F32, [128, 24, 4, 48, 48], [2, 4, 3, 1, 0])
        assert make(s) == dense(T.F32, [128, 24, 48, 48, 4], [4, 3, 2, 1, 0])
        # The same with dimension 2 dynamic: the flag moves with it.
        d = S("f32[128,24,<=4,48,48]{2,4,3,1,0}")
        assert make(d) == S("f32[128,24,48,48,<=4]{4,3,2,1,0}")


def test_buffer_tuple_and_other_constructors():
    assert su.make_validated_buffer_shape(T.F32, [2, 3]) == S("b(f32[2,3]{1,0})")
    assert su.make_validated_buffer_shape_from_shape(S("f32[2]{0}")) == S("b(f32[2]{0})")
    with pytest.raises(xs.XlaShapeError):
        su.make_validated_buffer_shape_from_shape(S("(f32[2])"))
    assert str(su.make_nil()) == "()"
    assert str(su.make_opaque_shape()) == "opaque[]"
    assert str(su.make_token_shape()) == "token[]"
    nil, s32 = su.make_nil(), su.make_shape(T.S32, [])
    # ShapeUtilTest.NestedTuple and NestedTupleWithPtrs.
    cases = [
        ([], False), ([s32], False), ([nil], True), ([s32, s32], False),
        ([s32, nil], True), ([nil, s32], True), ([nil, nil], True),
    ]
    for make in (
        su.make_tuple_shape,
        su.make_tuple_shape_with_ptrs,
        su.make_validated_tuple_shape,
        su.make_validated_tuple_shape_with_ptrs,
    ):
        for elements, nested in cases:
            assert su.is_nested_tuple(make(elements)) is nested, (make, elements)
    # ShapeUtilTest.MakeMaybeTupleShape: one shape stays itself.
    for make in (su.make_maybe_tuple_shape, su.make_validated_maybe_tuple_shape):
        assert su.compatible(make([S("f32[3,2]")]), S("f32[3,2]"))
        assert make([s32, s32]) == su.make_tuple_shape([s32, s32])
    p = su.make_program_shape([S("f32[2]{0}")], S("s32[]"))
    assert p.parameter_names() == [""]
    # HumanString(ProgramShape): an empty name prints as "(unknown)".
    assert su.human_string_program_shape(p) == "((unknown): f32[2]) -> s32[]"
    named = xs.ProgramShape([S("f32[2]")], S("f32[2]"), ["x"])
    assert su.human_string_program_shape(named) == "(x: f32[2]) -> f32[2]"


def test_populate_shape_returns_a_new_shape():
    # PopulateShape replaces *shape: arrays get the default layout; a token
    # takes no dimensions.
    old = S("f32[9]")
    assert su.populate_shape(T.S8, [2, 3], old) == S("s8[2,3]{1,0}")
    assert old == S("f32[9]")
    assert su.populate_shape(T.TOKEN, [], old) == su.make_token_shape()
    with pytest.raises(xs.XlaShapeError):
        su.populate_shape(T.TOKEN, [2], old)


def test_static_dimensions_and_thread_count():
    s = su.make_shape_with_static_dimensions(S("(f32[<=4,3], s8[<=2])"))
    assert s.is_static()
    assert [t.dimensions() for t in s.tuple_shapes()] == [(4, 3), (2,)]
    assert su.get_for_each_index_parallel_thread_count() >= 1


# ---- queries -----------------------------------------------------------------


def test_element_type_queries():
    # ShapeUtilTest.HasPrimitiveType.
    assert su.has_primitive_type(S("s32[]"), T.S32)
    assert not su.has_primitive_type(S("s32[]"), T.S16)
    assert su.has_primitive_type(S("s32[0]"), T.S32)
    assert not su.has_primitive_type(S("()"), T.S32)
    assert su.has_primitive_type(S("(s32[], s32[])"), T.S32)
    assert su.has_primitive_type(S("(s32[], (s16[]))"), T.S16)
    # IsScalarWithElementType: rank 0 and the type (xla/shape_util.h).
    assert su.is_scalar_with_element_type(S("f32[]"), "f32")
    assert not su.is_scalar_with_element_type(S("f32[1]"), "f32")
    assert not su.is_scalar_with_element_type(S("s32[]"), "f32")
    # ElementHasBitWidth / ElementIsIntegralWithBits: the type's bit width
    # (primitive_util::BitWidth: s8 8, f32 32, u4 4).
    assert su.element_has_bit_width(S("f32[2]"), 32) and not su.element_has_bit_width(S("f32[2]"), 16)
    assert su.element_has_bit_width(S("u4[2]"), 4)
    assert su.element_is_integral_with_bits(S("s8[]"), 8)
    assert not su.element_is_integral_with_bits(S("f8e5m2[]"), 8)
    # HigherPrecisionElementType (primitive_util::HigherPrecisionType): f32
    # over bf16; ElementCanUpcast: to the higher precision only.
    assert su.higher_precision_element_type(S("bf16[]"), S("f32[]")) == T.F32
    assert su.element_can_upcast(S("bf16[]"), S("f32[]"))
    assert not su.element_can_upcast(S("f32[]"), S("bf16[]"))
    # SameElementTypeIgnoringFpPrecision: both floating, or equal.
    assert su.same_element_type_ignoring_fp_precision(S("f16[]"), S("f64[3]"))
    assert not su.same_element_type_ignoring_fp_precision(S("f16[]"), S("s16[]"))


def test_tuple_queries():
    t = S("(f32[2], s8[], (pred[3]))")
    assert su.get_tuple_element_shape(t, 1) == S("s8[]")
    assert su.slice_tuple(t, 1, 3) == S("(s8[], (pred[3]))")
    with pytest.raises(xs.XlaShapeError):
        su.get_tuple_element_shape(t, 3)
    with pytest.raises(xs.XlaShapeError):
        su.slice_tuple(t, 2, 1)
    with pytest.raises(OverflowError):
        su.get_tuple_element_shape(t, -1)
    # GetLeafCountTuple: leaves of a tuple, counted as GetLeafCount.
    assert su.get_leaf_count_tuple(t) == 3
    # ShapeUtilTest.FlattenTupleShape: empty tuples vanish.
    flat = su.flatten_tuple_shape(S("(f32[2,3], (f32[4,5], (), f32[6,7]), f32[8,9])"))
    assert [su.human_string(s) for s in flat] == ["f32[2,3]", "f32[4,5]", "f32[6,7]", "f32[8,9]"]


def test_subshape_index_queries():
    # ShapeUtilTest.GetSubshape and IsLeafIndex.
    a = S("f32[42,42,123]")
    pair = su.make_tuple_shape([a, a])
    nested = su.make_tuple_shape([a, pair, su.make_tuple_shape([pair, a])])
    assert su.try_get_subshape(nested, [2, 0]) == pair
    assert su.is_leaf_index(a, [])
    for index, leaf in (([], False), ([0], True), ([1], False), ([1, 0], True), ([1, 1], True)):
        assert su.is_leaf_index(nested, index) is leaf
    # IndexIsValid: each step an element number of a tuple.
    assert su.index_is_valid(nested, [2, 0, 1])
    assert not su.index_is_valid(nested, [3])
    assert not su.index_is_valid(nested, [0, 0])
    with pytest.raises(xs.XlaShapeError, match="not a valid subshape index"):
        su.try_get_subshape(nested, [0, 0])
    with pytest.raises(xs.XlaShapeError):
        su.is_leaf_index(nested, [7])


def test_dimension_queries():
    m = su.make_shape(T.F32, [2, 3])
    # ShapeUtilTest.GetDimensionHelperCanNegativeIndex, ...ExampleInDocumentationTest,
    # NegativeIndexOobFails.
    assert (su.get_dimension(m, -1), su.get_dimension(m, -2)) == (3, 2)
    assert su.get_dimension(S("f32[1,2,3,4]"), -1) == 4
    assert su.get_dimension_number(m, -1) == 1
    with pytest.raises(xs.XlaShapeError, match="dimension_number >= 0"):
        su.get_dimension(m, -3)
    with pytest.raises(xs.XlaShapeError):
        su.get_dimension(m, 2)
    # ShapeUtilTest.Rank3DimensionIndexing via CreateDimensionVectorFromShape.
    assert su.create_dimension_vector_from_shape(S("f32[3,2,7]")) == [3, 2, 7]
    assert su.create_dimension_vector_from_shape(S("(f32[3])")) == []
    # ShapeUtilTest.IsEffectivelyMostMajorDimension.
    for layout, dim, expected in (
        ("{4,0,1,2,3}", 2, True), ("{4,1,2,3,0}", 2, True),
        ("{0,1,2,3,4}", 2, False), ("{0,1,2,3,4}", 4, True),
    ):
        s = S("f32[1,1,16,1,279]" + layout)
        assert su.is_effectively_most_major_dimension(s, dim) is expected


def test_packing_and_compatibility_queries():
    # PackedFactorFor1DInterleavedArray: the third tile's first bound.
    assert su.packed_factor_for_1d_interleaved_array(S("bf16[1024]{0:T(1024)(128)(2,1)}")) == 2
    # DynamicArrayShapeIsCompatible: same rank, no dimension larger.
    assert su.dynamic_array_shape_is_compatible(S("f32[<=3,2]"), S("f32[4,2]"))
    assert not su.dynamic_array_shape_is_compatible(S("f32[<=5,2]"), S("f32[4,2]"))
    assert su.dynamic_shape_is_compatible(S("(f32[<=3])"), S("(f32[4])"))
    assert not su.dynamic_shape_is_compatible(S("(f32[<=3])"), S("f32[4]"))
    # CompatibleKind: the same tuple tree and leaf ranks, types aside.
    assert su.compatible_kind(S("(f32[2,3], s8[])"), S("(u8[7,9], pred[])"))
    assert not su.compatible_kind(S("(f32[2,3])"), S("(f32[2])"))


# ---- sizes -------------------------------------------------------------------


def test_sizes():
    # ExtentProduct: the product and whether it overflowed (OverflowSafeMultiply).
    assert su.extent_product(S("f32[3,5,7]")) == (105, False)
    assert su.static_extent_product(S("f32[3,5,7]")) == 105
    # ShapeUtilTest.ByteSizeOfWithoutPadding's tuple counterpart:
    # ByteSizeOfTupleIndexTable is pointer_size times the element count.
    assert su.byte_size_of_tuple_index_table(S("(f32[], s8[2], ())"), 8) == 24
    # ElementSizeInBits: E(n) when set, else 8 x byte width (s4 without E is 8).
    assert su.element_size_in_bits(S("s4[2]{0}")) == 8
    assert su.element_size_in_bits(S("s4[2]{0:E(4)}")) == 4
    assert su.element_size_in_bits(S("f32[2]")) == 32
    # ShapeUtilTest.ByteStrides.
    for f in (su.byte_strides, su.byte_strides_into):
        assert f(S("f32[3,5,7]")) == [140, 28, 4]
        assert f(S("f16[5,7,9]")) == [126, 18, 2]
    # Without a layout: nullopt upstream (a TF_RET_CHECK in the overload
    # that fills a buffer, which raises here).
    bare = lu.clear_layout(S("f32[3]"))
    assert su.byte_strides(bare) is None
    with pytest.raises(xs.XlaShapeError):
        su.byte_strides_into(bare)


def test_serialized_size_with_proto():
    # SerializedSizeWithProto(s, proto) is SerializedSize(s) when proto is
    # s's own proto: both forms, from bytes and from a message object.
    s = S("(f32[2,3], s4[5])")
    class Message:
        def SerializeToString(self):
            return s.to_serialized_proto()
    for proto in (s.to_serialized_proto(), Message()):
        assert su.serialized_size_with_proto(s, proto) == su.serialized_size(s)
    # 8 header bytes plus the proto's length: a larger proto counts.
    padded = S("(f32[2,3,1], s4[5])").to_serialized_proto()
    assert su.serialized_size_with_proto(s, padded) - su.serialized_size(s) == len(padded) - len(
        s.to_serialized_proto()
    )
    with pytest.raises(xs.DecodeError):
        su.serialized_size_with_proto(s, b"\xff")
    with pytest.raises(TypeError):
        su.serialized_size_with_proto(s, 3)


# ---- mutators return new values ----------------------------------------------


def test_update_tuple_and_dynamic_dimension():
    t = S("(f32[2], s8[])")
    assert su.update_tuple_shape(S("u8[7]"), 1, t) == S("(f32[2], u8[7])")
    assert su.append_shape_to_tuple(S("u8[7]"), t) == S("(f32[2], s8[], u8[7])")
    assert t == S("(f32[2], s8[])")
    with pytest.raises(xs.XlaShapeError):
        su.update_tuple_shape(S("u8[7]"), 2, t)
    # ShapeUtilTest.UpdateDynamicDimensions.
    s = S("(f32[10,100,1000])")
    u = su.update_dynamic_dimension(s, [0], 1, True)
    assert su.try_get_subshape(u, [0]).is_dynamic_dimension(1)
    assert s.is_static()
    with pytest.raises(xs.XlaShapeError):
        su.update_dynamic_dimension(s, [0], 3, True)


def test_dimension_surgery():
    # ShapeUtilTest.PrependMajorDimension.
    assert su.prepend_major_dimension(40, su.make_shape(T.F32, [10, 20, 30])) == su.make_shape(T.F32, [40, 10, 20, 30])
    assert su.prepend_major_dimension(40, dense(T.F32, [10, 20, 30], [0, 2, 1])) == dense(
        T.F32, [40, 10, 20, 30], [1, 3, 2, 0]
    )
    # ShapeUtilTest.AppendMinorDimension; AppendMajorDimension puts the new
    # dimension last in the layout instead (xla/shape_util.h).
    s = dense(T.F32, [10, 20, 30], [0, 2, 1])
    assert su.append_minor_dimension(40, s) == dense(T.F32, [10, 20, 30, 40], [3, 0, 2, 1])
    assert su.append_major_dimension(40, s) == dense(T.F32, [10, 20, 30, 40], [0, 2, 1, 3])
    assert s == dense(T.F32, [10, 20, 30], [0, 2, 1])
    # ShapeUtilTest.MoveDimToMajor.
    m = S("f32[10,10,10]{2,1,0}")
    assert su.move_dim_to_major(m, 0) == m
    assert su.move_dim_to_major(m, 1) == S("f32[10,10,10]{2,0,1}")
    assert su.move_dim_to_major(S("(f32[10,10,10]{2,1,0}, f32[10,10,10]{0,2,1})"), 0) == S(
        "(f32[10,10,10]{2,1,0}, f32[10,10,10]{2,1,0})"
    )
    with pytest.raises(xs.XlaShapeError):
        su.move_dim_to_major(m, 3)
    # ShapeUtilTest.DeleteDimensions and DeleteDimensionsUnsorted.
    assert su.delete_dimensions([1], dense(T.F32, [5, 3, 2], [2, 0, 1])) == dense(T.F32, [5, 2], [1, 0])
    five = dense(T.F32, [5, 3, 2, 7, 9], [2, 0, 1, 4, 3])
    for dims in ([1, 2, 3], [3, 2, 1]):
        assert su.delete_dimensions(dims, five) == dense(T.F32, [5, 9], [0, 1])
    with pytest.raises(xs.XlaShapeError):
        su.delete_dimensions([1, 1], five)
    # FilterDimensions keeps what DeleteDimensions would not delete.
    assert su.filter_dimensions(lambda i: i not in (1, 2, 3), five) == dense(T.F32, [5, 9], [0, 1])
    with pytest.raises(ZeroDivisionError):
        su.filter_dimensions(lambda i: 1 / 0, five)
    # ShapeUtilTest.ReorderDimensionsTest.
    r = su.reorder_logical_dimensions(dense(T.F32, [16, 3, 12, 17], [1, 2, 0, 3]), [0, 2, 1, 3])
    assert str(r) == "f32[16,12,3,17]{2,1,0,3}"
    with pytest.raises(xs.XlaShapeError):
        su.reorder_logical_dimensions(r, [0, 0, 1, 2])
    # ComplexComponentShape: c64 -> f32, c128 -> f64 (primitive_util::
    # ComplexComponentType).
    assert su.complex_component_shape(S("c64[2]{0}")) == S("f32[2]{0}")
    assert su.complex_component_shape(S("c128[]")) == S("f64[]")
    # CopyDynamicDimensions: `to` takes `from`'s flags.
    to, frm = S("f32[4,3]"), S("s8[<=4,3]")
    assert su.copy_dynamic_dimensions(to, frm) == S("f32[<=4,3]")
    assert to == S("f32[4,3]")
    # UpdateElementSizeInBits: the sub-byte width when packing, else 0.
    s4 = S("(s4[8]{0}, f32[2]{0})")
    assert su.update_element_size_in_bits(s4, True) == S("(s4[8]{0:E(4)}, f32[2]{0})")
    assert su.update_element_size_in_bits(S("s4[8]{0:E(4)}"), False) == S("s4[8]{0}")


# ---- validation and bitcasts -------------------------------------------------


def test_validate_shape_with_optional_layout():
    su.validate_shape_with_optional_layout(S("(f32[2], s8[3]{0})"))


def test_reshape_and_bitcast_analysis():
    # ShapeUtilTest.InsertedOrDeleted1SizedDimensions.
    f = su.inserted_or_deleted_1_sized_dimensions
    assert f(su.make_shape(T.S32, [9, 1, 4]), su.make_shape(T.S32, [1, 9, 4, 1])) == ([1], [0, 3])
    assert f(su.make_shape(T.S32, [9, 1, 4]), su.make_shape(T.S32, [3, 1, 12])) is None
    # ShapeUtilTest.DimensionsUnmodifiedByReshape_1x1x1x1_To_1x1x1 and ..._4x1x3x5x6x7_To_2x6x1x5x1x42.
    g = su.dimensions_unmodified_by_reshape
    assert g(S("s32[1,1,1,1]"), S("s32[1,1,1]")) == [(0, 0), (1, 1), (2, 2)]
    assert g(S("s32[1,1,1]"), S("s32[1,1,1,1]")) == [(0, 0), (1, 1), (2, 2)]
    assert g(S("s32[4,1,3,5,6,7]"), S("s32[2,6,1,5,1,42]")) == [(3, 3)]
    # The header's example of ReshapeLeavesDimensionsUnmodified:
    # T[a,b,x,y,cd] -> T[ab,x,1,y,c,d] with a=2, b=3, x=5, y=7, c=5, d=6.
    i, o = S("f32[2,3,5,7,30]"), S("f32[6,5,1,7,5,6]")
    assert g(i, o) == [(2, 1), (3, 3)]
    assert su.reshape_leaves_dimensions_unmodified(i, o, [2, 3]) == [1, 3]
    assert su.reshape_leaves_dimensions_unmodified(i, o, [0]) is None
    # ShapeUtilTest.IsReshapeOrTransposeBitcast.
    assert su.is_reshape_or_transpose_bitcast(S("f32[10,5]{1,0}"), S("f32[5,10]{0,1}"))
    assert not su.is_reshape_or_transpose_bitcast(S("f32[10,5]{1,0}"), S("f16[5,10]{0,1}"))
    assert su.is_reshape_or_transpose_bitcast(S("f32[10,5]{1,0}"), S("f16[5,10]{0,1}"), ignore_element_type=True)
    # ShapeUtilTest.DeduceTransposeDimensionsForBitcast.
    assert su.deduce_transpose_dimensions_for_bitcast(S("f32[5,3]{1,0}"), S("f32[3,5]{0,1}")) == [1, 0]
    assert su.deduce_transpose_dimensions_for_bitcast(S("f32[5,3]{1,0}"), S("f32[3,5]{1,0}")) is None


DECOMPOSE_BITCAST = [
    # ShapeUtilTest.DecomposeBitcastToReshape (two cases).
    ("f32[1,16,17,3]{3,2,1,0}", "f32[16,51]{1,0}", ("reshape", None)),
    ("f32[17,3,1,16]{1,0,3,2}", "f32[51,16]{0,1}", ("reshape", None)),
    # ShapeUtilTest.DecomposeBitcastToTranspose.
    ("f32[3,7,6,4]{3,2,1,0}", "f32[3,6,4,7]{2,1,3,0}", ("transpose", [0, 2, 3, 1])),
    # ShapeUtilTest.DecomposeBitcastToTransReshape, ...ToReshapeTrans, ...ToTrt (four cases).
    ("f32[16,17,3]{2,1,0}", "f32[51,16]{0,1}",
     ("trt", ([0, 1, 2], "f32[16,17,3]{2,1,0}", "f32[16,51]{1,0}", [1, 0]))),
    ("f32[16,17,3,7]{3,2,1,0}", "f32[7,16,51]{0,2,1}",
     ("trt", ([0, 1, 2, 3], "f32[16,17,3,7]{3,2,1,0}", "f32[16,51,7]{2,1,0}", [2, 0, 1]))),
    ("f32[16,3,17]{1,2,0}", "f32[51,16]{1,0}",
     ("trt", ([0, 2, 1], "f32[16,17,3]{2,1,0}", "f32[51,16]{1,0}", [0, 1]))),
    ("f32[16,3,17]{1,2,0}", "f32[16,51]{0,1}",
     ("trt", ([0, 2, 1], "f32[16,17,3]{2,1,0}", "f32[51,16]{1,0}", [1, 0]))),
]


@pytest.mark.parametrize("src,dst,expected", DECOMPOSE_BITCAST)
def test_decompose_bitcast(src, dst, expected):
    kind, value = su.decompose_bitcast(S(src), S(dst))
    if kind == "trt":
        t1, t1_shape, reshape, t2 = value
        value = (t1, str(t1_shape), str(reshape), t2)
        assert su.decompose_bitcast_to_trt(S(src), S(dst)) == (t1, t1_shape, reshape, t2)
    assert (kind, value) == expected


def test_align_layouts():
    # ShapeUtilTest.AlignLayouts: a layout when one makes the reshape a
    # bitcast, None otherwise.
    src = S("f32[3,8,5,7,11]{3,2,1,0,4}")
    aligned = su.align_layouts(src, S("f32[4,3,2,7,5,11]"))
    assert aligned is not None and aligned.layout() == xs.Layout([4, 3, 2, 1, 0, 5])
    assert su.reshape_is_bitcast(src, aligned)
    assert su.align_layouts(src, S("f32[3,2,4,35,11]")).layout() == xs.Layout([3, 2, 1, 0, 4])
    assert su.align_layouts(S("f32[3,8,5,7,11]{2,3,1,0,4}"), S("f32[4,3,2,7,5,11]")) is None
    assert su.align_layouts(src, S("f32[4,3,2,5,77]")) is None


def test_indices_iterates_in_layout_order():
    # The order of ShapeUtil::ForEachIndex: the most minor dimension fastest
    # (the Rust shape_util::indices doc example, f32[2,3]{0,1}).
    s = dense(T.F32, [2, 3], [0, 1])
    it = su.indices(s)
    assert it.__length_hint__() == 6
    assert list(it) == [(0, 0), (1, 0), (0, 1), (1, 1), (0, 2), (1, 2)]
    assert list(su.indices(S("f32[]"))) == [()]
    assert list(su.indices(S("f32[0,2]"))) == []
    # ForEachIndex invocation counts (ShapeUtilTest.ForEachIndex): 6x11x17.
    assert sum(1 for _ in su.indices(S("f32[6,11,17]"))) == 1122
    with pytest.raises(xs.XlaShapeError):
        su.indices(S("f32[" + ",".join(["1"] * 13) + "]"))
    with pytest.raises(xs.XlaShapeError):
        su.indices(S("(f32[2])"))


# ---- layout_util ---------------------------------------------------------------


def test_default_layouts():
    # LayoutUtilTest.DefaultLayoutGettersMajorToMinor.
    assert lu.get_default_layout_for_r2() == lu.make_layout([1, 0])
    assert lu.get_default_layout_for_r3() == lu.make_layout([2, 1, 0])
    assert lu.get_default_layout_for_r4() == lu.make_layout([3, 2, 1, 0])
    assert lu.get_default_layout_for_shape(S("f32[10,20,30,15,25]")) == lu.make_layout([4, 3, 2, 1, 0])
    assert lu.get_default_layout_for_shape(su.make_token_shape()) == lu.make_layout([])
    # LayoutUtilTest.SetToDefaultLayoutTuple: other layout fields are kept.
    t = S("(f32[2,3,4]{1,0,2}, f32[42,123,7]{1,2,0}, (f32[], f32[1,2,3,4]{3,1,2,0}))")
    d = lu.set_to_default_layout(t)
    assert [e.layout() for e in d.tuple_shapes()[:2]] == [lu.make_layout([2, 1, 0])] * 2
    assert t.tuple_shapes()[0].layout() == lu.make_layout([1, 0, 2])
    assert lu.set_to_default_layout(S("f32[2,3]{0,1:T(2,128)}")) == S("f32[2,3]{1,0:T(2,128)}")


def test_layout_order_predicates():
    # Sorted non-decreasing / non-increasing (xla/layout_util.h).
    for mtm, ascending, descending in (([0, 1, 2], True, False), ([2, 1, 0], False, True), ([0], True, True), ([1, 0, 2], False, False)):
        layout = lu.make_layout(mtm)
        assert lu.has_ascending_layout(layout) is ascending
        assert lu.is_monotonic_with_dim0_minor(layout) is ascending
        assert lu.is_monotonic_with_dim0_major(layout) is descending
    # AreDimensionsConsecutive: positions sorted must be consecutive.
    layout = lu.make_layout([2, 0, 1])
    assert lu.are_dimensions_consecutive(layout, [0, 2])
    assert not lu.are_dimensions_consecutive(layout, [1, 2])


def test_program_shape_layouts():
    p = xs.ProgramShape([S("f32[2,3]{0,1}"), S("s8[]")], S("(f32[4]{0})"))
    assert lu.has_layout_program_shape(p)
    cleared = lu.clear_layout_program_shape(p)
    assert not lu.has_layout_program_shape(cleared)
    assert cleared.parameter_shapes()[0] == lu.clear_layout(S("f32[2,3]"))
    assert lu.has_layout_program_shape(p)
    d = lu.set_to_default_layout_program_shape(cleared)
    assert d.parameter_shapes()[0] == S("f32[2,3]{1,0}")
    assert d.result_shape() == S("(f32[4]{0})")


def test_clear_tiles_and_element_size():
    t = S("(f32[8,128]{1,0:T(8,128)}, s4[4]{0:T(2)E(4)})")
    assert lu.clear_tiles(t) == S("(f32[8,128]{1,0}, s4[4]{0:E(4)})")
    assert lu.clear_tiles(t) != t
    # LayoutUtilTest.HasCustomElementSizeInBits.
    assert not lu.has_custom_element_size_in_bits(S("f32[1,2]"))
    assert not lu.has_custom_element_size_in_bits(S("f32[1,2]{1,0:E(0)}"))
    assert lu.has_custom_element_size_in_bits(S("f32[1,2]{1,0:E(32)}"))
    assert not lu.has_custom_element_size_in_bits(S("((f32[1,2], f32[1,2]), f32[1,2])"))
    assert lu.has_custom_element_size_in_bits(S("((f32[1,2], f32[1,2]), f32[1,2]{0,1:E(32)})"))
    # MemorySpace: S(n), 0 without a layout.
    assert lu.memory_space(S("f32[2]{0:S(3)}")) == 3
    assert lu.memory_space(S("(f32[2]{0:S(3)})")) == 0


def test_copy_layout_between_shapes():
    # LayoutUtilTest.CopyLayoutDenseArray, CopyLayoutNotCompatibleDifferentRank,
    # CopyLayoutBogusLayout.
    src, dst = S("f32[2,3]{0,1}"), S("f32[2,3]{1,0}")
    out = lu.copy_layout_between_shapes(src, dst)
    assert lu.layouts_in_shapes_equal(src, out) and dst == S("f32[2,3]{1,0}")
    assert lu.copy_layout_between_shapes(S("f32[123,42,7]{2,0,1}"), S("f32[2,3,5]{1,0,2}")).layout() == lu.make_layout([2, 0, 1])
    with pytest.raises(xs.XlaShapeError, match="cannot copy layout from shape"):
        lu.copy_layout_between_shapes(S("f32[123,42,7]{2,0,1}"), S("f32[2,3]{1,0}"))
    # A source without layout clears the destination's.
    assert lu.copy_layout_between_shapes(S("f32[2,3]"), dst) == S("f32[2,3]")


def test_layouts_in_shapes_equal_with_options():
    a, b = S("f32[8,128]{1,0:T(8,128)}"), S("f32[8,128]{1,0}")
    assert not lu.layouts_in_shapes_equal_with(a, b)
    assert lu.layouts_in_shapes_equal_with(a, b, ignore_tiles=True)
    assert lu.layouts_in_shapes_equal_with(a, b, minor_to_major_only=True)
    c = S("f32[8,128]{1,0:S(1)}")
    assert not lu.layouts_in_shapes_equal_with(c, b, ignore_tiles=True)
    assert lu.layouts_in_shapes_equal_with(c, b, ignore_memory_space=True)
    assert lu.layouts_in_shapes_equal_with(S("f32[2]{0:E(4)}"), S("f32[2]{0}"), ignore_element_size=True)
    assert not lu.layouts_in_shapes_equal_with(S("f32[2,3]{0,1}"), S("f32[2,3]{1,0}"), minor_to_major_only=True)


def test_byte_strides_is_major_to_minor():
    # LayoutUtilTest.ByteStridesIsMajorToMinor.
    assert lu.byte_strides_is_major_to_minor([3960, 440, 44, 4], [8, 9, 10, 11], T.F32)
    assert not lu.byte_strides_is_major_to_minor([1880, 220, 22, 2], [8, 9, 10, 11], T.F32)
    assert not lu.byte_strides_is_major_to_minor([1880, 440, 44, 4], [8, 9, 10, 11], T.F32)
    with pytest.raises(xs.XlaShapeError):
        lu.byte_strides_is_major_to_minor([4], [8, 9], T.F32)


def test_split_configs():
    # LayoutUtilTest.MaxSplitSize and MaxElementsInPerSplit.
    s = S("f32[150,200,100]{0,1,2:SC(0:30)(1:40,130)}")
    assert [lu.max_split_size(s, d) for d in range(3)] == [150, 90, 70]
    assert lu.max_elements_in_per_split(s) == 150 * 90 * 70
    assert lu.max_elements_in_per_split(S("f32[150,200,100]{0,1,2}")) == 3_000_000
    with pytest.raises(xs.XlaShapeError):
        lu.max_split_size(s, 3)
    # GetSplitConfig: the one split config as (dimension, split_indices).
    assert lu.get_split_config(S("f32[150,200]{0,1:SC(1:40,130)}")) == (1, [40, 130])
    assert lu.get_split_config(S("f32[150]{0}")) is None


# ---- index_util ----------------------------------------------------------------


def test_index_util_minor_to_major_and_into():
    # IndexUtilTest.VectorIndexing, MatrixIndexingRowMajor, MatrixIndexingColumnMajor,
    # ThreeDArrayIndexing3210, ThreeDArrayIndexing1230, FourDArrayIndexing3210.
    f = iu.multidimensional_index_to_linear_index_with_minor_to_major
    cases = [
        ("f32[100]", [0], [42], 42),
        ("f32[10,20]", [0, 1], [3, 5], 53),
        ("f32[10,20]", [1, 0], [3, 5], 65),
        ("f32[10,20]", [1, 0], [9, 19], 199),
        ("f32[10,20,30]", [2, 1, 0], [8, 15, 27], 5277),
        ("f32[10,20,30]", [1, 2, 0], [3, 5, 7], 1945),
        ("f32[10,20,30,40]", [3, 2, 1, 0], [8, 15, 27, 33], 211113),
    ]
    for shape, mtm, index, linear in cases:
        # The shape's own layout is the descending one; minor_to_major wins.
        assert f(S(shape), mtm, index) == linear
        relaid = dense(T.F32, S(shape).dimensions(), mtm)
        assert iu.linear_index_to_multidimensional_index_into(relaid, linear) == index
    with pytest.raises(xs.XlaShapeError):
        iu.linear_index_to_multidimensional_index_into(S("(f32[2])"), 0)
