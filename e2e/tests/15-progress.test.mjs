// Issue 17 §5 in a real browser: a bar's progress is drawn as a fill from its start
// (and read out in its accessible name and the selected bar's line); the today line
// is the status date; the "+" key on a selected bar calls set_progress through the
// host, and the journal holds the write.
import { test } from 'node:test';
import { setup, assert, assertClean, waitBars, waitFor, call, journal, PROFILES } from './fixture.mjs';

const ctx = setup();

for (const profile of PROFILES) {
  test(`(progress) ${profile}: the fill, the status date, and "+" through set_progress`, async () => {
    const made = await call(ctx.owner, 'create_schedule', { name: `Progress ${profile}`, demo: true, lang: 'en' });
    const sid = made.structured.schedule_id;
    const set = await call(ctx.owner, 'set_progress', { schedule: sid, bars: [{ bar: 14, percent: 50 }] });
    assert.ok(!set.isError, set.text);
    const host = await ctx.host();
    const view = await host.mount({ tool: 'show_schedule', args: { schedule: sid }, profile });
    await waitBars(view);
    const f = view.frame();
    // The fill is the bar's ::before (no element of its own): its used width, against
    // the bar's inner width.
    const fillOf = (id) => f.locator(`[data-bar="${id}"]`).evaluate((e) => {
      const cs = getComputedStyle(e, '::before');
      return { content: cs.content, width: parseFloat(cs.width), inner: e.clientWidth };
    });
    const fill = await fillOf(14);
    assert.notEqual(fill.content, 'none', 'a fill in the bar');
    assert.ok(Math.abs(fill.width / fill.inner - 0.5) < 0.05, `the fill covers half the bar: ${fill.width} of ${fill.inner} px`);
    assert.match(await f.locator('[data-bar="14"]').getAttribute('aria-label'), /, 50%/);
    assert.equal((await fillOf(15)).content, 'none', 'no fill without progress');
    // The demo's audit ended on 2026-11-13 with nothing done: overdue, and the legend
    // names the marks the chart draws.
    assert.equal(await f.locator('[data-bar="13"].overdue').count(), 1, 'the audit is overdue');
    assert.match(await f.locator('.pp-legend').textContent(), /overdue/);
    if (await f.locator('.pp-today').count()) {
      assert.match(await f.locator('.pp-today').getAttribute('title'), /status date/);
    }
    // Select, then "+": ten points more, through the host.
    await f.locator('[data-bar="14"]').click();
    await waitFor(async () => /50% complete/.test((await f.locator('.pp-details').textContent()) ?? ''), { what: 'the details line with 50%' });
    await f.locator('.pp-scroll[role=grid]').press('+');
    const c = await waitFor(async () => (await host.state()).appCalls.find((x) => x.name === 'set_progress'), { what: 'set_progress called' });
    assert.deepEqual(c.arguments.bars, [{ bar: 14, percent: 60 }]);
    await waitFor(async () => /, 60%/.test(await f.locator('[data-bar="14"]').getAttribute('aria-label')), { ms: 20000, what: 'the bar at 60%' });
    const j = await journal(ctx.owner, sid);
    assert.match(j.text, /set_progress/, j.text);
    assertClean(host);
  });
}

test('(progress) the Filter panel finds overdue bars at the view\'s today', async () => {
  const iso = (days) => new Date(Date.now() + days * 86400000).toISOString().slice(0, 10);
  const json = {
    name: 'Overdue filter',
    settings: { time_zone: 'UTC', working_weekdays: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'], holidays: [], time_unit: 'day' },
    groups: [{ id: 1, name: 'G' }],
    rows: [{ id: 2, group: 1, name: 'Past' }, { id: 3, group: 1, name: 'Future' }],
    bars: [
      { id: 4, row: 2, label: 'Ended, not done', start: iso(-20), end: iso(-10) },
      { id: 5, row: 3, label: 'Not begun', start: iso(10), end: iso(20) },
    ],
    next_id: 6,
  };
  const imp = await call(ctx.owner, 'import_schedule', { name: 'Overdue filter', json });
  assert.ok(!imp.isError, imp.text);
  const host = await ctx.host();
  const view = await host.mount({ tool: 'show_schedule', args: { schedule: imp.structured.schedule_id, filter: 'is:overdue' }, profile: PROFILES[0] });
  await waitBars(view);
  const f = view.frame();
  await waitFor(async () => (await f.locator('[data-bar="4"]').count()) === 1, { what: 'the overdue bar shown' });
  assert.equal(await f.locator('[data-bar="5"]').count(), 0, 'the bar not begun is filtered out');
  assertClean(host);
});
