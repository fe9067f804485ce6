// The JavaScript API of the WebAssembly package (web/dist/pkg), in Node,
// against the records XLA wrote (jaxlib 0.10.2, tests/data/; their origin
// is in tests/data/README.md): shapes parsed, printed and encoded as XLA
// does, XLA:CPU's memory order through TiledLayout, shardings' attributes
// and tiles, errors as exceptions with the crate's kind.
//
// Run: npm --prefix web run build && npm --prefix web test
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const pkg = path.resolve(here, '..', 'dist', 'pkg');
const records = (name) =>
  fs
    .readFileSync(path.join(root, 'tests', 'data', name), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
const hex = (bytes) => Buffer.from(bytes).toString('hex');

// The records whose shape XLA holds without validating it, which the crate
// rejects with the validation message (docs/differences.md): the one list
// the Rust tests keep in tests/common/mod.rs, read from there.
const HELD = new Map(
  [...fs
    .readFileSync(path.join(root, 'tests', 'common', 'mod.rs'), 'utf8')
    .split('HELD_WITHOUT_VALIDATION')[1]
    .split('];')[0]
    .matchAll(/\(\s*"([^"]+)",\s*"((?:[^"\\]|\\.)*)",?\s*\)/g)].map((m) => [m[1], m[2].replaceAll('\\"', '"')]),
);
// `S(n)` beyond int32: XLA narrows the memory space as it parses, the
// crate keeps the value (docs/differences.md).
const MEMORY_SPACE_NOT_NARROWED = new Set(['memory_space/0294', 'memory_space/0295']);

let xs;

before(async () => {
  xs = await import(path.join(pkg, 'xla_shape_web.js'));
  await xs.default({ module_or_path: fs.readFileSync(path.join(pkg, 'xla_shape_web_bg.wasm')) });
});

describe('the JavaScript API', () => {
  test('shapes read and written as XLA does (shapes.jsonl)', () => {
    assert.ok(HELD.size > 0, 'no record found in HELD_WITHOUT_VALIDATION');
    let checked = 0;
    for (const r of records('shapes.jsonl')) {
      if (r.input?.kind !== 'text' || !r.proto_hex || MEMORY_SPACE_NOT_NARROWED.has(r.id)) continue;
      if (HELD.has(r.id)) {
        assert.throws(() => new xs.Shape(r.input.text), (e) => e.message.includes(HELD.get(r.id)), r.id);
        continue;
      }
      const s = new xs.Shape(r.input.text);
      assert.equal(s.toString(), r.xla_str, r.id);
      assert.equal(hex(s.toSerializedProto()), r.proto_hex, r.id);
      const back = xs.Shape.fromProtoBytes(Buffer.from(r.proto_hex, 'hex'));
      assert.equal(back.toString(), r.xla_str, r.id);
      assert.equal(xs.Shape.fromTextFormat(r.text_format).toString(), r.xla_str, r.id);
      assert.equal(xs.Shape.fromJson(r.json).toString(), r.xla_str, r.id);
      if (r.facts?.is_array && s.isArray()) assert.deepEqual(s.dimensions(), r.facts.dimensions, r.id);
      for (const o of [s, back]) o.free();
      checked++;
    }
    assert.ok(checked > 300, `${checked} records`);
  });

  test('TiledLayout gives XLA:CPU memory order (index.jsonl)', () => {
    let checked = 0;
    for (const r of records('index.jsonl')) {
      if (r.kind !== 'index') continue;
      const shape = new xs.Shape(`s32[${r.dims.join(',')}]{${r.minor_to_major.join(',')}}`);
      const t = new xs.TiledLayout(shape);
      assert.equal(t.byteSize(), BigInt(r.on_device_size_in_bytes), r.shape);
      assert.equal(t.slotCount(), BigInt(r.memory_order.length), r.shape);
      for (const [p, linear] of r.memory_order.entries()) {
        const index = t.slot(BigInt(p));
        const rowMajor = index.reduce((acc, i, k) => acc * r.dims[k] + i, 0);
        assert.equal(rowMajor, linear, `${r.shape}: slot ${p}`);
        assert.equal(t.offset(index), BigInt(p));
      }
      t.free();
      shape.free();
      checked++;
    }
    assert.ok(checked >= 70, `${checked} records`);
  });

  test('shardings as XLA prints and tiles them (sharding_text.jsonl, sharding_device.jsonl)', () => {
    let checked = 0;
    for (const r of records('oracle/sharding_text.jsonl')) {
      const a = r.answer;
      if (!a || a.error || !a.printed || !a.attrs || typeof r.input !== 'string') continue;
      const s = xs.HloSharding.fromString(r.input);
      assert.equal(s.toString(), a.printed, r.input);
      assert.equal(s.isReplicated(), a.is_replicated, r.input);
      assert.equal(s.isMaximal(), a.is_maximal, r.input);
      assert.equal(s.isManual(), a.is_manual, r.input);
      try {
        if (a.attrs.tile_assignment_dimensions) assert.deepEqual(s.tileAssignmentDimensions(), a.attrs.tile_assignment_dimensions, r.input);
        if (a.attrs.tile_assignment_devices) assert.deepEqual(s.tileAssignmentDevices(), a.attrs.tile_assignment_devices, r.input);
      } catch (e) {
        // docs/differences.md: an iota whose transpose is no permutation
        // is refused where XLA reads past its arrays.
        if (e.name !== 'XlaShapeError' || !/not a permutation/.test(e.message)) throw e;
      }
      s.free();
      checked++;
    }
    assert.ok(checked > 10, `${checked} sharding records`);
    let tiles = 0;
    for (const r of records('oracle/sharding_device.jsonl')) {
      if (!r.tile?.tile) continue;
      const s = xs.HloSharding.fromString(r.sharding);
      const shape = new xs.Shape(r.shape);
      let tile;
      try {
        tile = s.tile(shape).toString();
      } catch (e) {
        // docs/differences.md ("Sharding"): where XLA's TileShape reads or
        // writes past its arrays, the crate refuses and says so.
        assert.match(e.message, /XLA's/, `${r.sharding} ${r.shape}`);
        continue;
      }
      assert.equal(tile, r.tile.tile, `${r.sharding} ${r.shape}`);
      s.free();
      shape.free();
      tiles++;
    }
    assert.ok(tiles > 5, `${tiles} tile records`);
  });

  test('errors are XlaShapeError exceptions with the crate kind and place', () => {
    for (const [f, kind] of [
      [() => new xs.Shape('f32[2,3'), 'Parse'],
      [() => new xs.Shape('f32[2,3]{0,0}'), 'Parse'],
      [() => xs.Shape.fromProtoBytes(new Uint8Array([0x0a, 0xff])), 'Decode'],
      [() => xs.Module.read(new Uint8Array([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f])), 'Decode'],
      [() => xs.Module.read(new Uint8Array([0x20, 0x20])), 'NoInput'],
      [() => xs.HloSharding.fromString('{devices=[2,2'), 'Parse'],
      [() => xs.describe('@/etc/passwd'), 'InvalidArgument'],
      [() => xs.draw('f32[2]', { maxRows: 0 }), 'InvalidArgument'],
      [() => new xs.TiledLayout(new xs.Shape('f32[2]')).offset([5]), 'InvalidArgument'],
      [() => new xs.TiledLayout(new xs.Shape('f32[2]')).offset(['x']), 'InvalidArgument'],
    ]) {
      assert.throws(f, (e) => {
        assert.equal(e.name, 'XlaShapeError');
        assert.equal(e.kind, kind, e.message);
        return true;
      });
    }
    try {
      new xs.Shape('f32[2,3');
    } catch (e) {
      assert.equal(e.line, 1);
      assert.equal(e.column, 8);
    }
  });
});
