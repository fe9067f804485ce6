"""Regenerates tests/data/oracle/sharding_text.jsonl: what jaxlib 0.10.2
makes of HloSharding text (`xla_client.HloSharding.from_string`, XLA's
`ParseSharding`).

Run from the repository root with a Python that has jax/jaxlib 0.10.2:

    python tests/data/oracle/sharding_text_gen.py

Inputs: the cases of XLA's `hlo_parser_test.cc` and `hlo_sharding_test.cc`
(each named after its test; the named form written both as upstream head
writes it, unquoted, and as jaxlib 0.10.2 prints it, quoted), hand-written
edge cases, and random valid and invalid shardings (seeded, so the file is
reproducible).

One record per input: {"case", "input", "answer"}, where answer is the
oracle's (`sharding_oracle.py`): `printed` (repr, XLA's `ToString()`),
`proto` (`to_proto().SerializeToString()` in hex), the `is_*` flags and,
for tuples, the same per element; `attrs` (num_devices,
tile_assignment_dimensions/devices, replicate_on_last_tile_dim,
subgroup_types, is_tile_assignment_iota) unless the sharding is named
(jaxlib aborts on those); `v2` (`v3_to_v2_sharding`) for named ones;
`with_metadata` (`ToString(true)` as module text prints it) when the input
has metadata; `reparse`, what XLA makes of its own printed form when that
differs from the input; or {"error": XLA's message} / {"abort": XLA's CHECK line}.
"""

import json
import random
import sys

sys.path.insert(0, "tests/data/oracle")
from sharding_oracle import Oracle  # noqa: E402

