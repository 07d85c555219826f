//! Packs the built view into ONE self-contained HTML file (view-wasm/dist/planning.html),
//! the JavaScript translation the server hands over when WebAssembly is refused
//! (view-wasm/dist/wasm2js.txt), and their manifest, from the wasm-bindgen output of the
//! one wasm module cargo built.
//!
//! The same module runs two ways, chosen by the loader at load time (see loader.mjs):
//! - as WebAssembly, carried in the page (gzip, base64, in an inert
//!   `<script type="text/plain">` block, unpacked with the browser's DecompressionStream),
//!   where the host says its CSP allows compiling it ('wasm-unsafe-eval');
//! - as JavaScript made from it by binaryen's wasm2js, elsewhere (the MCP Apps default
//!   CSP: VS Code, Goose, the Inspector). Same module, same imports, same glue. Both
//!   copies do not fit the page's budget, so the translation (gzip, base64) is written
//!   beside the page: the server serves it in parts through the view-only tool
//!   `get_view_code`, and the page names its build (the first 16 hex digits of the text's
//!   SHA-256) and its number of parts, so a page never runs another build's code. It
//!   becomes an inline `<script>` element, which 'unsafe-inline' allows (never `eval` or
//!   `new Function`, which the strict CSP refuses).
//!
//! Owns: the glue and wasm2js patches, the forbidden-pattern scan of everything that
//! runs (compressed parts included), the size budget, the manifest. Leaves the Rust
//! build and the installs to build.sh, and the styles and markup to shell.html.

import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";
import zopfli from "@gfx/zopfli";
import { dropFeatures } from "./wasm-features.mjs";
import { scan } from "./scan.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const crate = path.resolve(here, "..");
const bin = path.join(crate, "node_modules", ".bin");
const [inputWasm, work] = process.argv.slice(2);
if (!inputWasm || !work) {
  console.error("usage: node pack.mjs <cargo's palmaplan_view.wasm> <work dir>");
  process.exit(2);
}

// The page's hard budget, raw: the build fails above it. Gzip is reported (hosts
// compress what they serve differently, and the raw size is what the frame parses),
// not capped.
const MAX_RAW = 640 * 1024;

const run = (cmd, args) => execFileSync(cmd, args, { stdio: ["ignore", "inherit", "inherit"] });
const gz = (bytes) => zlib.gzipSync(bytes, { level: 9 });

fs.rmSync(work, { recursive: true, force: true });
fs.mkdirSync(work, { recursive: true });

// 1. One module for both paths: without reference types or multi-value (wasm2js takes
//    one table only), so wasm-bindgen emits no externref table.
const { bytes, removed } = dropFeatures(fs.readFileSync(inputWasm), ["reference-types", "multivalue"]);
const plain = path.join(work, "palmaplan_view.wasm");
fs.writeFileSync(plain, bytes);
console.log(`target_features: removed ${removed.join(", ") || "nothing"}`);
run("wasm-bindgen", ["--target", "web", "--no-typescript", "--out-dir", work, plain]);

// 2. Optimise once; the JS path is made from the optimised module.
const features = ["--enable-bulk-memory", "--enable-nontrapping-float-to-int", "--enable-sign-ext", "--enable-mutable-globals"];
const optWasm = path.join(work, "opt.wasm");
run(path.join(bin, "wasm-opt"), ["-Oz", ...features, path.join(work, "palmaplan_view_bg.wasm"), "-o", optWasm]);
// wasm2js mistranslates the saturating float-to-int instructions (its i64 lowering
// produces invalid code for them): lower them to plain instructions first. (Flattening
// and re-looping the control flow before -Oz makes the JavaScript ~2% smaller, but
// 1.7-3x slower: measured with e2e/bench, not worth it.)
const jsWasm = path.join(work, "for-js.wasm");
run(path.join(bin, "wasm-opt"), [...features, "--llvm-nontrapping-fptoint-lowering", "-Oz", optWasm, "-o", jsWasm]);
const asmRaw = path.join(work, "asm.mjs");
run(path.join(bin, "wasm2js"), ["-Oz", ...features.filter((f) => !f.includes("nontrapping")), jsWasm, "-o", asmRaw]);

