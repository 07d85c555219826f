// Issue 21, items 1, 5 and 7, measured in the view's frame on the bytes the server
// serves: the chart fills its frame at 390, 712, 800 and 1,200 px and refits full screen and
// on a resize (and keeps a zoom the person chose); no label is cut, overflows its bar or
// lies over another label or a bar; the axis' first and last labels and the go-live
// label are inside the frame; overlapping bars of one row get lanes; the agenda opens on
// the demo's absence with aligned columns; and a host that does not announce
// ui/update-model-context, ui/message, ui/open-link or full screen is never sent them.
import { test } from 'node:test';
import { setup, assert, assertClean, waitBars, waitFor, call } from './fixture.mjs';

const ctx = setup();

/** Two animation frames in the view: what a change draws is then on screen. */
function settle(view) {
  return view.frame().evaluate(() => new Promise((r) => setTimeout(() => requestAnimationFrame(() => requestAnimationFrame(r)), 50)));
}

/** The chart's geometry, read in the view's frame (all rects in the frame's pixels). */
function measure(view) {
  return view.frame().evaluate(() => {
    const r = (e) => { const b = e.getBoundingClientRect(); return { l: b.left, r: b.right, t: b.top, b: b.bottom, w: b.width, h: b.height }; };
    // The drawn text of an element (a Range over its text: the box may be wider).
    const text = (e) => { const g = document.createRange(); g.selectNodeContents(e); const b = g.getBoundingClientRect(); return { l: b.left, r: b.right, t: b.top, b: b.bottom, w: b.width, h: b.height }; };
    const scroller = document.querySelector('.pp-scroll');
    const grid = document.querySelector('.pp-corner');
    const frame = r(scroller);
    // The timeline's visible part: from the grid's right edge to the scroller's inner right.
    const tlLeft = grid ? r(grid).r : frame.l;
    const tlRight = frame.l + scroller.clientLeft + scroller.clientWidth;
    const bars = [...document.querySelectorAll('[data-bar]')].map((e) => ({ id: e.dataset.bar, ...r(e), scroll: e.scrollWidth, client: e.clientWidth }));
    const ms = [...document.querySelectorAll('[data-milestone]')].map((e) => ({ id: e.dataset.milestone, ...r(e) }));
    const inside = [...document.querySelectorAll('[data-bar] .pp-bl')].map((e) => ({ bar: e.closest('[data-bar]').dataset.bar, text: e.textContent, ...text(e) }));
    const beside = [...document.querySelectorAll('.pp-ol')].map((e) => ({ text: e.textContent, milestone: e.classList.contains('pp-oml'), ...text(e) }));
    const marks = [...document.querySelectorAll('.pp-dl, .pp-con')].map((e) => ({ id: e.className, ...r(e) }));
    const ticks = [...document.querySelectorAll('.pp-tick')].filter((e) => e.textContent.trim()).map((e) => ({ text: e.textContent, box: r(e), ...text(e) }));
    const cells = [...document.querySelectorAll('.pp-cell[role=rowheader]')].map((e) => {
      const name = e.querySelector('.pp-rname');
      return { text: e.textContent, h: r(e).h, name: name ? name.textContent : null, nameW: name ? r(name).w : 0, nameFull: name ? text(name).w : 0 };
    });
    return { frame, tlLeft, tlRight, scrollW: scroller.scrollWidth, clientW: scroller.clientWidth, bars, ms, marks, inside, beside, ticks, cells };
  });
}

const overlaps = (a, b) => a.l < b.r - 0.5 && b.l < a.r - 0.5 && a.t < b.b - 0.5 && b.t < a.b - 0.5;

