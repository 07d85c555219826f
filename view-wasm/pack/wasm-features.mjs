//! Rewrites a wasm module's `target_features` custom section without the features the
//! wasm2js path cannot take (reference types, multi-value). rustc is told not to use
//! them (`-C target-feature=-reference-types,-multivalue`), but the prebuilt standard
//! library still declares them, and wasm-bindgen reads that section to decide to emit an
//! externref table, which wasm2js (one table only) cannot translate.

function readLeb(bytes, pos) {
  let result = 0;
  let shift = 0;
  for (;;) {
    const b = bytes[pos++];
    result += (b & 0x7f) * 2 ** shift;
    shift += 7;
    if ((b & 0x80) === 0) return [result, pos];
  }
}

function leb(n) {
  const out = [];
  do {
    let b = n % 128;
    n = Math.floor(n / 128);
    if (n > 0) b |= 0x80;
    out.push(b);
  } while (n > 0);
  return out;
}

const utf8 = new TextDecoder();
const enc = new TextEncoder();

/** Returns `bytes` with the named features removed from `target_features`, and the
 * list of features it removed (so the build can say what it did). */
export function dropFeatures(bytes, drop) {
  if (bytes[0] !== 0 || bytes[1] !== 0x61 || bytes[2] !== 0x73 || bytes[3] !== 0x6d) {
    throw new Error("not a wasm module (bad magic)");
  }
  const parts = [bytes.subarray(0, 8)];
  const removed = [];
  let pos = 8;
  while (pos < bytes.length) {
    const start = pos;
    const id = bytes[pos++];
    let size;
    [size, pos] = readLeb(bytes, pos);
    const body = pos;
    const end = body + size;
    let kept = bytes.subarray(start, end);
    if (id === 0) {
      let [nameLen, p] = readLeb(bytes, body);
      const name = utf8.decode(bytes.subarray(p, p + nameLen));
      p += nameLen;
      if (name === "target_features") {
        let count;
        [count, p] = readLeb(bytes, p);
        const entries = [];
        for (let i = 0; i < count; i++) {
          const prefix = bytes[p++];
          let len;
          [len, p] = readLeb(bytes, p);
          const feature = utf8.decode(bytes.subarray(p, p + len));
          p += len;
          if (drop.includes(feature)) removed.push(String.fromCharCode(prefix) + feature);
          else entries.push([prefix, feature]);
        }
        const content = [...leb(nameLen), ...enc.encode(name), ...leb(entries.length)];
        for (const [prefix, feature] of entries) {
          const f = enc.encode(feature);
          content.push(prefix, ...leb(f.length), ...f);
        }
        kept = Uint8Array.from([0, ...leb(content.length), ...content]);
      }
    }
    parts.push(kept);
    pos = end;
  }
  const total = parts.reduce((n, p) => n + p.length, 0);
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return { bytes: out, removed };
}