UPSTREAM = [
    # hlo_parser_test.cc
    ("ParseSharding", "{maximal device=42}"),
    ("ParseShardingPartialReplication", "{devices=[2,2]0,1,2,3 last_tile_dim_replicate}"),
    ("ParseShardingSubGroup",
     "{devices=[2,2,2,2]0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15 last_tile_dims={manual, replicated}}"),
    ("ParseTrivialIotaShardingPartialReplication", "{devices=[2,2]<=[4] last_tile_dim_replicate}"),
    ("ParseTrivialIotaShardingSubGroup", "{devices=[2,2,2,2]<=[16] last_tile_dims={manual, replicated}}"),
    ("ParseTransposedIotaShardingPartialReplication",
     "{devices=[2,2]<=[2,2]T(1,0) last_tile_dim_replicate}"),
    ("ParseTransposedIotaShardingSubGroup",
     "{devices=[2,2,2,2]<=[2,2,4]T(2,1,0) last_tile_dims={manual, replicated}}"),
    ("ParseShardAs", "{manual shard_as 1}"),
    ("ParseShardLike", "{devices=[2,2,2,2]<=[16] last_tile_dims={manual, replicated} shard_like 1}"),
    ("ParseUnknownSharding", "{unknown}"),
    ("SelectR1F32", "{maximal device=1}"),
    ("ShardedTupleCreate", "{{manual}, {maximal device=0}, {replicated}}"),
    ("SendRecv", "{{maximal device=1}, {replicated}, {replicated}}"),
    ("ParseNamedSharding1", "{mesh[a=2,b=4,c=3,d=8], [{a}, {b}]}"),
    ("ParseNamedSharding2", "{mesh[a=2,b=4,c=3,d=8], [{a}, {c, b}]}"),
    ("ParseNamedShardingOpenDims", "{mesh[a=2,b=4,c=3,d=8], [{b, a}, {c, d, ?}]}"),
    ("ParseNamedShardingSubAxes1", "{mesh[a=2,b=4,c=3,d=8], [{a}, {b:(2)2}]}"),
    ("ParseNamedShardingSubAxes2", "{mesh[a=2,b=4,c=3,d=8], [{b:(2)2}, {d:(4)2, c}]}"),
    ("ParseNamedShardingSubAxesOpenDims", "{mesh[a=2,b=4,c=3,d=8], [{b:(2)2}, {d:(4)2, c, ?}]}"),
    ("ParseNamedShardingNonIotaMesh", "{mesh[a=2,b=4,c=4,d=2], device_ids=([4,16]T(1,0)), [{a}]}"),
    ("ParseNamedShardingNonIotaMeshDeviceList", "{mesh[x=2,y=2], device_ids=(0,2,1,3), [{x}]}"),
    ("ParseNamedShardingFullyReplicated", "{mesh[a=2,b=4], replicated}"),
    ("ParseNamedShardingReplicatedAxes", "{mesh[a=2,b=4], [{a}], replicated={b}}"),
    ("ParseNamedShardingMaximal", "{maximal_mesh[device_id=5]}"),
    ("ParseNamedShardingFullyUnreduced", "{mesh[a=2,b=4], unreduced}"),
    ("ParseNamedShardingUnreducedAxes", "{mesh[a=2,b=4,c=3,d=8], [{}, {b}], unreduced={d:(4)2}}"),
    ("ParseNamedShardingFullyManual", "{mesh[a=2,b=4], manual}"),
    ("ParseNamedShardingManualAxes", "{mesh[a=2,b=4,c=3,d=8], [{a}], manual={d:(4)2}}"),
    ("ParseNamedShardingAllFieldsWithMetadata",
     '{mesh[a=2,b=4,c=3,d=8], [{a}], replicated={c}, unreduced={d:(4)2}, manual={b:(2)2}, '
     'metadata={{op_name="foo"}, {op_name="bar"}}}'),
    ("ParseNamedShardingFullyReplicatedWithMetadata",
     '{mesh[a=2,b=4], replicated, metadata={{op_name="foo"}}}'),
    ("ParseNamedShardingTuple",
     '{{mesh[a=2,b=4,c=3,d=8], [{d, c}, {a, b}]}, {mesh[a=2,b=4,c=3,d=8], replicated}, '
     '{mesh[a=2,b=4,c=3,d=8], [{d:(2)2, b}, {a, ?}], unreduced={c}}, '
     '{mesh[a=2,b=4,c=3,d=8], [{d, c}, {a, b}], metadata={{op_name="foo"}, {op_name="bar"}}}}'),
    ("ParseMixedShardingTuple1",
     "{{replicated}, {mesh[a=2,b=4], replicated}, {maximal device=5}, {maximal_mesh[device_id=5]}}"),
    ("ParseMixedShardingTuple2", "{{mesh[a=2,b=2], [{a}, {}]}, {devices=[2,2]<=[4] last_tile_dim_replicate}}"),
    # hlo_sharding_test.cc
    ("ToStringReplicatedTest", "{replicated}"),
    ("HloReplicateShardingWithMetadataTest", '{replicated metadata={op_name="a"}}'),
    ("HloReplicateShardingWithMetadataTest", '{replicated metadata={{op_name="b"}, {op_name="c"}}}'),
    ("ToStringAssignDeviceTest", "{maximal device=7}"),
    ("HloAssignDeviceShardingWithMetadataTest", '{maximal device=7 metadata={op_name="a"}}'),
    ("HloAssignDeviceShardingWithMetadataTest", '{maximal device=7 metadata={{op_name="b"}, {op_name="c"}}}'),
    ("ToStringTiledTest", "{devices=[2,1,2]2,3,5,7}"),
    ("ToStringIotaTiledTest", "{devices=[3,4]<=[2,2,3]T(2,1,0)}"),
    ("HloTiledShardingWithMetadataTest", '{devices=[2,1,2]2,3,5,7 metadata={op_name="a"}}'),
    ("HloTiledShardingWithMetadataTest",
     '{devices=[2,1,2]2,3,5,7 metadata={{op_name="b"}, {op_name="c"}}}'),
    ("ToStringTupleTest", "{{replicated}, {devices=[1,2]3,5}, {maximal device=3}}"),
    ("ToStringTupleWithMetadataTest",
     '{{replicated metadata={op_name="d"}}, {devices=[1,2]3,5}, {maximal device=3 metadata={op_name="e"}}}'),
    ("ToStringWithNamedShardingTest", "{mesh[a=2,b=4], [{a}, {b}]}"),
    ("OstreamTest", "{devices=[1,1,2,2]0,1,2,3}"),
    ("V1V2TileEquivalence", "{devices=[2,2]0,1,2,3}"),
    ("V1V2TileEquivalence", "{devices=[2,2]<=[4]}"),
    ("V1V2TileEquivalence", "{devices=[2,2]0,2,1,3}"),
    ("V1V2TileEquivalence", "{devices=[2,2]<=[2,2]T(1,0)}"),
    ("V1V2TileEquivalence", "{devices=[2,2,2]0,2,4,6,1,3,5,7}"),
    ("V1V2TileEquivalence", "{devices=[2,2,2]<=[2,2,2]T(2,0,1)}"),
    ("V1V2PartialTileEquivalence", "{devices=[2,2]0,2,1,3 last_tile_dim_replicate}"),
    ("V1V2PartialTileEquivalence", "{devices=[2,2,2]0,2,4,6,1,3,5,7 last_tile_dim_replicate}"),
    ("V1V2PartialTileEquivalence", "{devices=[2,2,2]<=[2,2,2]T(2,0,1) last_tile_dim_replicate}"),
    ("V1V2SubgroupEquivalence", "{devices=[2,2]0,1,2,3 last_tile_dims={manual, replicated}}"),
    ("V1V2SubgroupEquivalence", "{devices=[2,2,2]0,2,4,6,1,3,5,7 last_tile_dims={manual, replicated}}"),
    ("V1V2SubgroupEquivalence", "{devices=[2,2,2]<=[2,2,2]T(2,0,1) last_tile_dims={manual, replicated}}"),
    ("NormalizeTrivialSubgroupToManual", "{devices=[1,2,1]0,1 last_tile_dims={manual, replicated}}"),
    ("PassesValidationAndMatchesTileInfo", "{devices=[2,2]0,3,2,1}"),
    ("PassesValidationAndMatchesTileInfo", "{mesh['x'=2,'y'=2], device_ids=(0,3,2,1), [{'x'}, {'y'}]}"),
    ("V3ToV2ShardingReplicated", "{mesh['a'=2,'b'=4,'c'=3,'d'=8], []}"),
    ("V3ToV2ShardingMaximal", "{maximal_mesh[device_id=5]}"),
    ("V3ToV2ShardingSimpleIotaTile", "{mesh['a'=16], [{'a'}, {}]}"),
    ("V3ToV2ShardingMeshWithIotaReshapeTranspose", "{mesh['a'=2,'b'=4], device_ids=([4,2]T(1,0)), [{'b'}, {'a'}]}"),
    ("V3ToV2ShardingResultantMeshWithIotaReshapeTranspose",
     "{mesh['a'=2,'b'=4], device_ids=([4,2]T(1,0)), [{'a'}, {'b'}]}"),
    ("V3ToV2ShardingMeshWithDeviceList",
     "{mesh['a'=2,'b'=2,'c'=2], device_ids=(0,2,4,6,1,3,5,7), [{'c'}, {'a', 'b'}]}"),
    ("V3ToV2ShardingPartialTile", "{mesh['a'=2,'b'=4,'c'=4], [{}, {'a'}], replicated={'c'}}"),
    ("V3ToV2ShardingTransposedIota1", "{mesh['a'=2,'b'=4,'c'=4], [{'c'}, {'a', 'b'}]}"),
    ("V3ToV2ShardingTransposedIota2", "{mesh['a'=2,'b'=4,'c'=4], [{'b'}, {'a', 'c'}]}"),
    ("V3ToV2ShardingPartialWithTranspose", "{mesh['a'=2,'b'=4,'c'=4], [{}, {'a', 'c'}], replicated={'b'}}"),
    ("V3ToV2ShardingUnreduced", "{mesh['a'=2,'b'=2], [{'a'}, {}], unreduced={'b'}}"),
    ("V3ToV2ShardingManual", "{mesh['a'=2,'b'=2], [{'a'}, {}], manual={'b'}}"),
    ("V3ToV2ShardingMultipleSubgroups",
     "{mesh['a'=2,'b'=3,'c'=4,'d'=5], [{'a'}], replicated={'d'}, unreduced={'c'}, manual={'b'}}"),
    ("V3ToV2ShardingSplitAxes1", "{mesh['a'=16,'b'=4], [{'b', 'a':(1)2}]}"),
    ("V3ToV2ShardingSplitAxes2", "{mesh['a'=16,'b'=4], [{'b', 'a':(2)4}]}"),
    ("V3ToV2ShardingSplitAxes3", "{mesh['a'=16,'b'=4], [{'a':(1)2, 'a':(8)2}, {'a':(2)4, 'b'}]}"),
    ("V3ToV2ShardingAllSubgroupTypesWithSplitAxes",
     "{mesh['a'=16,'b'=4], [{}, {}], replicated={'a':(2)4}, unreduced={'a':(1)2}, manual={'a':(8)2, 'b'}}"),
    ("EachTile", "{devices=[6,1]<=[6]}"),
    ("EachTile", "{mesh['x'=6], [{'x'}, {}]}"),
    ("EachTile", "{devices=[2,1,3]<=[6] last_tile_dim_replicate}"),
    ("EachTile", "{mesh['x'=2,'y'=3], [{'x'}, {}]}"),
    ("EachTile", "{mesh['x'=2,'y'=3], [{'x'}, {}], replicated={'y'}}"),
    ("TileEquivalence", "{mesh['a'=2,'b'=2], [{'a'}, {'b'}]}"),
    ("TileEquivalence", "{mesh['a'=2,'b'=2], [{'b'}, {'a'}]}"),
    ("TileEquivalence", "{mesh['a'=2,'b'=3], [{'a', 'b'}]}"),
    ("TileEquivalence", "{mesh['a'=2,'b'=3], [{'b', 'a'}]}"),
    ("TileEquivalence", "{devices=[6]<=[2,3]T(1,0)}"),
]

