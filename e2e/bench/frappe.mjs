// The comparison asked by issue 7 (a script, not a test): the same kind of schedule drawn
// by the npm package frappe-gantt (an SVG Gantt that draws every task) in the same
// Chromium, for 1,000 and 10,000 tasks: the time to draw it and the frame times while
// scrolling. Our view's figures come from bench/render.mjs.
// Usage: node bench/frappe.mjs [sizes...]
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch } from '../host/harness.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const dist = path.join(here, '..', 'node_modules', 'frappe-gantt', 'dist');
const sizes = process.argv.slice(2).map(Number).filter(Boolean);
const SIZES = sizes.length ? sizes : [1000, 10000];

const page = `<!doctype html><html><head><meta charset="utf-8">
<link rel="stylesheet" href="/frappe-gantt.css"><script src="/frappe-gantt.umd.js"></script>
</head><body><div id="g" style="height:700px;overflow:auto"></div></body></html>`;

const server = http.createServer((req, res) => {
  const file = req.url === '/' ? null : path.join(dist, path.basename(req.url));
  if (!file) { res.writeHead(200, { 'content-type': 'text/html' }); res.end(page); return; }
  if (!fs.existsSync(file)) { res.writeHead(404); res.end(); return; }
  res.writeHead(200, { 'content-type': file.endsWith('.css') ? 'text/css' : 'text/javascript' });
  fs.createReadStream(file).pipe(res);
}).listen(0, '127.0.0.1');
await new Promise((r) => server.once('listening', r));
const base = `http://127.0.0.1:${server.address().port}/`;

const browser = await launch();
const rows = [];
for (const n of SIZES) {
  const p = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await p.goto(base);
  const r = await p.evaluate(async (n) => {
    const day0 = Date.UTC(2026, 9, 1);
    const iso = (d) => new Date(day0 + d * 86400000).toISOString().slice(0, 10);
    const tasks = [];
    for (let i = 0; i < n; i++) {
      const start = (i % 30) + Math.floor(i / 10) % 60;
      tasks.push({ id: `t${i}`, name: `Task ${i + 1}`, start: iso(start), end: iso(start + 3), progress: 0,
        dependencies: i % 10 ? `t${i - 1}` : '' });
    }
    const t0 = performance.now();
    // eslint-disable-next-line no-undef
    new Gantt('#g', tasks, { view_mode: 'Week' });
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    const drawn = performance.now() - t0;
    const sc = document.querySelector('#g .gantt-container') || document.querySelector('#g');
    const times = [];
    let last = performance.now();
    for (let i = 0; i < 120; i++) {
      sc.scrollTop += 120;
      await new Promise((r) => requestAnimationFrame(r));
      const now = performance.now();
      times.push(now - last);
      last = now;
    }
    times.sort((a, b) => a - b);
    return { drawn, p50: times[60], p95: times[114], max: times[119], nodes: document.querySelectorAll('#g *').length };
  }, n);
  rows.push({ n, ...r });
  console.log(JSON.stringify({ tasks: n, ...r }));
  await p.close();
}
console.log('\ntasks    draw (ms)   DOM nodes   scroll p50/p95/max (ms)');
for (const r of rows) {
  console.log(`${String(r.n).padEnd(8)} ${r.drawn.toFixed(0).padStart(9)}   ${String(r.nodes).padStart(9)}   ${r.p50.toFixed(1)}/${r.p95.toFixed(1)}/${r.max.toFixed(1)}`);
}
await browser.close();
server.close();
