// Issue 21 item 8: WebAssembly where the host allows it, its JavaScript translation
// elsewhere, chosen without a refused compile. Under the strict profile (the spec's
// default CSP) the view asks the server for the translation (get_view_code, in parts)
// after one handshake; under the permissive one, whose host says it allows
// 'wasm-unsafe-eval' (hostCapabilities.sandbox.csp.wasmUnsafeEval), it runs the
// module the page carries, asking for nothing. A host that says so wrongly costs one
// refused compile, then the translation; a page from another build is refused the code
// and offers Reload. The server's own pages run WebAssembly
// (their CSP allows it): checked in 09-embed.
import { test } from 'node:test';
import { setup, assert, assertClean, waitBars, waitFor } from './fixture.mjs';

const ctx = setup();

const codeCalls = (host, id) => host.page.evaluate((v) => window.e2e.state.appCalls.filter((c) => c.view === v && c.name === 'get_view_code'), id);

test('strict: the translation comes through get_view_code after one handshake, clean', async () => {
  const host = await ctx.host();
  const view = await host.mount({ tool: 'show_schedule', args: { schedule: 1 }, profile: 'strict' });
  const pp = await view.waitMounted();
  assert.equal(pp.path, 'wasm2js');
  assert.equal(await waitBars(view), 6);
  const calls = await codeCalls(host, view.id);
  const parts = Number(await view.frame().locator('meta[name=palmaplan-translation]').getAttribute('data-parts'));
  assert.ok(parts >= 2, `parts ${parts}`);
  assert.deepEqual(calls.map((c) => c.arguments.part).sort((a, b) => a - b), [...Array(parts).keys()]);
  const log = await view.log();
  const fromView = log.filter((e) => e.dir === 'in' && e.msg.method);
  assert.equal(fromView.filter((e) => e.msg.method === 'ui/initialize').length, 1, 'one handshake');
  assert.equal(fromView.filter((e) => e.msg.method === 'ui/notifications/initialized').length, 1);
  const order = fromView.map((e) => e.msg.method);
  assert.ok(order.indexOf('ui/initialize') < order.indexOf('ui/notifications/initialized'));
  const firstCode = fromView.findIndex((e) => e.msg.params?.name === 'get_view_code');
  assert.ok(order.indexOf('ui/notifications/initialized') < firstCode, order.join(', '));
  // The view works after the translation arrived: a gesture-free read of the details.
  assert.ok((await view.frame().locator('[role=toolbar]').count()) === 1);
  assertClean(host);
});

test('permissive: WebAssembly from the page, no code asked for, clean', async () => {
  const host = await ctx.host();
  const view = await host.mount({ tool: 'show_schedule', args: { schedule: 1 }, profile: 'permissive' });
  const pp = await view.waitMounted();
  assert.equal(pp.path, 'wasm');
  assert.equal(await waitBars(view), 6);
  assert.deepEqual(await codeCalls(host, view.id), []);
  assertClean(host);
});

test('a host that says it allows WebAssembly but refuses it: one refused compile, then the translation', async () => {
  const host = await ctx.host();
  const view = await host.mount({ tool: 'show_schedule', args: { schedule: 1 }, profile: 'strict', saysWasm: true });
  const pp = await view.waitMounted();
  assert.equal(pp.path, 'wasm2js');
  assert.equal(await waitBars(view), 6);
  const refused = await view.frame().evaluate(() => window.__pp.wasmRefused);
  assert.ok(refused, 'the refused compile is kept');
  await waitFor(() => host.violations.length > 0, { what: 'the refusal reported' });
  assert.deepEqual(host.violations.map((v) => v.blockedURI), ['wasm-eval']);
  assert.ok((await codeCalls(host, view.id)).length > 0);
});

test('a page of another build gets no code: the reason, and Reload', async () => {
  const host = await ctx.host();
  const view = await host.mount({
    tool: 'show_schedule',
    args: { schedule: 1 },
    profile: 'strict',
    editHtml: [/(name="palmaplan-translation" content=")[0-9a-f]{16}/, '$10123456789abcdef'],
  });
  await view.waitFor('[data-act=reload]');
  const text = await view.frame().locator('#pp-boot').innerText();
  assert.match(text, /could not start|n'a pas pu démarrer/, text);
  // The server's reason is shown to the person.
  assert.match(text, /another version of the server|autre version du serveur/, text);
  assert.equal(await view.frame().locator('[data-bar]').count(), 0);
  assertClean(host);
});