EDGES = [
    "{}", "{ replicated }", "{/*c*/replicated}", "{replicated,}", "{{replicated},}",
    "{{replicated} {manual}}", "{{}}", "{{replicated}, {{manual}}}", "{replicated maximal}",
    "{maximal replicated}", "{maximal}", "{maximal device=1 device=2}", "{device=1}",
    "{devices=[2]0,1 maximal}", "{manual devices=[2]0,1}", "{unknown devices=[2]0,1}",
    "{unreduced devices=[2]0,1}", "{replicated devices=[2]0,1}", "{replicated devices=[2]<=[2]}",
    "{replicated last_tile_dim_replicate}", "{devices=[2,2]0,1,2,3 last_tile_dim_replicate last_tile_dims={manual}}",
    "{devices=[2]0,1 shard_as 1 shard_like 2}", "{devices=[2]0,1 shard_like 2 shard_as 1}",
    "{devices=[2]0,1 shard_as -1}", "{devices=[2]0,1 shard_as x}", "{devices=[]0,1}", "{devices=[2]}",
    "{devices=[2]0,}", "{devices=[2],0,1}", "{devices=[2]0 1}", "{foo=1}", "{devices=[2]0,1 foo}",
    "{maximal device=-1}", "{maximal device=-2}", "{maximal device=99999999999}", "{maximal device=x}",
    "{devices=[2,2]<=[4]T(0)}", "{devices=[2,2]<=[]}", "{devices=[2,2]<=[4] last_tile_dims={}}",
    "{devices=[2,2]<=[4] last_tile_dims={replicated}}", "{devices=[2,2]<=[4] last_tile_dims={maximal}}",
    "{devices=[2,2]<=[4] last_tile_dims={other}}", "{devices=[2,2]<=[4] last_tile_dims={unknown}}",
    "{devices=[2,2,2]<=[8] last_tile_dims={unreduced}}", "{devices=[2,2,2]<=[8] last_tile_dims={unreduced,replicated}}",
    "{devices=[2,2]0,1,2,3,4}", "{devices=[2]1}", "{devices=[2,2]0,1,2}", "{devices=[0,2]0,1}",
    "{devices=[2,2]<=[4] devices=[2]0,1}", "{devices=[2,2]<=[2,2]}", "{devices=[2,2]<=[2,2]T(0,1)}",
    "{devices=[4,3,5]<=[3,4,5]T(1,2,0)}", "{devices=[2,2]<=[1,4]T(1,0)}", "{devices=[2,3]<=[2,3]T(1,0)}",
    "{devices=[2,2]<=[2,2]T(0,0)}", "{devices=[2,2]<=[2,2]T(0,2)}", "{devices=[2,2]<=[2,2]T(-1,0)}",
    "{devices=[2,2]<=[3]}", "{devices=[2,2]<=[2,2]T(1)}", "{devices=[2,2]<=[0,4]}", "{devices=[0]<=[0]}",
    "{devices=[2,2,1]<=[4] last_tile_dim_replicate}", "{devices=[1,1,4]<=[4] last_tile_dim_replicate}",
    "{devices=[2,1,4]<=[2,4]T(1,0) last_tile_dim_replicate}", "{devices=[2,2]1,0,3,2 last_tile_dim_replicate}",
    "{devices=[2,2,2]0,1,2,3,4,5,6,7 last_tile_dims={replicated, manual}}",
    "{devices=[1,2,2]0,1,2,3 last_tile_dims={manual, manual}}", "{devices=[1,4]0,1,2,3 last_tile_dims={manual}}",
    "{devices=[2,1,2]0,1,2,3 last_tile_dims={unreduced, manual}}", "{devices=[2]0,1 last_tile_dims={manual}}",
    "{devices=[2,2]<=[4] last_tile_dims={manual,replicated}}", "{devices=[2,2]<=[4] last_tile_dims={replicated,replicated}}",
    "{devices=[1]<=[1]}", "{devices=[1,1]0}", "{devices=[4]<=[4]}", "{devices=[2,2]<=[4]",
    "{devices=[2,2]<=[4]} x", "{replicated}}", "", "{", "replicated", "{{replicated}", "{ {replicated} , {manual} }",
    '{replicated metadata={foo="x"}}', '{replicated metadata={op_name="x" op_name="y"}}',
    '{replicated metadata={op_name=3}}', '{replicated metadata={source_line=99999999999}}',
    '{replicated metadata={profile_type={1,99}}}', '{replicated metadata={profile_type={1,2}}}',
    '{replicated metadata={metadata_payload="zz" op_name="q"}}', '{replicated metadata={,op_name="x",source_line=3}}',
    '{replicated metadata={{op_name="x"}, {op_name="y"}}}', '{replicated metadata={}}', '{replicated metadata={{}}}',
    '{replicated metadata=x}', "{replicated metadata={op_name='x'}}", '{replicated metadata={op_name="a\\tb\\\\c\\"d"}}',
    '{maximal device=3 metadata={op_type="t" op_name="n" source_file="f.py" source_line=3 source_end_line=4 '
    'source_column=5 source_end_column=6 profile_type={3} deduplicated_name="d" scheduling_name="s" stack_frame_id=7}}',
    '{devices=[2]0,1 shard_like 3 metadata={op_name="a"}}', '{replicated metadata={op_name="x"} shard_as 2}',
    "{{replicated}, {replicated}, {replicated}, {replicated}, {replicated}, {manual}, {unknown}}",
    "{mesh['a'=2, 'b'=2], [{'a'}, {}]}", "{mesh['a'=2,'b'=2], [{'a'}, {}], unreduced={'b'}}",
    "{mesh['a'=2,'b'=2], [{'a'}, {}], replicated={'b'}}", "{mesh['a'=2,'b'=2], [{'a', ?}, {?}]}",
    "{mesh['a'=2,'b'=2], [{'a':(1)2}, {}]}", "{mesh['a'=4,'b'=2], [{'a':(1)2}, {'b'}]}",
    "{mesh['a'=4,'b'=2], [{'a':(2)2}, {'b'}]}", "{mesh['a'=2,'b'=2], replicated}", "{mesh['a'=2,'b'=2], manual}",
    "{mesh['a'=2,'b'=2], unreduced}", "{mesh['a'=2,'b'=2], [{}, {}], manual={'a'}}",
    "{mesh['a'=2,'b'=2], [{'b','a'}, {}]}", "{maximal_mesh[device_id=3]}", "{mesh['a'=2,'b'=2], device_ids=(3,2,1,0)}",
    "{mesh['a'=2,'b'=2], device_ids=([2,2]T(1,0)), [{'a'}, {}]}", "{mesh['a'=2,'b'=2],device_ids=(3,2,1,0), [{'a'}, {}]}",
    "{mesh['a'=2,'b'=2], [{'a'}, {}], unreduced=max{'b'}}", "{mesh[], [{}, {}]}", "{mesh[], replicated}",
    "{mesh['a'=2,'b'=2], [{'c'}, {}]}", "{mesh['a'=2,'b'=2], [{'0'}, {'1'}]}", "{mesh['a'=2,'b'=2], [{'a'}, {'a'}]}",
    "{mesh['a'=2,'b'=2], [{'a'}, {}], metadata={op_name=\"x\"}}", "{mesh[\"a\"=2], [{\"a\"}]}",
    "{mesh['a'=2], [{'a'}]} ", "{mesh['a'=2] [{'a'}]}", "{mesh['a'=2], {'a'}}", "{mesh['a'=2], [{'a'}], foo={}}",
    "{mesh['1'=2], [{'1'}]}", "{mesh['a'=2,'a'=2], [{}]}", "{mesh['a'=0], [{}]}", "{mesh['a'=-2], [{}]}",
    "{mesh['a'=2], [{'a', ?}]}", "{mesh['a'=2], [{?, 'a'}]}", "{mesh['a'=8], [{'a':(2)2, 'a':(1)2}]}",
    "{mesh['a'=8], [{'a':(1)2, 'a':(2)2}]}", "{mesh['a'=8], [{'a':(1)2}], replicated={'a':(4)2}}",
    "{mesh['a'=8], [{'a':(1)2}], replicated={'a':(2)2}}", "{mesh['a'=2,'b'=2], [{}, {}], replicated={'b','a'}}",
    "{{mesh['a'=2], [{'a'}]}, {replicated}}", "{mesh['a'=2,'b'=2], [{}, {}], manual={'a','b'}}",
    "{mesh['a'=2,'b'=2], [], manual={'a','b'}}", "{mesh['a'=2,'b'=2], [], unreduced={'a','b'}}",
    "{mesh['a'=2,'b'=2], [{}, {}], unreduced={'a','b'}}", "{mesh['a'=2,'b'=2], []}", "{mesh['a'=2,'b'=2], [{}]}",
    "{mesh['a'=2,'b'=2], [], replicated={'a'}}", "{mesh['a'=2,'b'=2], [{}], replicated={'a','b'}}",
    "{mesh['a'=2,'b'=2], unreduced={'a'}}", "{mesh['a'=2,'b'=2], manual={'a'}}", "{mesh['a'=2,'b'=2], replicated={'a'}}",
    "{mesh['a'=2,'b'=2], [{'a'}], metadata={op_name=\"x\"}, replicated={'b'}}",
    "{mesh['a'=2,'b'=2], replicated, metadata={op_name=\"x\"}}", "{maximal_mesh[device_id=3], metadata={op_name=\"x\"}}",
    "{maximal_mesh[device_id=-1]}", "{maximal_mesh[device_id=3], [{}]}", "{maximal_mesh[device=3]}", "{maximal_mesh[3]}",
    "{mesh['a'=2,'b'=2], device_ids=(0,1,2,3), [{'a'}]}", "{mesh['a'=2,'b'=2], device_ids=(0,1,2), [{'a'}]}",
    "{mesh['a'=2,'b'=2], device_ids=(0,1,2,5), [{'a'}]}", "{mesh['a'=2,'b'=2], device_ids=(-1,1,2,3), [{'a'}]}",
    "{mesh['a'=2,'b'=2], device_ids=([4]), [{'a'}]}", "{mesh['a'=2,'b'=2], device_ids=([2,2]T(0,1)), [{'a'}]}",
    "{mesh['a'=4], device_ids=([2,2]T(1,0)), [{'a'}]}", "{mesh['a'=2,'b'=3], device_ids=([3,2]T(1,0)), [{'a'}]}",
    "{mesh['a'=2,'b'=3], device_ids=([3,3]T(1,0)), [{'a'}]}", "{mesh['a'=2,'b'=2], device_ids=(), [{'a'}]}",
    "{mesh['a'=2,'b'=2], [{'a'}], unreduced={'b'}, manual={}}", "{mesh['a'=2,'b'=2], [{'a'}], manual={'b'}, unreduced={}}",
    "{mesh['a'=2], [{'a'}], replicated={}}", "{mesh['a'=2], [{'a'}], replicated={'a'}}", "{mesh['a'=2], [{'5'}]}",
    "{mesh['a'=2], [{'-1'}]}", "{mesh['a'=8], [{'a':(0)2}]}", "{mesh['a'=8], [{'a':(1)1}]}", "{mesh['a'=8], [{'a':(3)2}]}",
    "{mesh['a'=8], [{'a':(2)8}]}", "{mesh['a'=8], [{'a':2}]}", "{mesh['a'=8], [{'a':(2}]}", "{mesh['a'=8], [{a}]}",
    "{mesh[a=8], [{'a'}]}", "{mesh['a' 8], [{'a'}]}", "{mesh['a'=8, [{'a'}]}", "{mesh['a'=8], [{'a'}}",
    "{mesh['a'=8], [{'a'}], replicated}", "{mesh['a'=2,'b'=2], [{'a'}], unreduced={'b'}, metadata={op_name=\"m\"}}",
    "{mesh['a'=2,'b'=2], manual, metadata={op_name=\"m\"}}", "{mesh['a'=2,'b'=2], unreduced, metadata={op_name=\"m\"}}",
    "{mesh['x y'=2], [{'x y'}]}", "{mesh['a\\'b'=2], [{'a\\'b'}]}", "{mesh['a'=2,'b'=2], [{'b'}, {'a'}], replicated={}}",
    "{mesh['a'=4,'b'=2], [{'a':(2)2}], replicated={'a':(1)2, 'b'}}",
    "{mesh['a'=4,'b'=2], [{'a':(2)2}], replicated={'b', 'a':(1)2}}",
    "{mesh['a'=2,'b'=2], [{'a'}], manual={'b'}, metadata={{op_name=\"x\"}, {op_name=\"y\"}}}",
    "{mesh['a'=2,'b'=2], device_ids=(3,2,1,0), replicated}", "{mesh['a'=2,'b'=2], device_ids=(3,2,1,0), manual}",
]


