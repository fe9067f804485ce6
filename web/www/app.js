// The page: four views (shape, sharding, module, out-of-memory listing),
// each a form whose answer comes from the crate, through the worker
// (worker.js). Every number shown is the crate's, as text: the page does
// no arithmetic on sizes. The inputs of a view are kept in the URL's
// fragment (#shape=..., #sharding=...&shape=...&mesh=..., #oom=...), so a
// link shows what its sender saw.

const MAX_MODULE_BYTES = 64 * 1024 * 1024;
const MAX_TEXT_BYTES = 16 * 1024 * 1024;
// How long a request may run before its worker is ended (milliseconds).
const TEXT_TIMEOUT = 20_000;
const MODULE_TIMEOUT = 300_000;

const $ = (id) => document.getElementById(id);

// ---------------------------------------------------------------------------
// The worker: requests, answers, and a new worker when one is stopped
// ---------------------------------------------------------------------------

class Engine {
  constructor() {
    this.next = 1;
    this.pending = new Map();
    this.start();
  }

  start() {
    this.worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
    this.ready = new Promise((resolve, reject) => {
      this.pending.set(0, { resolve, reject, timer: null });
    });
    this.worker.onmessage = (event) => this.answer(event.data);
    this.worker.onerror = (event) => {
      event.preventDefault?.();
      const error = new PageError('Internal', `the worker failed: ${event.message ?? 'it could not be loaded'}`);
      if (this.pending.has(0)) {
        // It never started (a page opened from file://, where browsers
        // refuse module workers): no new one would either.
        for (const [, p] of this.pending) p.reject(error);
        this.pending.clear();
      } else {
        this.restart(error);
      }
    };
  }

  answer({ id, ok, value, error }) {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    clearTimeout(p.timer);
    if (ok) {
      p.resolve(value);
    } else {
      p.reject(new PageError(error.kind, error.message, error));
      if (error.fatal) this.restart(null);
    }
  }

  // Ends the worker (a runaway or broken one) and starts another; what was
  // pending fails with `reason`.
  restart(reason) {
    this.worker.terminate();
    for (const [, p] of this.pending) {
      clearTimeout(p.timer);
      p.reject(reason ?? new PageError('Stopped', 'stopped'));
    }
    this.pending.clear();
    this.start();
  }

  async call(op, args, { timeout = TEXT_TIMEOUT, transfer = [] } = {}) {
    await this.ready;
    const id = this.next++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.restart(new PageError('Timeout', `stopped after ${timeout / 1000} s: the input is too much for the page`));
      }, timeout);
      this.pending.set(id, { resolve, reject, timer });
      this.worker.postMessage({ id, op, args }, transfer);
    });
  }
}

class PageError extends Error {
  constructor(kind, message, details = {}) {
    super(message);
    this.kind = kind;
    this.line = details.line ?? null;
    this.column = details.column ?? null;
  }
}

const engine = new Engine();

function showError(id, error) {
  const box = $(id);
  if (!error) {
    box.hidden = true;
    box.textContent = '';
    return;
  }
  const where = error.line ? ` (line ${error.line}${error.column ? `, column ${error.column}` : ''})` : '';
  box.textContent = `${error.kind ?? 'Error'}${where}: ${error.message}`;
  box.hidden = false;
}

function status(text) {
  $('status').textContent = text;
}

// ---------------------------------------------------------------------------
// Small DOM helpers
// ---------------------------------------------------------------------------

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v !== undefined && v !== null) node.setAttribute(k, v);
  }
  for (const c of children) {
    if (c === null || c === undefined) continue;
    node.append(c instanceof Node ? c : String(c));
  }
  return node;
}

// A fact table: rows of [label, value, field name for tests].
function facts(table, rows) {
  table.replaceChildren(
    ...rows
      .filter(([, value]) => value !== undefined)
      .map(([label, value, field]) =>
        el('tr', {}, el('th', { scope: 'row' }, label), el('td', { 'data-field': field }, el('div', { class: 'value' }, value ?? '—'))),
      ),
  );
}

function list(values) {
  return values === null || values === undefined ? null : `[${values.join(', ')}]`;
}

function bytes(n) {
  return n === null || n === undefined ? null : `${n} bytes`;
}

// The crate's SVG in `box`, labelled for assistive technology.
function placeSvg(box, text, label) {
  const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
  const svg = doc.documentElement;
  if (svg.nodeName !== 'svg') {
    box.replaceChildren(el('p', { class: 'error' }, 'the drawing could not be read'));
    return null;
  }
  const node = document.importNode(svg, true);
  node.setAttribute('role', 'img');
  node.setAttribute('aria-label', label);
  const title = document.createElementNS('http://www.w3.org/2000/svg', 'title');
  title.textContent = label;
  node.prepend(title);
  box.replaceChildren(node);
  return node;
}

