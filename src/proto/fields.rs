//! Field numbers of `xla/xla_data.proto` and `xla/service/hlo.proto`
//! (openxla/xla, as checked in under `proto/`) read and written by the
//! hand-written codecs (`model::wire`, `hlo::wire`, `hlo::assignment`),
//! beside the generated types of the same schema. A unit test checks each
//! against the compiled schema. The byte layer (`protobuf`) knows none of
//! them.

/// `message OpSharding`.
pub(crate) mod op_sharding {
    pub(crate) const TYPE: u32 = 1;
    pub(crate) const TILE_SHAPE: u32 = 2;
    pub(crate) const TILE_ASSIGNMENT_DIMENSIONS: u32 = 3;
    pub(crate) const TILE_ASSIGNMENT_DEVICES: u32 = 4;
    pub(crate) const TUPLE_SHARDINGS: u32 = 5;
    pub(crate) const REPLICATE_ON_LAST_TILE_DIM: u32 = 6;
    pub(crate) const METADATA: u32 = 7;
    pub(crate) const LAST_TILE_DIMS: u32 = 8;
    pub(crate) const IOTA_RESHAPE_DIMS: u32 = 9;
    pub(crate) const IOTA_TRANSPOSE_PERM: u32 = 10;
    pub(crate) const IS_SHARD_GROUP: u32 = 11;
    pub(crate) const SHARD_GROUP_ID: u32 = 12;
    pub(crate) const SHARD_GROUP_TYPE: u32 = 13;
    pub(crate) const NAMED_SHARDING: u32 = 14;
}

/// `message OpMetadata`: the field XLA's C++ runtime packs and prost's
/// generated type does not.
pub(crate) mod op_metadata {
    pub(crate) const PROFILE_TYPE: u32 = 5;
}

/// `message NamedShardingProto`.
pub(crate) mod named_sharding {
    pub(crate) const METADATA: u32 = 6;
}

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
    pub(crate) const SCHEDULE: u32 = 7;
    pub(crate) const INPUT_OUTPUT_ALIAS: u32 = 8;
    pub(crate) const BUFFER_DONOR: u32 = 18;
}

/// `message HloScheduleProto` and its `InstructionSequence`; `sequences`
/// is a map, whose entries are `map_entry` messages.
pub(crate) mod hlo_schedule {
    pub(crate) const SEQUENCES: u32 = 1;
    pub(crate) const INSTRUCTION_IDS: u32 = 1;
}

/// `message HloInputOutputAliasProto` and its `AliasEntryProto`.
pub(crate) mod input_output_alias {
    pub(crate) const ENTRIES: u32 = 1;
    pub(crate) const OUTPUT_SHAPE_INDEX: u32 = 1;
    pub(crate) const PARAMETER_NUMBER: u32 = 2;
    pub(crate) const PARAMETER_SHAPE_INDEX: u32 = 3;
    pub(crate) const KIND: u32 = 4;
    /// `enum Kind`: `MUST_ALIAS`.
    pub(crate) const MUST_ALIAS: u64 = 2;
}

/// `message HloBufferDonorProto` and its `BufferDonorEntryProto`.
pub(crate) mod buffer_donor {
    pub(crate) const ENTRIES: u32 = 1;
    pub(crate) const PARAMETER_NUMBER: u32 = 1;
    pub(crate) const PARAMETER_SHAPE_INDEX: u32 = 2;
}

/// `message HloProto`: its buffer assignment (the module is
/// [`hlo_wrapper::WRAPPED`]).
pub(crate) mod hlo_proto {
    pub(crate) const BUFFER_ASSIGNMENT: u32 = 3;
}

/// `message BufferAssignmentProto` and the messages it holds.
pub(crate) mod buffer_assignment {
    pub(crate) const LOGICAL_BUFFERS: u32 = 1;
    pub(crate) const BUFFER_ALLOCATIONS: u32 = 3;
    pub(crate) const HEAP_SIMULATOR_TRACES: u32 = 4;
}

/// `message LogicalBufferProto` and its `Location`.
pub(crate) mod logical_buffer {
    pub(crate) const ID: u32 = 1;
    pub(crate) const SIZE: u32 = 2;
    pub(crate) const DEFINED_AT: u32 = 3;
    pub(crate) const COLOR: u32 = 4;
    pub(crate) const INSTRUCTION_ID: u32 = 4;
    pub(crate) const SHAPE_INDEX: u32 = 3;
}

