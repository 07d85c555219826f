//! The forbidden-pattern scan of the view's code: what an MCP Apps sandbox refuses or
//! what would leak (network calls, dynamic code, forms, outside URLs, tokens). The
//! server's tests run the same rules on the bytes it serves; this one also sees inside
//! the compressed parts, before they are packed.

const RULES = [
  [/fetch\(/g, "fetch("],
  [/\beval\(/g, "eval("],
  [/new Function/g, "new Function"],
  [/\bimport\(/g, "import("],
  [/<form/gi, "<form"],
  [/\bppt_[A-Za-z0-9]{8,}/g, "a PalmaPlan token"],
  [/Bearer [A-Za-z0-9._-]{8,}/g, "a bearer token"],
];

// Namespace names are identifiers, not addresses anything loads from.
const NAMESPACES = new Set([
  "http://www.w3.org/2000/svg",
  "http://www.w3.org/1999/xhtml",
  "http://www.w3.org/XML/1998/namespace",
  "http://www.w3.org/1999/xlink",
  "http://www.w3.org/2000/xmlns/",
  "http://www.w3.org/1998/Math/MathML",
]);

/** Every forbidden thing in `text`, with a little context; empty when clean. */
export function scan(text) {
  const found = [];
  for (const [re, name] of RULES) {
    for (const m of text.matchAll(re)) found.push(`${name} at ${m.index}: ${JSON.stringify(text.slice(Math.max(0, m.index - 30), m.index + 30))}`);
  }
  for (const m of text.matchAll(/https?:\/\/[^\s"'`<>)\\]*/g)) {
    const url = m[0].replace(/[.,;]+$/, "");
    if (!NAMESPACES.has(url)) found.push(`URL ${url}`);
  }
  return found;
}
