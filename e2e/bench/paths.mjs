// The view's two paths compared in one run (a script, not a test; issue 21 item 8): the
// WebAssembly module the page carries (the permissive profile, whose host says its CSP
// allows it) against its JavaScript translation, which the strict profile's view asks
// the server for (get_view_code). For each schedule size, the profiles alternate,
// `ROUNDS` mounts each, and the medians are printed with their ratio:
// - resource → ready: from the host handing the page to the sandbox
//   (ui/notifications/sandbox-resource-ready) to the view mounted (the loader's
//   `__pp.readyAt`), which holds the handshake, getting the code, and compiling it;
// - tool-result → first window: from the host's tool-result to the first bar painted
//   (two animation frames after it is in the DOM), as in render.mjs.
// Usage: node bench/paths.mjs [sizes...]   (default 100 10000; PALMAPLAN_BIN picks the
// server: a release one measures the view rather than the server's paging).
import { Palmaplan, call, waitFor } from '../host/palmaplan.mjs';
import { launch, Host, PROFILES } from '../host/harness.mjs';

const sizes = process.argv.slice(2).map(Number).filter(Boolean);
const SIZES = sizes.length ? sizes : [100, 10000];
const ROUNDS = Number(process.env.ROUNDS || 5);

function schedule(n) {
  const perRow = 10;
  const rows = Math.ceil(n / perRow);
  const s = { name: `Paths ${n}`, groups: [{ id: 1, name: 'G' }], rows: [], bars: [], links: [] };
  let id = 2;
  const day0 = Date.UTC(2026, 9, 1);
  const iso = (d) => new Date(day0 + d * 86400000).toISOString().slice(0, 10);
  for (let r = 0, made = 0; r < rows; r++) {
    const rid = id++;
    s.rows.push({ id: rid, group: 1, name: `Row ${r + 1}` });
    for (let b = 0; b < perRow && made < n; b++, made++) {
      const start = (r % 30) + b * 7;
      s.bars.push({ id: id++, row: rid, label: `Task ${made + 1}`, start: iso(start), end: iso(start + 3) });
    }
  }
  s.settings = { time_zone: 'Europe/Paris', working_weekdays: ['mon', 'tue', 'wed', 'thu', 'fri'], holidays: [], time_unit: 'day', scheduling: 'manual' };
  s.next_id = id;
  return s;
}

const median = (a) => { const s = [...a].sort((x, y) => x - y); return s[Math.floor(s.length / 2)]; };

async function once(browser, server, sid, profile) {
  const host = await Host.open(browser, server, { width: 1280, height: 900 });
  try {
    const view = await host.mount({ tool: 'show_schedule', args: { schedule: sid }, profile, hold: true, width: 1260, height: 800 });
    const pp = await view.waitMounted(30000);
    const [readyAt, frameOrigin] = await view.frame().evaluate(() => [window.__pp.readyAt, performance.timeOrigin]);
    const hostOrigin = await host.page.evaluate(() => performance.timeOrigin);
    const handed = (await view.log()).find((e) => e.dir === 'out' && e.msg.method === 'ui/notifications/sandbox-resource-ready');
    const ready = frameOrigin + readyAt - (hostOrigin + handed.t);
    await view.frame().evaluate(() => {
      window.__bench = null;
      const done = () => requestAnimationFrame(() => requestAnimationFrame(() => { window.__bench = performance.timeOrigin + performance.now(); }));
      if (document.querySelector('[data-bar]')) return done();
      const mo = new MutationObserver(() => { if (document.querySelector('[data-bar]')) { mo.disconnect(); done(); } });
      mo.observe(document.documentElement, { childList: true, subtree: true });
    });
    await waitFor(() => host.page.evaluate((id) => window.e2e.held(id), view.id), { ms: 60000, what: 'the tool result' });
    await host.page.evaluate((id) => window.e2e.release(id), view.id);
    const painted = await waitFor(() => view.frame().evaluate(() => window.__bench), { ms: 60000, what: 'the first window' });
    const sent = (await view.log()).find((e) => e.dir === 'out' && e.msg.method === 'ui/notifications/tool-result');
    return { path: pp.path, ready, first: painted - (hostOrigin + sent.t) };
  } finally {
    await host.close();
  }
}

const server = await Palmaplan.start();
const browser = await launch();
const owner = await server.client();
try {
  for (const n of SIZES) {
    const imp = await call(owner, 'import_schedule', { name: `Paths ${n}`, json: schedule(n) });
    if (imp.isError) throw new Error(imp.text);
    const sid = imp.structured.schedule_id;
    const got = Object.fromEntries(PROFILES.map((p) => [p, []]));
    await once(browser, server, sid, 'strict'); // warm-up (the server's first pages)
    for (let r = 0; r < ROUNDS; r++) for (const p of PROFILES) got[p].push(await once(browser, server, sid, p));
    const line = { bars: n, rounds: ROUNDS };
    for (const p of PROFILES) {
      const path = [...new Set(got[p].map((x) => x.path))].join('/');
      line[path] = { readyMs: Math.round(median(got[p].map((x) => x.ready))), firstWindowMs: Math.round(median(got[p].map((x) => x.first))) };
    }
    if (line.wasm && line.wasm2js) {
      line.wasmOverWasm2js = {
        ready: +(line.wasm.readyMs / line.wasm2js.readyMs).toFixed(2),
        firstWindow: +(line.wasm.firstWindowMs / line.wasm2js.firstWindowMs).toFixed(2),
      };
    }
    console.log(JSON.stringify(line));
  }
} finally {
  await owner.close().catch(() => {});
  await browser.close().catch(() => {});
  await server.stop();
}