def rand_factor(rng, n, k):
    """`n` split into `k` factors."""
    out = [1] * k
    f = 2
    while n > 1:
        while n % f == 0:
            out[rng.randrange(k)] *= f
            n //= f
        f += 1
    return out


def rand_iota(rng):
    """A random iota tile assignment: dims, reshape dims, transpose."""
    n = rng.choice([2, 4, 6, 8, 12, 16, 24, 32, 64])
    k = rng.randint(1, 4)
    dims = rand_factor(rng, n, k)
    r = rand_factor(rng, n, rng.randint(1, 4))
    perm = list(range(len(r)))
    rng.shuffle(perm)
    return dims, r, perm


def fmt_iota(dims, r, perm):
    t = "" if len(r) == 1 else "T(%s)" % ",".join(map(str, perm))
    return "devices=[%s]<=[%s]%s" % (",".join(map(str, dims)), ",".join(map(str, r)), t)


def rand_tiled(rng):
    dims, r, perm = rand_iota(rng)
    n = 1
    for d in dims:
        n *= d
    if rng.random() < 0.5:
        devs = list(range(n))
        rng.shuffle(devs)
        body = "devices=[%s]%s" % (",".join(map(str, dims)), ",".join(map(str, devs)))
    else:
        body = fmt_iota(dims, r, perm)
    x = rng.random()
    if x < 0.3:
        body += " last_tile_dim_replicate"
    elif x < 0.6 and len(dims) > 1:
        k = rng.randint(1, min(3, len(dims)))
        types = [rng.choice(["manual", "replicated", "unreduced"]) for _ in range(k)]
        body += " last_tile_dims={%s}" % ", ".join(types)
    if rng.random() < 0.15:
        body += " %s %d" % (rng.choice(["shard_as", "shard_like"]), rng.randint(0, 5))
    return "{" + body + "}"


