// Acceptance (c): negotiation through the MCP client (no browser): N model tools without
// the MCP Apps capability, N+4 with it, by each of the three routes (extensions and
// experimental at initialize, and the per-request _meta of protocol 2026-07-28);
// show_schedule gives a link only without it. And the host page's own client, which
// announces the capability, hides the view-only tools from the model side.
import { test } from 'node:test';
import { setup, assert, call } from './fixture.mjs';
import { UI_EXT, UI_CAP } from '../host/palmaplan.mjs';

const ctx = setup();
const VIEW_ONLY = ['get_changes_since', 'get_schedule_absences', 'get_schedule_page', 'get_view_code'];
const PER_REQUEST = { 'io.modelcontextprotocol/clientCapabilities': { extensions: { [UI_EXT]: UI_CAP } } };

async function tools(client, meta) {
  const r = meta ? await client.listTools({ _meta: meta }) : await client.listTools();
  return r.tools;
}

test('(c) without the capability: the model tools only, and show_schedule has an /embed link', async () => {
  const plain = await ctx.server.client();
  const list = await tools(plain);
  assert.ok(list.length > 50, `${list.length} tools`);
  for (const t of list) assert.equal(t._meta, undefined, `${t.name} has no _meta`);
  for (const name of VIEW_ONLY) assert.ok(!list.some((t) => t.name === name), name);
  const r = await call(plain, 'show_schedule', { schedule: 1, lang: 'en' });
  assert.match(r.structured.url, /^http:\/\/127\.0\.0\.1:\d+\/embed\/1\?t=/);
  assert.ok(r.text.includes(r.structured.url), 'the text carries the link');
  ctx.n = list.length;
  await plain.close();
});

for (const route of ['extensions', 'experimental', 'per-request _meta']) {
  test(`(c) with the capability by ${route}: N+4 tools, the view-only ones app-only, no link`, async () => {
    const client = route.includes('_meta') ? await ctx.server.client() : await ctx.server.client({ apps: route });
    const meta = route.includes('_meta') ? PER_REQUEST : undefined;
    const list = await tools(client, meta);
    assert.equal(list.length, ctx.n + VIEW_ONLY.length);
    for (const name of VIEW_ONLY) {
      const t = list.find((x) => x.name === name);
      assert.deepEqual(t?._meta?.ui?.visibility, ['app'], name);
    }
    for (const name of ['show_schedule', 'what_if', 'diff_versions']) {
      const t = list.find((x) => x.name === name);
      assert.match(t._meta.ui.resourceUri, /^ui:\/\/palmaplan\/planning\?v=[0-9a-f]{16}$/);
      assert.equal(t._meta['ui/resourceUri'], t._meta.ui.resourceUri);
    }
    const raw = await client.callTool({ name: 'show_schedule', arguments: { schedule: 1, lang: 'en' }, ...(meta ? { _meta: meta } : {}) });
    assert.equal(raw.structuredContent.url, null);
    const text = raw.content.map((c) => c.text).join('\n');
    assert.ok(!/\/embed\/|\?t=|ppt_/.test(text), `no link nor token: ${text}`);
    await client.close();
  });
}

test('(c) the host hides view-only tools from the model side; the server still answers them under rights', async () => {
  const host = await ctx.host();
  assert.equal(host.tools.length, ctx.n + VIEW_ONLY.length);
  for (const name of VIEW_ONLY) {
    const r = await host.callAsModel(name, { schedule: 1, page: 0 });
    assert.deepEqual(r, { refusedByHost: true }, name);
  }
  // Visibility is no permission boundary: a plain client calling it directly gets an answer.
  const plain = await ctx.server.client();
  const r = await call(plain, 'get_schedule_page', { schedule: 1, page: 0 });
  assert.equal(r.isError, false, r.text);
  await plain.close();
  const m = await host.callAsModel('list_schedules', {});
  assert.ok(!m.isError && m.content.length > 0);
});