/** The assertions of item 1 on one drawing; `what` names it in the messages. */
function assertFits(m, what) {
  assert.ok(m.bars.length >= 6, `${what}: bars drawn`);
  // Fitted: nothing to scroll sideways, and the items span the timeline's width (the
  // window is the plan padded by three days a side: 47 of its 53 days are the plan).
  assert.ok(m.scrollW <= m.clientW + 1, `${what}: no sideways scroll (${m.scrollW} > ${m.clientW})`);
  const items = [...m.bars, ...m.ms];
  const left = Math.min(...items.map((b) => b.l));
  const right = Math.max(...items.map((b) => b.r));
  const avail = m.tlRight - m.tlLeft;
  assert.ok(right - left >= 0.8 * avail, `${what}: items span ${Math.round(right - left)} of ${Math.round(avail)} px`);
  assert.ok(left >= m.tlLeft - 0.5 && right <= m.tlRight + 0.5, `${what}: items inside the timeline (${left}..${right} in ${m.tlLeft}..${m.tlRight})`);
  // Bars keep a minimum width.
  for (const b of m.bars) assert.ok(b.w >= 6 - 0.01, `${what}: bar ${b.id} is ${b.w} px`);
  // A label inside a bar fits in it; the bar's text is never cut.
  for (const l of m.inside) {
    const bar = m.bars.find((b) => b.id === l.bar);
    assert.ok(l.l >= bar.l - 0.5 && l.r <= bar.r + 0.5, `${what}: "${l.text}" overflows its bar (${l.l}..${l.r} in ${bar.l}..${bar.r})`);
    assert.ok(bar.scroll <= bar.client, `${what}: "${l.text}" is cut (${bar.scroll} > ${bar.client})`);
  }
  // Every bar and the milestone has its label, in or beside it.
  assert.equal(m.inside.length + m.beside.length, m.bars.length + m.ms.length, `${what}: one label per item`);
  // No label over another label, nor over a bar or a milestone (but its own bar).
  const labels = [...m.inside, ...m.beside];
  for (let i = 0; i < labels.length; i++) {
    for (let j = i + 1; j < labels.length; j++) {
      assert.ok(!overlaps(labels[i], labels[j]), `${what}: "${labels[i].text}" over "${labels[j].text}"`);
    }
  }
  for (const l of m.beside) {
    for (const b of [...m.bars, ...m.ms, ...m.marks]) assert.ok(!overlaps(l, b), `${what}: "${l.text}" over item ${b.id}`);
    // Beside labels stay in the timeline's visible part.
    assert.ok(l.l >= m.tlLeft - 0.5 && l.r <= m.tlRight + 0.5, `${what}: "${l.text}" clipped (${l.l}..${l.r} in ${m.tlLeft}..${m.tlRight})`);
  }
  // The axis: every label whole in its cell, the first and the last inside the frame.
  assert.ok(m.ticks.length >= 2, `${what}: axis labels`);
  for (const t of m.ticks) {
    assert.ok(t.r <= t.box.r + 0.5, `${what}: axis label "${t.text}" cut (${t.r} > ${t.box.r})`);
  }
  const sorted = [...m.ticks].sort((a, b) => a.l - b.l);
  const [first, last] = [sorted[0], sorted.at(-1)];
  assert.ok(first.l >= m.tlLeft - 0.5, `${what}: first axis label "${first.text}" at ${first.l} < ${m.tlLeft}`);
  assert.ok(last.r <= m.tlRight + 0.5, `${what}: last axis label "${last.text}" at ${last.r} > ${m.tlRight}`);
  // The go-live milestone's label, whole and inside.
  const goLive = m.beside.find((l) => l.milestone);
  assert.ok(goLive && goLive.text.includes('Go-live'), `${what}: the go-live label (${JSON.stringify(m.beside)})`);
  assert.ok(goLive.l >= m.tlLeft - 0.5 && goLive.r <= m.tlRight + 0.5, `${what}: go-live label inside the frame`);
}

for (const width of [390, 712, 800, 1200]) {
  test(`(fit) at ${width} px the chart fills its frame, every label whole and apart`, async () => {
    const host = await ctx.host({ width: Math.max(width + 40, 1280) });
    const view = await host.mount({ tool: 'show_schedule', args: { schedule: 1 }, profile: 'strict', width });
    await waitBars(view);
    await settle(view);
    const m = await measure(view);
    assertFits(m, `${width} px`);
    // Row names stay readable: a name is never squeezed below ~3.5 em while a member's
    // name is shown; at 390 px the members' names fold away first.
    for (const c of m.cells.filter((c) => c.name !== null)) {
      assert.ok(c.nameW >= Math.min(c.nameFull, 40) - 0.5, `${width} px: row name "${c.name}" squeezed to ${c.nameW} px`);
    }
    // The toolbar is one line at every width, inside the frame: the title gives way
    // (its full text in its tooltip), the buttons stay whole.
    const bar = await view.frame().evaluate(() => {
      const b = document.querySelector('.pp-bar');
      const box = b.getBoundingClientRect();
      const items = [...b.children].filter((e) => e.getClientRects().length).map((e) => {
        const r = e.getBoundingClientRect();
        return { what: e.dataset.act ?? e.className, top: r.top, bottom: r.bottom, left: r.left, right: r.right, w: r.width, full: e.scrollWidth };
      });
      const title = b.querySelector('.pp-title');
      return { left: box.left, right: box.right, items, title: title.title, text: title.textContent };
    });
    const buttons = bar.items.filter((i) => i.what !== 'pp-title' && i.what !== 'pp-grow');
    assert.ok(buttons.length >= 4, `${width} px: the toolbar's buttons ${JSON.stringify(bar.items)}`);
    for (const i of bar.items) {
      assert.ok(i.top < bar.items[0].bottom && i.bottom > bar.items[0].top, `${width} px: ${i.what} on another line of the toolbar: ${JSON.stringify(bar.items)}`);
      assert.ok(i.left >= bar.left - 0.5 && i.right <= bar.right + 0.5, `${width} px: ${i.what} outside the toolbar`);
    }
    for (const b of buttons) assert.ok(b.w >= 28 && b.full <= b.w + 0.5, `${width} px: ${b.what} squeezed (${b.w} px)`);
    assert.equal(bar.title, bar.text, `${width} px: the title's tooltip is its text`);
    if (width === 390) {
      const shown = await view.frame().locator('.pp-member:visible').count();
      assert.equal(shown, 0, 'members fold at 390 px');
      // ...and stay in the row's tooltip.
      const titles = await view.frame().locator('.pp-cell[role=rowheader][title]').evaluateAll((els) => els.map((e) => e.title));
      assert.ok(titles.some((t) => t === 'Audit du système — Karim Benali'), JSON.stringify(titles));
    }
    assertClean(host, `${width} px`);
  });
}

