//! Starts the view: picks the path the host's CSP allows, unpacks only that one, hands
//! the module's exports to the wasm-bindgen glue and calls the Rust entry point.
//!
//! When the page carries the wasm path, a probe compiles an empty module. Where the CSP
//! has no 'wasm-unsafe-eval' the browser refuses it (and reports that one refusal,
//! blockedURI "wasm-eval"); the view then runs the wasm2js translation of the same
//! module instead. A page with the JavaScript path only runs it without probing.

import { __wbg_get_imports, __wbg_finalize_init, start } from "./glue.mjs";

const pp = window.__pp;

async function unpack(id) {
  const text = document.getElementById(id).textContent.trim();
  const bin = atob(text);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

function wasmAllowed() {
  // A page built with the JavaScript path only: nothing to probe (and no refusal to report).
  if (!document.getElementById("pp-wasm")) return false;
  if (typeof WebAssembly !== "object") return false;
  try {
    new WebAssembly.Module(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]));
    return true;
  } catch {
    return false;
  }
}

async function boot() {
  const imports = __wbg_get_imports();
  let exports;
  if (wasmAllowed()) {
    const { instance } = await WebAssembly.instantiate(await unpack("pp-wasm"), imports);
    exports = instance.exports;
    pp.path = "wasm";
  } else {
    const code = new TextDecoder().decode(await unpack("pp-asm"));
    const script = document.createElement("script");
    script.textContent = code;
    document.head.appendChild(script);
    script.remove();
    exports = window.__ppAsm(imports);
    delete window.__ppAsm;
    pp.path = "wasm2js";
  }
  __wbg_finalize_init({ exports }, null);
  start();
}

pp.boot = () => boot().catch((e) => pp.fail(e));
pp.boot();
