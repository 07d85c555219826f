// The development fixture host (view-wasm/dev/fixture-host.html, which `trunk serve`
// serves beside the unpacked view) works: here it frames the page the server ships in
// its place, as `trunk serve` would frame index.html, and the view reaches the demo
// schedule from its answers, switches theme live, and shows the kanban when asked.
// Without trunk (a 7-minute install): what can rot between its runs is the fixture
// host's own script and its demo pages (data.rs checks the pages against the model).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch } from '../host/harness.mjs';
import { waitFor } from '../host/palmaplan.mjs';

const view = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../view-wasm');
const FILES = {
  '/fixture-host.html': [path.join(view, 'dev/fixture-host.html'), 'text/html'],
  '/demo-pages.json': [path.join(view, 'dev/demo-pages.json'), 'application/json'],
  '/index.html': [path.join(view, 'dist/planning.html'), 'text/html'],
};
let server;
let browser;
let base;

before(async () => {
  server = http.createServer((req, res) => {
    const f = FILES[new URL(req.url, 'http://x').pathname];
    if (!f) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': f[1] }).end(fs.readFileSync(f[0]));
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${server.address().port}`;
  browser = await launch();
});
after(async () => {
  await browser?.close();
  server?.close();
});

test('the fixture host runs the view on the demo schedule: Gantt, live theme, kanban', async () => {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${base}/fixture-host.html`);
  const frame = () => page.frames().find((f) => f.url().endsWith('/index.html'));
  await waitFor(async () => (await frame()?.locator('[data-bar]').count()) === 6, { what: 'the demo\'s 6 bars' });
  const log = await page.locator('#log').textContent();
  assert.match(log, /ui\/initialize/, 'the host heard the view');
  assert.match(log, /get_schedule_page/);
  // French by default (the fixture's locale), then dark, live.
  assert.equal(await frame().evaluate(() => document.documentElement.lang), 'fr');
  await page.selectOption('#theme', 'dark');
  await waitFor(async () => (await frame().evaluate(() => document.documentElement.dataset.theme)) === 'dark', { what: 'the dark theme' });
  // Another view of the same schedule: the kanban.
  await page.selectOption('#kind', 'kanban');
  await page.click('#again');
  await waitFor(async () => (await frame().locator('.pp-kanban').count()) === 1, { what: 'the kanban' });
  assert.deepEqual(errors, []);
  await page.close();
});
