// Loading a schedule of several pages: page 0 is asked for on the tool's input, while
// the tool runs, read as it comes, and drawn once the result asks for that very page; the pages after it
// are asked for a few at a time (never one round trip each), each once, packed (the
// served page unpacks gzip: several of the model's pages to an answer, whose bytes are
// freed as soon as the view copied them); a host that
// does not name the tool, or an input that names another schedule, gets the plain
// reading (page 0 after the result), and nothing is asked for twice. While the pages
// come, the toolbar (a Leptos component) is not built again: a focused button stays
// the same element. Scrolling the whole schedule, and moving the selection after,
// keeps each line in view drawn once, in order.
import { test } from 'node:test';
import { setup, assert, assertClean, waitBars, waitFor, call, PROFILES } from './fixture.mjs';

const ctx = setup();

/** A schedule of `rows` rows of ten bars: several pages of get_schedule_page. */
function schedule(rows) {
  const s = { name: 'Many pages', groups: [{ id: 1, name: 'Group' }], rows: [], bars: [] };
  let id = 2;
  const day0 = Date.UTC(2026, 10, 2);
  const iso = (d) => new Date(day0 + d * 86400000).toISOString().slice(0, 10);
  for (let r = 0; r < rows; r++) {
    const row = id++;
    s.rows.push({ id: row, group: 1, name: `Row ${r + 1}` });
    for (let b = 0; b < 10; b++) s.bars.push({ id: id++, row, label: `Task ${r * 10 + b + 1}`, start: iso((r % 20) + b * 5), end: iso((r % 20) + b * 5 + 2) });
  }
  s.next_id = id;
  return s;
}

let many;
async function manyPages() {
  if (!many) {
    const r = await call(ctx.owner, 'import_schedule', { name: 'Many pages', json: schedule(2000) });
    assert.ok(!r.isError, r.text);
    many = r.structured.schedule_id;
  }
  return many;
}

/** The view's get_schedule_page calls of schedule `id`: [page, asked at, answered at,
 * the answer's number of pages, asked packed, answered packed] in the host's log. */
async function pageCalls(view, id) {
  const log = await view.log();
  const answers = new Map(log.filter((e) => e.dir === 'out' && e.msg.id !== undefined).map((e) => [e.msg.id, e]));
  return log
    .filter((e) => e.dir === 'in' && e.msg.params?.name === 'get_schedule_page' && e.msg.params.arguments.schedule === id)
    .map((e) => {
      const a = answers.get(e.msg.id);
      const sc = a?.msg.result?.structuredContent;
      return [e.msg.params.arguments.page, e.t, a?.t, sc?.pages, e.msg.params.arguments.packed === true, sc?.packed_parts !== undefined];
    });
}

/** Waits until every page of schedule `id` was asked for and answered; returns the calls. */
async function allPages(view, id) {
  let calls = [];
  await waitFor(async () => {
    calls = await pageCalls(view, id);
    const pages = calls.find(([, , , n]) => n)?.[3];
    return pages > 1 && calls.length >= pages && calls.every(([, , done]) => done !== undefined);
  }, { ms: 30000, what: 'every page read' });
  return calls;
}

/** The most calls in flight at once. */
const mostInFlight = (calls) => Math.max(...calls.map(([, at]) => calls.filter(([, a, d]) => a <= at && at < d).length));