/// `message BufferAllocationProto` and its `Assigned`.
pub(crate) mod buffer_allocation {
    pub(crate) const INDEX: u32 = 1;
    pub(crate) const SIZE: u32 = 2;
    pub(crate) const IS_THREAD_LOCAL: u32 = 3;
    pub(crate) const IS_ENTRY_COMPUTATION_PARAMETER: u32 = 5;
    pub(crate) const PARAMETER_NUMBER: u32 = 6;
    pub(crate) const MAYBE_LIVE_OUT: u32 = 7;
    pub(crate) const COLOR: u32 = 8;
    pub(crate) const ASSIGNED: u32 = 9;
    pub(crate) const PARAMETER_SHAPE_INDEX: u32 = 10;
    pub(crate) const IS_TUPLE: u32 = 11;
    pub(crate) const IS_CONSTANT: u32 = 12;
    pub(crate) const IS_PARAMETER_ALIASED_WITH_OUTPUT: u32 = 13;
    pub(crate) const LOGICAL_BUFFER_ID: u32 = 1;
    pub(crate) const OFFSET: u32 = 2;
    pub(crate) const ASSIGNED_SIZE: u32 = 3;
}

/// `message HeapSimulatorTrace` and its `Event`.
pub(crate) mod heap_trace {
    pub(crate) const EVENTS: u32 = 1;
    pub(crate) const WHOLE_MODULE_SIMULATION: u32 = 2;
    pub(crate) const BUFFER_ALLOCATION_INDEX: u32 = 3;
    pub(crate) const KIND: u32 = 1;
    pub(crate) const BUFFER_ID: u32 = 2;
    pub(crate) const SHARE_WITH_CANONICAL_ID: u32 = 5;
}

/// `message OutputOperandAliasing` (`xla_data.proto`).
pub(crate) mod output_operand_aliasing {
    pub(crate) const OUTPUT_SHAPE_INDEX: u32 = 1;
    pub(crate) const OPERAND_INDEX: u32 = 2;
    pub(crate) const OPERAND_SHAPE_INDEX: u32 = 3;
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
    pub(crate) const PARAMETER_NUMBER: u32 = 9;
    pub(crate) const FUSION_KIND: u32 = 11;
    pub(crate) const TUPLE_INDEX: u32 = 13;
    pub(crate) const ID: u32 = 35;
    pub(crate) const OPERAND_IDS: u32 = 36;
    pub(crate) const CALLED_COMPUTATION_IDS: u32 = 38;
    pub(crate) const SHARDING: u32 = 40;
    pub(crate) const OUTPUT_OPERAND_ALIASING: u32 = 74;
}

/// The wrappers of a module: `HloProto.hlo_module` and `HloSnapshot.hlo`
/// are both field 1.
pub(crate) mod hlo_wrapper {
    pub(crate) const WRAPPED: u32 = 1;
}

#[cfg(test)]
mod tests {
    use prost::Message;
    use prost_types::FileDescriptorSet;

    /// The number of `message.field` in the compiled schema; `message` is
    /// a top-level message or a nested one (`LogicalBufferProto.Location`).
    fn number(message: &str, field: &str) -> u32 {
        let set = FileDescriptorSet::decode(super::super::FILE_DESCRIPTOR_SET).unwrap();
        let mut path = message.split('.');
        let top = path.next().unwrap();
        let mut m = set
            .file
            .iter()
            .flat_map(|f| &f.message_type)
            .find(|m| m.name() == top)
            .unwrap_or_else(|| panic!("{message}"));
        for nested in path {
            m = m
                .nested_type
                .iter()
                .find(|n| n.name() == nested)
                .unwrap_or_else(|| panic!("{message}"));
        }
        let f = m.field.iter().find(|f| f.name() == field).unwrap();
        f.number() as u32
    }

