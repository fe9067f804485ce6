//! Field numbers of `xla/xla_data.proto` and `xla/service/hlo.proto`
//! (openxla/xla, as checked in under `proto/`) read and written by the
//! hand-written codecs. A unit test checks each against the compiled schema.

/// `message ShapeProto`.
pub(crate) mod shape {
    pub(crate) const ELEMENT_TYPE: u32 = 2;
    pub(crate) const DIMENSIONS: u32 = 3;
    pub(crate) const TUPLE_SHAPES: u32 = 4;
    pub(crate) const LAYOUT: u32 = 5;
    pub(crate) const IS_DYNAMIC_DIMENSION: u32 = 6;
}

/// `message LayoutProto`. The sparse fields `dim_level_types` (9),
/// `dim_unique` (13) and `dim_ordered` (14), which XLA's
/// `Layout::FromProto` ignores, are skipped as unknown fields.
pub(crate) mod layout {
    pub(crate) const MINOR_TO_MAJOR: u32 = 1;
    pub(crate) const TILES: u32 = 6;
    pub(crate) const ELEMENT_SIZE_IN_BITS: u32 = 7;
    pub(crate) const MEMORY_SPACE: u32 = 8;
    pub(crate) const PHYSICAL_SHAPE: u32 = 10;
    pub(crate) const INDEX_PRIMITIVE_TYPE: u32 = 11;
    pub(crate) const POINTER_PRIMITIVE_TYPE: u32 = 12;
    pub(crate) const DYNAMIC_SHAPE_METADATA_PREFIX_BYTES: u32 = 15;
    pub(crate) const TAIL_PADDING_ALIGNMENT_IN_ELEMENTS: u32 = 16;
    pub(crate) const SPLIT_CONFIGS: u32 = 17;
}

/// `message TileProto`.
pub(crate) mod tile {
    pub(crate) const DIMENSIONS: u32 = 1;
}

/// `message SplitConfigProto`.
pub(crate) mod split_config {
    pub(crate) const DIMENSION: u32 = 1;
    pub(crate) const SPLIT_INDICES: u32 = 2;
}

/// `message ProgramShapeProto`.
pub(crate) mod program_shape {
    pub(crate) const PARAMETERS: u32 = 1;
    pub(crate) const RESULT: u32 = 2;
    pub(crate) const PARAMETER_NAMES: u32 = 3;
}

/// `message HloModuleProto`: the fields the module view reads.
pub(crate) mod hlo_module {
    pub(crate) const NAME: u32 = 1;
    pub(crate) const ENTRY_COMPUTATION_NAME: u32 = 2;
    pub(crate) const COMPUTATIONS: u32 = 3;
    pub(crate) const HOST_PROGRAM_SHAPE: u32 = 4;
    pub(crate) const ENTRY_COMPUTATION_ID: u32 = 6;
}

/// `message HloComputationProto`: the fields the module view reads.
pub(crate) mod hlo_computation {
    pub(crate) const NAME: u32 = 1;
    pub(crate) const INSTRUCTIONS: u32 = 2;
    pub(crate) const PROGRAM_SHAPE: u32 = 4;
    pub(crate) const ID: u32 = 5;
    pub(crate) const ROOT_ID: u32 = 6;
}

/// `message HloInstructionProto`: the fields the module view reads.
pub(crate) mod hlo_instruction {
    pub(crate) const NAME: u32 = 1;
    pub(crate) const OPCODE: u32 = 2;
    pub(crate) const SHAPE: u32 = 3;
    pub(crate) const ID: u32 = 35;
    pub(crate) const OPERAND_IDS: u32 = 36;
}

/// The wrappers of a module: `HloProto.hlo_module` and `HloSnapshot.hlo`
/// are both field 1.
pub(crate) mod hlo_wrapper {
    pub(crate) const WRAPPED: u32 = 1;
}

/// Map entries (`map<K, V>` is `repeated Entry { K key = 1; V value = 2; }`,
/// protobuf language guide, "Maps: Backwards compatibility").
#[cfg(feature = "formats")]
pub(crate) mod map_entry {
    pub(crate) const KEY: u32 = 1;
    pub(crate) const VALUE: u32 = 2;
}

#[cfg(test)]
mod tests {
    use prost::Message;
    use prost_types::FileDescriptorSet;

