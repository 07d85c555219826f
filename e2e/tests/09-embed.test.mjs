// Acceptance (i): a text-only client's show_schedule gives a text that stands on its
// own and an /embed link that works in the browser, read-only (no undo/redo, arrows
// write nothing, only its own origin contacted, no CSP violation), and an expired or a
// tampered link shows the error page. The expired link is signed here with the data
// folder's embed.key (HMAC-SHA256 over "palmaplan-embed-v1." + payload), after checking
// that this signing reproduces the server's own signature on a real link. On an
// editable link, a kanban card moved from the keyboard keeps the focus (the page's own
// backend, not a host's bridge, writes and draws the board again).
import { test } from 'node:test';
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setup, assert, waitFor, call } from './fixture.mjs';

const ctx = setup();
const b64url = (b) => Buffer.from(b).toString('base64url');

function sign(dataDir, payload) {
  const key = readFileSync(join(dataDir, 'embed.key'));
  return b64url(createHmac('sha256', key).update('palmaplan-embed-v1.').update(payload).digest());
}

async function openPage(url, { noWasm = false } = {}) {
  const context = await ctx.browser.newContext({ viewport: { width: 1280, height: 800 } });
  // A browser that refuses WebAssembly (Safari's Lockdown Mode, a policy).
  if (noWasm) await context.addInitScript(() => { WebAssembly.instantiate = () => Promise.reject(new Error('WebAssembly is disabled')); });
  const page = await context.newPage();
  const seen = { requests: [], violations: [] };
  page.on('request', (r) => seen.requests.push(r.url()));
  page.on('console', (m) => /Content Security Policy|Refused to/i.test(m.text()) && seen.violations.push(m.text()));
  const response = await page.goto(url);
  return { context, page, response, seen };
}

test('(i) the /embed link of a text-only client opens read-only in the browser', async () => {
  const plain = await ctx.server.client();
  const r = await call(plain, 'show_schedule', { schedule: 1, lang: 'en' });
  await plain.close();
  assert.match(r.text, /S\/4HANA Migration/);
  assert.match(r.text, /read-only/i);
  assert.equal(r.structured.read_only, true);
  const rank0 = r.structured.rank;
  const { context, page, response, seen } = await openPage(r.structured.url);
  assert.equal(response.status(), 200);
  assert.match(response.headers()['content-security-policy'], /connect-src 'self'/);
  await waitFor(async () => (await page.locator('[data-bar]').count()) > 0, { what: 'bars on /embed' });
  // The server's CSP allows WebAssembly: the page runs the module it carries.
  assert.equal(await page.evaluate(() => window.__pp.path), 'wasm');
  assert.match(response.headers()['content-security-policy'], /'wasm-unsafe-eval'/);
  assert.equal(await page.locator('[data-act=undo]').count(), 0);
  assert.equal(await page.locator('[data-act=redo]').count(), 0);
  const grid = page.locator('.pp-scroll[role=grid]');
  await grid.focus();
  await grid.press('ArrowDown');
  await grid.press('ArrowRight');
  await page.evaluate(() => new Promise((res) => setTimeout(res, 500)));
  const now = (await call(ctx.owner, 'get_schedule', { schedule: 1, lang: 'en' })).structured.rank;
  assert.equal(now, rank0, 'nothing written');
  const origin = new URL(r.structured.url).origin;
  assert.deepEqual(seen.requests.filter((u) => !u.startsWith(origin)), []);
  assert.deepEqual(seen.violations, []);
  await context.close();
});

test('(i) a browser that refuses WebAssembly runs the translation, read from the same origin', async () => {
  const plain = await ctx.server.client();
  const r = await call(plain, 'show_schedule', { schedule: 1, lang: 'en' });
  await plain.close();
  const { context, page, seen } = await openPage(r.structured.url, { noWasm: true });
  await waitFor(async () => (await page.locator('[data-bar]').count()) > 0, { what: 'bars on /embed without WebAssembly' });
  assert.equal(await page.evaluate(() => window.__pp.path), 'wasm2js');
  const origin = new URL(r.structured.url).origin;
  const build = await page.evaluate(() => document.querySelector('meta[name="palmaplan-translation"]').content);
  assert.ok(seen.requests.includes(`${origin}/view/translation/${build}`), seen.requests.join('\n'));
  assert.deepEqual(seen.requests.filter((u) => !u.startsWith(origin)), []);
  assert.deepEqual(seen.violations, []);
  // Another build's translation is refused with the reason.
  const other = await page.evaluate(async () => { const x = new XMLHttpRequest(); x.open('GET', '/view/translation/0000000000000000', false); x.send(); return [x.status, x.responseText]; });
  assert.equal(other[0], 404);
  assert.match(other[1], /not 0000000000000000: reload the page|pas 0000000000000000/);
  await context.close();
});

