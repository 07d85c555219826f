// Acceptance (h): screenshots, light and dark, inline and full screen, at 390, 712 and
// 1,200 px, of the Gantt, the kanban, the agenda and the before/after, saved under a
// folder this test prints ($E2E_SHOTS, or e2e/screenshots/<time>/), each compared with
// its committed baseline in e2e/baselines/ (host/baselines.mjs: a visual change fails
// the test; E2E_UPDATE_BASELINES=1 writes new baselines). Each shot is taken once the
// view shows its content (bars, cards, days or changes).
//
// What makes a shot the same from one day to the next: the demo schedule has fixed
// dates (shared-model/src/demo.rs), and the browser's clock is fixed (`now`), so the
// view's "today" (today line, lateness, default windows) is always NOW. The server's own
// today reaches only the tools' text, which no shot shows.
import { test } from 'node:test';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { statSync } from 'node:fs';
import { setup, assert, assertClean, waitFor } from './fixture.mjs';
import { shotsDir } from '../host/harness.mjs';
import { compareWithBaseline, settledShot, updating } from '../host/baselines.mjs';

const ctx = setup();
const E2E = join(dirname(fileURLToPath(import.meta.url)), '..');

const KINDS = [
  ['gantt', 'show_schedule', { schedule: 1 }, '[data-bar]'],
  ['kanban', 'show_schedule', { schedule: 1, view: 'kanban' }, '.pp-card'],
  ['agenda', 'show_schedule', { schedule: 1, view: 'agenda' }, '.pp-day'],
  ['before-after', 'what_if', { schedule: 1, commands: [{ op: 'move_periods', bars: [14], by: 5 }] }, '.pp-changes li'],
];

/** The widths of the acceptance: a phone, the MCP Inspector's frame, a laptop. */
const WIDTHS = [390, 712, 1200];

/** The browser's fixed time: within the demo's plan (2026-11-02 → 12-18), a Friday. */
const NOW = new Date('2026-11-20T09:00:00Z');

test('(h) screenshots like their baselines: light/dark × inline/full screen × 390/712/1200 px × gantt/kanban/agenda/before-after', async () => {
  const dir = shotsDir(E2E);
  console.log(`screenshots in ${dir}`);
  const taken = [];
  for (const width of WIDTHS) {
    for (const theme of ['light', 'dark']) {
      const host = await ctx.host({ width, height: 800, colorScheme: theme, now: NOW });
      await host.page.evaluate((t) => document.body.classList.toggle('dark', t === 'dark'), theme);
      for (const [kind, tool, args, ready] of KINDS) {
        const view = await host.mount({ tool, args, profile: 'strict', theme, width: width - 16, height: 420 });
        await view.waitMounted();
        // The fixed clock reaches the view's own frame (sandboxed, opaque origin).
        assert.equal(await view.frame().evaluate(() => new Date().toISOString()), NOW.toISOString(), 'the view\'s clock');
        await view.waitFor(ready);
        // Let size-changed settle the inline height.
        await waitFor(async () => (await host.state()).sizes.some((s) => s.view === view.id), { what: 'a size report' });
        await view.frame().evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
        const inline = join(dir, `${kind}-${width}-${theme}-inline.png`);
        await settledShot(() => view.box().screenshot({ animations: 'disabled' }), inline);
        await host.page.evaluate((id) => window.e2e.setMode(id, 'fullscreen'), view.id);
        await waitFor(async () => (await host.page.evaluate((id) => window.e2e.mode(id), view.id)) === 'fullscreen');
        await view.frame().evaluate(() => new Promise((r) => setTimeout(() => requestAnimationFrame(() => requestAnimationFrame(r)), 100)));
        const full = join(dir, `${kind}-${width}-${theme}-fullscreen.png`);
        await settledShot(() => host.page.screenshot({ animations: 'disabled' }), full);
        await host.page.evaluate((id) => window.e2e.unmount(id), view.id);
        taken.push(inline, full);
      }
      assertClean(host, `${width} ${theme}`);
    }
  }
  assert.equal(taken.length, WIDTHS.length * 2 * KINDS.length * 2);
  for (const p of taken) assert.ok(statSync(p).size > 2000, `${p} is a picture`);
  // Every shot compared, then one failure naming all that differ.
  const failures = taken.map((p) => compareWithBaseline(p)).filter(Boolean);
  if (updating()) console.log(`baselines written from ${dir}`);
  assert.ok(failures.length === 0, `${failures.length} of ${taken.length} shots unlike their baselines:\n${failures.join('\n')}`);
});