def rand_named(rng):
    names = ["x", "y", "z", "w"]
    k = rng.randint(1, 3)
    sizes = [rng.choice([1, 2, 3, 4, 8]) for _ in range(k)]
    mesh = "mesh[%s]" % ",".join("'%s'=%d" % (names[i], sizes[i]) for i in range(k))
    n = 1
    for s in sizes:
        n *= s
    if rng.random() < 0.2 and n > 1:
        ids = list(range(n))
        rng.shuffle(ids)
        mesh += ", device_ids=(%s)" % ",".join(map(str, ids))
    axes = list(range(k))
    rng.shuffle(axes)
    rank = rng.randint(0, 3)
    dims = [[] for _ in range(rank)]
    rest = []
    for a in axes:
        if rank and rng.random() < 0.6:
            dims[rng.randrange(rank)].append("'%s'" % names[a])
        else:
            rest.append(a)
    dim_text = ", ".join("{%s%s}" % (", ".join(d), (", ?" if d else "?") if rng.random() < 0.1 else "")
                         for d in dims)
    out = "{%s, [%s]" % (mesh, dim_text)
    rest.sort()
    for kind in ["replicated", "unreduced", "manual"]:
        take = [a for a in rest if rng.random() < 0.3]
        rest = [a for a in rest if a not in take]
        if take:
            out += ", %s={%s}" % (kind, ", ".join("'%s'" % names[a] for a in take))
    return out + "}"


