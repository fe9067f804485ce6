// The page in a real browser: Chromium (Debian's /usr/bin/chromium, or
// $CHROMIUM) driven headless by puppeteer-core over a local static server
// of web/dist. Each view is loaded with a committed input (tests/data/),
// the numbers the page shows are read from its DOM and compared with what
// the CLI prints for the same input (target/debug/xla-shape, or
// $XLA_SHAPE_CLI: the numbers are not typed in here), hostile input must
// give an error in the page, the page must be ready in under a second,
// and a generated module of about 50 MB must be analysed while the page
// keeps answering. Screenshots go to target/web-screenshots/ (or
// $SCREENSHOTS).
//
// Run: npm --prefix web run build && cargo build -p xla-shape-cli &&
//      npm --prefix web test
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import puppeteer from 'puppeteer-core';

const here = path.dirname(fileURLToPath(import.meta.url));
const web = path.resolve(here, '..');
const root = path.resolve(web, '..');
const dist = path.join(web, 'dist');
const target = path.resolve(root, process.env.CARGO_TARGET_DIR ?? 'target');
const cliPath = process.env.XLA_SHAPE_CLI ?? path.join(target, 'debug', 'xla-shape');
const shots = process.env.SCREENSHOTS ?? path.join(target, 'web-screenshots');
const data = (...p) => path.join(root, 'tests', 'data', ...p);

// The CLI's answer: its JSON document (or its text with json = false).
function cli(args, { json = true, input } = {}) {
  const out = execFileSync(cliPath, json ? ['--json', ...args] : args, {
    encoding: 'utf8',
    input,
    maxBuffer: 256 << 20,
  });
  return json ? JSON.parse(out) : out;
}

// The CLI's document, or its error object ({error}) when it fails.
function cliOrError(args, options) {
  try {
    return cli(args, options);
  } catch (e) {
    return JSON.parse(e.stdout);
  }
}

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.ts': 'text/plain; charset=utf-8',
};

let server;
let base;
let browser;

