// Render benchmark (a script, not a test): for schedules of 100, 10,000 and 100,000
// bars (made through MCP with import_schedule), under both host profiles, the time from
// the host's tool-result to the first painted Gantt window (the first [data-bar] in the
// view, then two animation frames), the time from the answer to the view's first
// get_schedule_page to that paint, and the frames while scrolling the chart: their
// intervals (with the share missed), their main-thread work (from the frame's start to
// the end of its rendering), and the view's own part of it (from its trace); then the
// frames while dragging a bar, which the model previews at each move (with the cascade
// of its successors: the schedules have links and automatic scheduling); and a live update
// (a bar moved through the model side) from the poll's answer to the redrawn chart.
// It also prints the pages' timeline at the host: from the first window to the last
// page's answer, each page's round trip, and how many were in flight at once; then, in
// the view, from the first window to the whole schedule read (every record in the
// model's types, sorted) and to its first drawing whole.
// BENCH_QUIET_LOAD=1 skips the scrolling while the pages arrive (the reading alone);
// BENCH_GAPS=1 adds the view's steps and the CPU time of each process over the reading;
// BENCH_TRACE=load sums Chromium's trace of the reading by thread and event;
// BENCH_PROFILE=load sums V8's profile of the reading in the host and the view by function
// (BENCH_PROFILE_DIR=dir also writes each whole profile there); BENCH_PROFILE=scroll, the
// view's over the scrolling of the loaded chart; BENCH_SCROLL=wheel scrolls down 240 px
// every fourth frame instead of 120 px every frame; BENCH_LINKS=rows links every bar to
// the one in the same place of the row below as well (most links then run between two
// rows; bench/schedule.mjs); BENCH_ONLY=strict or
// BENCH_ONLY=permissive runs that profile alone; BENCH_TRACE_FILE=path%.json keeps
// BENCH_TRACE's trace of the scrolling (% becomes size and profile). BENCH_TRACE=1 also
// gives each scrolling frame's tasks on the view's thread, in wall time and in the time
// the thread ran them.
// BENCH_DHTMLX=1 also gives each size to DHTMLX Gantt in the same browser, before our
// view (bench/dhtmlx.mjs), and prints our figures as ratios of its own: machines here
// vary up to 2x, a ratio taken in one run does not. BENCH_CENSUS=1 counts the chart's
// elements by kind once scrolled. BENCH_MEM=1 gives the view's memory just before the
// loaded scrolling (V8's heap, the DOM's, ArrayBuffers); BENCH_MEM=gc then collects
// the garbage and gives it again (what stays is what the page holds; that run's scrolling
// then starts with no garbage waiting). BENCH_STEPS=1 gives the view's own steps over
// the loaded scrolling (p50/p95 of each span between two trace labels); BENCH_STEPS=all
// also each frame's work and each drawing's two halves (its HTML built, its blocks put
// in the page), in order: where in the scrolling the slow frames are.
// Usage: node bench/render.mjs [sizes...]   (after e2e/run.sh built the server)
import { Palmaplan, call, waitFor } from '../host/palmaplan.mjs';
import { launch, Host, PROFILES } from '../host/harness.mjs';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { schedule } from './schedule.mjs';
import { dhtmlx } from './dhtmlx.mjs';
import { installBenchFrames, pct } from './frames.mjs';

// A V8 profile's self time by function (ms), the largest first, idle left out.
function selfTimes(pr) {
  const byId = new Map(pr.nodes.map((nd) => [nd.id, nd]));
  const self = new Map();
  pr.samples.forEach((id, i) => {
    const f = byId.get(id).callFrame;
    const k = `${f.functionName || '(anonymous)'} ${f.url.split('/').pop().slice(0, 30)}:${f.lineNumber}`;
    self.set(k, (self.get(k) ?? 0) + pr.timeDeltas[i] / 1000);
  });
  return [...self].filter(([k]) => !/^\(idle\)/.test(k)).sort((a, b) => b[1] - a[1]);
}
// CPU time so far of every process on the machine, in ms, by kind: the server, node
// (this script, with the host's HTTP relay), and Chromium's processes (each renderer
// apart: the host's page, the view's frame). Chromium rewrites its command lines, so
// their arguments are split on spaces too.
function cpu() {
  const o = {};
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const args = readFileSync(`/proc/${d}/cmdline`, 'utf8').split(/[\0 ]/);
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const type = (args.find((a) => a.startsWith('--type=')) ?? '--type=browser').slice(7);
      const k = /palmaplan/.test(args[0]) ? 'server' : /node/.test(args[0]) ? 'node' : type === 'renderer' ? `renderer ${d}` : type;
      // utime and stime, in clock ticks of 10 ms.
      o[k] = (o[k] ?? 0) + (+f[11] + +f[12]) * 10;
    } catch { /* a process that ended */ }
  }
  return o;
}

const SIZES = process.argv.slice(2).map(Number).filter(Boolean);
const sizes = SIZES.length ? SIZES : [100, 10000, 100000];

// The view's trace ([label, ms] in order) as the durations of its steps, by kind (from
// one label to the next: "part→part read").
const stepsByKind = (tl) => {
  const by = {};
  for (let i = 1; i < tl.length; i++) (by[`${tl[i - 1][0]}→${tl[i][0]}`] ??= []).push(tl[i][1] - tl[i - 1][1]);
  return by;
};