// ---------------------------------------------------------------------------
// Views and the fragment
// ---------------------------------------------------------------------------

const VIEWS = ['shape', 'sharding', 'module', 'oom'];

function select(view, focus = false) {
  for (const v of VIEWS) {
    const tab = $(`tab-${v}`);
    const on = v === view;
    tab.setAttribute('aria-selected', String(on));
    tab.tabIndex = on ? 0 : -1;
    $(`view-${v}`).hidden = !on;
    if (on && focus) tab.focus();
  }
}

for (const v of VIEWS) {
  $(`tab-${v}`).addEventListener('click', () => {
    select(v);
    setFragment(v === 'module' ? { module: '' } : null);
  });
  $(`tab-${v}`).addEventListener('keydown', (e) => {
    const i = VIEWS.indexOf(v);
    const to = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: VIEWS.length - 1 }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    select(VIEWS[(to + VIEWS.length) % VIEWS.length], true);
  });
}

function setFragment(params) {
  if (!params) return;
  const text = new URLSearchParams(Object.entries(params).filter(([, v]) => v !== undefined && v !== null && (v !== '' || Object.keys(params).length === 1))).toString();
  history.replaceState(null, '', `#${text}`);
}

function fragmentOf(view) {
  switch (view) {
    case 'shape':
      return { shape: $('shape-input').value };
    case 'sharding':
      return { sharding: $('sharding-input').value, shape: $('sharding-shape').value, mesh: $('sharding-mesh').value || undefined };
    case 'oom':
      return { oom: $('oom-input').value, tiles: $('oom-tiles').value || undefined };
    default:
      return { module: '' };
  }
}

for (const button of document.querySelectorAll('button.share')) {
  button.addEventListener('click', async () => {
    setFragment(fragmentOf(button.dataset.view));
    try {
      await navigator.clipboard.writeText(location.href);
      status('Link copied.');
    } catch {
      status('The link is in the address bar.');
    }
  });
}

function restore() {
  const params = new URLSearchParams(location.hash.slice(1));
  if (params.has('sharding')) {
    $('sharding-input').value = params.get('sharding');
    if (params.has('shape')) $('sharding-shape').value = params.get('shape');
    $('sharding-mesh').value = params.get('mesh') ?? '';
    select('sharding');
    return showSharding();
  }
  if (params.has('oom')) {
    $('oom-input').value = params.get('oom');
    $('oom-tiles').value = params.get('tiles') ?? '';
    select('oom');
    return showOom();
  }
  if (params.has('module')) {
    select('module');
    return null;
  }
  if (params.has('shape')) $('shape-input').value = params.get('shape');
  select('shape');
  return showShape();
}

function tooLong(text) {
  return new TextEncoder().encode(text).length > MAX_TEXT_BYTES;
}

// ---------------------------------------------------------------------------
// Shape
// ---------------------------------------------------------------------------

let shapeText = '';

async function showShape() {
  const text = $('shape-input').value;
  showError('shape-error', null);
  if (tooLong(text)) return showError('shape-error', new PageError('TooLarge', 'the input is larger than 16 MiB'));
  try {
    const doc = await engine.call('describe', [text]);
    const strides = await engine.call('strides', [text]).catch((e) => ({ error: e }));
    const array = doc.arrays?.[0];
    const rows = [
      ['shape', doc.shape, 'shape'],
      ['kind', doc.kind, 'kind'],
    ];
    if (array) {
      rows.push(
        ['element type', `${array.element_type} (${array.element_bits} bits)`, 'element_type'],
        ['dimensions', list(array.dimensions.map((d) => (d.size === null ? '?' : d.size) + (d.dynamic ? ' (dynamic)' : ''))), 'dimensions'],
        ['layout', array.layout?.layout ?? 'none', 'layout'],
        ['elements', array.elements, 'elements'],
        ['XLA ByteSizeOf', bytes(array.byte_size), 'byte_size'],
        ['in memory (tiles applied)', bytes(array.in_memory?.bytes), 'in_memory_bytes'],
        ['unpadded', bytes(array.in_memory?.unpadded_bytes), 'unpadded_bytes'],
        ['padding', bytes(array.in_memory?.padding_bytes), 'padding_bytes'],
      );
    }
    if (strides.error) {
      rows.push(['strides', `none: ${strides.error.message}`, 'strides_error']);
    } else {
      rows.push(['element strides', list(strides.element_strides), 'element_strides']);
      rows.push(['byte strides', strides.byte_strides ? list(strides.byte_strides) : `none: ${strides.byte_strides_error?.message}`, 'byte_strides']);
    }
    rows.push(['ShapeProto (hex)', doc.proto_hex || '(empty)', 'proto_hex']);
    facts($('shape-facts'), rows);
    $('shape-out').hidden = false;
    shapeText = text;
    $('shape-cell').textContent = 'No element selected.';
    try {
      const svg = await engine.call('draw', [text, {}]);
      const node = placeSvg($('shape-svg'), svg, `Memory layout of ${doc.shape}: each element labelled with its offset`);
      if (node) interactive(node);
    } catch (e) {
      $('shape-svg').replaceChildren(el('p', { class: 'muted' }, `No drawing: ${e.message}`));
    }
    setFragment(fragmentOf('shape'));
  } catch (e) {
    $('shape-out').hidden = true;
    showError('shape-error', e);
  }
}

