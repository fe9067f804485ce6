// The page's worker: it owns the WebAssembly module and answers the page's
// requests ({id, op, args} -> {id, ok, value} or {id, ok: false, error}),
// so that a long analysis never blocks the page, and a runaway one can be
// stopped by ending the worker.
import init, * as xs from './pkg/xla_shape_web.js';

const ready = init();

// The module of the module view, kept for searches.
let current = null;

function withShape(text, f) {
  const shape = new xs.Shape(text);
  try {
    return f(shape);
  } finally {
    shape.free();
  }
}

const ops = {
  version: () => xs.version(),
  describe: (text) => xs.describe(text),
  strides: (text) => xs.strides(text),
  draw: (text, options) => xs.draw(text, options),
  // Index, offset and tile of one element (numbers as decimal text: exact).
  element: (text, index) => withShape(text, (shape) => {
    const tiled = new xs.TiledLayout(shape);
    try {
      const tile = tiled.tileOf(index);
      return { index, offset: tiled.offset(index).toString(), tile: tile ?? null };
    } finally {
      tiled.free();
    }
  }),
  sharding: (text, shape, mesh) => xs.sharding(text, shape || undefined, mesh || undefined),
  padding: (text, tiles) => xs.padding(text, tiles ?? []),
  module: (bytes, top) => {
    if (current) {
      current.free();
      current = null;
    }
    const m = xs.Module.read(new Uint8Array(bytes));
    current = m;
    const out = { kind: m.kind(), name: m.name() };
    try {
      out.memory = m.memory(top);
      out.svg = m.memorySvg(top);
      out.padding = m.paddingTable(top);
    } catch (e) {
      out.memoryError = errorOf(e);
    }
    out.instructions = m.instructions('', 200);
    return out;
  },
  search: (query) => {
    if (!current) throw new Error('no module read');
    return current.instructions(query, 200);
  },
};

function errorOf(e) {
  return {
    name: e?.name ?? 'Error',
    kind: e?.kind ?? (e instanceof WebAssembly.RuntimeError ? 'Internal' : 'Error'),
    message: String(e?.message ?? e),
    line: e?.line ?? null,
    column: e?.column ?? null,
    // A trap leaves the WebAssembly instance unusable: the page replaces
    // the worker.
    fatal: e instanceof WebAssembly.RuntimeError,
  };
}

self.onmessage = async (event) => {
  const { id, op, args } = event.data;
  try {
    await ready;
    if (!Object.hasOwn(ops, op)) throw new Error(`unknown request ${op}`);
    const value = ops[op](...args);
    self.postMessage({ id, ok: true, value });
  } catch (e) {
    self.postMessage({ id, ok: false, error: errorOf(e) });
  }
};

ready.then(
  () => self.postMessage({ id: 0, ok: true, value: 'ready' }),
  (e) => self.postMessage({ id: 0, ok: false, error: errorOf(e) }),
);