for (const profile of PROFILES) {
  test(`${profile}: page 0 comes with the tool's input, the next pages a few at a time, each once`, async () => {
    const id = await manyPages();
    const host = await ctx.host();
    const view = await host.mount({ tool: 'show_schedule', args: { schedule: id }, profile, hold: true });
    await waitFor(() => host.page.evaluate((v) => window.e2e.held(v), view.id), { ms: 20000, what: 'the tool result' });
    // Before the result: page 0 asked for, and answered.
    await waitFor(async () => (await pageCalls(view, id)).some(([p, , done]) => p === 0 && done !== undefined), { ms: 20000, what: 'page 0 on the input' });
    assert.deepEqual((await pageCalls(view, id)).map(([p]) => p), [0], 'nothing but page 0 before the result');
    // And read as it came, while the tool ran: the result only draws it.
    await waitFor(() => view.frame().evaluate(() => window.__pp?.earlyRead === true), { ms: 20000, what: 'page 0 read before the result' });
    // The unpacked pages' bytes are lent to the view for one call and freed when it
    // returns (`__pp.unpack`): the bytes each call lent are kept here to look at after.
    await view.frame().evaluate(() => {
      const unpack = window.__pp.unpack;
      window.e2eLent = [];
      window.__pp.unpack = (texts, take) => unpack(texts, (parts) => {
        if (Array.isArray(parts)) window.e2eLent.push(...new Set(parts.map((p) => p.buffer)));
        take(parts);
      });
    });
    await host.page.evaluate((v) => window.e2e.release(v), view.id);
    assert.ok((await waitBars(view, 20000)) > 0);
    const calls = await allPages(view, id);
    const pages = calls.map(([p]) => p).sort((a, b) => a - b);
    assert.ok(pages.length >= 4, `several pages: ${pages}`);
    assert.deepEqual(pages, [...pages.keys()], 'each page asked for once');
    assert.ok(calls.every(([, , , , asked]) => asked), 'every page asked for packed');
    assert.ok(calls.filter(([p, , , , , got]) => p > 0 && got).length >= pages.length - 2, 'the pages after 0 come packed');
    const most = mostInFlight(calls);
    assert.ok(most >= 2 && most <= 3, `pages asked for ahead, three at most: ${most} at once`);
    // The whole schedule is in: its last row, on the last pages, is drawn at the bottom.
    const f = view.frame();
    await waitFor(async () => {
      await f.evaluate(() => { const el = document.querySelector('.pp-scroll'); el.scrollTop = el.scrollHeight; });
      return (await f.locator('.pp-cell[role=rowheader]').allTextContents()).some((t) => t.includes('Row 2000'));
    }, { ms: 20000, what: 'the last row drawn' });
    // Read, then given back at once rather than at a later garbage collection.
    const lent = await f.evaluate(() => window.e2eLent.map((b) => ({ detached: b.detached, bytes: b.byteLength })));
    assert.ok(lent.length >= pages.length - 2, `every packed page's bytes lent: ${lent.length} buffers for ${pages.length} pages`);
    assert.deepEqual(lent.filter((b) => !b.detached), [], 'the unpacked bytes freed once the view copied them');
    assertClean(host);
  });
}

test('while the pages come, the toolbar is not built again: a focused button stays the same element', async () => {
  const id = await manyPages();
  const host = await ctx.host();
  const view = await host.mount({ tool: 'show_schedule', args: { schedule: id }, profile: 'strict', holdPages: true });
  assert.ok((await waitBars(view, 20000)) > 0);
  const f = view.frame();
  const coming = await f.evaluate(() => {
    const b = document.querySelector('.pp-bar [data-act="zoom-in"]');
    b.e2eMark = true;
    b.focus();
    return document.querySelector('.pp-sub')?.textContent ?? '';
  });
  assert.match(coming, /^page 1( of \d+)?…$/, 'the later pages held');
  await host.page.evaluate((v) => window.e2e.releasePages(v), view.id);
  await allPages(view, id);
  await waitFor(() => f.evaluate(() => !document.querySelector('.pp-sub')), { ms: 10000, what: 'the status gone once every page is in' });
  const kept = await f.evaluate(() => {
    const b = document.querySelector('.pp-bar [data-act="zoom-in"]');
    return { same: b?.e2eMark === true, focused: document.activeElement === b };
  });
  assert.deepEqual(kept, { same: true, focused: true }, 'the toolbar\'s button kept across the pages');
  assertClean(host);
});