test('(i) a tampered link and an expired link show the error page', async () => {
  const plain = await ctx.server.client();
  const url = (await call(plain, 'show_schedule', { schedule: 1, lang: 'en' })).structured.url;
  await plain.close();
  const token = new URL(url).searchParams.get('t');
  const [payload, signature] = token.split('.');
  assert.equal(sign(ctx.server.dataDir, payload), signature, 'the test signs as the server does');

  // Tampered: the role raised in the payload, the old signature kept.
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
  const raised = b64url(JSON.stringify({ ...claims, r: 'owner', e: true }));
  const tampered = url.replace(token, `${raised}.${signature}`);
  {
    const { context, page, response, seen } = await openPage(tampered);
    assert.equal(response.status(), 401);
    assert.equal(await page.locator('[data-bar]').count(), 0);
    assert.ok((await page.locator('body').innerText()).trim().length > 0, 'the page says why');
    assert.deepEqual(seen.requests.filter((u) => u !== tampered), []);
    await context.close();
  }
  // Expired: a well-signed link whose hour is over.
  const past = Date.now() - 2 * 3600 * 1000;
  const oldPayload = b64url(JSON.stringify({ ...claims, iat: past, exp: past + 3600 * 1000 }));
  const expired = url.replace(token, `${oldPayload}.${sign(ctx.server.dataDir, oldPayload)}`);
  {
    const { context, page, response } = await openPage(expired);
    assert.equal(response.status(), 401);
    assert.match(await page.locator('body').innerText(), /expired|expiré/i);
    assert.equal(await page.locator('[data-bar]').count(), 0);
    await context.close();
  }
});

test('(i) on an editable /embed link, a kanban card moved from the keyboard keeps the focus, in its new column', async () => {
  const made = await call(ctx.owner, 'create_schedule', { name: 'Kanban on embed', demo: true, lang: 'en' });
  const sid = made.structured.schedule_id;
  assert.ok(sid, made.text);
  const plain = await ctx.server.client();
  const r = await call(plain, 'show_schedule', { schedule: sid, view: 'kanban', editable: true, lang: 'en' });
  await plain.close();
  assert.equal(r.structured.read_only, false, r.text);
  const status = async (action) => (await call(ctx.owner, 'list_actions', { schedule: sid })).structured.actions.find((a) => a.id === action)?.status;
  const { context, page, seen } = await openPage(r.structured.url);
  const first = page.locator('.pp-col').first().locator('[data-act=status][data-dir=next]').first();
  await waitFor(async () => (await first.count()) === 1, { what: 'a card to do, with its → button, on /embed' });
  const action = Number(await first.getAttribute('data-action'));
  // Where the focus is: the card's action, the button's way, the column's status.
  const focus = () => page.evaluate(() => {
    const e = document.activeElement;
    const col = e?.closest('.pp-col');
    return e && col ? `${e.getAttribute('data-action')} ${e.getAttribute('data-dir')} ${col.getAttribute('data-status')}` : `${e?.tagName}`;
  });
  await page.locator(`[data-act=status][data-action="${action}"][data-dir=next]`).focus();
  await page.keyboard.press('Enter');
  await waitFor(async () => (await status(action)) === 'in_progress', { what: 'the action in progress on the server' });
  let was = '';
  await waitFor(async () => (was = await focus()) === `${action} next in_progress`, { what: 'the focus on the moved card' }).catch((e) => {
    throw new Error(`${e.message}: the focus on ${was}`);
  });
  await page.keyboard.press('Enter');
  await waitFor(async () => (await status(action)) === 'done', { what: 'the action done on the server' });
  await waitFor(async () => (was = await focus()) === `${action} prev done`, { what: 'the focus on the done card\'s ← button' }).catch((e) => {
    throw new Error(`${e.message}: the focus on ${was}`);
  });
  const origin = new URL(r.structured.url).origin;
  assert.deepEqual(seen.requests.filter((u) => !u.startsWith(origin)), []);
  assert.deepEqual(seen.violations, []);
  await context.close();
});
