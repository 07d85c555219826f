// Issue 16 §5 in a real browser: with automatic scheduling, dragging a bar that has
// successors shows them moving during the drag (the model's push, run in the view) with
// the new project end, and the write the drop makes gives exactly the previewed dates;
// what_if with a push shows every moved bar, and Accept writes exactly them; a drag
// whose cascade would break a constraint names the item by its label, and its drop
// sends nothing. Real mouse
// events through the host page and the sandbox proxy into the view's frame.
import { test } from 'node:test';
import { setup, assert, assertClean, waitBars, waitFor, call, PROFILES, pageRecords, MODEL_ONLY } from './fixture.mjs';

const ctx = setup();
const DATES = /(\d{4}-\d{2}-\d{2})(?: → (\d{4}-\d{2}-\d{2}))?/;
// The dates an item's aria-label gives: a bar's two, a milestone's one (twice).
const dates = async (f, sel) => {
  const m = (await f.locator(sel).getAttribute('aria-label')).match(DATES);
  return [m[1], m[2] ?? m[1]];
};
// The demo's chain after « Nettoyage des données » (14): three bars and the go-live.
const CHAIN = ['[data-bar="16"]', '[data-bar="17"]', '[data-bar="18"]', '[data-milestone="19"]'];

async function autoDemo(name) {
  const made = await call(ctx.owner, 'create_schedule', { name, demo: true, lang: 'en' });
  const sid = made.structured.schedule_id;
  assert.ok(sid, made.text);
  await call(ctx.owner, 'update_settings', { schedule: sid, scheduling: 'auto' });
  return sid;
}

/** Presses « Nettoyage des données » (14) and drags it 100 px right in eight moves,
 * the button held; the drag's tip once it matches `want`. */
async function dragTip(host, f, want, what) {
  const bar = f.locator('[data-bar="14"]');
  await bar.scrollIntoViewIfNeeded();
  const box = await bar.boundingBox();
  const x = box.x + box.width / 2;
  const y = box.y + box.height / 2;
  await host.page.mouse.move(x, y);
  await host.page.mouse.down();
  for (let i = 1; i <= 8; i++) await host.page.mouse.move(x + (100 * i) / 8, y);
  return waitFor(async () => {
    const t = (await f.locator('.pp-tip[role=status]').count()) > 0 && (await f.locator('.pp-tip[role=status]').textContent());
    return t && want.test(t) && t;
  }, { what });
}

async function stored(sid) {
  const page = await call(ctx.owner, 'get_schedule_page', { schedule: sid, page: 0 });
  const at = (id) => {
    const r = pageRecords(page.structured).find((x) => x.bar?.id === id || x.milestone?.id === id);
    return r.bar ? [r.bar.start, r.bar.end] : [r.milestone.date, r.milestone.date];
  };
  return [16, 17, 18, 19].map(at);
}

