//! Starts the view: picks the path the host allows, gets that path's code, hands the
//! module's exports to the wasm-bindgen glue and calls the Rust entry point.
//!
//! The page carries the WebAssembly module (gzip, base64). Its JavaScript translation
//! (wasm2js, for a CSP without 'wasm-unsafe-eval') is too large to travel with it under
//! the page's budget: the server hands it over through the view-only tool
//! `get_view_code`, in parts, and it runs as an inline `<script>` (which
//! 'unsafe-inline' allows; never `eval`).
//!
//! Which path, without ever compiling a module a CSP may refuse (each refusal is
//! reported to the host as a violation):
//! - on our own pages (`/embed`, the web screen) the server's CSP allows WebAssembly;
//!   a browser that refuses it anyway (Safari's Lockdown Mode, a policy) gets the
//!   translation from the same origin (`GET /view/translation/<build>`, which
//!   `connect-src 'self'` allows);
//! - under an MCP Apps host, the loader shakes hands first (`ui/initialize`) and takes
//!   WebAssembly only when the host says the CSP it applied allows it
//!   (`hostCapabilities.sandbox.csp.wasmUnsafeEval`); otherwise the translation. The
//!   handshake's answer is handed to the Rust bridge (`__pp.init`), which does not
//!   shake hands again. A host that says so wrongly costs one refused compile, then the
//!   translation.
//! Answers to the loader's own requests (ids "pp-load-…") are taken off the bootstrap's
//! queue (`__pp.claim`); everything else waits there for the bridge, in order.

import { __wbg_get_imports, __wbg_finalize_init, start } from "./glue.mjs";

const pp = window.__pp;

/** The handshake's deadline: under the bootstrap's 8 s, after which it offers Reload. */
const HANDSHAKE_MS = 6000;
/** Each part of the translation (100,000 characters through the host). */
const PART_MS = 20000;
/** Parts asked for at once. */
const PARALLEL_PARTS = 3;

/** Base64 to bytes, with the browser's own decoder where it has one (Chromium 140,
 *  Firefox 133, Safari 18.2: a 100,000-bar schedule's packed pages are ~5 MB of it). */
const fromBase64 = Uint8Array.fromBase64
  ? (text) => Uint8Array.fromBase64(text)
  : (text) => {
      const bin = atob(text);
      const bytes = new Uint8Array(bin.length);
      for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
      return bytes;
    };

/** A gzip stream, inflated by the browser, as a stream of chunks. The bytes are
 *  written to the stream as they are: a Blob of them went through the browser's blob
 *  store (~0.1 s over a 100,000-bar schedule's pages). A bad stream fails the reading;
 *  the writer's own promises are left quiet. */
function gunzip(bytes) {
  const inflate = new DecompressionStream("gzip");
  const w = inflate.writable.getWriter();
  w.write(bytes).catch(() => {});
  w.close().catch(() => {});
  return inflate.readable;
}

/** Gives `buffer`'s memory back now. An ArrayBuffer's memory is otherwise given back
 *  by a garbage collection, and one that lived through a few tasks (a page's bytes wait
 *  for the other pages of its answer) by a major one only. Detached (`transfer` to
 *  nothing), it is freed at once. */
function free(buffer) {
  if (typeof buffer.transfer === "function" && !buffer.detached) buffer.transfer(0);
}

/** `packed` (gzip in base64) inflated into one buffer of its size. The packed bytes
 *  and the stream's chunks are freed once copied, rather than left to a collection as
 *  `Response.arrayBuffer` leaves them: a 100,000-bar schedule's pages inflate to
 *  ~17 MB, and the chunks, the inflated pages and their packed bytes (~4 MB) were
 *  mostly still waiting for a major collection when the loaded chart was first
 *  scrolled; the code's own (the module, 1 MB, or its translation, 2 MB) ~2.4 MB
 *  more. */
async function inflate(text) {
  const packed = fromBase64(text.trim());
  const reader = gunzip(packed).getReader();
  const chunks = [];
  let size = 0;
  for (let r = await reader.read(); !r.done; r = await reader.read()) {
    chunks.push(r.value);
    size += r.value.length;
  }
  free(packed.buffer);
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.length;
  }
  // Freed once all are copied: a browser may hand out chunks of one buffer.
  for (const chunk of chunks) free(chunk.buffer);
  return bytes;
}

/** Unpacks a packed page's parts for the view (`get_schedule_page` with `packed`): each
 *  is a gzip stream in base64 of record parts one per line (a record part is a JSON text,
 *  which never holds a raw line break). Calls `take` once, with the parts in order as
 *  bytes, or why not as a text: the view always hears back. The bytes are lent for the
 *  call: `take` copies them, and they are freed when it returns. */
pp.unpack = (texts, take) => {
  // `inflate` is async: a text that is not base64 fails as a rejection, like a bad stream.
  Promise.all(Array.from(texts, (t) => inflate(t))).then(
    (all) => {
      try {
        take(all.flatMap(lines));
      } finally {
        for (const bytes of all) free(bytes.buffer);
      }
    },
    (e) => take(String((e && e.message) || e)),
  );
};

/** The lines of `bytes` (split at each "\n", as `String.split` would split its text),
 *  as views of the same bytes. The view copies each into its memory in one move and
 *  reads it as UTF-8 there: handed over as texts, the browser decoded them and the
 *  glue copied them back into bytes a character at a time (~5 MB for a
 *  100,000-bar schedule). */
function lines(bytes) {
  const out = [];
  for (let at = 0; ; ) {
    const end = bytes.indexOf(10, at);
    out.push(bytes.subarray(at, end < 0 ? bytes.length : end));
    if (end < 0) return out;
    at = end + 1;
  }
}

