// Acceptance (h): screenshots, light and dark, inline and full screen, at 390 px and
// 1280 px, of the Gantt, the kanban, the agenda and the before/after, saved under a
// folder this test prints ($E2E_SHOTS, or e2e/screenshots/<time>/). Each shot is taken
// once the view shows its content (bars, cards, days or changes).
import { test } from 'node:test';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { statSync } from 'node:fs';
import { setup, assert, assertClean, waitFor } from './fixture.mjs';
import { shotsDir } from '../host/harness.mjs';

const ctx = setup();
const E2E = join(dirname(fileURLToPath(import.meta.url)), '..');

const KINDS = [
  ['gantt', 'show_schedule', { schedule: 1 }, '[data-bar]'],
  ['kanban', 'show_schedule', { schedule: 1, view: 'kanban' }, '.pp-card'],
  ['agenda', 'show_schedule', { schedule: 1, view: 'agenda' }, '.pp-day'],
  ['before-after', 'what_if', { schedule: 1, commands: [{ op: 'move_periods', bars: [14], by: 5 }] }, '.pp-changes li'],
];

test('(h) screenshots: light/dark × inline/full screen × 390/1280 px × gantt/kanban/agenda/before-after', async () => {
  const dir = shotsDir(E2E);
  console.log(`screenshots in ${dir}`);
  const taken = [];
  for (const width of [390, 1280]) {
    for (const theme of ['light', 'dark']) {
      const host = await ctx.host({ width, height: 800, colorScheme: theme });
      await host.page.evaluate((t) => document.body.classList.toggle('dark', t === 'dark'), theme);
      for (const [kind, tool, args, ready] of KINDS) {
        const view = await host.mount({ tool, args, profile: 'strict', theme, width: width - 16, height: 420 });
        await view.waitMounted();
        await view.waitFor(ready);
        // Let size-changed settle the inline height.
        await waitFor(async () => (await host.state()).sizes.some((s) => s.view === view.id), { what: 'a size report' });
        await view.frame().evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
        const inline = join(dir, `${kind}-${width}-${theme}-inline.png`);
        await view.box().screenshot({ path: inline });
        await host.page.evaluate((id) => window.e2e.setMode(id, 'fullscreen'), view.id);
        await waitFor(async () => (await host.page.evaluate((id) => window.e2e.mode(id), view.id)) === 'fullscreen');
        await view.frame().evaluate(() => new Promise((r) => setTimeout(() => requestAnimationFrame(() => requestAnimationFrame(r)), 100)));
        const full = join(dir, `${kind}-${width}-${theme}-fullscreen.png`);
        await host.page.screenshot({ path: full });
        await host.page.evaluate((id) => window.e2e.unmount(id), view.id);
        taken.push(inline, full);
      }
      assertClean(host, `${width} ${theme}`);
    }
  }
  assert.equal(taken.length, 32);
  for (const p of taken) assert.ok(statSync(p).size > 2000, `${p} is a picture`);
});