test('(fit) full screen and a resize refit the chart; a zoom the person chose is kept', async () => {
  const host = await ctx.host({ width: 1280, height: 900 });
  const view = await host.mount({ tool: 'show_schedule', args: { schedule: 1 }, profile: 'strict', width: 712 });
  await waitBars(view);
  await settle(view);
  const inline = await measure(view);
  assertFits(inline, '712 px');
  // Full screen: the frame is the page's width; the chart refits to it.
  await host.page.evaluate((id) => window.e2e.setMode(id, 'fullscreen'), view.id);
  await waitFor(async () => (await measure(view)).frame.w > 1000, { what: 'the full-screen frame' });
  await settle(view);
  const full = await measure(view);
  assertFits(full, 'full screen');
  assert.ok(full.tlRight - full.tlLeft > inline.tlRight - inline.tlLeft + 300, 'a wider timeline');
  // Back inline, then narrower: refitted each time.
  await host.page.evaluate((id) => window.e2e.setMode(id, 'inline'), view.id);
  await host.page.evaluate((id) => { document.querySelector(`.box[data-view="${id}"]`).style.width = '560px'; }, view.id);
  await waitFor(async () => (await measure(view)).frame.w < 560, { what: 'the 560 px frame' });
  await settle(view);
  assertFits(await measure(view), '560 px');
  // The person zooms in: their zoom stays through a resize (the chart scrolls).
  await view.frame().locator('[data-act=zoom-in]').click();
  await settle(view);
  const zoomed = await measure(view);
  assert.ok(zoomed.scrollW > zoomed.clientW + 50, `zoomed in scrolls (${zoomed.scrollW} vs ${zoomed.clientW})`);
  const dayWidth = (m) => Math.min(...m.ticks.filter((t) => /^\d+$/.test(t.text)).map((t) => t.box.w));
  const before = dayWidth(zoomed);
  await host.page.evaluate((id) => { document.querySelector(`.box[data-view="${id}"]`).style.width = '900px'; }, view.id);
  await waitFor(async () => (await measure(view)).frame.w > 860, { what: 'the 900 px frame' });
  await settle(view);
  const after = await measure(view);
  assert.equal(dayWidth(after), before, 'the chosen zoom is kept');
  // ...and through full screen.
  await host.page.evaluate((id) => window.e2e.setMode(id, 'fullscreen'), view.id);
  await waitFor(async () => (await measure(view)).frame.w > 1000, { what: 'full screen again' });
  await settle(view);
  assert.equal(dayWidth(await measure(view)), before, 'the chosen zoom is kept full screen');
  assertClean(host, 'refit');
});

test('(agenda) the agenda opens on the demo\'s absence, its columns aligned', async () => {
  const host = await ctx.host();
  const view = await host.mount({ tool: 'show_schedule', args: { schedule: 1, view: 'agenda' }, profile: 'strict', width: 712 });
  await view.waitMounted();
  await view.waitFor('.pp-day');
  const days = await view.frame().evaluate(() => [...document.querySelectorAll('.pp-day')].map((e) => ({
    away: e.classList.contains('away'),
    text: e.textContent,
    col2: e.children[1].getBoundingClientRect().left,
    col1: e.children[0].getBoundingClientRect().right,
  })));
  const away = days.filter((d) => d.away);
  // Thomas is away on Thursday 26 and Friday 27 November 2026.
  assert.equal(away.length, 2, JSON.stringify(days.slice(0, 8)));
  assert.ok(away.every((d) => d.text.includes('Thomas')), JSON.stringify(away));
  assert.ok(/November 26, 2026/.test(away[0].text), away[0].text);
  const lefts = new Set(days.map((d) => Math.round(d.col2)));
  assert.equal(lefts.size, 1, `second column starts at ${[...lefts]}`);
  assert.ok(days.every((d) => d.col1 <= d.col2), 'the dates end before the second column');
  assertClean(host, 'agenda');
});