before(async () => {
  assert.ok(fs.existsSync(path.join(dist, 'index.html')), 'build the page first: npm --prefix web run build');
  assert.ok(fs.existsSync(cliPath), `build the CLI first: cargo build -p xla-shape-cli (${cliPath})`);
  fs.mkdirSync(shots, { recursive: true });
  server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://localhost');
    const file = path.join(dist, path.normalize(decodeURIComponent(url.pathname === '/' ? '/index.html' : url.pathname)));
    if (!file.startsWith(dist) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream' });
    fs.createReadStream(file).pipe(res);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${server.address().port}/`;
  browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
});

after(async () => {
  await browser?.close();
  server?.close();
});

async function open(fragment, { cache = true } = {}) {
  const page = await browser.newPage();
  await page.setCacheEnabled(cache);
  await page.setViewport({ width: 1200, height: 900 });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.errors = errors;
  await page.goto(`${base}#${fragment}`);
  await page.waitForSelector('body[data-ready=true]', { timeout: 20_000 });
  return page;
}

// The fact table's values by field.
async function factsOf(page, table) {
  return page.$$eval(`#${table} td[data-field]`, (tds) => Object.fromEntries(tds.map((td) => [td.dataset.field, td.textContent])));
}

const bytes = (n) => `${n} bytes`;
const list = (v) => `[${v.join(', ')}]`;

async function shot(page, name, fullPage = true) {
  await page.screenshot({ path: path.join(shots, `${name}.png`), fullPage });
}

describe('the page', () => {
  test('loads in under a second, and shows a shape as the CLI describes it', async () => {
    const text = 'bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}';
    const fragment = new URLSearchParams({ shape: text }).toString();
    // The first load starts the browser's own machinery; the second,
    // with the cache off, is what a visitor waits for.
    const first = await open(fragment);
    const firstAt = Number(await first.$eval('body', (b) => b.dataset.readyAt));
    await first.close();
    const page = await open(fragment, { cache: false });
    const readyAt = Number(await page.$eval('body', (b) => b.dataset.readyAt));
    const nav = await page.evaluate(() => performance.getEntriesByType('navigation')[0].loadEventEnd);
    console.log(`ready (WebAssembly loaded, the shape described and drawn) at ${readyAt} ms without cache (${firstAt} ms on the browser's first page); load event at ${Math.round(nav)} ms`);
    assert.ok(readyAt < 1000, `ready at ${readyAt} ms`);
    await page.waitForSelector('#shape-svg svg');

    const doc = cli(['describe', text]);
    const strides = cliOrError(['strides', text]);
    const a = doc.arrays[0];
    const f = await factsOf(page, 'shape-facts');
    assert.equal(f.shape, doc.shape);
    assert.equal(f.elements, String(a.elements));
    assert.equal(f.byte_size, bytes(a.byte_size));
    assert.equal(f.in_memory_bytes, bytes(a.in_memory.bytes));
    assert.equal(f.unpadded_bytes, bytes(a.in_memory.unpadded_bytes));
    assert.equal(f.padding_bytes, bytes(a.in_memory.padding_bytes));
    if (strides.error) assert.equal(f.strides_error, `none: ${strides.error.message}`);
    else assert.equal(f.element_strides, list(strides.element_strides));
    assert.equal(f.proto_hex, doc.proto_hex);

    // The drawing is the CLI's: the same cells, the same offsets.
    const svg = cli(['draw', text], { json: false });
    const offsets = [...svg.matchAll(/data-index="([^"]*)" data-offset="([^"]*)"/g)].map((m) => `${m[1]}=${m[2]}`);
    const shown = await page.$$eval('#shape-svg g.cell', (gs) => gs.map((g) => `${g.dataset.index}=${g.dataset.offset}`));
    assert.ok(offsets.length > 0);
    assert.deepEqual(shown, offsets);

    // Hover and focus give the index, offset and tile; the offset is the
    // CLI's `index` answer.
    const cells = await page.$$('#shape-svg g.cell');
    await cells[5].hover();
    await page.waitForFunction(() => document.getElementById('shape-cell').textContent.startsWith('index'));
    const index5 = await cells[5].evaluate((g) => g.dataset.index);
    const answer = cli(['index', text], { input: `${index5}\n` });
    let info = await page.$eval('#shape-cell', (p) => p.textContent);
    assert.match(info, new RegExp(`^index \\(${index5}\\): offset ${answer.offset}; tile \\d+ in memory`));
    // Keyboard: Tab from the shape's field reaches the first cell (the
    // mouse out of the way: scrolling would move it over another cell).
    await page.mouse.move(0, 0);
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.focus('#shape-input');
    let focused = null;
    for (let i = 0; i < 10 && !focused; i++) {
      await page.keyboard.press('Tab');
      focused = await page.evaluate(() => (document.activeElement?.matches('g.cell') ? document.activeElement.dataset.index : null));
    }
    assert.ok(focused, 'Tab reaches the drawing');
    await page.waitForFunction((i) => document.getElementById('shape-cell').textContent.startsWith(`index (${i})`), {}, focused);
    info = await page.$eval('#shape-cell', (p) => p.textContent);
    assert.match(info, new RegExp(`offset ${cli(['index', text], { input: `${focused}\n` }).offset};`));
    await shot(page, 'shape');
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  test('opened from file://, says how to serve it', async () => {
    const page = await browser.newPage();
    await page.goto(`file://${path.join(dist, 'index.html')}`);
    const text = await page.$eval('#status', (s) => s.textContent);
    assert.match(text, /python3 -m http\.server -d web\/dist/);
    await page.close();
  });

  test('shows the shapes of the golden set as the CLI does', async () => {
    const page = await open('shape=f32%5B2%5D');
    // Array shapes XLA (jaxlib 0.10.2) accepted: eight with tiles, four
    // without.
    const records = fs
      .readFileSync(data('shapes.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .filter((r) => r.input?.kind === 'text' && r.facts?.is_array);
    const texts = records.map((r) => r.input.text);
    const shapes = [...texts.filter((t) => t.includes(':T(')).slice(0, 8), ...texts.filter((t) => !t.includes(':T(')).slice(10, 14)];
    assert.ok(shapes.length >= 5, 'golden shapes found');
    for (const text of shapes) {
      let doc = null;
      try {
        doc = cli(['describe', text]);
      } catch {
        doc = null;
      }
      await page.$eval('#shape-input', (i, t) => (i.value = t), text);
      await page.click('#shape-form button[type=submit]');
      if (!doc?.arrays?.[0]) {
        await page.waitForFunction(() => !document.getElementById('shape-error').hidden);
        continue;
      }
      await page.waitForFunction((s) => document.querySelector('#shape-facts td[data-field=shape]')?.textContent === s, {}, doc.shape);
      const f = await factsOf(page, 'shape-facts');
      const a = doc.arrays[0];
      assert.equal(f.elements, String(a.elements), text);
      assert.equal(f.byte_size, bytes(a.byte_size), text);
      if (a.in_memory) assert.equal(f.in_memory_bytes, bytes(a.in_memory.bytes), text);
    }
    await page.close();
  });

  test('shows each device of a sharding as the CLI does', async () => {
    const cases = [
      { sharding: '{devices=[2,2]<=[4]}', shape: 'f32[8,6]' },
      { sharding: '{devices=[4,1,2]<=[8] last_tile_dim_replicate}', shape: 'bf16[7,6]{1,0:T(8,128)(2,1)}' },
      { sharding: '#sdy.sharding<@mesh, [{"x"}, {"y"}]>', mesh: '<["x"=2, "y"=2]>', shape: 'f32[8,6]' },
    ];
    for (const [n, c] of cases.entries()) {
      const page = await open(new URLSearchParams(c).toString());
      await page.waitForSelector('#sharding-devices tbody tr');
      const doc = cli(['sharding', '--shape', c.shape, ...(c.mesh ? ['--mesh', c.mesh] : []), c.sharding]);
      const f = await factsOf(page, 'sharding-facts');
      assert.equal(f.sharding, doc.sharding);
      assert.equal(f.proto_hex, doc.proto_hex || '(empty)');
      const rows = await page.$$eval('#sharding-devices tbody tr', (trs) =>
        trs.map((tr) => Object.fromEntries([...tr.querySelectorAll('td')].map((td) => [td.dataset.field, td.textContent]))),
      );
      assert.equal(rows.length, doc.devices.length);
      for (const [i, d] of doc.devices.entries()) {
        assert.equal(rows[i].device, String(d.device));
        assert.equal(rows[i].shape, d.shape);
        assert.equal(rows[i].index, `[${d.index.map(([a, b]) => `${a}:${b}`).join(', ')}]`);
        assert.equal(rows[i].bytes, String(cli(['describe', d.shape]).arrays[0].in_memory.bytes));
      }
      // The picture is the CLI's `draw --sharding`.
      const picture = await page.$eval('#sharding-svg svg', (s) => s.querySelectorAll('rect').length);
      assert.ok(picture > 1);
      await shot(page, `sharding-${n}`);
      await page.close();
    }
  });

  test('analyses modules as `xla-shape memory` does', async () => {
    const files = [data('memory', 'mlp3', 'hlo.pb'), data('memory', 'mlp3', 'opt.txt'), data('memory', 'mlp3', 'lowered.txt')];
    const page = await open('module=');
    for (const [n, file] of files.entries()) {
      const input = await page.$('#module-file');
      await page.$eval('#module-out', (o) => (o.hidden = true));
      await input.uploadFile(file);
      await page.waitForFunction(() => !document.getElementById('module-out').hidden || !document.getElementById('module-error').hidden, { timeout: 60_000 });
      assert.equal(await page.$eval('#module-error', (e) => e.hidden), true, await page.$eval('#module-error', (e) => e.textContent));
      const doc = cli(['memory', file]);
      const f = await factsOf(page, 'module-facts');
      assert.equal(f.arguments, bytes(doc.arguments), file);
      assert.equal(f.outputs, bytes(doc.outputs), file);
      assert.equal(f.aliased, bytes(doc.aliased), file);
      assert.equal(f.peak, bytes(doc.peak), file);
      if (doc.temporaries_counted) assert.equal(f.temporaries, bytes(doc.temporaries), file);
      const buffers = await page.$$eval('#module-buffers td[data-field=bytes]', (tds) => tds.map((td) => td.textContent));
      assert.deepEqual(buffers, doc.peak_buffers.map((b) => String(b.bytes)), file);
      // The instruction list of an HLO module: `xla-shape report`'s
      // instructions, in its order, with XLA's ByteSizeOf.
      const count = await page.$eval('#module-count', (p) => p.textContent);
      if (!file.endsWith('lowered.txt')) {
        const report = cli(['report', file]).instructions;
        assert.match(count, new RegExp(`of ${report.length} instructions`), file);
        const rows = await page.$$eval('#module-instructions tbody tr', (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
        assert.deepEqual(
          rows,
          report.slice(0, 200).map((r) => [r.computation, r.name, r.opcode, r.shape, r.byte_size === null ? '—' : String(r.byte_size)]),
          file,
        );
      }
      await page.type('#module-search', 'dot');
      await page.waitForFunction(() => /match/.test(document.getElementById('module-count').textContent) && [...document.querySelectorAll('#module-instructions tbody tr')].every((tr) => tr.textContent.toLowerCase().includes('dot')));
      await shot(page, `module-${n}`);
      await page.$eval('#module-search', (i) => (i.value = ''));
    }
    await page.close();
  });

  test('explains out-of-memory listings as `xla-shape padding` does', async () => {
    // Every listing of tests/data/listings/ (public issue threads, XLA:TPU
    // and XLA:GPU), the first opened from its link.
    const dir = data('listings');
    const files = fs.readdirSync(dir).filter((f) => f.endsWith('.txt')).sort();
    const first = fs.readFileSync(path.join(dir, files[0]), 'utf8');
    const page = await open(new URLSearchParams({ oom: first }).toString());
    for (const name of files) {
      const file = path.join(dir, name);
      await page.$eval('#oom-input', (t, v) => (t.value = v), fs.readFileSync(file, 'utf8'));
      await page.$eval('#oom-out', (o) => o.replaceChildren());
      await page.click('#oom-form button[type=submit]');
      await page.waitForFunction(() => document.querySelector('#oom-out .entry') || !document.getElementById('oom-error').hidden);
      assert.equal(await page.$eval('#oom-error', (e) => e.hidden), true, `${name}: ${await page.$eval('#oom-error', (e) => e.textContent)}`);
      const doc = cli(['padding', file]);
      const entries = await page.$$eval('#oom-out .entry', (es) =>
        es.map((e) => ({ figures: e.querySelector('[data-field=figures]')?.textContent ?? null, items: [...e.querySelectorAll('li')].map((li) => li.textContent) })),
      );
      assert.equal(entries.length, doc.shapes.length, name);
      for (const [i, e] of doc.shapes.entries()) {
        if (e.error || e.unpadded === undefined) continue;
        assert.ok(entries[i].figures.startsWith(`unpadded ${e.unpadded} bytes, padded ${e.padded} bytes, expansion ${e.expansion}x`), `${name}: ${entries[i].figures}`);
        const expected = [...e.causes.map((c) => c.text), ...e.suggestions.map((g) => `${g.text}: ${g.shape}, ${g.padded} bytes (${g.expansion}x)`)];
        assert.deepEqual(entries[i].items, expected, name);
      }
      if (name === 'pytorch_xla_6674.txt') await shot(page, 'oom');
    }
    // With tiles assumed, as `--tiles`.
    const file = path.join(dir, 'pytorch_xla_7942.txt');
    await page.$eval('#oom-input', (t, v) => (t.value = v), fs.readFileSync(file, 'utf8'));
    await page.$eval('#oom-tiles', (t) => (t.value = '(8,128)'));
    await page.$eval('#oom-out', (o) => o.replaceChildren());
    await page.click('#oom-form button[type=submit]');
    await page.waitForSelector('#oom-out [data-field=figures]');
    const doc = cli(['padding', '--tiles', '(8,128)', file]);
    const e = doc.shapes.find((x) => x.unpadded !== undefined);
    assert.ok(e.tiles_assumed);
    const figures = await page.$eval('#oom-out [data-field=figures]', (p) => p.textContent);
    assert.equal(figures, `unpadded ${e.unpadded} bytes, padded ${e.padded} bytes, expansion ${e.expansion}x (tiles assumed)`);
    await page.close();
  });

  test('hostile input gives an error in the page, and the page goes on', async () => {
    const page = await open('shape=f32%5B2%5D');
    const hostile = [
      'f32[9223372036854775807,9223372036854775807]{1,0:T(8,128)}',
      '('.repeat(5000) + 'f32[]' + ')'.repeat(5000),
      'f32[2]{0:T(' + '1,'.repeat(20000) + '1)}',
      '\u0000\uffff\ud7ff',
      'f32[' + '1,'.repeat(100_000) + '1]',
      'f32[2,3',
    ];
    for (const text of hostile) {
      // The CLI's answer for the same text (on standard input).
      const answer = cliOrError(['describe', '-'], { input: text });
      await page.$eval('#shape-error', (e) => (e.hidden = true));
      await page.$eval('#shape-input', (i, t) => (i.value = t), text);
      await page.click('#shape-form button[type=submit]');
      if (answer.error) {
        await page.waitForFunction(() => !document.getElementById('shape-error').hidden, { timeout: 20_000 });
        const message = await page.$eval('#shape-error', (e) => e.textContent);
        assert.ok(message.startsWith(`${answer.error.kind}`), `${message} (the CLI: ${answer.error.kind})`);
      } else {
        await page.waitForFunction((s) => document.querySelector('#shape-facts td[data-field=shape]')?.textContent === s, { timeout: 20_000 }, answer.shape);
      }
    }
    await shot(page, 'hostile-shape', false);
    // Sharding and listing views.
    await page.goto(`${base}#${new URLSearchParams({ sharding: '{devices=[2,2]<=[5]}', shape: 'f32[8,6]' })}`);
    await page.waitForSelector('body[data-ready=true]');
    await page.waitForFunction(() => !document.getElementById('sharding-error').hidden);
    await page.goto(`${base}#${new URLSearchParams({ oom: 'Largest program allocations in hbm:\n  1. Size: 1.0K\n     Shape: f32[' })}`);
    await page.waitForSelector('body[data-ready=true]');
    await page.waitForFunction(() => !document.getElementById('oom-error').hidden || document.querySelector('#oom-out .entry .error'));
    // A file that is no module.
    await page.goto(`${base}#module=`);
    await page.waitForSelector('body[data-ready=true]');
    const junk = path.join(os.tmpdir(), `xla-shape-web-junk-${process.pid}.pb`);
    fs.writeFileSync(junk, Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x12, 0x01]));
    await (await page.$('#module-file')).uploadFile(junk);
    await page.waitForFunction(() => !document.getElementById('module-error').hidden);
    fs.rmSync(junk);
    // Still alive: a good shape is shown.
    await page.goto(`${base}#shape=f32%5B3%2C5%5D%7B1%2C0%3AT(2%2C2)%7D`);
    await page.waitForSelector('body[data-ready=true]');
    await page.waitForSelector('#shape-svg svg');
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  test('a module of about 50 MB is analysed while the page stays responsive', async () => {
    // An entry computation of N element-wise instructions, each line about
    // 70 bytes: N = 700,000 gives about 50 MB.
    const n = Number(process.env.LARGE_MODULE_INSTRUCTIONS ?? 700_000);
    const file = path.join(os.tmpdir(), `xla-shape-web-large-${process.pid}.hlo.txt`);
    const fd = fs.openSync(file, 'w');
    fs.writeSync(fd, 'HloModule large, entry_computation_layout={(f32[16,16]{1,0})->f32[16,16]{1,0}}\n\nENTRY main {\n  a0 = f32[16,16]{1,0} parameter(0)\n');
    let chunk = '';
    for (let i = 1; i <= n; i++) {
      chunk += `  a${i} = f32[16,16]{1,0} add(f32[16,16]{1,0} a${i - 1}, f32[16,16]{1,0} a0)\n`;
      if (chunk.length > 1 << 20) {
        fs.writeSync(fd, chunk);
        chunk = '';
      }
    }
    fs.writeSync(fd, chunk + `  ROOT r = f32[16,16]{1,0} negate(f32[16,16]{1,0} a${n})\n}\n`);
    fs.closeSync(fd);
    const size = fs.statSync(file).size;
    console.log(`generated module: ${size} bytes, ${n + 2} instructions`);
    const page = await open('module=');
    // Stop ends the analysis (and its worker); the page goes on.
    await (await page.$('#module-file')).uploadFile(file);
    await page.waitForFunction(() => !document.getElementById('module-stop').disabled);
    await page.click('#module-stop');
    await page.waitForFunction(() => !document.getElementById('module-error').hidden);
    assert.match(await page.$eval('#module-error', (e) => e.textContent), /^Stopped: /);
    await page.$eval('#module-file', (i) => (i.value = ''));
    // The longest gap between the page's timer ticks while the worker works.
    await page.evaluate(() => {
      window.gaps = { max: 0, last: performance.now(), ticks: 0 };
      window.ticker = setInterval(() => {
        const now = performance.now();
        window.gaps.max = Math.max(window.gaps.max, now - window.gaps.last);
        window.gaps.last = now;
        window.gaps.ticks++;
      }, 20);
    });
    const started = Date.now();
    await (await page.$('#module-file')).uploadFile(file);
    // While it works: the tabs answer at once.
    const clickStart = Date.now();
    await page.click('#tab-shape');
    await page.waitForFunction(() => !document.getElementById('view-shape').hidden);
    const clickTime = Date.now() - clickStart;
    await page.click('#tab-module');
    await page.waitForFunction(() => !document.getElementById('module-out').hidden || !document.getElementById('module-error').hidden, { timeout: 300_000 });
    const took = Date.now() - started;
    const gaps = await page.evaluate(() => {
      clearInterval(window.ticker);
      return window.gaps;
    });
    console.log(`analysed in ${took} ms; longest gap between timer ticks ${Math.round(gaps.max)} ms; a tab answered in ${clickTime} ms`);
    assert.equal(await page.$eval('#module-error', (e) => e.hidden), true, await page.$eval('#module-error', (e) => e.textContent));
    const count = await page.$eval('#module-count', (p) => p.textContent);
    assert.match(count, new RegExp(`of ${n + 2} instructions`));
    const doc = cli(['memory', file]);
    const f = await factsOf(page, 'module-facts');
    assert.equal(f.peak, bytes(doc.peak));
    // A search over all the instructions.
    const searchStart = Date.now();
    await page.type('#module-search', `a${n - 1} `.trim());
    await page.waitForFunction(() => /^\d+ of \d+ instructions match/.test(document.getElementById('module-count').textContent) && document.querySelector('#module-instructions tbody tr td:nth-child(2)')?.textContent.startsWith('a'), { timeout: 60_000 });
    await page.waitForFunction((name) => [...document.querySelectorAll('#module-instructions tbody tr td:nth-child(2)')].some((td) => td.textContent === name), { timeout: 60_000 }, `a${n - 1}`);
    console.log(`a search over ${n + 2} instructions answered in ${Date.now() - searchStart} ms (typing included)`);
    assert.ok(gaps.max < 500, `the page stalled for ${gaps.max} ms`);
    assert.ok(clickTime < 500, `a tab took ${clickTime} ms`);
    await shot(page, 'module-large', false);
    fs.rmSync(file);
    await page.close();
  });
});