// Hover or focus a cell: its index, offset and tile, from the crate.
function interactive(svg) {
  let selected = null;
  const describeCell = async (g) => {
    if (selected) selected.classList.remove('selected');
    selected = g;
    g.classList.add('selected');
    const index = g.dataset.index.split(',').map(Number);
    try {
      const e = await engine.call('element', [shapeText, index]);
      if (selected !== g) return;
      const tile = e.tile ? `; tile ${e.tile.number} in memory, tile (${e.tile.coordinates.join(',')})` : '; no tiles';
      $('shape-cell').textContent = `index (${e.index.join(',')}): offset ${e.offset}${tile}`;
    } catch (err) {
      $('shape-cell').textContent = `index (${index.join(',')}): ${err.message}`;
    }
  };
  for (const g of svg.querySelectorAll('g.cell')) {
    g.setAttribute('tabindex', '0');
    g.setAttribute('role', 'button');
    g.setAttribute('aria-label', `element (${g.dataset.index}), offset ${g.dataset.offset}`);
    g.addEventListener('mouseenter', () => describeCell(g));
    g.addEventListener('focus', () => describeCell(g));
  }
}

$('shape-form').addEventListener('submit', (e) => {
  e.preventDefault();
  showShape();
});

// ---------------------------------------------------------------------------
// Sharding
// ---------------------------------------------------------------------------

async function showSharding() {
  const text = $('sharding-input').value;
  const shape = $('sharding-shape').value.trim();
  const mesh = $('sharding-mesh').value.trim();
  showError('sharding-error', null);
  if (tooLong(text) || tooLong(mesh)) return showError('sharding-error', new PageError('TooLarge', 'the input is larger than 16 MiB'));
  try {
    const doc = await engine.call('sharding', [text, shape || null, mesh || null]);
    facts($('sharding-facts'), [
      ['sharding', doc.sharding, 'sharding'],
      ['devices', doc.num_devices ?? 'any number', 'num_devices'],
      ['kind', ['replicated', 'maximal', 'manual', 'tiled', 'tuple'].filter((k) => doc[k]).join(', ') || 'other', 'kind'],
      ['OpSharding (hex)', doc.proto_hex || '(empty)', 'proto_hex'],
    ]);
    const body = $('sharding-devices').tBodies[0];
    body.replaceChildren(
      ...(doc.devices ?? []).map((d) =>
        el(
          'tr',
          { 'data-device': d.device },
          el('td', { 'data-field': 'device' }, d.device),
          el('td', { 'data-field': 'shape' }, d.shape),
          el('td', { 'data-field': 'index' }, `[${d.index.map(([a, b]) => `${a}:${b}`).join(', ')}]`),
          el('td', { 'data-field': 'bytes', class: 'num' }, d.bytes ?? '—'),
        ),
      ),
    );
    $('sharding-devices').hidden = !doc.devices;
    $('sharding-out').hidden = false;
    if (shape) {
      try {
        const svg = await engine.call('draw', [shape, { sharding: text, mesh: mesh || undefined }]);
        placeSvg($('sharding-svg'), svg, `How ${doc.sharding} splits ${shape} among devices`);
      } catch (e) {
        $('sharding-svg').replaceChildren(el('p', { class: 'muted' }, `No drawing: ${e.message}`));
      }
    } else {
      $('sharding-svg').replaceChildren(el('p', { class: 'muted' }, 'Give an array shape to see each device\'s block.'));
    }
    setFragment(fragmentOf('sharding'));
  } catch (e) {
    $('sharding-out').hidden = true;
    showError('sharding-error', e);
  }
}