/** The view's requests of a method, as the host received them. */
async function sent(view, method) {
  return (await view.log()).filter((e) => e.dir === 'in' && e.msg?.method === method).length;
}

test('(caps) a host that announces neither model context, messages, links nor full screen is never sent them', async () => {
  const host = await ctx.host();
  // MCP Inspector 2.12's capabilities less its links, and a host that only displays inline.
  const caps = { serverTools: {}, serverResources: {}, logging: {} };
  const view = await host.mount({ tool: 'show_schedule', args: { schedule: 1 }, profile: 'strict', width: 712, caps, modes: ['inline'] });
  await waitBars(view);
  await view.frame().locator('[data-bar]').first().click();
  await view.frame().locator('[data-bar]').nth(2).click();
  await new Promise((r) => setTimeout(r, 800));
  assert.equal(await sent(view, 'ui/update-model-context'), 0, 'no update-model-context');
  // Nothing offered that would need them.
  for (const act of ['ask', 'help', 'full']) {
    assert.equal(await view.frame().locator(`[data-act=${act}]`).count(), 0, `no ${act} button`);
  }
  assert.equal(await sent(view, 'ui/message'), 0);
  assert.equal(await sent(view, 'ui/open-link'), 0);
  assert.equal(await sent(view, 'ui/request-display-mode'), 0);
  // Still useful: the chart, its zoom and its selection work, and without full screen
  // the inline chart is the whole schedule (groups fold there, as full screen does).
  assert.equal(await view.frame().locator('[data-bar].sel').count(), 1);
  assert.ok((await view.frame().locator('button[data-group]').count()) > 0, 'groups fold inline');
  await view.frame().locator('[data-act=zoom-in]').click();
  // The control: the same gestures under a host that announces them do send.
  const full = await host.mount({ tool: 'show_schedule', args: { schedule: 1 }, profile: 'strict', width: 712 });
  await waitBars(full);
  await full.frame().locator('[data-bar]').first().click();
  await waitFor(async () => (await sent(full, 'ui/update-model-context')) > 0, { what: 'update-model-context to a host that announced it' });
  for (const act of ['ask', 'help', 'full']) {
    assert.equal(await full.frame().locator(`[data-act=${act}]`).count(), 1, `${act} offered`);
  }
  assert.equal(await full.frame().locator('button[data-group]').count(), 0, 'inline, with full screen offered: the useful window');
  assertClean(host, 'caps');
});

test('(lanes) overlapping bars of one row are drawn in two lanes, the row grows', async () => {
  // A second bar over "Audit du système" (row 6, from 2026-11-02).
  const r = await call(ctx.owner, 'add_period', { schedule: 1, row: 6, label: "Revue d'audit", start: '2026-11-04', end: '2026-11-10' });
  assert.equal(r.isError, false, r.text);
  // And a deadline just after "Recette utilisateurs" (2026-12-07 → 2026-12-11), whose
  // label goes beside it: the label does not cover the flag.
  const dl = await call(ctx.owner, 'set_constraint', { schedule: 1, item: 17, kind: 'deadline', date: '2026-12-14' });
  assert.equal(dl.isError, false, dl.text);
  const host = await ctx.host();
  for (const width of [390, 712, 1200]) {
    const view = await host.mount({ tool: 'show_schedule', args: { schedule: 1 }, profile: 'strict', width });
    await waitBars(view);
    await settle(view);
    const m = await measure(view);
    assert.equal(m.bars.length, 7);
    assert.equal(m.marks.length, 1, `${width} px: the deadline's flag`);
    const a = m.bars.find((b) => b.id === '13');
    const byLabel = await view.frame().locator('[data-bar][aria-label^="Revue"]').getAttribute('data-bar');
    const b = m.bars.find((x) => x.id === byLabel);
    assert.ok(a.l < b.r && b.l < a.r, `${width} px: the two bars overlap in time`);
    assert.ok(!overlaps(a, b), `${width} px: drawn apart`);
    assert.ok(Math.abs(a.t - b.t) >= 28 - 0.5, `${width} px: distinct lanes (${a.t}, ${b.t})`);
    const row = m.cells.find((c) => c.text.includes('Audit du système'));
    assert.equal(row.h, 56, `${width} px: the row holds two lanes`);
    // Every other check of item 1 still holds with lanes.
    assertFits(m, `${width} px with lanes`);
    await host.page.evaluate((id) => window.e2e.unmount(id), view.id);
  }
  assertClean(host, 'lanes');
});