for (const profile of PROFILES) {
  test(`(cascade) ${profile}: a drag previews the successors' push and the write gives exactly those dates`, async () => {
    const sid = await autoDemo(`Cascade ${profile}`);
    const host = await ctx.host();
    const view = await host.mount({ tool: 'show_schedule', args: { schedule: sid }, profile });
    await waitBars(view);
    const f = view.frame();
    const before = await Promise.all(CHAIN.map((s) => dates(f, s)));

    const tip = await dragTip(host, f, /successors? moved/, 'the cascade in the drag preview');
    assert.match(tip, /project end \d{4}-\d{2}-\d{2} → \d{4}-\d{2}-\d{2}/, tip);
    // While the pointer is down, the successors are drawn where the push puts them.
    const previewed = await Promise.all(CHAIN.map((s) => dates(f, s)));
    for (let k = 0; k < CHAIN.length; k++) {
      assert.ok(previewed[k][0] > before[k][0], `${CHAIN[k]} moves later in the preview: ${before[k]} → ${previewed[k]}`);
      assert.equal(await f.locator(`${CHAIN[k]}.pushed`).count(), 1, `${CHAIN[k]} is marked as pushed`);
    }
    assert.ok((await f.locator('.pp-shadow').count()) >= 3, 'the pushed bars leave a shadow where they are now');
    const writes = async () => (await host.state()).appCalls.filter((c) => c.name === 'move_periods');
    assert.equal((await writes()).length, 0, 'nothing written while dragging');

    await host.page.mouse.up();
    const moved = await waitFor(async () => (await writes())[0], { what: 'move_periods called' });
    assert.equal(moved.arguments.cascade, true, JSON.stringify(moved.arguments));
    // The server's write, run by the same model function, gives the previewed dates.
    await waitFor(async () => JSON.stringify(await stored(sid)) === JSON.stringify(previewed), { ms: 20000, what: `the stored chain at ${JSON.stringify(previewed)}` });
    await waitFor(async () => (await f.locator('.pushed').count()) === 0, { what: 'the preview gone' });
    await waitFor(async () => JSON.stringify(await Promise.all(CHAIN.map((s) => dates(f, s)))) === JSON.stringify(previewed), { ms: 20000, what: 'the chart at the written dates' });
    assert.doesNotMatch(await f.evaluate(() => document.body.innerText), /other items than the preview/);
    // The notice tells the person what the move did, in the server's words for them:
    // the bar by its label and what its cascade moved, no id, no rank.
    const notice = await waitFor(async () => {
      const t = await f.locator('.pp-notice').innerText();
      return /^“Nettoyage des données” moved by \+\d+ working days?: it now runs from \d{4}-\d\d-\d\d to \d{4}-\d\d-\d\d\. \d+ bars? and \d+ milestones? moved by the cascade/.test(t) && t;
    }, { what: "the move's words for the person" });
    assert.doesNotMatch(notice, MODEL_ONLY, notice);
    assertClean(host);
  });

  test(`(cascade) ${profile}: a drag whose cascade would break a constraint says which item's, by its label`, async () => {
    const sid = await autoDemo(`Blocked ${profile}`);
    // « Migration à blanc » (16) may not finish later than it does now.
    const [, end16] = (await stored(sid))[0];
    const c = await call(ctx.owner, 'set_constraint', { schedule: sid, item: 16, kind: 'finish_no_later_than', date: end16 });
    assert.ok(!c.isError, c.text);
    const host = await ctx.host();
    const view = await host.mount({ tool: 'show_schedule', args: { schedule: sid }, profile });
    await waitBars(view);
    const f = view.frame();
    const tip = await dragTip(host, f, /refused/, 'the refusal in the drag preview');
    // The person reads the item's label, not its id.
    assert.match(tip, /the cascade would break a constraint of “Migration à blanc” by \d+ working days?: refused/, tip);
    // Dropped there, it is not sent (the server would refuse it in the model's words):
    // the notice says why, in the tip's words.
    await host.page.mouse.up();
    await waitFor(async () => (await f.locator('.pp-notice').innerText()).includes('Nothing was written: the cascade would break a constraint of “Migration à blanc”'), { what: 'the drop refused in the view' });
    await new Promise((r) => setTimeout(r, 500));
    assert.equal((await host.state()).appCalls.filter((c) => c.name === 'move_periods').length, 0, 'no write sent');
    assertClean(host);
  });

  test(`(cascade) ${profile}: with the critical path shown, a bar with float shows it; a selected bar reads its floats`, async () => {
    const sid = await autoDemo(`Floats ${profile}`);
    // The clean-up five days later (no cascade): the ABAP adaptation gains five days of
    // float, the audit six (the clean-up now starts later than its SS link asks).
    await call(ctx.owner, 'move_periods', { schedule: sid, bars: [14], by: 5, cascade: false });
    await call(ctx.owner, 'reschedule', { schedule: sid });
    const host = await ctx.host();
    const view = await host.mount({ tool: 'show_schedule', args: { schedule: sid, critical_path: true }, profile });
    await waitBars(view);
    const f = view.frame();
    await waitFor(async () => (await f.locator('.pp-float').count()) >= 1, { what: 'a float strip' });
    const titles = await f.locator('.pp-float').evaluateAll((els) => els.map((e) => e.getAttribute('title')));
    assert.ok(titles.some((t) => /total float: 5 working days, until 2026-12-11/.test(t)), titles.join(' | '));
    // No strip for a critical bar.
    assert.equal(await f.locator('[data-bar="16"].crit').count(), 1);
    await f.locator('[data-bar="15"]').click();
    const details = await waitFor(async () => (await f.locator('.pp-details').count()) && f.locator('.pp-details').textContent(), { what: 'the details line' });
    // Constraints and deadlines are drawn: a tick at the constraint's day, a flag at the
    // deadline's, red once missed.
    await call(ctx.owner, 'set_constraint', { schedule: sid, item: 17, kind: 'finish_no_later_than', date: '2026-12-31' });
    await call(ctx.owner, 'set_constraint', { schedule: sid, item: 19, kind: 'deadline', date: '2026-12-23' });
    await waitFor(async () => (await f.locator('.pp-con[title="finish no later than 2026-12-31"]').count()) === 1, { ms: 20000, what: 'the constraint tick' });
    await waitFor(async () => (await f.locator('.pp-dl.missed[title="deadline 2026-12-23, missed"]').count()) === 1, { ms: 20000, what: 'the missed deadline flag' });
    assert.match(details, /Adaptation du code ABAP · 2026-11-16 → 2026-12-04 \(15 working days\) · late 2026-11-23 → 2026-12-11 · total float 5 working days, free 5 working days/, details);
    assertClean(host);
  });

  test(`(cascade) ${profile}: a keyboard move draws its cascade at once, then the written state`, async () => {
    const sid = await autoDemo(`Cascade keys ${profile}`);
    const host = await ctx.host();
    const view = await host.mount({ tool: 'show_schedule', args: { schedule: sid }, profile });
    await waitBars(view);
    const f = view.frame();
    await f.locator('[data-bar="14"]').click();
    // Records whether successors were ever drawn as pushed (the preview lasts until
    // the written state arrives, a few frames: a poll of the DOM could miss it).
    await f.evaluate(() => {
      window.__pushedSeen = [];
      new MutationObserver(() => {
        for (const el of document.querySelectorAll('.pushed')) {
          const id = el.dataset.bar ?? el.dataset.milestone;
          if (!window.__pushedSeen.includes(id)) window.__pushedSeen.push(id);
        }
      }).observe(document.body, { childList: true, subtree: true, attributes: true });
    });
    await f.locator('.pp-scroll[role=grid]').press('Shift+ArrowRight');
    const writes = async () => (await host.state()).appCalls.filter((c) => c.name === 'move_periods');
    const moved = await waitFor(async () => (await writes())[0], { what: 'move_periods called' });
    assert.deepEqual([moved.arguments.by, moved.arguments.cascade], [5, true], JSON.stringify(moved.arguments));
    await waitFor(async () => JSON.stringify(await stored(sid)) === JSON.stringify([
      ['2026-11-30', '2026-12-11'], ['2026-12-14', '2026-12-18'], ['2026-12-21', '2026-12-24'], ['2026-12-28', '2026-12-28'],
    ]), { ms: 20000, what: 'the cascade stored' });
    const seen = await f.evaluate(() => window.__pushedSeen.sort());
    assert.deepEqual(seen, ['16', '17', '18', '19'], 'the successors were drawn pushed before the written state came');
    await waitFor(async () => (await f.locator('.pushed').count()) === 0, { what: 'the preview replaced by the written state' });
    assertClean(host);
  });

  test(`(cascade) ${profile}: what_if with a push shows every moved bar and Accept writes exactly them`, async () => {
    const sid = await autoDemo(`Cascade proposal ${profile}`);
    const host = await ctx.host();
    const args = { schedule: sid, cascade: true, commands: [{ op: 'move_periods', bars: [14], by: 5 }] };
    const simulated = await call(ctx.owner, 'what_if', args);
    const view = await host.mount({ tool: 'what_if', args, profile });
    await view.waitMounted();
    await view.waitFor('.pp-changes li');
    const listed = await view.frame().evaluate(() => document.querySelector('.pp-changes').innerText);
    for (const label of ['Nettoyage des données', 'Migration à blanc', 'Recette utilisateurs', 'Bascule en production', 'Go-live S/4HANA']) {
      assert.ok(listed.includes(label), `${label} in the change list: ${listed}`);
    }
    await view.locator('[data-act=accept]').click();
    const c = await waitFor(async () => (await host.state()).appCalls.find((x) => x.view === view.id && x.name === 'apply_patch'), { what: 'apply_patch' });
    assert.deepEqual(c.arguments.commands, simulated.structured.commands, 'Accept sends the simulated commands, cascade included');
    await waitFor(async () => JSON.stringify(await stored(sid)) === JSON.stringify([
      ['2026-11-30', '2026-12-11'], ['2026-12-14', '2026-12-18'], ['2026-12-21', '2026-12-24'], ['2026-12-28', '2026-12-28'],
    ]), { ms: 20000, what: 'the accepted cascade stored' });
    assertClean(host);
  });
}
