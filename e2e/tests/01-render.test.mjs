// Acceptance (a): the view renders the Gantt from show_schedule under both host CSPs,
// by role and text, with no CSP violation and no request from the view's frame; and the
// recorders themselves work (a refused load in the proxy is caught).
import { test } from 'node:test';
import { setup, assert, assertClean, waitBars, waitFor, PROFILES } from './fixture.mjs';

const ctx = setup();

for (const profile of PROFILES) {
  test(`(a) ${profile}: show_schedule renders the Gantt (rows and bars by role and text), clean`, async () => {
    const host = await ctx.host();
    const view = await host.mount({ tool: 'show_schedule', args: { schedule: 1 }, profile });
    const pp = await view.waitMounted();
    // WebAssembly where the host says its CSP allows it, the translation elsewhere.
    assert.equal(pp.path, profile === 'permissive' ? 'wasm' : 'wasm2js');
    const bars = await waitBars(view);
    assert.equal(bars, 6, 'the demo has 6 bars');
    const f = view.frame();
    assert.equal(await f.locator('.pp-scroll[role=grid]').count(), 1);
    const rows = await f.locator('.pp-cell[role=rowheader]').allTextContents();
    for (const name of ['Audit du système', 'Migration à blanc', 'Mise en production']) {
      assert.ok(rows.some((r) => r.includes(name)), `row ${name} in ${rows}`);
    }
    const labels = await f.locator('[data-bar][role=gridcell]').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')));
    assert.equal(labels.length, 6);
    assert.ok(labels.every((l) => /\d{4}-\d{2}-\d{2}|→/.test(l)), `bar labels name dates: ${labels}`);
    assert.ok(labels.some((l) => l.startsWith('Audit du système')), labels.join(' | '));
    assert.equal(await f.locator('[data-milestone]').count(), 1);
    assert.ok((await f.locator('path[data-link]').count()) > 0, 'links drawn');
    assert.equal(await f.locator('[role=toolbar]').count(), 1);
    assert.equal(await f.locator('.pp-skeleton[aria-busy=true]').count(), 0);
    // The CSP the proxy was served with is the profile's.
    const header = host.servers.cspLog.at(-1).header;
    assert.ok(header.startsWith("default-src 'none'; script-src 'self' 'unsafe-inline'"), header);
    assert.equal(header.includes("'wasm-unsafe-eval'"), profile === 'permissive');
    assert.ok(header.includes("connect-src 'none'"));
    assertClean(host);
  });
}

test('(a) display "compact" is one line: the schedule\'s name, dates and counts, then Show opens the chart', async () => {
  const host = await ctx.host();
  const view = await host.mount({ tool: 'show_schedule', args: { schedule: 1, display: 'compact', lang: 'en' }, profile: 'strict' });
  await view.waitMounted();
  const f = view.frame();
  const line = await waitFor(async () => {
    const t = (await f.locator('.pp-compact .pp-sum').count()) && (await f.locator('.pp-compact .pp-sum').innerText());
    return t && !/Loading/.test(t) && t;
  }, { what: 'the compact line\'s summary' });
  // The result's first line: the schedule by its name, dates and counts; nothing the
  // model acts with (ids, ranks, tools).
  assert.match(line, /S\/4HANA Migration.*\d{4}-\d\d-\d\d.*\d+ bars/, line);
  assert.doesNotMatch(line, /\brank\b|\bid\b|show_schedule|apply_patch/, line);
  assert.equal(await f.locator('[data-bar]').count(), 0, 'no chart in the compact line');
  await f.locator('.pp-compact [data-act=expand]').click();
  await waitBars(view);
  assertClean(host);
});

test('(a) the recorders catch a CSP violation in a sandbox frame', async () => {
  const host = await ctx.host();
  const view = await host.mount({ tool: 'show_schedule', args: { schedule: 1 }, profile: 'strict' });
  await view.waitMounted();
  // The listener is in the view's frame too.
  assert.equal(await view.frame().evaluate(() => typeof window.__e2eCsp), 'function');
  await host.page.evaluate((id) => window.e2e.send(id, { jsonrpc: '2.0', method: 'e2e/probe' }), view.id);
  await waitFor(() => host.violations.length > 0, { what: 'the probe violation' });
  assert.ok(host.violations.some((v) => v.directive === 'img-src' || /img-src/.test(v.console || '')), JSON.stringify(host.violations));
});
