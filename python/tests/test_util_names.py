"""The utility submodules against the Rust modules they bind: every
public function of ``xla_shape::shape_util``, ``layout_util`` and
``index_util`` (read from the crate's sources) is either bound under the
same name, takes a Rust callback or mutates its argument in place (no
Python counterpart: Python loops and returns new values), or is listed
below as not bound yet. The lists cannot drift: a new Rust function, or a
binding of a listed one, fails this test until the list follows."""

import pathlib
import re

import pytest

import xla_shape as xs

REPO = pathlib.Path(__file__).resolve().parents[2]

SOURCES = {
    "shape_util": sorted((REPO / "src" / "shape_util").glob("*.rs")),
    "layout_util": [REPO / "src" / "layout_util.rs"],
    "index_util": [REPO / "src" / "index_util.rs"],
}

# Public Rust functions without a binding yet.
NOT_YET_BOUND = {
    "shape_util": {
        "align_layouts", "append_major_dimension", "append_minor_dimension",
        "append_shape_to_tuple", "byte_size_of_tuple_index_table", "byte_strides",
        "byte_strides_into", "compatible_kind", "complex_component_shape",
        "copy_dynamic_dimensions", "create_dimension_vector_from_shape",
        "decompose_bitcast", "decompose_bitcast_to_trt",
        "deduce_transpose_dimensions_for_bitcast", "delete_dimensions",
        "dimensions_unmodified_by_reshape", "dynamic_array_shape_is_compatible",
        "dynamic_shape_is_compatible", "element_can_upcast", "element_has_bit_width",
        "element_is_integral_with_bits", "element_size_in_bits", "extent_product",
        "filter_dimensions", "flatten_tuple_shape", "get_dimension", "get_dimension_number",
        "get_for_each_index_parallel_thread_count", "get_leaf_count_tuple",
        "get_tuple_element_shape", "has_primitive_type", "higher_precision_element_type",
        "human_string_program_shape", "index_is_valid", "indices",
        "inserted_or_deleted_1_sized_dimensions", "is_effectively_most_major_dimension",
        "is_leaf_index", "is_reshape_or_transpose_bitcast", "is_scalar_with_element_type",
        "make_maybe_tuple_shape", "make_nil", "make_opaque_shape", "make_program_shape",
        "make_scalar_shape", "make_shape", "make_shape_with_dense_layout",
        "make_shape_with_dense_layout_from_layout",
        "make_shape_with_descending_layout_and_same_physical_layout",
        "make_shape_with_dynamic_dimensions", "make_shape_with_static_dimensions",
        "make_shape_with_type", "make_token_shape", "make_tuple_shape",
        "make_tuple_shape_with_ptrs", "make_validated_buffer_shape",
        "make_validated_buffer_shape_from_shape", "make_validated_maybe_tuple_shape",
        "make_validated_scalar_shape", "make_validated_shape",
        "make_validated_shape_with_dense_layout",
        "make_validated_shape_with_dense_layout_from_layout",
        "make_validated_shape_with_descending_layout",
        "make_validated_shape_with_descending_layout_and_same_physical_layout",
        "make_validated_shape_with_dynamic_dimensions",
        "make_validated_shape_with_sparse_layout", "make_validated_shape_with_type",
        "make_validated_tuple_shape", "make_validated_tuple_shape_with_ptrs",
        "move_dim_to_major", "packed_factor_for_1d_interleaved_array", "populate_shape",
        "prepend_major_dimension", "reorder_logical_dimensions",
        "reshape_leaves_dimensions_unmodified", "same_element_type_ignoring_fp_precision",
        "serialized_size_with_proto", "slice_tuple", "static_extent_product",
        "try_get_subshape", "update_dynamic_dimension", "update_element_size_in_bits",
        "update_tuple_shape", "validate_shape_with_optional_layout",
    },
    "layout_util": {
        "are_dimensions_consecutive", "byte_strides_is_major_to_minor",
        "clear_layout_program_shape", "clear_tiles", "copy_layout_between_shapes",
        "get_default_layout_for_r2", "get_default_layout_for_r3",
        "get_default_layout_for_r4", "get_default_layout_for_shape", "get_split_config",
        "has_ascending_layout", "has_custom_element_size_in_bits",
        "has_layout_program_shape", "is_monotonic_with_dim0_major",
        "is_monotonic_with_dim0_minor", "layouts_in_shapes_equal_with",
        "max_elements_in_per_split", "max_split_size", "memory_space",
        "set_to_default_layout", "set_to_default_layout_program_shape",
    },
    "index_util": {
        "linear_index_to_multidimensional_index_into",
        "multidimensional_index_to_linear_index_with_minor_to_major",
    },
}


def rust_functions(module):
    names = set()
    for path in SOURCES[module]:
        names.update(re.findall(r"^pub fn (\w+)", path.read_text(encoding="utf-8"), re.M))
    return names


def takes_callback_or_mutates(name):
    return name.startswith("for_each") or "mutable" in name


@pytest.mark.parametrize("module", sorted(SOURCES))
def test_bindings_follow_the_rust_module(module):
    rust = rust_functions(module)
    bound = set(getattr(xs, module).__all__)
    assert bound <= rust, sorted(bound - rust)
    unbound = {n for n in rust - bound if not takes_callback_or_mutates(n)}
    assert unbound == NOT_YET_BOUND[module]