// 3. Patches, each checked: a binaryen or wasm-bindgen upgrade that changes the text
//    fails the build here instead of shipping a broken path.
function patch(text, from, to, what) {
  if (!from.test(text)) throw new Error(`patch "${what}" no longer applies: check the tool's output`);
  return text.replace(from, to);
}
let asm = fs.readFileSync(asmRaw, "utf8");
asm = patch(asm, /^import \* as \S+ from '[^']+';\n/m, "", "wasm2js import line");
// wasm2js's memory.grow copies into a new ArrayBuffer and leaves the old one attached,
// so the glue's cached views (which it refreshes only when byteLength drops to 0) would
// keep reading the old memory. transfer() detaches the old buffer.
// It also copies the whole memory on every grow, into pages the browser maps afresh
// (each first touched page is a fault): reading a 100,000-bar schedule, the memory
// grew 1 → 48 MB and its copies took ~0.2-0.5 s (the last, 18 MB, 90 ms), where a
// WebAssembly memory grows in place. So the memory's size (what memory.size and
// memory.grow answer) is kept apart from the buffer's, and the buffer, when it must
// grow, takes 64 MB at least, or twice the memory: a browser maps an ArrayBuffer's
// pages only as they are touched (256 MB allocated in ~1 ms), so the room costs
// nothing until used, and a grow within it copies nothing.
asm = patch(
  asm,
  /var buffer = new ArrayBuffer\((\d+)\);/,
  "var buffer = new ArrayBuffer($1);\n var memoryPages = buffer.byteLength >> 16;",
  "wasm2js memory size",
);
asm = patch(
  asm,
  /function __wasm_memory_size\(\) \{\s*return buffer\.byteLength >> 16;\s*\}/,
  "function __wasm_memory_size() {\n  return memoryPages;\n }",
  "wasm2js memory.size",
);
asm = patch(
  asm,
  /var newBuffer = new ArrayBuffer\(newPages << 16\);\s*var newHEAP8 = new Int8Array\(newBuffer\);\s*newHEAP8\.set\(HEAP8\);/,
  "memoryPages = newPages;\n   if (newPages * 65536 <= buffer.byteLength) return oldPages;\n" +
    "   var newBuffer = buffer.transfer(Math.min(65535, Math.max(newPages, oldPages * 2, 1024)) * 65536);",
  "wasm2js memory.grow",
);
asm = patch(asm, /\nvar retasmFunc = asmFunc\([\s\S]*$/, "\nexport { asmFunc };\n", "wasm2js exports");
// wasm2js writes the module's data (its strings and tables, ~49 KB) as base64, which
// gzip compresses poorly: each byte lands on a different bit offset in each copy of a
// repeated string. As one character per byte (a Latin-1 literal) gzip finds the repeats;
// the page is ~4 KB smaller (gzip).
asm = patch(
  asm,
  /  var base64ReverseLookup = new Uint8Array\(123[^;]*;\n  for \(var i = 25; i >= 0; --i\) \{[^}]*\}\n  base64ReverseLookup\[43\] = 62;[^\n]*\n  base64ReverseLookup\[47\] = 63;[^\n]*\n/,
  "",
  "wasm2js base64 table",
);
asm = patch(
  asm,
  /function base64DecodeToExistingUint8Array\(uint8Array, offset, b64\) \{[\s\S]*?\n    return uint8Array;\n  \}/,
  "function base64DecodeToExistingUint8Array(uint8Array, offset, text) {\n    for (var i = 0; i < text.length; i++) uint8Array[offset + i] = text.charCodeAt(i);\n    return uint8Array;\n  }",
  "wasm2js data segments",
);
{
  const calls = asm.match(/base64DecodeToExistingUint8Array\(/g).length - 1;
  let done = 0;
  asm = asm.replace(/(base64DecodeToExistingUint8Array\(bufferView, \d+, )"([A-Za-z0-9+/=]*)"\)/g, (_, call, b64) => {
    done++;
    return `${call}${latin1Literal(Buffer.from(b64, "base64"))})`;
  });
  if (done !== calls) throw new Error(`patch "wasm2js data segments": ${done} of ${calls} segments rewritten: check the tool's output`);
}

/** A JavaScript string literal with one character per byte (U+0000-U+00FF). */
function latin1Literal(bytes) {
  let out = '"';
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    const next = bytes[i + 1];
    if (b === 0) out += next >= 0x30 && next <= 0x39 ? "\\x00" : "\\0";
    else if (b === 0x22) out += '\\"';
    else if (b === 0x5c) out += "\\\\";
    else if (b === 0x0a) out += "\\n";
    else if (b === 0x0d) out += "\\r";
    else out += String.fromCharCode(b);
  }
  return out + '"';
}
fs.writeFileSync(path.join(work, "asm-patched.mjs"), asm);

let glue = fs.readFileSync(path.join(work, "palmaplan_view.js"), "utf8");
// Only the synchronous, bytes-in path is kept: the load-by-URL path (fetch,
// import.meta.url) becomes dead code that esbuild drops.
glue = patch(
  glue,
  /export \{ initSync, __wbg_init as default \};/,
  "export { __wbg_get_imports, __wbg_finalize_init };",
  "wasm-bindgen glue exports",
);
fs.writeFileSync(path.join(work, "glue.mjs"), glue);
fs.copyFileSync(path.join(here, "loader.mjs"), path.join(work, "loader.mjs"));
fs.writeFileSync(path.join(work, "asm-entry.mjs"), 'import { asmFunc } from "./asm-patched.mjs";\nwindow.__ppAsm = asmFunc;\n');

// The workspace's version (the crate inherits it), as the Rust bridge names the view.
const crateVersion = fs.readFileSync(path.join(crate, "..", "Cargo.toml"), "utf8").match(/^version = "([^"]+)"/m)[1];
const bundle = async (entry, format) =>
  (
    await esbuild.build({
      entryPoints: [path.join(work, entry)],
      bundle: true,
      minify: true,
      format,
      target: "es2022",
      write: false,
      legalComments: "none",
      charset: "utf8",
      // The glue's load-by-URL path names import.meta; it is dead code, dropped here.
      logOverride: { "empty-import-meta": "silent" },
      // What the loader's handshake says the view is (as the Rust bridge would).
      define: { __PP_VERSION__: JSON.stringify(crateVersion) },
    })
  ).outputFiles[0].text;