    /// The number of `message.field` in the compiled schema.
    fn number(message: &str, field: &str) -> u32 {
        let set = FileDescriptorSet::decode(crate::proto::FILE_DESCRIPTOR_SET).unwrap();
        let m = set
            .file
            .iter()
            .flat_map(|f| &f.message_type)
            .find(|m| m.name() == message)
            .unwrap_or_else(|| panic!("{message}"));
        let f = m.field.iter().find(|f| f.name() == field).unwrap();
        f.number() as u32
    }

    #[test]
    fn field_numbers_are_the_schemas() {
        use super::*;
        let cases = [
            ("ShapeProto", "element_type", shape::ELEMENT_TYPE),
            ("ShapeProto", "dimensions", shape::DIMENSIONS),
            ("ShapeProto", "tuple_shapes", shape::TUPLE_SHAPES),
            ("ShapeProto", "layout", shape::LAYOUT),
            (
                "ShapeProto",
                "is_dynamic_dimension",
                shape::IS_DYNAMIC_DIMENSION,
            ),
            ("LayoutProto", "minor_to_major", layout::MINOR_TO_MAJOR),
            ("LayoutProto", "tiles", layout::TILES),
            (
                "LayoutProto",
                "element_size_in_bits",
                layout::ELEMENT_SIZE_IN_BITS,
            ),
            ("LayoutProto", "memory_space", layout::MEMORY_SPACE),
            ("LayoutProto", "physical_shape", layout::PHYSICAL_SHAPE),
            (
                "LayoutProto",
                "index_primitive_type",
                layout::INDEX_PRIMITIVE_TYPE,
            ),
            (
                "LayoutProto",
                "pointer_primitive_type",
                layout::POINTER_PRIMITIVE_TYPE,
            ),
            (
                "LayoutProto",
                "dynamic_shape_metadata_prefix_bytes",
                layout::DYNAMIC_SHAPE_METADATA_PREFIX_BYTES,
            ),
            (
                "LayoutProto",
                "tail_padding_alignment_in_elements",
                layout::TAIL_PADDING_ALIGNMENT_IN_ELEMENTS,
            ),
            ("LayoutProto", "split_configs", layout::SPLIT_CONFIGS),
            ("TileProto", "dimensions", tile::DIMENSIONS),
            ("SplitConfigProto", "dimension", split_config::DIMENSION),
            (
                "SplitConfigProto",
                "split_indices",
                split_config::SPLIT_INDICES,
            ),
            ("ProgramShapeProto", "parameters", program_shape::PARAMETERS),
            ("ProgramShapeProto", "result", program_shape::RESULT),
            (
                "ProgramShapeProto",
                "parameter_names",
                program_shape::PARAMETER_NAMES,
            ),
            ("HloModuleProto", "name", hlo_module::NAME),
            (
                "HloModuleProto",
                "entry_computation_name",
                hlo_module::ENTRY_COMPUTATION_NAME,
            ),
            ("HloModuleProto", "computations", hlo_module::COMPUTATIONS),
            (
                "HloModuleProto",
                "host_program_shape",
                hlo_module::HOST_PROGRAM_SHAPE,
            ),
            (
                "HloModuleProto",
                "entry_computation_id",
                hlo_module::ENTRY_COMPUTATION_ID,
            ),
            ("HloComputationProto", "name", hlo_computation::NAME),
            (
                "HloComputationProto",
                "instructions",
                hlo_computation::INSTRUCTIONS,
            ),
            (
                "HloComputationProto",
                "program_shape",
                hlo_computation::PROGRAM_SHAPE,
            ),
            ("HloComputationProto", "id", hlo_computation::ID),
            ("HloComputationProto", "root_id", hlo_computation::ROOT_ID),
            ("HloInstructionProto", "name", hlo_instruction::NAME),
            ("HloInstructionProto", "opcode", hlo_instruction::OPCODE),
            ("HloInstructionProto", "shape", hlo_instruction::SHAPE),
            ("HloInstructionProto", "id", hlo_instruction::ID),
            (
                "HloInstructionProto",
                "operand_ids",
                hlo_instruction::OPERAND_IDS,
            ),
            ("HloProto", "hlo_module", hlo_wrapper::WRAPPED),
            ("HloSnapshot", "hlo", hlo_wrapper::WRAPPED),
        ];
        for (message, field, ours) in cases {
            assert_eq!(number(message, field), ours, "{message}.{field}");
        }
    }
}
