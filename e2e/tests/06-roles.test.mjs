// Acceptance (f): a viewer's view is read-only (no undo/redo, arrows move nothing), and
// a write beyond the role (an editor made viewer while the view is open) is refused by
// the server, the view saying so and the bar staying where the server says.
import { test } from 'node:test';
import { setup, assert, assertClean, waitBars, waitFor, call, PROFILES } from './fixture.mjs';

const ctx = setup();

for (const profile of PROFILES) {
  test(`(f) ${profile}: a viewer's view is read-only; a write beyond the role is refused and said`, async (t) => {
    const made = await call(ctx.owner, 'create_schedule', { name: `Roles ${profile}`, demo: true, lang: 'en' });
    const sid = made.structured.schedule_id;
    const email = ctx.server.addUser(`Sam ${profile}`, `sam-${profile}@example.org`);
    const share = await call(ctx.owner, 'share_schedule', { schedule: sid, email, role: 'viewer', lang: 'en' });
    assert.ok(!share.isError, share.text);
    const token = ctx.server.newToken(email);

    await t.test('viewer: no undo/redo, arrows do nothing', async () => {
      const host = await ctx.host({ token });
      const view = await host.mount({ tool: 'show_schedule', args: { schedule: sid }, profile });
      await waitBars(view);
      const f = view.frame();
      assert.equal(await f.locator('[data-act=undo]').count(), 0);
      assert.equal(await f.locator('[data-act=redo]').count(), 0);
      const grid = f.locator('.pp-scroll[role=grid]');
      await grid.focus();
      await grid.press('ArrowDown');
      const id = await f.locator('[data-bar]').first().getAttribute('data-bar');
      const before = await f.locator(`[data-bar="${id}"]`).getAttribute('aria-label');
      await grid.press('ArrowRight');
      await grid.press('Shift+ArrowRight');
      await grid.press('Delete');
      await f.locator('.pp-scroll').evaluate(() => new Promise((r) => setTimeout(r, 300)));
      const writes = (await host.state()).appCalls.filter((c) => !c.name.startsWith('get_'));
      assert.deepEqual(writes, [], 'no write called');
      assert.equal(await f.locator(`[data-bar="${id}"]`).getAttribute('aria-label'), before);
      assert.equal(await f.locator('[data-act=delete-yes]').count(), 0);
      assertClean(host);
    });

    await t.test('editor made viewer: the move is refused by the server and the view says so', async () => {
      await call(ctx.owner, 'share_schedule', { schedule: sid, email, role: 'editor', lang: 'en' });
      const host = await ctx.host({ token });
      const view = await host.mount({ tool: 'show_schedule', args: { schedule: sid }, profile });
      await waitBars(view);
      const f = view.frame();
      await waitFor(async () => (await f.locator('[data-act=undo]').count()) === 1, { what: 'an editor view' });
      await call(ctx.owner, 'share_schedule', { schedule: sid, email, role: 'viewer', lang: 'en' });
      const grid = f.locator('.pp-scroll[role=grid]');
      await grid.focus();
      await grid.press('ArrowDown');
      const sel = await view.waitFor('[data-bar].sel');
      const id = await sel.getAttribute('data-bar');
      const before = await sel.getAttribute('aria-label');
      await grid.press('ArrowRight');
      await waitFor(async () => (await host.state()).appCalls.some((c) => c.name === 'move_periods'), { what: 'move_periods called' });
      const alert = await waitFor(async () => {
        const a = f.locator('[role=alert]');
        return (await a.count()) > 0 && (await a.first().textContent());
      }, { what: 'a refusal in the view' });
      assert.ok(alert.trim().length > 0, alert);
      // In the person's words: the role, not the tool or the schedule's id.
      assert.match(alert, /Your role on this schedule \(viewer\) does not allow this change, which needs the editor role/, alert);
      assert.doesNotMatch(alert, /move_periods|\bid\b/, alert);
      await waitFor(async () => (await f.locator(`[data-bar="${id}"]`).getAttribute('aria-label')) === before, { what: 'the bar back where the server says' });
      assertClean(host);
    });
  });
}