const loaderJs = await bundle("loader.mjs", "iife");
const asmJs = await bundle("asm-entry.mjs", "iife");
const wasmBytes = fs.readFileSync(optWasm);

// 4. Everything that will run is scanned in clear, before it is compressed.
const shell = fs.readFileSync(path.join(here, "shell.html"), "utf8");
const bootstrap = fs.readFileSync(path.join(here, "bootstrap.js"), "utf8");
const style = fs.readFileSync(path.join(crate, "style.css"), "utf8");
for (const [what, text] of [["loader", loaderJs], ["wasm2js path", asmJs], ["shell", shell], ["bootstrap", bootstrap], ["style", style], ["wasm strings", wasmBytes.toString("latin1")]]) {
  const found = scan(text);
  if (found.length) throw new Error(`forbidden in ${what}: ${found.join("; ")}`);
}

// The module and the translation are compressed with zopfli: a gzip stream the
// browser's DecompressionStream reads like any other, about 7% smaller than zlib's level
// 9 (the page carries the module base64-encoded; the translation travels so too).
const zop = (bytes) =>
  new Promise((resolve, reject) => zopfli.gzip(bytes, { numiterations: 15 }, (e, out) => (e ? reject(e) : resolve(Buffer.from(out)))));
const [wasmGz, asmGz] = await Promise.all([zop(wasmBytes), zop(Buffer.from(asmJs, "utf8"))]);
const fill = (html, name, value) => {
  const marker = `{{${name}}}`;
  if (html.split(marker).length !== 2) throw new Error(`shell.html must contain ${marker} exactly once`);
  return html.replace(marker, () => value);
};
// The translation, as the server hands it over: base64 text in parts of PART_CHARS (the
// server's get_view_code cuts it the same way: server/src/view.rs, tested there).
const PART_CHARS = 100000;
const translation = asmGz.toString("base64");
const translationBuild = createHash("sha256").update(translation).digest("hex").slice(0, 16);
const translationParts = Math.ceil(translation.length / PART_CHARS);
let html = shell;
html = fill(html, "STYLE", style.trim());
html = fill(html, "BOOTSTRAP", bootstrap.trim());
html = fill(html, "LOADER", loaderJs.trim());
html = fill(html, "WASM_GZ", wasmGz.toString("base64"));
html = fill(html, "TRANSLATION_BUILD", translationBuild);
html = fill(html, "TRANSLATION_PARTS", String(translationParts));
const found = scan(html);
if (found.length) throw new Error(`forbidden in the packed page: ${found.join("; ")}`);

const raw = Buffer.from(html, "utf8");
const gzBytes = gz(raw).length;
const sha256 = createHash("sha256").update(raw).digest("hex");
const manifest = {
  file: "planning.html",
  sha256,
  raw_bytes: raw.length,
  gzip_bytes: gzBytes,
  budget: { max_raw_bytes: MAX_RAW },
  paths_shipped: ["wasm", "wasm2js"],
  translation: { file: "wasm2js.txt", build: translationBuild, base64_bytes: translation.length, parts: translationParts, part_chars: PART_CHARS },
  parts: {
    loader_js: { raw_bytes: loaderJs.length, gzip_bytes: gz(Buffer.from(loaderJs)).length },
    wasm: { raw_bytes: wasmBytes.length, gzip_bytes: wasmGz.length, in_page_base64_bytes: Math.ceil(wasmGz.length / 3) * 4 },
    wasm2js: { raw_bytes: Buffer.byteLength(asmJs), gzip_bytes: asmGz.length, served_base64_bytes: translation.length },
  },
  // What the browser decodes and runs on each path, beyond the page itself.
  paths: {
    wasm: { runs_raw_bytes: loaderJs.length + wasmBytes.length },
    wasm2js: { runs_raw_bytes: loaderJs.length + Buffer.byteLength(asmJs) },
  },
};
const dist = path.join(crate, "dist");
fs.mkdirSync(dist, { recursive: true });
fs.writeFileSync(path.join(dist, "planning.html"), raw);
fs.writeFileSync(path.join(dist, "wasm2js.txt"), translation);
fs.writeFileSync(path.join(dist, "manifest.json"), JSON.stringify(manifest, null, 2) + "\n");
console.log(`planning.html: ${raw.length} bytes raw (limit ${MAX_RAW}), ${gzBytes} gzip -9`);
console.log(`  wasm ${wasmBytes.length} (gzip ${wasmGz.length}); wasm2js ${Buffer.byteLength(asmJs)} (gzip ${asmGz.length}); loader ${loaderJs.length}`);
if (raw.length > MAX_RAW) {
  console.error(`planning.html is over budget: ${raw.length} raw (max ${MAX_RAW})`);
  process.exit(1);
}