    #[test]
    fn enum_values_are_the_schemas() {
        let set = FileDescriptorSet::decode(super::super::FILE_DESCRIPTOR_SET).unwrap();
        let kind = set
            .file
            .iter()
            .flat_map(|f| &f.enum_type)
            .find(|e| e.name() == "Kind")
            .unwrap();
        let must = kind
            .value
            .iter()
            .find(|v| v.name() == "MUST_ALIAS")
            .unwrap();
        assert_eq!(must.number() as u64, super::input_output_alias::MUST_ALIAS);
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
            (
                "HloInstructionProto",
                "parameter_number",
                hlo_instruction::PARAMETER_NUMBER,
            ),
            (
                "HloInstructionProto",
                "fusion_kind",
                hlo_instruction::FUSION_KIND,
            ),
            (
                "HloInstructionProto",
                "tuple_index",
                hlo_instruction::TUPLE_INDEX,
            ),
            (
                "HloInstructionProto",
                "called_computation_ids",
                hlo_instruction::CALLED_COMPUTATION_IDS,
            ),
            (
                "HloInstructionProto",
                "output_operand_aliasing",
                hlo_instruction::OUTPUT_OPERAND_ALIASING,
            ),
            ("HloModuleProto", "schedule", hlo_module::SCHEDULE),
            (
                "HloModuleProto",
                "input_output_alias",
                hlo_module::INPUT_OUTPUT_ALIAS,
            ),
            ("HloModuleProto", "buffer_donor", hlo_module::BUFFER_DONOR),
            ("HloScheduleProto", "sequences", hlo_schedule::SEQUENCES),
            (
                "HloScheduleProto.InstructionSequence",
                "instruction_ids",
                hlo_schedule::INSTRUCTION_IDS,
            ),
            (
                "HloInputOutputAliasProto",
                "entries",
                input_output_alias::ENTRIES,
            ),
            (
                "HloInputOutputAliasProto.AliasEntryProto",
                "output_shape_index",
                input_output_alias::OUTPUT_SHAPE_INDEX,
            ),
            (
                "HloInputOutputAliasProto.AliasEntryProto",
                "parameter_number",
                input_output_alias::PARAMETER_NUMBER,
            ),
            (
                "HloInputOutputAliasProto.AliasEntryProto",
                "parameter_shape_index",
                input_output_alias::PARAMETER_SHAPE_INDEX,
            ),
            (
                "HloInputOutputAliasProto.AliasEntryProto",
                "kind",
                input_output_alias::KIND,
            ),
            ("HloBufferDonorProto", "entries", buffer_donor::ENTRIES),
            (
                "HloBufferDonorProto.BufferDonorEntryProto",
                "parameter_number",
                buffer_donor::PARAMETER_NUMBER,
            ),
            (
                "HloBufferDonorProto.BufferDonorEntryProto",
                "parameter_shape_index",
                buffer_donor::PARAMETER_SHAPE_INDEX,
            ),
            (
                "HloProto",
                "buffer_assignment",
                hlo_proto::BUFFER_ASSIGNMENT,
            ),
            (
                "BufferAssignmentProto",
                "logical_buffers",
                buffer_assignment::LOGICAL_BUFFERS,
            ),
            (
                "BufferAssignmentProto",
                "buffer_allocations",
                buffer_assignment::BUFFER_ALLOCATIONS,
            ),
            (
                "BufferAssignmentProto",
                "heap_simulator_traces",
                buffer_assignment::HEAP_SIMULATOR_TRACES,
            ),
            ("LogicalBufferProto", "id", logical_buffer::ID),
            ("LogicalBufferProto", "size", logical_buffer::SIZE),
            (
                "LogicalBufferProto",
                "defined_at",
                logical_buffer::DEFINED_AT,
            ),
            ("LogicalBufferProto", "color", logical_buffer::COLOR),
            (
                "LogicalBufferProto.Location",
                "instruction_id",
                logical_buffer::INSTRUCTION_ID,
            ),
            (
                "LogicalBufferProto.Location",
                "shape_index",
                logical_buffer::SHAPE_INDEX,
            ),
            ("BufferAllocationProto", "index", buffer_allocation::INDEX),
            ("BufferAllocationProto", "size", buffer_allocation::SIZE),
            (
                "BufferAllocationProto",
                "is_thread_local",
                buffer_allocation::IS_THREAD_LOCAL,
            ),
            (
                "BufferAllocationProto",
                "is_entry_computation_parameter",
                buffer_allocation::IS_ENTRY_COMPUTATION_PARAMETER,
            ),
            (
                "BufferAllocationProto",
                "parameter_number",
                buffer_allocation::PARAMETER_NUMBER,
            ),
            (
                "BufferAllocationProto",
                "maybe_live_out",
                buffer_allocation::MAYBE_LIVE_OUT,
            ),
            ("BufferAllocationProto", "color", buffer_allocation::COLOR),
            (
                "BufferAllocationProto",
                "assigned",
                buffer_allocation::ASSIGNED,
            ),
            (
                "BufferAllocationProto",
                "parameter_shape_index",
                buffer_allocation::PARAMETER_SHAPE_INDEX,
            ),
            (
                "BufferAllocationProto",
                "is_tuple",
                buffer_allocation::IS_TUPLE,
            ),
            (
                "BufferAllocationProto",
                "is_constant",
                buffer_allocation::IS_CONSTANT,
            ),
            (
                "BufferAllocationProto",
                "is_parameter_aliased_with_output",
                buffer_allocation::IS_PARAMETER_ALIASED_WITH_OUTPUT,
            ),
            (
                "BufferAllocationProto.Assigned",
                "logical_buffer_id",
                buffer_allocation::LOGICAL_BUFFER_ID,
            ),
            (
                "BufferAllocationProto.Assigned",
                "offset",
                buffer_allocation::OFFSET,
            ),
            (
                "BufferAllocationProto.Assigned",
                "size",
                buffer_allocation::ASSIGNED_SIZE,
            ),
            ("HeapSimulatorTrace", "events", heap_trace::EVENTS),
            (
                "HeapSimulatorTrace",
                "whole_module_simulation",
                heap_trace::WHOLE_MODULE_SIMULATION,
            ),
            (
                "HeapSimulatorTrace",
                "buffer_allocation_index",
                heap_trace::BUFFER_ALLOCATION_INDEX,
            ),
            ("HeapSimulatorTrace.Event", "kind", heap_trace::KIND),
            (
                "HeapSimulatorTrace.Event",
                "buffer_id",
                heap_trace::BUFFER_ID,
            ),
            (
                "HeapSimulatorTrace.Event",
                "share_with_canonical_id",
                heap_trace::SHARE_WITH_CANONICAL_ID,
            ),
            (
                "OutputOperandAliasing",
                "output_shape_index",
                output_operand_aliasing::OUTPUT_SHAPE_INDEX,
            ),
            (
                "OutputOperandAliasing",
                "operand_index",
                output_operand_aliasing::OPERAND_INDEX,
            ),
            (
                "OutputOperandAliasing",
                "operand_shape_index",
                output_operand_aliasing::OPERAND_SHAPE_INDEX,
            ),
            ("HloInstructionProto", "sharding", hlo_instruction::SHARDING),
            ("OpMetadata", "profile_type", op_metadata::PROFILE_TYPE),
            ("NamedShardingProto", "metadata", named_sharding::METADATA),
            ("OpSharding", "type", op_sharding::TYPE),
            ("OpSharding", "tile_shape", op_sharding::TILE_SHAPE),
            (
                "OpSharding",
                "tile_assignment_dimensions",
                op_sharding::TILE_ASSIGNMENT_DIMENSIONS,
            ),
            (
                "OpSharding",
                "tile_assignment_devices",
                op_sharding::TILE_ASSIGNMENT_DEVICES,
            ),
            (
                "OpSharding",
                "tuple_shardings",
                op_sharding::TUPLE_SHARDINGS,
            ),
            (
                "OpSharding",
                "replicate_on_last_tile_dim",
                op_sharding::REPLICATE_ON_LAST_TILE_DIM,
            ),
            ("OpSharding", "metadata", op_sharding::METADATA),
            ("OpSharding", "last_tile_dims", op_sharding::LAST_TILE_DIMS),
            (
                "OpSharding",
                "iota_reshape_dims",
                op_sharding::IOTA_RESHAPE_DIMS,
            ),
            (
                "OpSharding",
                "iota_transpose_perm",
                op_sharding::IOTA_TRANSPOSE_PERM,
            ),
            ("OpSharding", "is_shard_group", op_sharding::IS_SHARD_GROUP),
            ("OpSharding", "shard_group_id", op_sharding::SHARD_GROUP_ID),
            (
                "OpSharding",
                "shard_group_type",
                op_sharding::SHARD_GROUP_TYPE,
            ),
            ("OpSharding", "named_sharding", op_sharding::NAMED_SHARDING),
            ("HloProto", "hlo_module", hlo_wrapper::WRAPPED),
            ("HloSnapshot", "hlo", hlo_wrapper::WRAPPED),
        ];
        for (message, field, ours) in cases {
            assert_eq!(number(message, field), ours, "{message}.{field}");
        }
    }
}
