// The comparison issue 21 names (a script, not a test): the npm package dhtmlx-gantt
// (DHTMLX Gantt 10, MIT, the Gantt most teams would pick; it draws only what is on
// screen) given a schedule of the render bench's size in the same Chromium, on the
// same machine, in the same run as anything it is compared with: the time to parse
// and paint every task, and the frames while scrolling as bench/render.mjs scrolls our
// chart (120 frames, 120 px down a frame for 80, then 60 px across). Machines here
// vary up to 2x, so our figures are read against these, not against numbers taken
// elsewhere.
// Usage: node bench/dhtmlx.mjs [sizes...]   (default 100000)
// As a module: `dhtmlx(browser, n)` gives the figures for n tasks.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch } from '../host/harness.mjs';
import { installBenchFrames, pct } from './frames.mjs';
import { schedule } from './schedule.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const dist = path.join(here, '..', 'node_modules', 'dhtmlx-gantt', 'codebase');

// The chart as large as our view's frame in bench/render.mjs (1,260 × 800).
const page = `<!doctype html><html><head><meta charset="utf-8">
<link rel="stylesheet" href="/dhtmlxgantt.css"><script src="/dhtmlxgantt.js"></script>
<style>html,body{margin:0}</style></head><body><div id="g" style="width:1260px;height:800px"></div></body></html>`;

function serve() {
  const server = http.createServer((req, res) => {
    if (req.url === '/') { res.writeHead(200, { 'content-type': 'text/html' }); res.end(page); return; }
    const file = path.join(dist, path.basename(req.url));
    if (!fs.existsSync(file)) { res.writeHead(404); res.end(); return; }
    res.writeHead(200, { 'content-type': file.endsWith('.css') ? 'text/css' : 'text/javascript' });
    fs.createReadStream(file).pipe(res);
  }).listen(0, '127.0.0.1');
  return new Promise((r) => server.once('listening', () => r(server)));
}

// The figures for `n` bars in `browser`: parse → painted, and the scrolling's frame
// interval and frame work (bench/frames.mjs) p50/p95.
export async function dhtmlx(browser, n) {
  const server = await serve();
  const p = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  try {
    await p.goto(`http://127.0.0.1:${server.address().port}/`);
    // The frames measured as bench/render.mjs measures ours.
    await p.evaluate(installBenchFrames);
    // The render bench's schedule itself (bench/schedule.mjs), as DHTMLX holds one: a
    // task a line, so each row becomes a parent over its bars and each group a parent
    // over its rows; the same ids and links (FS is DHTMLX's type "0", SS its "1").
    const s = schedule(n, { rows: process.env.BENCH_LINKS === 'rows' });
    const data = [
      ...s.groups.map((g) => ({ id: g.id, text: g.name, type: 'project', open: true })),
      ...s.rows.map((r) => ({ id: r.id, text: r.name, parent: r.group, type: 'project', open: true })),
      ...s.bars.map((b) => ({ id: b.id, text: b.label, start_date: b.start, end_date: b.end, parent: b.row, progress: (b.progress ?? 0) / 100 })),
    ];
    const links = s.links.map((l) => ({ id: l.id, source: l.from, target: l.to, type: l.kind === 'SS' ? '1' : '0' }));
    return await p.evaluate(async ({ data, links }) => {
      const g = window.gantt;
      g.config.date_format = '%Y-%m-%d';
      g.init('g');
      const frame = () => new Promise((r) => requestAnimationFrame(r));
      await frame();
      const t0 = performance.now();
      g.parse({ data, links });
      const parsed = performance.now() - t0;
      await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
      const painted = performance.now() - t0;
      const frames = window.__benchFrames;
      let x = 0;
      let y = 0;
      g.scrollTo(0, 0);
      await frame();
      const scrolled = await frames((i) => { if (i < 80) y += 120; else x += 60; g.scrollTo(x, y); });
      const idle = await frames(() => {});
      const where = g.getScrollState();
      return { tasks: data.length, links: links.length, parsed, painted, ...scrolled, idle: idle.times, scrolledTo: [where.x, where.y], nodes: document.querySelectorAll('#g *').length };
    }, { data, links }).then((r) => ({
      n,
      tasks: r.tasks,
      links: r.links,
      parseMs: Math.round(r.parsed),
      paintedMs: Math.round(r.painted),
      intervalP50: +pct(r.times, 50).toFixed(1),
      intervalP95: +pct(r.times, 95).toFixed(1),
      workP50: +pct(r.work, 50).toFixed(1),
      workP95: +pct(r.work, 95).toFixed(1),
      idleP95: +pct(r.idle, 95).toFixed(1),
      missed: +((100 * r.times.filter((t) => t > 25).length) / r.times.length).toFixed(1),
      scrolledTo: r.scrolledTo,
      nodes: r.nodes,
    }));
  } finally {
    await p.close();
    server.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const sizes = process.argv.slice(2).map(Number).filter(Boolean);
  const browser = await launch();
  const rows = [];
  for (const n of sizes.length ? sizes : [100000]) {
    const r = await dhtmlx(browser, n);
    console.log(JSON.stringify(r));
    rows.push(r);
  }
  console.log('\nbars     DHTMLX parse → painted (ms)   scroll interval p50/p95, missed (idle p95)   frame work p50/p95   DOM nodes');
  for (const r of rows) console.log(`${String(r.n).padEnd(8)} ${String(r.parseMs).padStart(8)} → ${String(r.paintedMs).padStart(6)}            ${r.intervalP50}/${r.intervalP95}, ${r.missed}% (${r.idleP95})            ${r.workP50}/${r.workP95}          ${r.nodes}`);
  await browser.close();
}
