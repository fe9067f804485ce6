"""The ShapeUtil queries bound by ``shape_queries!``, on cases whose answer
follows from XLA's definitions in xla/shape_util.h (derivation beside each
case)."""

import pytest

import xla_shape as xs
from xla_shape import shape_util as su

S = xs.Shape


def test_tuple_queries():
    # IsEmptyTuple: a tuple with no elements.
    assert su.is_empty_tuple(S("()"))
    assert not su.is_empty_tuple(S("(f32[])"))
    assert not su.is_empty_tuple(S("f32[]"))
    # IsNestedTuple: a tuple with an element that is a tuple.
    assert su.is_nested_tuple(S("(f32[], (s32[]))"))
    assert not su.is_nested_tuple(S("(f32[], s32[])"))
    # SubshapeCount: the shape itself plus every nested element:
    # 1 (outer) + 1 (f32[]) + 1 (inner tuple) + 1 (s32[]) = 4.
    assert su.subshape_count(S("(f32[], (s32[]))")) == 4
    assert su.subshape_count(S("f32[2]")) == 1
    # EqualStructure: same tuple tree, leaves of any type.
    assert su.equal_structure(S("(f32[2], (s8[]))"), S("(u4[7,7], (pred[]))"))
    assert not su.equal_structure(S("(f32[2], (s8[]))"), S("(f32[2], s8[])"))


def test_comparisons_that_ignore_parts():
    a, b = S("f32[2,3]{1,0}"), S("bf16[2,3]{1,0}")
    # F32 and BF16 differ in type but are both floating point.
    assert not su.equal(a, b)
    assert su.equal_ignoring_element_type(a, b)
    assert su.equal_ignoring_fp_precision(a, b)
    assert not su.equal_ignoring_fp_precision(a, S("s32[2,3]{1,0}"))
    # The Compatible variants also ignore layouts.
    assert su.compatible_ignoring_element_type(a, S("s32[2,3]{0,1}"))
    assert su.compatible_ignoring_fp_precision(a, S("f16[2,3]{0,1}"))
    assert not su.compatible_ignoring_fp_precision(a, S("s32[2,3]{0,1}"))
    assert su.same_element_type(a, S("f32[7]"))
    assert not su.same_element_type(a, b)


def test_element_kinds():
    # xla/primitive_util.h: floating F32; integral S8, U8; signed S8 and
    # floating types; complex C64.
    assert su.element_is_floating(S("f32[]")) and not su.element_is_floating(S("s8[]"))
    assert su.element_is_integral(S("u8[]")) and not su.element_is_integral(S("f32[]"))
    assert su.element_is_signed(S("s8[]")) and su.element_is_signed(S("f32[]"))
    assert not su.element_is_signed(S("u8[]"))
    assert su.element_is_complex(S("c64[]")) and not su.element_is_complex(S("f32[]"))


def test_array_queries():
    # TrueNumDimensions counts the dimensions of size other than 1.
    assert su.true_num_dimensions(S("f32[1,5,1,3]")) == 2
    assert su.same_rank(S("f32[2,3]"), S("s8[7,7]"))
    assert not su.same_rank(S("f32[2,3]"), S("f32[2]"))
    assert su.same_dimensions(S("f32[2,3]"), S("s8[2,3]"))
    assert not su.same_dimensions(S("f32[2,3]"), S("f32[3,2]"))
    with pytest.raises(xs.InvalidArgumentError):
        su.same_rank(S("(f32[])"), S("f32[]"))