def mutate(rng, s):
    ops = rng.randint(1, 3)
    for _ in range(ops):
        i = rng.randrange(len(s) + 1)
        c = rng.random()
        if c < 0.4 and len(s) > 1:
            s = s[:i] + s[i + 1:]
        elif c < 0.8:
            s = s[:i] + rng.choice("{}[],=<>T()-0123456789 ?:'") + s[i:]
        else:
            j = rng.randrange(len(s) + 1)
            s = s[:min(i, j)] + s[max(i, j):]
    return s


def main():
    rng = random.Random(35)
    cases = [(name, s) for name, s in UPSTREAM]
    cases += [("edge", s) for s in EDGES]
    valid = []
    for _ in range(700):
        s = rand_tiled(rng)
        valid.append(s)
        cases.append(("random_tiled", s))
    for _ in range(250):
        s = rand_named(rng)
        valid.append(s)
        cases.append(("random_named", s))
    for _ in range(60):
        k = rng.randint(0, 7)
        s = "{" + ", ".join(rng.choice(valid + ["{replicated}", "{manual}", "{maximal device=2}"])
                            for _ in range(k)) + "}"
        cases.append(("random_tuple", s))
    for _ in range(600):
        cases.append(("random_invalid", mutate(rng, rng.choice(valid))))
    o = Oracle()
    seen = set()
    with open("tests/data/oracle/sharding_text.jsonl", "w") as out:
        for name, s in cases:
            if (name, s) in seen:
                continue
            seen.add((name, s))
            answer = o.ask("parse", s)
            if "printed" in answer:
                named = "mesh[" in answer["printed"]
                if not named:
                    answer["attrs"] = o.ask("attrs", s)
                else:
                    answer["v2"] = o.ask("v2", s)
                if "metadata=" in s:
                    answer["with_metadata"] = o.ask("with_metadata", s)
                if answer["printed"] != s:
                    again = o.ask("parse", answer["printed"])
                    answer["reparse"] = {k: again[k] for k in ("printed", "error", "abort") if k in again}
            out.write(json.dumps({"case": name, "input": s, "answer": answer}, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