// The loader's own requests to the host, answered before the bridge runs.
let seq = 0;
const waiting = new Map();
pp.claim = (m) => {
  const w = m && typeof m.id === "string" && !m.method ? waiting.get(m.id) : undefined;
  if (!w) return false;
  waiting.delete(m.id);
  if (m.error) w.reject(new Error(`${w.method}: ${m.error.message || "error " + m.error.code}`));
  else w.resolve(m.result);
  return true;
};
/** A request to the host; its answer is taken whenever it comes. */
function send(method, params) {
  const id = "pp-load-" + ++seq;
  return new Promise((resolve, reject) => {
    waiting.set(id, { resolve, reject, method });
    window.parent.postMessage({ jsonrpc: "2.0", id, method, params }, "*");
  });
}
/** `p`, or a rejection marked `timeout` after `ms`. */
function within(p, ms, what) {
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error(`${what}: no answer from the host`), { timeout: true })), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

/** The one `ui/initialize` of the page: a Reload waits for the same answer again (a late
 *  one counts), and never sends a second. */
async function handshake() {
  if (pp.init) return pp.init;
  pp.handshaking ||= send("ui/initialize", {
    appInfo: { name: "palmaplan-view", version: __PP_VERSION__ },
    appCapabilities: { availableDisplayModes: ["inline", "fullscreen"] },
    protocolVersion: "2026-01-26",
  }).then(
    (result) => {
      window.parent.postMessage({ jsonrpc: "2.0", method: "ui/notifications/initialized", params: {} }, "*");
      return { result };
    },
    // An error answer: some hosts still answer requests; the bridge runs degraded if the
    // code comes.
    (e) => ({ error: { message: e.message } }),
  );
  pp.init = await within(pp.handshaking, HANDSHAKE_MS, "ui/initialize");
  return pp.init;
}

/** Whether the host says the CSP it applied lets the frame compile WebAssembly. */
function hostAllowsWasm(init) {
  return init?.result?.hostCapabilities?.sandbox?.csp?.wasmUnsafeEval === true;
}

async function wasmExports(imports) {
  const bytes = await inflate(document.getElementById("pp-wasm").textContent);
  const { instance } = await WebAssembly.instantiate(bytes, imports);
  // Compiled from a copy: the bytes are not needed any more.
  free(bytes.buffer);
  return instance.exports;
}

/** The translation through the host: `get_view_code`, part by part. */
async function translationFromHost(build, parts) {
  // A few parts at a time, each with its own deadline from when it is asked: a host
  // that relays one call at a time gives each its share of the time.
  const answers = new Array(parts);
  let next = 0;
  const worker = async () => {
    while (next < parts) {
      const part = next++;
      answers[part] = await within(send("tools/call", { name: "get_view_code", arguments: { build, part } }), PART_MS, "get_view_code");
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL_PARTS, parts) }, worker));
  return answers
    .map((r) => {
      const sc = r?.structuredContent;
      if (r?.isError || sc?.build !== build) {
        throw new Error(r?.content?.[0]?.text || "get_view_code: another build's code");
      }
      return sc.data;
    })
    .join("");
}

/** The translation from our own server (the `/embed` page, the web screen), through
 *  XMLHttpRequest as the view's own calls there (the scan refuses `fetch` in the page). */
function translationFromServer(build) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("GET", `/view/translation/${encodeURIComponent(build)}`);
    xhr.onload = () => (xhr.status === 200 ? resolve(xhr.responseText) : reject(new Error(xhr.responseText || `HTTP ${xhr.status}`)));
    xhr.onerror = () => reject(new Error("GET /view/translation: no answer from the server"));
    xhr.send();
  });
}

async function translationExports(imports, fromHost) {
  const tag = document.querySelector('meta[name="palmaplan-translation"]');
  const build = tag.content;
  const text = fromHost ? await translationFromHost(build, Number(tag.dataset.parts)) : await translationFromServer(build);
  const script = document.createElement("script");
  const bytes = await inflate(text);
  script.textContent = new TextDecoder().decode(bytes);
  free(bytes.buffer);
  document.head.appendChild(script);
  script.remove();
  const asm = window.__ppAsm;
  delete window.__ppAsm;
  return asm(imports);
}

async function boot() {
  const imports = __wbg_get_imports();
  const mode = document.querySelector('meta[name="palmaplan-mode"]')?.content || "mcp";
  let exports;
  if (mode !== "mcp") {
    try {
      exports = await wasmExports(imports);
      pp.path = "wasm";
    } catch (e) {
      pp.wasmRefused = String(e && e.message || e);
      exports = await translationExports(imports, false);
      pp.path = "wasm2js";
    }
  } else {
    const init = await handshake();
    // Not again after a refusal (each one is reported to the host).
    if (hostAllowsWasm(init) && !pp.wasmRefused) {
      try {
        exports = await wasmExports(imports);
        pp.path = "wasm";
      } catch (e) {
        pp.wasmRefused = String(e && e.message || e);
      }
    }
    if (!exports) {
      exports = await translationExports(imports, true);
      pp.path = "wasm2js";
    }
  }
  // From here the program is this frame's: a Reload reloads the document.
  pp.started = true;
  __wbg_finalize_init({ exports }, null);
  start();
  // Since the frame's document began (for e2e/bench/paths.mjs).
  pp.readyAt = performance.now();
}

// One boot at a time; the loader owns the deadlines while it runs (the bootstrap's 8 s
// offer of Reload waits for it: six parts through a distant host may take longer).
pp.boot = () => {
  if (pp.started) return location.reload();
  if (pp.loading) return;
  pp.loading = true;
  boot()
    .catch((e) => pp.fail(e))
    .finally(() => {
      pp.loading = false;
    });
};
pp.boot();
