// Locks in the view: a bar locked by the model side shows a lock (glyph, class, the lock
// in its accessible name), a lock set while the view is open arrives as a live update,
// and a keyboard gesture on the locked bar is refused in the view with the lock's
// words, before any call; once unlocked, the same gesture calls move_periods.
import { test } from 'node:test';
import { setup, assert, assertClean, waitBars, waitFor, call, PROFILES } from './fixture.mjs';

const ctx = setup();

for (const profile of PROFILES) {
  test(`(locks) ${profile}: a locked bar is marked and its gestures refused before any call`, async () => {
    const made = await call(ctx.owner, 'create_schedule', { name: `Locks ${profile}`, demo: true, lang: 'en' });
    const sid = made.structured.schedule_id;
    assert.ok(sid, made.text);
    const locked = await call(ctx.owner, 'lock', { schedule: sid, bar: 14, reason: 'Scope review', lang: 'en' });
    assert.ok(!locked.isError, locked.text);

    const host = await ctx.host();
    const view = await host.mount({ tool: 'show_schedule', args: { schedule: sid }, profile, locale: 'en-US' });
    await waitBars(view);
    const f = view.frame();
    const bar = f.locator('[data-bar="14"]');
    await waitFor(async () => (await bar.getAttribute('class')).includes('locked'), { what: 'bar 14 marked locked' });
    assert.match(await bar.getAttribute('aria-label'), /locked: this bar, by Owner on \d{4}-\d\d-\d\d at \d\d:\d\d UTC \(“Scope review”\)/);
    assert.match(await bar.innerText(), /🔒/);
    // Unlocked bars carry no mark.
    assert.ok(!(await f.locator('[data-bar="13"]').getAttribute('class')).includes('locked'));

    // A keyboard move of the locked bar: refused in the view, nothing sent.
    await bar.click();
    await f.locator('.pp-scroll[role=grid]').press('ArrowRight');
    await waitFor(async () => (await f.locator('body').innerText()).includes('Locked: bar “Nettoyage des données”'), { what: 'the refusal naming the locked bar by its label' });
    const moves = async () => (await host.state()).appCalls.filter((c) => c.name === 'move_periods').length;
    assert.equal(await moves(), 0, 'no call for a locked bar');

    // A lock set on another bar while the view is open arrives with the live update.
    const r = await host.callAsModel('lock', { schedule: sid, bar: 16 });
    assert.ok(!r.isError, JSON.stringify(r));
    await waitFor(async () => (await f.locator('[data-bar="16"]').getAttribute('class')).includes('locked'), { ms: 20000, what: 'bar 16 locked live' });

    // Unlocked, the same gesture goes through.
    const u = await host.callAsModel('lock', { schedule: sid, bar: 14, unlock: true });
    assert.ok(!u.isError, JSON.stringify(u));
    await waitFor(async () => !(await bar.getAttribute('class')).includes('locked'), { ms: 20000, what: 'bar 14 unlocked live' });
    await bar.click();
    await f.locator('.pp-scroll[role=grid]').press('ArrowRight');
    await waitFor(async () => (await moves()) === 1, { what: 'move_periods called once unlocked' });
    assertClean(host);
    await host.close();
  });
}