$('sharding-form').addEventListener('submit', (e) => {
  e.preventDefault();
  showSharding();
});

// ---------------------------------------------------------------------------
// Module
// ---------------------------------------------------------------------------

// Counts the analyses asked for and stopped: a stop before the file is
// read stops it too.
let moduleRun = 0;

async function showModule(file) {
  showError('module-error', null);
  $('module-out').hidden = true;
  if (file.size > MAX_MODULE_BYTES) {
    return showError('module-error', new PageError('TooLarge', `${file.name} is larger than 64 MiB`));
  }
  const started = performance.now();
  status(`Analysing ${file.name} (${file.size} bytes)…`);
  $('module-stop').disabled = false;
  const run = ++moduleRun;
  try {
    const data = await file.arrayBuffer();
    if (run !== moduleRun) throw new PageError('Stopped', 'the analysis was stopped');
    const r = await engine.call('module', [data, 10], { timeout: MODULE_TIMEOUT, transfer: [data] });
    const m = r.memory;
    const rows = [
      ['module', r.name, 'module'],
      ['read as', r.kind, 'read_as'],
    ];
    if (m) {
      rows.push(
        ['source', m.source === 'buffer_assignment' ? "exact: XLA's buffer assignment" : m.source, 'source'],
        ['arguments', bytes(m.arguments), 'arguments'],
        ['outputs', bytes(m.outputs), 'outputs'],
        ['aliased', bytes(m.aliased), 'aliased'],
        ['temporaries', m.temporaries_counted ? bytes(m.temporaries) : 'not counted', 'temporaries'],
        ['peak', bytes(m.peak), 'peak'],
        ['peak at', m.peak_step ? `step ${m.peak_step.step} of ${m.peak_step.steps}: ${m.peak_step.instruction}` : '—', 'peak_step'],
      );
    } else {
      rows.push(['memory', `not analysed: ${r.memoryError.message}`, 'memory_error']);
    }
    facts($('module-facts'), rows);
    if (r.svg) placeSvg($('module-svg'), r.svg, `Live bytes over the program of ${r.name}, the peak marked`);
    else $('module-svg').replaceChildren();
    $('module-buffers').tBodies[0].replaceChildren(
      ...(m?.peak_buffers ?? []).map((b) =>
        el('tr', {}, el('td', {}, `${b.computation}/${b.instruction}${b.shape_index.length ? `{${b.shape_index.join(',')}}` : ''}`), el('td', {}, b.shape), el('td', { class: 'num', 'data-field': 'bytes' }, b.bytes), el('td', {}, b.kind)),
      ),
    );
    $('module-padding').tBodies[0].replaceChildren(
      ...(r.padding ?? []).map((p) => {
        const e = p.padding ?? {};
        const best = e.suggestions?.[0];
        return el(
          'tr',
          {},
          el('td', {}, p.instruction),
          el('td', {}, p.shape),
          el('td', { class: 'num' }, e.error ? '—' : e.unpadded),
          el('td', { class: 'num' }, e.error ? '—' : e.padded),
          el('td', { class: 'num' }, e.error ? '—' : `${e.expansion}x`),
          el('td', {}, e.error ? e.error.message : best ? `${best.text}: ${best.shape}, ${best.padded} bytes` : e.causes?.length ? '—' : 'no padding'),
        );
      }),
    );
    showInstructions(r.instructions);
    $('module-search').value = '';
    $('module-out').hidden = false;
    status(`Analysed ${file.name} in ${Math.round(performance.now() - started)} ms.`);
  } catch (e) {
    showError('module-error', e);
    status('');
  } finally {
    $('module-stop').disabled = true;
  }
}

function showInstructions(found) {
  $('module-count').textContent =
    found.matched > found.rows.length
      ? `${found.matched} of ${found.total} instructions match; the first ${found.rows.length} are shown.`
      : `${found.matched} of ${found.total} instructions match.`;
  $('module-instructions').tBodies[0].replaceChildren(
    ...found.rows.map((r) =>
      el('tr', {}, el('td', {}, r.computation), el('td', {}, r.name), el('td', {}, r.opcode), el('td', {}, r.shape), el('td', { class: 'num' }, r.byte_size ?? '—')),
    ),
  );
}

let searchTimer = null;
$('module-search').addEventListener('input', () => {
  clearTimeout(searchTimer);
  searchTimer = setTimeout(async () => {
    try {
      showInstructions(await engine.call('search', [$('module-search').value]));
    } catch (e) {
      showError('module-error', e);
    }
  }, 150);
});

