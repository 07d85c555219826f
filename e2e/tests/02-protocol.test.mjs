// Acceptance (b): every MCP Apps message is played between the official AppBridge and
// the view, under both CSPs: initialize, initialized, tool-input, tool-result,
// tool-cancelled, host-context-changed (theme and locale, live), size-changed,
// resource-teardown, ping, open-link (Help), message (Ask), request-display-mode (Full
// screen), update-model-context (after a selection) and tools/call.
import { test } from 'node:test';
import { setup, assert, assertClean, waitBars, waitFor, PROFILES } from './fixture.mjs';

const ctx = setup();
const methods = (log, dir) => log.filter((e) => e.dir === dir && e.msg?.method).map((e) => e.msg.method);

for (const profile of PROFILES) {
  test(`(b) ${profile}: every protocol message is played`, async (t) => {
    const host = await ctx.host();
    const view = await host.mount({ tool: 'show_schedule', args: { schedule: 1 }, profile });
    await waitBars(view);
    const f = () => view.frame();

    await t.test('initialize, initialized, tool-input, tool-result, size-changed, tools/call', async () => {
      const log = await view.log();
      const init = log.find((e) => e.dir === 'in' && e.msg.method === 'ui/initialize');
      assert.ok(init, 'ui/initialize');
      assert.equal(init.msg.params.protocolVersion, '2026-01-26');
      assert.ok(log.find((e) => e.dir === 'out' && e.msg.id === init.msg.id && e.msg.result?.hostInfo), 'initialize answered');
      const inMs = methods(log, 'in');
      const outMs = methods(log, 'out');
      assert.ok(inMs.includes('ui/notifications/initialized'));
      assert.ok(inMs.includes('ui/notifications/size-changed'));
      assert.ok(outMs.includes('ui/notifications/tool-input'));
      assert.ok(outMs.includes('ui/notifications/tool-result'));
      const calls = log.filter((e) => e.dir === 'in' && e.msg.method === 'tools/call').map((e) => e.msg.params.name);
      assert.ok(calls.includes('get_schedule_page'), calls.join());
      // The host sends nothing but the proxy's resource before initialize is answered.
      const initIdx = log.indexOf(init);
      const early = log.slice(0, initIdx).filter((e) => e.dir === 'out' && e.msg.method !== 'ui/notifications/sandbox-resource-ready');
      assert.deepEqual(early, []);
      // Every tools/call got an answer.
      for (const c of log.filter((e) => e.dir === 'in' && e.msg.method === 'tools/call')) {
        assert.ok(log.find((e) => e.dir === 'out' && e.msg.id === c.msg.id && (e.msg.result || e.msg.error)), `answer to ${c.msg.id}`);
      }
    });

    await t.test('update-model-context follows a selection', async () => {
      const bar = f().locator('[data-bar]').first();
      const id = await bar.getAttribute('data-bar');
      const label = (await bar.getAttribute('aria-label')).split(',')[0];
      await bar.click();
      await waitFor(async () => (await f().locator(`[data-bar="${id}"].sel`).count()) === 1, { what: 'the bar selected' });
      const mc = await waitFor(async () => {
        const s = await host.state();
        const last = s.modelContext.filter((m) => m.view === view.id).at(-1);
        return last && JSON.stringify(last).includes(id) && last;
      }, { what: 'update-model-context naming the bar' });
      assert.ok(JSON.stringify(mc).includes(label), `the label ${label} in ${JSON.stringify(mc)}`);
    });

    await t.test('message (Ask) about the selected bar', async () => {
      await f().locator('[data-act=ask]').click();
      const m = await waitFor(async () => (await host.state()).messages.at(-1), { what: 'ui/message' });
      assert.equal(m.role, 'user');
      assert.ok(Array.isArray(m.content) && m.content.some((c) => c.type === 'text' && c.text.length > 0), JSON.stringify(m));
    });

    await t.test('request-display-mode (Full screen), granted mode applied', async () => {
      await f().locator('[data-act=full]').click();
      const d = await waitFor(async () => (await host.state()).displayModes.at(-1), { what: 'ui/request-display-mode' });
      assert.equal(d.asked, 'fullscreen');
      assert.equal(await view.evalHost((id) => window.e2e.mode(id), view.id), 'fullscreen');
      const log = await view.log();
      assert.ok(log.some((e) => e.dir === 'out' && e.msg.method === 'ui/notifications/host-context-changed' && e.msg.params.displayMode === 'fullscreen'));
      // Back to inline through the same button.
      await f().locator('[data-act=full]').click();
      await waitFor(async () => (await host.state()).displayModes.at(-1).asked === 'inline', { what: 'back to inline' });
    });

    await t.test('host-context-changed: theme and locale switch live', async () => {
      const bg = () => f().evaluate(() => getComputedStyle(document.body).backgroundColor + '|' + getComputedStyle(document.documentElement).colorScheme + '|' + document.documentElement.className + '|' + document.body.className);
      const before = await bg();
      await view.setContext({ theme: 'dark' });
      await waitFor(async () => (await bg()) !== before, { what: `a dark look (was ${before})` });
      const fullEn = await f().locator('[data-act=full]').textContent();
      await view.setContext({ locale: 'fr-FR' });
      await waitFor(async () => (await f().locator('[data-act=full]').textContent()) !== fullEn, { what: 'French toolbar' });
      assert.match(await f().locator('[role=toolbar]').textContent(), /Plein écran|Demander/);
      await view.setContext({ theme: 'light', locale: 'en-US' });
      await waitFor(async () => (await bg()) === before, { what: 'light again' });
    });

    await t.test('open-link (Help)', async () => {
      await f().locator('[data-act=help]').click();
      await waitFor(async () => (await host.state()).links.length > 0, { what: 'ui/open-link' });
    });

    await t.test('ping and resource-teardown are answered by the view', async () => {
      assert.deepEqual(await view.evalHost((id) => window.e2e.ping(id), view.id), {});
      assert.deepEqual(await view.evalHost((id) => window.e2e.teardown(id), view.id), {});
    });

    await t.test('tool-cancelled before the result: no endless skeleton, nothing retried', async () => {
      const v2 = await host.mount({ tool: 'show_schedule', args: { schedule: 1 }, profile, cancel: 'before' });
      await v2.waitMounted();
      const log = () => v2.log();
      await waitFor(async () => (await log()).some((e) => e.msg.method === 'ui/notifications/tool-cancelled'), { what: 'tool-cancelled sent' });
      const said = await waitFor(async () => (await v2.frame().evaluate(() => document.querySelector('.pp')?.textContent ?? '')).trim(), { ms: 9000, what: 'the view saying the request stopped' }).catch(async (e) => {
        throw new Error(`${e.message}; the view holds: ${await v2.frame().evaluate(() => document.body.innerHTML.replace(/<script[\s\S]*?<\/script>/g, '').slice(0, 1500))}`);
      });
      assert.match(said, /stopped|nothing was changed/i);
      assert.equal(await v2.locator('.pp-skeleton[aria-busy=true]').count(), 0);
      const entries = await v2.log();
      assert.ok(!entries.some((e) => e.dir === "in" && e.msg.method === "tools/call" && e.msg.params.name === "show_schedule"), "nothing retried");
    });

    assertClean(host);
  });
}

test('(b) open-link: Help opens the server\'s help page, whose address the result carries in _meta', async () => {
  const host = await ctx.host();
  const view = await host.mount({ tool: 'show_schedule', args: { schedule: 1 }, profile: 'strict' });
  await waitBars(view);
  await view.locator('[data-act=help]').click();
  const l = await waitFor(async () => (await host.state()).links.at(-1), { what: 'ui/open-link' });
  // In the view's language, which the call passed to show_schedule.
  assert.match(l.url, new RegExp(`^${ctx.server.base}/help\\?lang=(fr|en)$`));
  // The page it names exists, speaks that language and loads nothing.
  const r = await fetch(l.url);
  assert.equal(r.status, 200);
  const page = await r.text();
  assert.match(page, l.url.endsWith('en') ? /Gestures and keys/ : /Gestes et touches/);
  assert.match(r.headers.get('content-security-policy') ?? '', /default-src 'none'/);
  assertClean(host);
});
