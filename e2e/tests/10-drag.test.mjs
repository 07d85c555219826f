// Acceptance (d), with the pointer: dragging a bar in the MCP view previews the dates
// the model will give (the tip and the bar itself) and, on release, calls move_periods
// through the host with them; pulling its end edge calls resize_period; a drag brought
// back to where it began writes nothing. Real mouse events, through the host page and
// the sandbox proxy into the view's frame.
import { test } from 'node:test';
import { setup, assert, assertClean, waitBars, waitFor, call, PROFILES, pageRecords } from './fixture.mjs';

const ctx = setup();
const DATES = /(\d{4}-\d{2}-\d{2}) → (\d{4}-\d{2}-\d{2})/;
const dates = async (f, id) => (await f.locator(`[data-bar="${id}"]`).getAttribute('aria-label')).match(DATES).slice(1);

// A bar's box. The view may draw the bar anew just after a write is read back (the
// element found is then detached and has no box): it is looked for again.
const barBox = (f, id) => waitFor(() => f.locator(`[data-bar="${id}"]`).boundingBox(), { what: `bar ${id}'s box` });

// Presses the mouse at `at(width)` on the bar, moves it by `dx` in steps, and returns
// the text of the tip and where the mouse was pressed (the caller releases it).
async function drag(host, f, id, at, dx) {
  // A bar moved and widened by earlier drags may have gone past the frame's edge: a
  // press there would land outside the view. (Looked for again if drawn anew meanwhile:
  // waitFor retries.)
  await waitFor(async () => {
    await f.locator(`[data-bar="${id}"]`).scrollIntoViewIfNeeded({ timeout: 2000 });
    return true;
  }, { what: `bar ${id} in sight` });
  const box = await barBox(f, id);
  const x = box.x + at(box.width);
  const y = box.y + box.height / 2;
  await host.page.mouse.move(x, y);
  await host.page.mouse.down();
  for (let i = 1; i <= 8; i++) await host.page.mouse.move(x + (dx * i) / 8, y);
  const tip = await waitFor(async () => (await f.locator('.pp-tip[role=status]').count()) > 0 && f.locator('.pp-tip[role=status]').textContent(), { what: 'the drag preview' });
  return { tip, x, y };
}

for (const profile of PROFILES) {
  test(`(d) ${profile}: dragging a bar previews the model's dates, then moves or resizes it through the host`, async () => {
    const made = await call(ctx.owner, 'create_schedule', { name: `Drag ${profile}`, demo: true, lang: 'en' });
    const sid = made.structured.schedule_id;
    assert.ok(sid, made.text);
    const host = await ctx.host();
    const view = await host.mount({ tool: 'show_schedule', args: { schedule: sid }, profile });
    await waitBars(view);
    const f = view.frame();
    // The widest bar: room to grab its middle and its end edge.
    const ids = await f.locator('[data-bar]').evaluateAll((els) => els.map((e) => [e.getAttribute('data-bar'), e.getBoundingClientRect().width]));
    const [id] = ids.sort((a, b) => b[1] - a[1])[0];
    const writes = async (name) => (await host.state()).appCalls.filter((c) => c.name === name);

    // Move: grab the middle, drag right by 120 px.
    const [s0, e0] = await dates(f, id);
    const { tip } = await drag(host, f, id, (w) => w / 2, 120);
    const [ps, pe] = tip.match(DATES).slice(1);
    assert.ok(ps > s0 && pe > e0, `the preview moves the bar later: ${s0} → ${e0} became ${tip}`);
    assert.deepEqual(await dates(f, id), [ps, pe], 'the bar itself shows the previewed dates');
    assert.equal((await writes('move_periods')).length, 0, 'nothing written while dragging');
    await host.page.mouse.up();
    const moved = await waitFor(async () => (await writes('move_periods'))[0], { what: 'move_periods called' });
    assert.deepEqual(moved.arguments.bars.map(String), [id]);
    assert.ok(moved.arguments.by > 0, JSON.stringify(moved.arguments));
    await waitFor(async () => (await f.locator('.pp-tip').count()) === 0, { what: 'the preview gone' });
    // The server's dates are the previewed ones (the view reads them back as a delta).
    await waitFor(async () => JSON.stringify(await dates(f, id)) === JSON.stringify([ps, pe]) && !(await f.locator(`[data-bar="${id}"].drag`).count()), { ms: 20000, what: `the bar at ${ps} → ${pe}` });
    const page = await call(ctx.owner, 'get_schedule_page', { schedule: sid, page: 0 });
    assert.equal(page.structured.pages, 1, 'the demo fits in one page');
    const bar = pageRecords(page.structured).find((r) => r.bar?.id === Number(id))?.bar;
    assert.deepEqual([bar?.start, bar?.end], [ps, pe], JSON.stringify(bar));

    // Resize: pull the end edge (3 px inside it) right, by 80 px or up to the frame's
    // edge: the chart fills its frame, so after the move the bar may end near it, and a
    // pointer outside the frame is not the view's any more in this host.
    const edge = await view.box().boundingBox();
    const end = await barBox(f, id);
    const room = Math.floor(edge.x + edge.width - (end.x + end.width) - 4);
    assert.ok(room >= 20, `room to pull the end edge (${room} px)`);
    const { tip: tip2 } = await drag(host, f, id, (w) => w - 3, Math.min(80, room));
    const [rs, re] = tip2.match(DATES).slice(1);
    assert.equal(rs, ps, `a resize from the end keeps the start: ${tip2}`);
    assert.ok(re > pe, `and moves the end later: ${tip2}`);
    await host.page.mouse.up();
    const resized = await waitFor(async () => (await writes('resize_period'))[0], { what: 'resize_period called' });
    assert.equal(String(resized.arguments.bar), id);
    assert.equal(resized.arguments.edge, 'end');
    assert.ok(resized.arguments.by > 0, JSON.stringify(resized.arguments));
    await waitFor(async () => JSON.stringify(await dates(f, id)) === JSON.stringify([rs, re]), { ms: 20000, what: `the bar at ${rs} → ${re}` });

    // A drag brought back to where it began writes nothing. Towards the middle of the
    // frame, so that the pointer stays over the view.
    const box = await barBox(f, id);
    const frameWidth = await f.evaluate(() => window.innerWidth);
    const back = await drag(host, f, id, (w) => w / 2, box.x + box.width / 2 > frameWidth / 2 ? -120 : 120);
    await host.page.mouse.move(back.x, back.y, { steps: 4 });
    await host.page.mouse.up();
    await new Promise((r) => setTimeout(r, 500));
    assert.equal((await writes('move_periods')).length, 1, 'no second move');
    assert.deepEqual(await dates(f, id), [rs, re]);
    assertClean(host);
  });
}