$('module-file').addEventListener('change', () => {
  const file = $('module-file').files[0];
  if (file) showModule(file);
});
$('module-stop').addEventListener('click', () => {
  moduleRun++;
  engine.restart(new PageError('Stopped', 'the analysis was stopped'));
});
const drop = $('drop');
drop.addEventListener('dragover', (e) => {
  e.preventDefault();
  drop.classList.add('over');
});
drop.addEventListener('dragleave', () => drop.classList.remove('over'));
drop.addEventListener('drop', (e) => {
  e.preventDefault();
  drop.classList.remove('over');
  const file = e.dataTransfer?.files?.[0];
  if (file) showModule(file);
});

// ---------------------------------------------------------------------------
// Out-of-memory listing
// ---------------------------------------------------------------------------

async function showOom() {
  const text = $('oom-input').value;
  showError('oom-error', null);
  const out = $('oom-out');
  out.replaceChildren();
  if (tooLong(text)) return showError('oom-error', new PageError('TooLarge', 'the input is larger than 16 MiB'));
  try {
    const tiles = $('oom-tiles').value.split(/\s+/).filter(Boolean);
    const doc = await engine.call('padding', [text, tiles]);
    out.append(el('p', {}, `${doc.shapes.length} shape${doc.shapes.length === 1 ? '' : 's'} explained.`));
    for (const e of doc.shapes) {
      const l = e.listed;
      const box = el('div', { class: 'entry' });
      const shape = e.shape ?? '(no shape listed)';
      box.append(el('h3', {}, l?.number ? `${l.number}. ${shape}` : shape));
      if (l) {
        const what = [l.memory_space, l.instruction && `instruction ${l.instruction}`, l.label && `label ${l.label}`, l.entry_parameter && 'entry parameter', l.allocation_type].filter(Boolean).join(', ');
        box.append(el('p', { class: 'muted' }, `Listed (line ${l.line}): size ${l.size ?? '—'}${l.unpadded ? `, unpadded ${l.unpadded}` : ''}${what ? `; ${what}` : ''}`));
      }
      if (e.unpadded === undefined && !e.error) {
        box.append(el('p', {}, 'Nothing to explain: the listing gives no shape.'));
      } else if (e.error) {
        box.append(el('p', { class: 'error' }, `${e.error.kind}: ${e.error.message}`));
      } else {
        box.append(
          el('p', { 'data-field': 'figures' }, `unpadded ${e.unpadded} bytes, padded ${e.padded} bytes, expansion ${e.expansion}x${e.tiles_assumed ? ' (tiles assumed)' : ''}`),
        );
        if (e.causes.length) box.append(el('ul', {}, ...e.causes.map((c) => el('li', {}, c.text))));
        else box.append(el('p', {}, 'No padding.'));
        if (e.suggestions.length) {
          box.append(el('p', {}, 'Pads less:'), el('ul', {}, ...e.suggestions.map((s) => el('li', {}, `${s.text}: ${s.shape}, ${s.padded} bytes (${s.expansion}x)`))));
        }
        if (!e.tiles_assumed && !e.causes.length && e.check?.agrees === false) {
          box.append(el('p', {}, 'The shape has no tiles and the listing says more: give the tiles XLA used above.'));
        }
        if (e.check) {
          const parts = ['size', 'unpadded', 'extra', 'expansion']
            .filter((k) => e.check[k])
            .map((k) => `${k} ${e.check[k].printed} (ours ${e.check[k].ours}${e.check[k].agrees ? ', agrees' : ', differs'})`);
          box.append(el('p', { class: 'muted' }, `The listing's figures: ${parts.join('; ')}`));
        }
      }
      out.append(box);
    }
    setFragment(fragmentOf('oom'));
  } catch (e) {
    showError('oom-error', e);
  }
}

$('oom-form').addEventListener('submit', (e) => {
  e.preventDefault();
  showOom();
});

// ---------------------------------------------------------------------------
// Start
// ---------------------------------------------------------------------------

window.addEventListener('hashchange', () => restore());

engine.ready.then(
  async (version) => {
    const v = await engine.call('version', []);
    status(`Ready: xla-shape ${v}, in WebAssembly.`);
    await restore();
    document.body.dataset.readyAt = String(Math.round(performance.now()));
    document.body.dataset.ready = 'true';
  },
  (e) => status(`The WebAssembly module did not load: ${e.message}`),
);
