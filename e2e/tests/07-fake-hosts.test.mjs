// Acceptance (g): hosts that misbehave as real ones were seen to: the result before
// initialize is answered, never a result, no answer to initialize at all, everything
// twice, result before input, a result with no tool name (no toolInfo, no input), and a
// remounted frame. Each view reaches content or an explicit Reload within 8 s, never an
// endless skeleton. Also: a view mounted below the fold, then scrolled into sight.
import { test } from 'node:test';
import { setup, assert, assertClean, waitFor, PROFILES } from './fixture.mjs';

const ctx = setup();
const LIMIT = 8000 + 1500; // the view's 8 s, plus the frame's own start

async function outcome(view, ms = LIMIT) {
  return waitFor(async () => {
    const f = view.frameOrNull();
    if (!f) return false;
    if ((await f.locator('[data-bar]').count()) > 0) return 'content';
    if ((await f.locator('[data-act=reload]').count()) > 0) return 'reload';
    return false;
  }, { ms, what: `content or Reload in view ${view.id}` });
}

const SCENARIOS = [
  ['early', 'content'],
  ['twice', 'content'],
  ['out-of-order', 'content'],
  ['no-tool-name', 'content'],
  ['never', 'reload'],
  ['never-init', 'reload'],
];

for (const profile of PROFILES) {
  test(`(g) ${profile}: fake hosts reach content or Reload within 8 s`, async (t) => {
    const host = await ctx.host();
    for (const [fake, expected] of SCENARIOS) {
      await t.test(`${fake} → ${expected}`, async () => {
        const t0 = Date.now();
        const view = await host.mount({ tool: 'show_schedule', args: { schedule: 1 }, profile, fake });
        const got = await outcome(view);
        assert.equal(got, expected, `${fake} after ${Date.now() - t0} ms`);
        assert.equal(await view.locator('.pp-skeleton[aria-busy=true]').count(), 0, 'no skeleton left');
        await host.page.evaluate((id) => window.e2e.unmount(id), view.id);
      });
    }
    await t.test('remount → content again', async () => {
      const view = await host.mount({ tool: 'show_schedule', args: { schedule: 1 }, profile });
      assert.equal(await outcome(view), 'content');
      const first = view.frame();
      await host.page.evaluate((id) => window.e2e.remount(id), view.id);
      await waitFor(() => view.frameOrNull() && view.frameOrNull() !== first, { what: 'a new frame' });
      assert.equal(await outcome(view), 'content');
      const inits = (await view.log()).filter((e) => e.msg.method === 'ui/initialize').length;
      assert.equal(inits, 2, 'the new frame shook hands again');
      await host.page.evaluate((id) => window.e2e.unmount(id), view.id);
    });
    await t.test('mounted below the fold, then scrolled into sight → content', async () => {
      // Fill the page so the view starts out of sight.
      const filler = await host.mount({ tool: 'show_schedule', args: { schedule: 1 }, profile, height: 1200 });
      await outcome(filler);
      const view = await host.mount({ tool: 'show_schedule', args: { schedule: 1 }, profile, offscreen: true });
      await view.waitMounted();
      await view.box().scrollIntoViewIfNeeded();
      assert.equal(await outcome(view), 'content');
    });
    assertClean(host);
  });
}