// BENCH_LINKS has one value, and its schedules grow: at 100,000 bars the import would
// pass the server's request bound (16 MiB, server/src/http.rs), which refuses it.
if (process.env.BENCH_LINKS && process.env.BENCH_LINKS !== 'rows') {
  console.error(`BENCH_LINKS=${process.env.BENCH_LINKS}: the one value is rows`);
  process.exit(2);
}
if (process.env.BENCH_LINKS) {
  for (const n of sizes) {
    const bytes = JSON.stringify(schedule(n, { rows: true })).length;
    if (bytes > 16 * 1024 * 1024 - 64 * 1024) {
      console.error(`BENCH_LINKS=rows at ${n} bars makes an import of ${(bytes / 1048576).toFixed(1)} MiB, past the server's 16 MiB request bound: give sizes up to 90000`);
      process.exit(2);
    }
  }
}
// BENCH_ONLY=strict (or permissive) runs one profile; another name would run none.
if (process.env.BENCH_ONLY && !PROFILES.includes(process.env.BENCH_ONLY)) {
  console.error(`BENCH_ONLY=${process.env.BENCH_ONLY} names no profile: use one of ${PROFILES.join(', ')}, or leave it unset for all`);
  process.exit(2);
}
const server = await Palmaplan.start();
const browser = await launch();
const owner = await server.client();
const results = [];
const theirs = new Map();
try {
  for (const n of sizes) {
    if (process.env.BENCH_DHTMLX) {
      const d = await dhtmlx(browser, n);
      theirs.set(n, d);
      process.stderr.write(`  ${n} DHTMLX: ${JSON.stringify(d)}\n`);
    }
    const t0 = Date.now();
    const imp = await call(owner, 'import_schedule', { name: `Bench ${n}`, json: schedule(n, { rows: process.env.BENCH_LINKS === 'rows' }) });
    if (imp.isError) throw new Error(imp.text);
    const sid = imp.structured.schedule_id;
    const importMs = Date.now() - t0;
    for (const profile of PROFILES.filter((p) => !process.env.BENCH_ONLY || p === process.env.BENCH_ONLY)) {
      const host = await Host.open(browser, server, { width: 1280, height: 900 });
      let crashed = false;
      host.page.on('crash', () => { crashed = true; });
      const view = await host.mount({ tool: 'show_schedule', args: { schedule: sid }, profile, hold: true, width: 1260, height: 800 });
      await view.waitMounted();
      await waitFor(async () => (await view.log()).some((e) => e.msg.method === 'ui/notifications/tool-input'), { what: 'tool-input' });
      // Watch for the first bar in the view (Playwright's evaluate is not bound by its CSP).
      await view.frame().evaluate(() => {
        window.__bench = null;
        // The view appends [label, ms] here at each step from a page to its paint.
        if (window.__pp) window.__pp.trace = [];
        // The first bar is drawn in a task (the view draws the first screen as page 0
        // arrives): the coming frame paints it, and a message posted in that frame is
        // handled once it is rendered and painted (__benchDrawn; were the bar drawn in
        // a frame, this would come a frame late). Two animation frames later (__bench)
        // is a bound that holds however the page is drawn.
        const done = () => {
          requestAnimationFrame(() => {
            const ch = new MessageChannel();
            ch.port1.onmessage = () => { window.__benchDrawn = performance.timeOrigin + performance.now(); };
            ch.port2.postMessage(0);
            requestAnimationFrame(() => { window.__bench = performance.timeOrigin + performance.now(); });
          });
        };
        if (document.querySelector('[data-bar]')) return done();
        const mo = new MutationObserver(() => { if (document.querySelector('[data-bar]')) { mo.disconnect(); done(); } });
        mo.observe(document.documentElement, { childList: true, subtree: true });
      });
      await waitFor(() => host.page.evaluate((id) => window.e2e.held(id), view.id), { ms: 60000, what: 'the tool result' });
      if (process.env.BENCH_TRACE === 'first') await browser.startTracing(host.page, { categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline'] });
      const cpu0 = cpu();
      if (process.env.BENCH_TRACE === 'load') await browser.startTracing(host.page, { categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'v8'] });
      // BENCH_PROFILE=load: V8's sampling profile of the host's page and of the view's
      // frame over the reading, summed by function (self time).
      const profiled = [];
      if (process.env.BENCH_PROFILE === 'load') {
        for (const [name, target] of [['host', host.page], ['view', view.frame()]]) {
          const cdp = await host.page.context().newCDPSession(target);
          await cdp.send('Profiler.enable');
          await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
          await cdp.send('Profiler.start');
          profiled.push([name, cdp]);
        }
      }
      await host.page.evaluate((id) => window.e2e.release(id), view.id);
      const painted = await waitFor(() => view.frame().evaluate(() => window.__bench), { ms: 60000, what: 'the first painted window' });
      if (process.env.BENCH_TRACE === 'first') {
        // The view's main thread from the tool result to the first paint: each task
        // over 0.5 ms, in order, with the events inside it that took over 0.5 ms.
        const { traceEvents } = JSON.parse((await browser.stopTracing()).toString());
        const census = await view.frame().evaluate(() => { const c = {}; for (const el of document.querySelectorAll('*')) { const k = `${el.tagName.toLowerCase()}.${el.classList[0] ?? ''}`; c[k] = (c[k] ?? 0) + 1; } return Object.entries(c).sort((a, b) => b[1] - a[1]).slice(0, 14); });
        process.stderr.write(`    elements: ${census.map(([k, v]) => `${k} ${v}`).join(', ')}\n`);
        const mains = new Set(traceEvents.filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain').map((e) => `${e.pid}:${e.tid}`));
        const by = {};
        for (const e of traceEvents) if (e.ph === 'X' && e.dur && mains.has(`${e.pid}:${e.tid}`)) (by[`${e.pid}:${e.tid}`] ??= []).push(e);
        // The view's thread: the one that parsed the most HTML (its chart is HTML text).
        const parsed = (evs) => evs.filter((e) => e.name === 'ParseHTML').reduce((a, e) => a + e.dur, 0);
        const busiest = Object.values(by).sort((a, b) => parsed(b) - parsed(a))[0] ?? [];
        const tasks = busiest.filter((e) => e.name === 'RunTask' && e.dur > 500).sort((a, b) => a.ts - b.ts);
        const t0 = tasks[0]?.ts ?? 0;
        for (const t of tasks.slice(-14)) {
          const inner = busiest.filter((e) => e !== t && e.ts >= t.ts && e.ts + e.dur <= t.ts + t.dur && e.dur > 500 && !/^(RunTask|V8\.|MinorGC|FunctionCall$)/.test(e.name));
          process.stderr.write(`    +${((t.ts - t0) / 1000).toFixed(1)} task ${(t.dur / 1000).toFixed(1)} ms: ${inner.map((e) => `${e.name} ${(e.dur / 1000).toFixed(1)}`).join(', ')}\n`);
        }
      }
      const drawn = await view.frame().evaluate(() => window.__benchDrawn);
      const origin = await host.page.evaluate(() => performance.timeOrigin);
      const log = await view.log();
      const result = log.find((e) => e.dir === 'out' && e.msg.method === 'ui/notifications/tool-result');
      const firstPage = log.find((e) => e.dir === 'in' && e.msg.method === 'tools/call' && e.msg.params?.name === 'get_schedule_page');
      const firstAnswer = firstPage && log.find((e) => e.dir === 'out' && e.msg.id === firstPage.msg.id);
      const fromResult = painted - (origin + result.t);
      // Negative when page 0 was asked for on the tool's input, before the result.
      if (firstAnswer) process.stderr.write(`  ${n} ${profile} from the tool-result: page 0 asked ${(firstPage.t - result.t).toFixed(0)}, →answered ${(firstAnswer.t - result.t).toFixed(0)}, →painted ${fromResult.toFixed(0)}\n`);
      const fromData = firstAnswer ? painted - (origin + firstAnswer.t) : NaN;
      const drawnFromData = firstAnswer ? drawn - (origin + firstAnswer.t) : NaN;
      // Where the time went, from the first page's arrival to the paint (the view's
      // trace, first steps only).
      const [trace, frameOrigin] = await view.frame().evaluate(() => [(window.__pp?.trace ?? []).slice(0, 60), performance.timeOrigin]);
      // Up to the end of the first drawing, from the message that brought page 0 (the
      // tool-result's when page 0 was read before it: read as it came on the tool's
      // input, often before this trace began).
      const to = trace.findIndex(([l]) => l === 'rendered');
      if (to >= 0) trace.splice(to + 1);
      const from = trace.findIndex(([l]) => l === 'page');
      if (from > 0) trace.splice(0, Math.max(0, trace.findLastIndex(([l], i) => i < from && l === 'message')));
      const t0trace = trace[0]?.[1] ?? 0;
      const steps = trace.map(([l, t]) => `${l} +${Math.round(t - t0trace)}`).join(', ');
      if (steps) process.stderr.write(`  ${n} ${profile}: ${steps}, painted +${Math.round(painted - frameOrigin - t0trace)}\n`);
      const pageCalls = log.filter((e) => e.dir === 'in' && e.msg.params?.name === 'get_schedule_page').length;
      // The frames' measure (bench/frames.mjs), installed in the view's frame once.
      await view.frame().evaluate(installBenchFrames);
      const scroll = () => view.frame().evaluate((wheel) => {
        const el = document.querySelector('.pp-scroll');
        el.scrollTop = 0;
        el.scrollLeft = 0;
        // BENCH_SCROLL=wheel: down in steps of 240 px every fourth frame, as a wheel's
        // notches come, with frames between them (the same 2,400 px in all).
        const down = wheel ? (i) => { if (i % 4 === 0) el.scrollTop += 240; } : (i) => { el.scrollTop += 120; };
        return window.__benchFrames((i) => { if (i < 80) down(i); else el.scrollLeft += 60; });
      }, process.env.BENCH_SCROLL === 'wheel');
      // Scroll the chart (120 frames, a step each frame, down then across) while the
      // other pages still arrive, then once every page is in.
      await view.frame().evaluate(() => { if (window.__pp) window.__pp.trace = []; });
      const { times: frames, work: workLoading } = process.env.BENCH_QUIET_LOAD ? { times: [0], work: [0] } : await scroll();
      if (process.env.BENCH_GAPS) {
        // The view's steps while the pages arrive, with the longest gaps between them.
        const tl = await view.frame().evaluate(() => window.__pp?.trace ?? []);
        const gaps = tl.slice(1).map(([l, t], i) => [Math.round(t - tl[i][1]), `${tl[i][0]}→${l}`]).sort((a, b) => b[0] - a[0]).slice(0, 12);
        process.stderr.write(`  ${n} ${profile} while loading, longest steps: ${gaps.map(([d, w]) => `${w} ${d}`).join(', ')}\n`);
        const show = Object.entries(stepsByKind(tl)).filter(([k]) => /message→split|split→parsed|part→part read|page→part|added→doc|added→settled|→analysed|→doc|doc→laid out|render→rendered/.test(k));
        process.stderr.write(`    spans p50/p95/max (n): ${show.map(([k, v]) => `${k} ${pct(v, 50).toFixed(1)}/${pct(v, 95).toFixed(1)}/${Math.max(...v).toFixed(1)} (${v.length})`).join(', ')}\n`);
      }
      // Packed page 0 may come before the count (`pages` null): the first answer that
      // has one tells how many answers to wait for.
      const tLoad = Date.now();
      let got = 0;
      let pagesTotal = null;
      await waitFor(async () => {
        // Counted in the host page: copying its whole log out every time (hundreds of
        // pages of 110,000 characters) slowed everything down at 100,000 bars.
        const [n, total] = await host.page.evaluate((id) => {
          const asked = new Set();
          let answered = 0;
          let total = null;
          for (const e of window.e2e.log) {
            if (e.view !== id) continue;
            if (e.dir === 'in' && e.msg.params?.name === 'get_schedule_page') asked.add(e.msg.id);
            else if (e.dir === 'out' && asked.has(e.msg.id)) {
              answered++;
              total ??= e.msg.result?.structuredContent?.pages ?? null;
            }
          }
          return [answered, total];
        }, view.id);
        if (crashed) return 'crashed';
        pagesTotal = total;
        if (n !== got) { got = n; process.stderr.write(`  ${n}/${pagesTotal ?? '?'} pages after ${Date.now() - tLoad} ms\n`); }
        return total !== null && n >= total;
      }, { ms: 600000, every: 500, what: 'every page' });
      if (crashed) throw new Error(`the view's page crashed after ${got}/${pagesTotal} pages, ${Date.now() - tLoad} ms`);
      const allPagesMs = Date.now() - tLoad;
      if (process.env.BENCH_TRACE === 'load') {
        const { traceEvents } = JSON.parse((await browser.stopTracing()).toString());
        const per = {};
        for (const e of traceEvents) {
          if (e.ph !== 'X' || !e.dur) continue;
          const k = `${e.pid}:${e.tid}`;
          ((per[k] ??= {})[e.name] ??= [0, 0])[0] += e.dur / 1000;
          per[k][e.name][1]++;
        }
        for (const [k, ev] of Object.entries(per).sort((a, b) => (b[1].RunTask?.[0] ?? 0) - (a[1].RunTask?.[0] ?? 0)).slice(0, 4)) process.stderr.write(`  ${n} ${profile} loading, thread ${k} (ms, count): ${Object.entries(ev).sort((a, b) => b[1][0] - a[1][0]).slice(0, 22).map(([n, [ms, c]]) => `${n} ${ms.toFixed(0)} (${c})`).join(', ')}\n`);
      }
      for (const [name, cdp] of profiled) {
        const { profile: pr } = await cdp.send('Profiler.stop');
        // BENCH_PROFILE_DIR keeps the whole profile (.cpuprofile, for DevTools or a script).
        if (process.env.BENCH_PROFILE_DIR) writeFileSync(`${process.env.BENCH_PROFILE_DIR}/${n}-${profile}-${name}.cpuprofile`, JSON.stringify(pr));
        const self = selfTimes(pr);
        const top = self.filter(([k]) => !/^\(program\)/.test(k)).slice(0, 16);
        const busy = self.reduce((a, [, v]) => a + v, 0);
        process.stderr.write(`  ${n} ${profile} loading, ${name} profile (busy ${busy.toFixed(0)} ms; self ms): ${top.map(([k, v]) => `${k} ${v.toFixed(0)}`).join(', ')}\n`);
        await cdp.detach();
      }
      if (process.env.BENCH_GAPS) { const c1 = cpu(); process.stderr.write(`  ${n} ${profile} CPU time from the tool-result to the last page, by process (ms): ${Object.entries(c1).map(([k, v]) => [k, v - (cpu0[k] ?? 0)]).filter(([, v]) => v > 0).map(([k, v]) => `${k} ${v}`).join(', ')}\n`); }
      // The pages' timeline at the host: from the first window's paint to the last
      // page's answer, each page's round trip (the view's request to the answer the
      // host hands back: the host, the transport and the server), and the view's own
      // time between an answer and its next request, and how many were in flight.
      const pageTimes = await host.page.evaluate((id) => {
        const reqs = new Map();
        const out = [];
        for (const e of window.e2e.log) {
          if (e.view !== id) continue;
          if (e.dir === 'in' && e.msg.params?.name === 'get_schedule_page') reqs.set(e.msg.id, e.t);
          else if (e.dir === 'out' && reqs.has(e.msg.id)) out.push([reqs.get(e.msg.id), e.t]);
        }
        return out;
      }, view.id);
      const lastAnswer = Math.max(...pageTimes.map(([, b]) => b));
      const sinceWindowMs = Math.round(lastAnswer + origin - painted);
      // The first answers, asked → answered, on the first window's clock: how long the
      // reading waits for its first pages after the window.
      if (process.env.BENCH_GAPS) process.stderr.write(`  ${n} ${profile} first answers since the first window (ms): ${[...pageTimes].sort((a, b) => a[0] - b[0]).slice(0, 6).map(([a, b]) => `${Math.round(a + origin - painted)}→${Math.round(b + origin - painted)}`).join(', ')}\n`);
      // The view's own end of the reading, after the last answer: the whole schedule
      // assembled ('settled', every record read into the model's types and sorted) and
      // then drawn whole (the first drawing after it). Its trace runs on the view's
      // clock; a schedule of one page never settles (page 0 is the whole of it), and a
      // trace emptied after it settled (a schedule read before the scrolling began)
      // gives no figure rather than a wrong one.
      const whole = pageTimes.length > 1 ? await waitFor(() => view.frame().evaluate(() => {
        const tl = window.__pp?.trace ?? [];
        const s = tl.findIndex(([l]) => l === 'settled');
        const r = s < 0 ? -1 : tl.findIndex(([l], i) => i > s && l === 'rendered');
        return r < 0 ? null : [tl[s][1] + performance.timeOrigin, tl[r][1] + performance.timeOrigin];
      }), { ms: 20000, what: 'the whole schedule drawn' }).catch(() => null) : null;
      const readMs = whole ? Math.round(whole[0] - painted) : NaN;
      const wholeMs = whole ? Math.round(whole[1] - painted) : NaN;
      if (pageTimes.length > 1) {
        const trips = pageTimes.map(([a, b]) => b - a);
        const starts = pageTimes.map(([a]) => a).sort((x, y) => x - y);
        const ends = pageTimes.map(([, b]) => b).sort((x, y) => x - y);
        // The view's gaps: from each answer to the first request made after it.
        const gaps = ends.slice(0, -1).map((b) => { const next = starts.find((a) => a >= b); return next === undefined ? 0 : next - b; });
        const most = Math.max(...starts.map((a) => pageTimes.filter(([x, y]) => x <= a && a < y).length));
        process.stderr.write(`  ${n} ${profile} pages: ${pageTimes.length}, first window → last page ${sinceWindowMs} ms, ${whole ? `→ all read ${readMs} ms, → drawn whole ${wholeMs} ms` : '→ all read before the scrolling began (its trace emptied: no figure)'}, round trip p50/p95 ${pct(trips, 50).toFixed(1)}/${pct(trips, 95).toFixed(1)} ms, answer → next request p50/p95 ${pct(gaps, 50).toFixed(1)}/${pct(gaps, 95).toFixed(1)} ms, at most ${most} in flight\n`);
      }
      await view.frame().evaluate(() => new Promise((r) => setTimeout(r, 500)));
      if (process.env.BENCH_CSS) await view.frame().evaluate((css) => { const st = document.createElement('style'); st.textContent = css; document.head.appendChild(st); }, process.env.BENCH_CSS);
      if (process.env.BENCH_GAPS) {
        // The last steps: the whole schedule sorted, analysed, indexed and laid out.
        const tl = await view.frame().evaluate(() => window.__pp?.trace ?? []);
        const at = tl.findLastIndex(([l]) => l === 'settled');
        if (at >= 0) process.stderr.write(`  ${n} ${profile} completion: ${tl.slice(at, at + 5).map(([l, t]) => `${l} +${Math.round(t - tl[at][1])}`).join(', ')}\n`);
        // The pages' reading: each part (~16,000 bytes of records) read from its text into the
        // model's types and added to the schedule (part → part read), over the whole
        // load since the scrolling began (page 0's parts are in the first steps above).
        const reads = [];
        for (let i = 1; i < tl.length; i++) if (tl[i][0] === 'part read' && tl[i - 1][0] === 'part') reads.push(tl[i][1] - tl[i - 1][1]);
        if (reads.length) process.stderr.write(`  ${n} ${profile} parts read while loading: ${reads.length}, ${reads.reduce((a, b) => a + b, 0).toFixed(0)} ms in all, p50/p95/max ${pct(reads, 50).toFixed(2)}/${pct(reads, 95).toFixed(2)}/${Math.max(...reads).toFixed(1)} ms\n`);
        // Every step of the load, summed by kind (from one trace label to the next),
        // the costliest first: where the view's reading goes besides the parts.
        const sums = Object.entries(stepsByKind(tl)).map(([k, v]) => [k, v.reduce((a, b) => a + b, 0), v.length]);
        process.stderr.write(`  ${n} ${profile} steps while loading, summed (ms, count): ${sums.sort((a, b) => b[1] - a[1]).slice(0, 10).map(([k, ms, c]) => `${k} ${ms.toFixed(0)} (${c})`).join(', ')}\n`);
      }
      await view.frame().evaluate(() => { if (window.__pp) window.__pp.trace = []; });
      // BENCH_TRACE=1: Chromium's own trace of this scrolling, summed by event on the
      // view's main thread (where a frame's time goes: script, style, layout, paint).
      if (process.env.BENCH_TRACE) await browser.startTracing(host.page, { categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline'] });
      // BENCH_PROFILE=scroll: V8's profile of the view's frame over this scrolling,
      // summed by function (BENCH_PROFILE_DIR keeps it whole).
      let scrollCdp = null;
      if (process.env.BENCH_PROFILE === 'scroll') {
        scrollCdp = await host.page.context().newCDPSession(view.frame());
        await scrollCdp.send('Profiler.enable');
        await scrollCdp.send('Profiler.setSamplingInterval', { interval: 100 });
        await scrollCdp.send('Profiler.start');
      }
      if (process.env.BENCH_MEM) {
        // Chromium's own count (CDP `Runtime.getHeapUsage`): V8's heap, the embedder's
        // (the DOM) and ArrayBuffers' memory, which holds the translation's linear memory.
        const mem = await host.page.context().newCDPSession(view.frame());
        const usage = async () => {
          const u = await mem.send('Runtime.getHeapUsage');
          const mib = (b) => ((b ?? 0) / 1048576).toFixed(1);
          return `V8 ${mib(u.usedSize)}, DOM ${mib(u.embedderHeapUsedSize)}, ArrayBuffers ${mib(u.backingStorageSize)} MiB`;
        };
        process.stderr.write(`  ${n} ${profile} memory before the loaded scrolling: ${await usage()}\n`);
        if (process.env.BENCH_MEM === 'gc') {
          await mem.send('HeapProfiler.enable');
          await mem.send('HeapProfiler.collectGarbage');
          process.stderr.write(`  ${n} ${profile} the same after a forced collection: ${await usage()}\n`);
        }
        await mem.detach();
      }
      const { times: framesLoaded, work: workLoaded } = await scroll();
      if (scrollCdp) {
        const { profile: pr } = await scrollCdp.send('Profiler.stop');
        if (process.env.BENCH_PROFILE_DIR) writeFileSync(`${process.env.BENCH_PROFILE_DIR}/${n}-${profile}-scroll.cpuprofile`, JSON.stringify(pr));
        process.stderr.write(`  ${n} ${profile} scrolling, the view's functions (self ms): ${selfTimes(pr).slice(0, 24).map(([k, ms]) => `${k} ${ms.toFixed(1)}`).join(', ')}\n`);
        // Detached, so that the drag and the live update after it are measured without it.
        await scrollCdp.detach();
      }
      // The same 120 frames with nothing scrolled nor drawn, at once after: the
      // machine's own frame interval (headless Chromium's frames jitter around 16.7 ms,
      // so an interval p95 is read against this one, taken in the same run).
      const { times: framesIdle } = await view.frame().evaluate(() => window.__benchFrames(() => {}));
      if (process.env.BENCH_TRACE) {
        const traceText = (await browser.stopTracing()).toString();
        // BENCH_TRACE_FILE keeps the whole trace (for DevTools' Performance panel or a script).
        if (process.env.BENCH_TRACE_FILE) writeFileSync(process.env.BENCH_TRACE_FILE.replace('%', `${n}-${profile}`), traceText);
        const { traceEvents } = JSON.parse(traceText);
        const mains = new Set(traceEvents.filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain').map((e) => `${e.pid}:${e.tid}`));
        const per = {};
        for (const e of traceEvents) {
          const k = `${e.pid}:${e.tid}`;
          if (e.ph !== 'X' || !mains.has(k) || !e.dur) continue;
          ((per[k] ??= {})[e.name] ??= [0, 0])[0] += e.dur / 1000;
          per[k][e.name][1]++;
        }
        // The view's thread is the one that ran the most animation frame callbacks.
        const view = Object.entries(per).sort((a, b) => (b[1].FireAnimationFrame?.[1] ?? 0) - (a[1].FireAnimationFrame?.[1] ?? 0))[0];
        if (view) process.stderr.write(`  ${n} ${profile} scrolling, the view's main thread (ms, count; nested events overlap): ${Object.entries(view[1]).sort((a, b) => b[1][0] - a[1][0]).slice(0, 16).map(([k, [ms, c]]) => `${k} ${ms.toFixed(1)} (${c})`).join(', ')}\n`);
        // Each scrolling frame's tasks on that thread (frames cut at the end of each
        // commit, from the first animation frame on): their wall time, and the time the
        // thread really ran them (`tdur`). On a shared machine of two cores the thread
        // also waits for one: a frame's work, read in wall time, counts that wait.
        if (view) {
          const tasks = traceEvents.filter((e) => e.ph === 'X' && `${e.pid}:${e.tid}` === view[0] && e.dur).sort((a, b) => a.ts - b.ts);
          const first = tasks.find((e) => e.name === 'FireAnimationFrame');
          const cuts = first ? [first.ts, ...tasks.filter((e) => e.name === 'Commit' && e.ts > first.ts).map((e) => e.ts + e.dur)].slice(0, 120) : [];
          const wall = [];
          const ran = [];
          for (let i = 0; i + 1 < cuts.length; i++) {
            const inFrame = tasks.filter((e) => e.name === 'RunTask' && e.ts >= cuts[i] && e.ts < cuts[i + 1]);
            wall.push(inFrame.reduce((t, e) => t + e.dur / 1000, 0));
            ran.push(inFrame.reduce((t, e) => t + (e.tdur ?? e.dur) / 1000, 0));
          }
          if (wall.length) process.stderr.write(`  ${n} ${profile} scrolling, the view's main thread a frame (${wall.length} frames): tasks p50/p95 ${pct(wall, 50).toFixed(1)}/${pct(wall, 95).toFixed(1)} ms, of which it ran p50/p95 ${pct(ran, 50).toFixed(1)}/${pct(ran, 95).toFixed(1)} ms\n`);
        }
      }
      // The view's own share of each scrolling frame: from the start of its drawing to
      // the end of its DOM changes (the browser's style, layout and paint come after).
      const tr = await view.frame().evaluate(() => window.__pp?.trace ?? []);
      // BENCH_STEPS: the view's steps over this scrolling, p50/p95 of each span; =all,
      // each frame's work and each drawing's halves too, in order.
      if (process.env.BENCH_STEPS === 'all') {
        process.stderr.write(`  ${n} ${profile} frame work, in order: ${workLoaded.map((w) => w.toFixed(0)).join(' ')}\n`);
        const halves = [];
        let r0 = null;
        let h0 = null;
        for (const [label, t] of tr) {
          if (label === 'render') r0 = t;
          if (label === 'chart html') h0 = t;
          if (label === 'rendered' && r0 !== null && h0 !== null) {
            halves.push(`${(h0 - r0).toFixed(1)}+${(t - h0).toFixed(1)}`);
            r0 = h0 = null;
          }
        }
        process.stderr.write(`  ${n} ${profile} drawings, HTML built + blocks put in, ms: ${halves.join(' ')}\n`);
      }
      if (process.env.BENCH_STEPS) {
        const spans = Object.entries(stepsByKind(tr)).filter(([, v]) => v.length > 10);
        process.stderr.write(`  ${n} ${profile} scrolling, the view's spans p50/p95 (n): ${spans.map(([k, v]) => `${k} ${pct(v, 50).toFixed(2)}/${pct(v, 95).toFixed(2)} (${v.length})`).join(', ')}\n`);
      }
      const work = [];
      let began = null;
      const counts = {};
      for (const [label, t] of tr) {
        counts[label] = (counts[label] ?? 0) + 1;
        if (label === 'render') began = t;
        if (label === 'rendered' && began !== null) { work.push(t - began); began = null; }
      }
      // Drag a bar across and back (120 frames, a pointer move each frame, ending where
      // it began so that nothing is written): the model previews every move.
      const drag = await view.frame().evaluate(() => new Promise((res) => {
        const el = document.querySelector('.pp-scroll');
        el.scrollTop = 0;
        el.scrollLeft = 0;
        requestAnimationFrame(() => requestAnimationFrame(() => {
          const view = el.getBoundingClientRect();
          const bar = [...document.querySelectorAll('[data-bar]')].find((b) => { const r = b.getBoundingClientRect(); return r.width > 20 && r.top > view.top + 40 && r.bottom < view.bottom && r.left > view.left && r.right < view.right - 200; });
          if (!bar) return res(null);
          const r = bar.getBoundingClientRect();
          const x0 = r.left + r.width / 2;
          const y = r.top + r.height / 2;
          const ev = (type, x) => new PointerEvent(type, { bubbles: true, clientX: x, clientY: y, button: 0, buttons: type === 'pointerup' ? 0 : 1, pointerId: 1, isPrimary: true });
          bar.dispatchEvent(ev('pointerdown', x0));
          let previews = 0;
          let cascaded = 0;
          window.__benchFrames((i) => {
            window.dispatchEvent(ev('pointermove', x0 + 4 * (i < 60 ? i + 1 : 119 - i)));
            const tip = document.querySelector('.pp-tip');
            if (tip) previews++;
            // Frames whose preview moved successors (the cascade ran).
            if (tip && /successeur|successor/.test(tip.textContent)) cascaded++;
          }).then((f) => {
            window.dispatchEvent(ev('pointerup', x0));
            res({ ...f, previews, cascaded });
          });
        }));
      }));
      // A bar moved by someone else (through the model side): the view's poll brings
      // the change as a delta with the new state's analysis; from the answer to the
      // redrawn chart, and the longest of the view's steps on the way.
      const live = await (async () => {
        const bar = await view.frame().evaluate(() => { window.__pp.trace = []; return document.querySelector('[data-bar]')?.dataset.bar; });
        if (!bar) return null;
        const moved = await call(owner, 'move_periods', { schedule: sid, bars: [Number(bar)], by: 1 });
        if (moved.isError) throw new Error(moved.text);
        const steps = await view.frame().evaluate(() => new Promise((res) => {
          const t0 = performance.now();
          const look = () => {
            const tr = window.__pp.trace;
            const at = tr.findIndex(([l]) => l === 'changes');
            const indexed = at < 0 ? -1 : tr.findIndex(([l], i) => i > at && l === 'indexed');
            const end = indexed < 0 ? -1 : tr.findIndex(([l], i) => i > indexed && l === 'rendered');
            if (end >= 0) return res(tr.slice(at, end + 1));
            if (performance.now() - t0 > 40000) return res(null);
            setTimeout(look, 50);
          };
          look();
        }));
        if (!steps) return null;
        let longest = 0;
        for (let i = 1; i < steps.length; i++) longest = Math.max(longest, steps[i][1] - steps[i - 1][1]);
        if (process.env.BENCH_GAPS) process.stderr.write(`  ${n} ${profile} live update: ${steps.map(([l, t]) => `${l} +${Math.round(t - steps[0][1])}`).join(', ')}\n`);
        return { total: steps.at(-1)[1] - steps[0][1], longest };
      })();
      const dims = await view.frame().evaluate(() => { const el = document.querySelector('.pp-scroll'); return [el.scrollHeight, el.clientHeight, el.scrollTop, document.querySelectorAll('[data-blk]').length]; });
      process.stderr.write(`  ${n} ${profile} scrolled to ${dims[2]} of ${dims[0]} px (${dims[1]} shown), ${dims[3]} blocks in the DOM; steps ${JSON.stringify(counts)}\n`);
      // A frame interval over 25 ms is a frame the browser missed.
      const missed = (a) => +((100 * a.filter((x) => x > 25).length) / a.length).toFixed(1);
      const barsInDom = await view.locator('[data-bar]').count();
      if (process.env.BENCH_CENSUS) {
        // What the chart holds once scrolled (the elements the browser styles, lays out
        // and paints when a block comes in): by container and kind, per block of lines.
        const census = await view.frame().evaluate(() => {
          const out = {};
          for (const c of ['pp-gridcol', 'pp-items']) {
            const el = document.querySelector(`.${c}`);
            const blocks = el ? el.querySelectorAll(':scope > .pp-blk').length : 0;
            const kinds = {};
            for (const e of el ? el.querySelectorAll('.pp-blk *') : []) {
              const k = `${e.tagName.toLowerCase()}${e.classList.length ? '.' + [...e.classList].join('.') : ''}`;
              kinds[k] = (kinds[k] ?? 0) + 1;
            }
            out[c] = { blocks, kinds };
          }
          return out;
        });
        for (const [c, { blocks, kinds }] of Object.entries(census)) {
          const all = Object.values(kinds).reduce((a, b) => a + b, 0);
          process.stderr.write(`  ${n} ${profile} census ${c}: ${blocks} blocks, ${all} elements (${(all / Math.max(1, blocks)).toFixed(0)} a block): ${Object.entries(kinds).sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${v}`).join(', ')}\n`);
        }
      }
      results.push({ bars: n, profile, importMs, fromResultMs: Math.round(fromResult), fromFirstPageMs: Math.round(fromData), drawnFromFirstPageMs: Math.round(drawnFromData), pageCalls, pagesTotal, allPagesMs, sinceWindowMs, readMs, wholeMs, barsInDom, frameP50: +pct(frames, 50).toFixed(1), frameP95: +pct(frames, 95).toFixed(1), frameMax: +Math.max(...frames).toFixed(1), loadedP50: +pct(framesLoaded, 50).toFixed(1), loadedP95: +pct(framesLoaded, 95).toFixed(1), loadedMax: +Math.max(...framesLoaded).toFixed(1), idleP95: +pct(framesIdle, 95).toFixed(1), missedLoading: missed(frames), missedLoaded: missed(framesLoaded), viewP50: work.length ? +pct(work, 50).toFixed(1) : NaN, viewP95: work.length ? +pct(work, 95).toFixed(1) : NaN, frameWorkLoadingP95: +pct(workLoading, 95).toFixed(1), frameWorkLoadedP50: +pct(workLoaded, 50).toFixed(1), frameWorkLoadedP95: +pct(workLoaded, 95).toFixed(1), dragP95: drag ? +pct(drag.times, 95).toFixed(1) : NaN, dragWorkP50: drag ? +pct(drag.work, 50).toFixed(1) : NaN, dragWorkP95: drag ? +pct(drag.work, 95).toFixed(1) : NaN, dragPreviewed: drag ? drag.previews : 0, dragCascaded: drag ? drag.cascaded : 0, liveMs: live ? Math.round(live.total) : NaN, liveLongestMs: live ? Math.round(live.longest) : NaN });
      console.log(JSON.stringify(results.at(-1)));
      await host.close();
    }
  }
} finally {
  await owner.close().catch(() => {});
  await browser.close();
  await server.stop();
}
console.log('\nbars     profile     tool-result→paint  page0→paint (frame drawn)  pages  bars in DOM  interval while loading p50/p95/max, missed  interval once loaded p50/p95/max, missed (idle p95)  frame work loading p95, loaded p50/p95  view per frame p50/p95  drag: interval p95, frame work p50/p95, frames previewed (with a cascade)  live update: answer→drawn, longest step (ms)');
for (const r of results) {
  console.log(`${String(r.bars).padEnd(8)} ${r.profile.padEnd(11)} ${String(r.fromResultMs).padStart(10)} ms ${String(r.fromFirstPageMs).padStart(9)} ms (${r.drawnFromFirstPageMs} ms) ${String(r.pagesTotal).padStart(6)} ${String(r.barsInDom).padStart(12)}    ${r.frameP50}/${r.frameP95}/${r.frameMax}, ${r.missedLoading}%    ${r.loadedP50}/${r.loadedP95}/${r.loadedMax}, ${r.missedLoaded}% (${r.idleP95})    ${r.frameWorkLoadingP95}, ${r.frameWorkLoadedP50}/${r.frameWorkLoadedP95}    ${r.viewP50}/${r.viewP95}    ${r.dragP95}, ${r.dragWorkP50}/${r.dragWorkP95}, ${r.dragPreviewed}/119 (${r.dragCascaded})    ${r.liveMs}, ${r.liveLongestMs}`);
}
if (theirs.size) {
  // Against DHTMLX in this run. Its parse → painted holds the whole schedule; ours is
  // read from the tool result, in pages. Issue 21's target (the whole read under 1 s
  // after the first window, where DHTMLX took 2.0 s on that machine) is a ratio of 0.5.
  console.log('\nbars     profile     DHTMLX parse→painted  ours: first window, all read after it (ratio), drawn whole from the tool result (ratio)  scroll once loaded interval p95, missed: DHTMLX / ours  frame work p95: DHTMLX / ours');
  for (const r of results) {
    const d = theirs.get(r.bars);
    if (!d) continue;
    const ratio = (x) => (Number.isFinite(x) ? (x / d.paintedMs).toFixed(2) : '-');
    const whole = r.fromResultMs + r.wholeMs;
    // A schedule of one page is whole with its first window: no reading after it.
    const ms = (x) => (Number.isFinite(x) ? `${x} ms` : '- (one page)');
    console.log(`${String(r.bars).padEnd(8)} ${r.profile.padEnd(11)} ${String(d.paintedMs).padStart(10)} ms        ${r.fromResultMs} ms, ${ms(r.readMs)} (${ratio(r.readMs)}), ${ms(whole)} (${ratio(whole)})        ${d.intervalP95}, ${d.missed}% / ${r.loadedP95}, ${r.missedLoaded}%        ${d.workP95} / ${r.frameWorkLoadedP95}`);
  }
}
