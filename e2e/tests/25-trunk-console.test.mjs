// Issue 21 item 9: the view's debug build as `trunk serve` runs it (Trunk.toml: the view
// unpacked, as WebAssembly, in the fixture host of view-wasm/dev/) logs no framework
// warning and no panic while it draws the demo, follows a theme and a language change,
// and shows the kanban, the agenda and the Gantt again. Leptos's debug builds warn on
// the console when a signal is read outside a tracking context; the state cells once
// did so hundreds of times. Needs trunk 0.21.14 (e2e/run.sh installs it).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { launch } from '../host/harness.mjs';
import { freePort, waitFor, REPO } from '../host/palmaplan.mjs';

let trunk;
let browser;
let base;
let output = '';

before(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  trunk = spawn('trunk', ['serve', '--port', String(port), '--no-autoreload'], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  for (const s of [trunk.stdout, trunk.stderr]) s.on('data', (d) => { output = (output + d).slice(-4000); });
  // The first build compiles the view for wasm32 in debug: minutes on a fresh machine.
  await waitFor(async () => {
    if (trunk.exitCode !== null) throw new Error(`trunk serve ended (${trunk.exitCode}):\n${output}`);
    // A failed build leaves trunk serving nothing: said at once, not after the wait.
    if (/error from build pipeline|error\[E\d+\]/i.test(output)) throw new Error(`trunk's build failed:\n${output}`);
    try { return (await fetch(`${base}/fixture-host.html`)).ok && (await fetch(`${base}/index.html`)).ok; } catch { return false; }
  }, { ms: 20 * 60_000, every: 1000, what: 'trunk serve up' });
  browser = await launch();
}, { timeout: 21 * 60_000 });

after(async () => {
  await browser?.close().catch(() => {});
  if (trunk && trunk.exitCode === null) process.kill(-trunk.pid, 'SIGTERM');
});

test('the debug build under trunk serve logs no framework warning nor panic', { timeout: 120_000 }, async () => {
  const page = await (await browser.newContext()).newPage();
  const logged = [];
  page.on('console', (m) => logged.push({ type: m.type(), text: m.text(), url: m.location()?.url ?? '' }));
  page.on('pageerror', (e) => logged.push({ type: 'pageerror', text: String(e), url: '' }));
  await page.goto(`${base}/fixture-host.html`);
  const view = () => page.frames().find((f) => f.url().endsWith('/index.html'));
  await waitFor(async () => (await view()?.locator('[data-bar]').count()) > 0, { ms: 60_000, what: 'the demo drawn by the debug build' });
  // The recorder sees the view's own frame: a warning written there is caught.
  await view().evaluate(() => console.warn('e2e probe from the view'));
  await waitFor(() => logged.some((m) => m.type === 'warning' && m.text === 'e2e probe from the view'), { what: 'the probe warning' });
  // Live context changes, then each view kind (each show_schedule is a new result).
  const settle = () => page.waitForTimeout(400);
  await page.selectOption('#theme', 'dark');
  await settle();
  await page.selectOption('#locale', 'en-US');
  await settle();
  for (const kind of ['kanban', 'agenda', 'gantt']) {
    await page.selectOption('#kind', kind);
    await page.click('#again');
    await settle();
  }
  await waitFor(async () => (await view().locator('[data-bar]').count()) > 0, { what: 'the Gantt again' });
  // A bar selected from the keyboard: the selection, the details and the toolbar follow.
  const grid = view().locator('.pp-scroll[role=grid]');
  await grid.focus();
  await grid.press('ArrowDown');
  await grid.press('ArrowDown');
  await settle();
  // Every warning and error of the served pages, but Chromium's own note on the
  // `integrity` of the preload links trunk writes (about the browser, not the view).
  const browserNote = /^The `integrity` attribute is currently ignored for preload destinations/;
  const bad = logged.filter((m) => m.text !== 'e2e probe from the view' && !browserNote.test(m.text)
    && (m.type === 'pageerror' || /reactive_graph|tracking context|leptos|panicked|RuntimeError|unreachable/i.test(m.text)
      || ((m.type === 'warning' || m.type === 'error') && m.url.includes(base))));
  assert.deepEqual(bad, [], `the debug build's console:\n${bad.map((m) => `${m.type}: ${m.text.slice(0, 300)}`).join('\n')}`);
});
