// `npm --prefix web run build`: the crate xla-shape-web compiled to
// WebAssembly (cargo, profile `web`), its JavaScript bindings and
// TypeScript types (wasm-bindgen-cli, the same version as the
// wasm-bindgen crate), optimized for size with binaryen's wasm-opt when
// the npm package `binaryen` is installed, and the page (www/) beside
// them in dist/. Prints the size of the .wasm, raw and gzipped.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const target = path.resolve(root, process.env.CARGO_TARGET_DIR ?? 'target');
const dist = path.join(here, 'dist');
const pkg = path.join(dist, 'pkg');

function run(command, args, options = {}) {
  console.log(`> ${command} ${args.join(' ')}`);
  execFileSync(command, args, { stdio: 'inherit', cwd: root, ...options });
}

// The wasm-bindgen crate's version, which wasm-bindgen-cli must match.
const manifest = fs.readFileSync(path.join(here, 'Cargo.toml'), 'utf8');
const wanted = /wasm-bindgen = "=([0-9.]+)"/.exec(manifest)?.[1];
let have = '';
try {
  have = execFileSync('wasm-bindgen', ['--version'], { encoding: 'utf8' }).trim().split(' ')[1];
} catch {
  have = '';
}
if (have !== wanted) {
  console.error(
    `wasm-bindgen ${wanted} is needed (found ${have || 'none'}): ` +
      `cargo install wasm-bindgen-cli --locked --version =${wanted}`,
  );
  process.exit(1);
}

run('cargo', ['build', '-p', 'xla-shape-web', '--target', 'wasm32-unknown-unknown', '--profile', 'web']);
const wasm = path.join(target, 'wasm32-unknown-unknown', 'web', 'xla_shape_web.wasm');

fs.rmSync(dist, { recursive: true, force: true });
fs.mkdirSync(pkg, { recursive: true });
run('wasm-bindgen', ['--target', 'web', '--out-dir', pkg, wasm]);

const bg = path.join(pkg, 'xla_shape_web_bg.wasm');
const before = fs.statSync(bg).size;
const wasmOpt = path.join(here, 'node_modules', '.bin', 'wasm-opt');
if (fs.existsSync(wasmOpt)) {
  // The features rustc's wasm32-unknown-unknown target enables.
  run(wasmOpt, [
    '-Os',
    '--enable-bulk-memory',
    '--enable-mutable-globals',
    '--enable-nontrapping-float-to-int',
    '--enable-sign-ext',
    '--enable-reference-types',
    '--enable-multivalue',
    bg,
    '-o',
    bg,
  ]);
} else {
  console.log('(binaryen is not installed: the .wasm is not run through wasm-opt)');
}

for (const name of fs.readdirSync(path.join(here, 'www'))) {
  fs.copyFileSync(path.join(here, 'www', name), path.join(dist, name));
}

const raw = fs.readFileSync(bg);
const gzip = zlib.gzipSync(raw, { level: 9 }).length;
const kib = (n) => `${(n / 1024).toFixed(0)} KiB`;
console.log(
  `xla_shape_web_bg.wasm: ${kib(raw.length)} (${raw.length} bytes; ${kib(before)} before wasm-opt), ` +
    `${kib(gzip)} gzipped (${gzip} bytes)`,
);
console.log(`The page is in ${path.relative(process.cwd(), dist) || '.'}: serve it with python3 -m http.server -d ${path.relative(process.cwd(), dist)}`);