// Scrolling adds the lines it uncovers and removes those it leaves, several at a frame
// (inserted by one parse), and a selection moved by the keys changes the blocks of the
// bars it leaves and reaches: at every step, each container holds each of its blocks once,
// in order, the grid's and the items' blocks are those of the same lines, one run of
// consecutive rows that covers the viewport.
for (const profile of ['strict', 'permissive']) {
  test(`${profile}: scrolling down, up and far keeps each line in view drawn once, in order`, async () => {
    const id = await manyPages();
    const host = await ctx.host();
    const view = await host.mount({ tool: 'show_schedule', args: { schedule: id }, profile });
    assert.ok((await waitBars(view, 20000)) > 0);
    await allPages(view, id);
    const f = view.frame();
    await waitFor(() => f.evaluate(() => !document.querySelector('.pp-sub')), { ms: 10000, what: 'every page in' });
    // Scrolls by so many pixels; 'down' selects the next bar (ArrowDown), which draws
    // its block and the one it leaves again, changed.
    const steps = [...Array(30).fill(120), ...Array(10).fill(-90), 25000, -300, 360, 1e9, -1e9, ...Array(14).fill('down')];
    const seen = [];
    for (const step of steps) {
      if (step === 'down') await f.locator('.pp-scroll[role=grid]').press('ArrowDown');
      const by = step === 'down' ? 0 : step;
      seen.push(await f.evaluate(async (by) => {
        const el = document.querySelector('.pp-scroll');
        el.scrollTop = Math.max(0, el.scrollTop + by);
        await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
        const keys = (sel) => [...document.querySelectorAll(`${sel} > .pp-blk`)].map((b) => +b.dataset.blk);
        const lines = +el.getAttribute('aria-rowcount');
        const view = el.getBoundingClientRect();
        const cells = [...document.querySelectorAll('.pp-gridcol .pp-cell[role=rowheader]')].map((c) => {
          const r = c.getBoundingClientRect();
          return { n: +c.textContent.match(/Row (\d+)/)?.[1], top: r.top, bottom: r.bottom };
        });
        const rows = cells.filter((r) => r.n > 0);
        // The line under the header's bottom edge and the last one at the bottom.
        const under = view.top + 41;
        return { top: el.scrollTop, lines, selected: document.querySelectorAll('.pp-b.sel').length, grid: keys('.pp-gridcol'), items: keys('.pp-items').filter((k) => k >= lines).map((k) => k - lines), rows: rows.map((r) => r.n), covered: cells.some((r) => r.top <= under && r.bottom > under) && cells.some((r) => r.top < view.bottom - 2 && r.bottom >= view.bottom - 2) };
      }, by));
    }
    for (const s of seen) {
      const at = `at scrollTop ${s.top}`;
      assert.ok(s.lines > 2000, `${at}: aria-rowcount counts the lines (${s.lines})`);
      assert.ok(s.grid.length >= 5, `${at}: the lines in view drawn (${s.grid})`);
      assert.ok(s.grid.every((k, i) => i === 0 || k === s.grid[i - 1] + 1), `${at}: the grid's blocks, one run in order: ${s.grid}`);
      assert.deepEqual(s.items, s.grid, `${at}: the items' blocks are the grid's lines`);
      assert.ok(s.rows.every((n, i) => i === 0 || n === s.rows[i - 1] + 1), `${at}: consecutive rows, each once: ${s.rows}`);
      assert.ok(s.covered, `${at}: the rows drawn cover the viewport`);
      assert.ok(s.selected <= 1, `${at}: ${s.selected} bars drawn selected`);
    }
    assert.equal(seen.at(-1).selected, 1, 'the bar selected by the keys drawn once');
    assert.ok(seen.some((s) => s.rows.includes(2000)) && seen.at(-1).rows.includes(1), 'scrolled to both ends');
    assertClean(host);
  });
}

