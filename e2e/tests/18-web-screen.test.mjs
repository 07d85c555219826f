// The web screen in a browser (server/src/web.rs, server/src/live.rs, view-wasm/src/live.rs):
// a person signs in on the sign-in page, sees their schedules at /app, opens one full
// page in the same view as the conversation's (under the session: no link token), and a write made by an MCP client (the
// TypeScript SDK) shows there within a second without reload — pushed by the event
// stream, not found by polling — while a gesture on the screen reaches the MCP client's
// next read. Then, on Settings › Connections and agents › Connected applications, a
// named token is revoked and its next MCP request gets 401.
import { test } from 'node:test';
import { execFileSync } from 'node:child_process';
import { setup, assert, waitFor, call } from './fixture.mjs';

const ctx = setup();
const PASSWORD = 'a long passphrase for the web screen';
const label = (p, id) => p.locator(`[data-bar="${id}"]`).getAttribute('aria-label');

async function signedInPage() {
  execFileSync(ctx.server.bin, ['user', 'set-password', '--email', 'owner@localhost', '--data-dir', ctx.server.dataDir],
    { input: `${PASSWORD}\n`, encoding: 'utf8' });
  const context = await ctx.browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'fr-FR' });
  const page = await context.newPage();
  const seen = { requests: [], calls: [], violations: [] };
  page.on('request', (r) => {
    seen.requests.push(r.url());
    if (r.url().endsWith('/call') && r.method() === 'POST') {
      try { seen.calls.push(JSON.parse(r.postData()).tool); } catch { /* not a tool call */ }
    }
  });
  page.on('console', (m) => /Content Security Policy|Refused to/i.test(m.text()) && seen.violations.push(m.text()));
  await page.goto(`${ctx.server.base}/app`);
  assert.match(new URL(page.url()).pathname, /^\/oauth\/signin$/, 'unsigned: the sign-in page');
  await page.fill('#email', 'owner@localhost');
  await page.fill('#password', PASSWORD);
  await page.click('button[type=submit]');
  await page.waitForURL(`${ctx.server.base}/app`);
  return { context, page, seen };
}

test('a write over MCP shows on the web screen within a second, and a gesture there reaches MCP', async () => {
  const made = await call(ctx.owner, 'create_schedule', { name: 'Écran web', demo: true, lang: 'en' });
  const sid = made.structured.schedule_id;
  assert.ok(sid, made.text);
  const { context, page, seen } = await signedInPage();
  assert.match(await page.locator('h1').innerText(), /Mes plannings/);
  assert.equal(await page.locator(`a[href="/app/schedules/${sid}"]`).innerText(), 'Écran web');
  await page.click(`a[href="/app/schedules/${sid}"]`);
  // The page stays the screen's own address: the view runs under the session, no
  // token in any address.
  await page.waitForURL(`${ctx.server.base}/app/schedules/${sid}`);
  await waitFor(async () => (await page.locator('[data-bar]').count()) > 0, { what: 'bars on the screen' });
  await waitFor(() => seen.requests.some((u) => u.endsWith(`/app/schedules/${sid}/events`)), { what: 'the event stream opened' });
  assert.deepEqual(seen.requests.filter((u) => u.includes('?t=') || u.includes('/embed/')), [], 'no link token anywhere');
  // The owner acts as owner there (a link caps them at editor).
  const shown = await page.evaluate(async (sid) => {
    const csrf = document.querySelector('meta[name=palmaplan-mode]').dataset.csrf;
    const r = await fetch(`/app/schedules/${sid}/call`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-PalmaPlan-CSRF': csrf }, body: JSON.stringify({ tool: 'show_schedule', arguments: {} }) });
    return r.json();
  }, sid);
  assert.ok(!shown.isError, JSON.stringify(shown));
  assert.match(shown.content[0].text, /rôle propriétaire/);
  // Pushed, not polled: no read of the journal while nothing changes (a poll would
  // come after 2 s).
  await page.waitForTimeout(2500);
  assert.deepEqual(seen.calls.filter((t) => t === 'get_changes_since'), [], 'no polling on the full page');

  const id = await page.locator('[data-bar]').first().getAttribute('data-bar');
  const before = await label(page, id);
  const w = await call(ctx.owner, 'move_periods', { schedule: sid, bars: [Number(id)], by: 5, lang: 'en' });
  assert.ok(!w.isError, w.text);
  const written = Date.now();
  await waitFor(async () => (await label(page, id)) !== before, { ms: 1000, every: 20, what: 'the MCP write on the screen within 1 s' });
  assert.ok(Date.now() - written < 1000);
  assert.equal(seen.calls.filter((t) => t === 'get_changes_since').length, 1, 'one read, after the push');
  assert.equal(seen.calls.filter((t) => t === 'get_schedule_page').length, 1, 'no page read again');

  // The other way: a gesture on the screen, in the MCP client's next read.
  const rank0 = (await call(ctx.owner, 'get_schedule', { schedule: sid, lang: 'en' })).structured.rank;
  const grid = page.locator('.pp-scroll[role=grid]');
  await grid.focus();
  await grid.press('ArrowDown');
  await waitFor(async () => (await page.locator('[data-bar].sel').count()) === 1, { what: 'a bar selected' });
  const sel = await page.locator('[data-bar].sel').getAttribute('data-bar');
  const selBefore = await label(page, sel);
  await grid.press('ArrowRight');
  await waitFor(async () => (await label(page, sel)) !== selBefore, { what: 'the bar moved on the screen' });
  await waitFor(async () => (await call(ctx.owner, 'get_schedule', { schedule: sid, lang: 'en' })).structured.rank > rank0,
    { what: 'the gesture in the journal' });
  const h = await call(ctx.owner, 'history', { schedule: sid, since_rank: rank0, lang: 'en' });
  assert.match(h.text, /move_periods/);

  const origin = ctx.server.base;
  assert.deepEqual(seen.requests.filter((u) => !u.startsWith(origin)), [], 'only its own origin');
  assert.deepEqual(seen.violations, []);
  // And back to the list.
  await page.click('a.pp-back[href="/app"]');
  await page.waitForURL(`${ctx.server.base}/app`);
  assert.match(await page.locator('h1').innerText(), /Mes plannings/);
  await context.close();
});

test('a named token revoked on Connected applications gets 401 at its next MCP request', async () => {
  const secret = ctx.server.newToken('owner@localhost', { label: 'à révoquer' });
  const client = await ctx.server.client({ token: secret });
  assert.ok(!(await call(client, 'list_schedules', { lang: 'en' })).isError);
  const { context, page, seen } = await signedInPage();
  await page.click('a[href="/app/settings/connections"]');
  assert.match(await page.locator('h1').innerText(), /Réglages › Connexions et agents › Applications connectées/);
  const row = page.locator('tr', { has: page.locator('td', { hasText: /^à révoquer$/ }) });
  assert.equal(await row.count(), 1);
  await row.locator('button').click();
  await page.waitForURL(`${ctx.server.base}/app/settings/connections`);
  assert.equal(await page.locator('td', { hasText: /^à révoquer$/ }).count(), 0, 'no longer listed');
  const r = await fetch(ctx.server.url, {
    method: 'POST',
    headers: { Authorization: `Bearer ${secret}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'e2e', version: '0' } } }),
  });
  assert.equal(r.status, 401);
  await assert.rejects(client.callTool({ name: 'list_schedules', arguments: {} }), 'its open session is refused too');
  await client.close().catch(() => {});
  assert.deepEqual(seen.violations, []);
  await context.close();
});