// Scrolling draws new bars, labels and links at every frame: drawn into the chart's own
// layer, they cost only their paint. A layer that the items overlap and draw over (the
// days' shading was one, sticky) makes the browser give them layers of their own, made
// and rasterised afresh as they come (~200 over 80 frames of the render benchmark).
// Chromium's layer tree, read at each step, holds none for an item.
test('scrolling gives no bar, label or link a composited layer of its own', async () => {
  const id = await manyPages();
  const host = await ctx.host();
  const view = await host.mount({ tool: 'show_schedule', args: { schedule: id }, profile: 'strict' });
  assert.ok((await waitBars(view, 20000)) > 0);
  await allPages(view, id);
  const f = view.frame();
  const cdp = await host.page.context().newCDPSession(f);
  await cdp.send('DOM.enable');
  await cdp.send('DOM.getDocument', { depth: 0 });
  let layers = [];
  cdp.on('LayerTree.layerTreeDidChange', (e) => { if (e.layers) layers = e.layers; });
  await cdp.send('LayerTree.enable');
  const seen = new Map();
  for (let step = 0; step < 12; step++) {
    await f.evaluate(() => new Promise((r) => {
      document.querySelector('.pp-scroll').scrollTop += 700;
      requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 50)));
    }));
    for (const l of layers) {
      if (!l.backendNodeId || seen.has(l.layerId)) continue;
      const d = await cdp.send('DOM.describeNode', { backendNodeId: l.backendNodeId }).catch(() => null);
      const attrs = d?.node.attributes ?? [];
      const at = attrs.indexOf('class');
      const cls = at >= 0 ? attrs[at + 1] : '';
      const { compositingReasonIds: why } = await cdp.send('LayerTree.compositingReasons', { layerId: l.layerId }).catch(() => ({ compositingReasonIds: [] }));
      seen.set(l.layerId, `${d?.node.nodeName.toLowerCase() ?? '?'}.${cls} [${why.join(',')}]`);
    }
  }
  await cdp.detach();
  const all = [...seen.values()];
  assert.ok(all.some((l) => l.includes('pp-scroll')), `the chart's scrolling layer is read: ${all.join('; ')}`);
  const items = all.filter((l) => /\b(pp-b|pp-ol|pp-ms|pp-links|pp-items|pp-blk)\b/.test(l));
  assert.deepEqual(items, [], `layers made for items while scrolling (of ${all.length}: ${all.join('; ')})`);
  assertClean(host);
});

// Packed pages reach the module as bytes, read as UTF-8 there: bytes that are not are
// refused with the reason, under both paths (the translation and the module).
for (const profile of ['strict', 'permissive']) {
  test(`${profile}: a packed page whose bytes are not UTF-8 is refused with the reason`, async () => {
    const id = await manyPages();
    const host = await ctx.host();
    const view = await host.mount({ tool: 'show_schedule', args: { schedule: id }, profile, spoilPacked: true });
    const f = view.frame();
    let said = '';
    await waitFor(async () => {
      said = await f.evaluate(() => document.querySelector('.pp-error')?.textContent ?? '');
      return said !== '';
    }, { ms: 20000, what: 'the load error shown' });
    assert.match(said, /an unpacked part is not UTF-8: invalid utf-8/, said);
  });
}

test('a host that does not name the tool, or an input naming another schedule: page 0 after the result, once', async () => {
  const id = await manyPages();
  // A host that sends the input but does not name the tool; one that sends no input
  // nor the tool's name; an input that names schedule 1.
  for (const o of [{ noToolInfo: true }, { fake: 'no-tool-name' }, { inputArgs: { schedule: 1 } }]) {
    const host = await ctx.host();
    const view = await host.mount({ tool: 'show_schedule', args: { schedule: id }, profile: 'strict', ...o });
    assert.ok((await waitBars(view, 20000)) > 0);
    const calls = await allPages(view, id);
    const result = (await view.log()).find((e) => e.dir === 'out' && e.msg.method === 'ui/notifications/tool-result');
    const pages = calls.map(([p]) => p).sort((a, b) => a - b);
    assert.deepEqual(pages, [...pages.keys()], `${JSON.stringify(o)}: each page asked for once`);
    const zero = calls.find(([p]) => p === 0);
    assert.ok(zero[1] > result.t, `${JSON.stringify(o)}: page 0 after the result`);
    // The input that named schedule 1 had its page 0 asked for, and dropped.
    const other = await pageCalls(view, 1);
    assert.deepEqual(other.map(([p]) => p), o.inputArgs ? [0] : [], JSON.stringify(o));
    assertClean(host);
  }
});
