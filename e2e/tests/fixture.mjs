// Shared set-up of the e2e test files: one PalmaPlan server (fresh data folder, free
// port) and one Chromium per file, host pages opened on demand, and the assertions
// every scenario ends with (no CSP violation, no request from a view's frame).
import { before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Palmaplan, waitFor, call, pageRecords } from '../host/palmaplan.mjs';
import { launch, Host, PROFILES } from '../host/harness.mjs';

export { assert, waitFor, call, pageRecords, PROFILES };

// What the person's words leave to the model (the server's `text::ids_named` and its
// test kit's tools): an id after a kind's word ("bar 14", "Lien 22", "rang 3"), a tool.
export const MODEL_ONLY = /(?<![\p{L}\d])(bar|bloc|milestone|jalon|group|groupe|row|ligne|action|member|membre|link|lien|item|élément|rank|rang|command|commande) \d+|reschedule|apply_patch|expected_rank|move_periods/iu;

/** Registers before/after hooks; the returned object fills in once they ran. */
export function setup({ lang = 'en' } = {}) {
  const ctx = { hosts: [] };
  before(async () => {
    ctx.server = await Palmaplan.start({ lang });
    ctx.browser = await launch();
    ctx.owner = await ctx.server.client();
  });
  after(async () => {
    for (const h of ctx.hosts) await h.close().catch(() => {});
    await ctx.owner?.close().catch(() => {});
    await ctx.browser?.close().catch(() => {});
    await ctx.server?.stop();
  });
  /** A new host page (owner by default). */
  ctx.host = async (opts = {}) => {
    const h = await Host.open(ctx.browser, ctx.server, opts);
    ctx.hosts.push(h);
    return h;
  };
  return ctx;
}

/** The host saw no CSP violation and no view frame made a request. */
export function assertClean(host, what = '') {
  assert.deepEqual(host.violations, [], `CSP violations ${what}`);
  assert.deepEqual(host.viewRequests(), [], `requests from a view's frame ${what}`);
}

/** Waits until the view shows bars, and gives their count. */
export async function waitBars(view, ms = 10000) {
  await view.waitMounted(ms);
  await view.waitFor('[data-bar]', ms);
  return view.locator('[data-bar]').count();
}

/** The journal's entries after `since` (owner's view of history since a rank). */
export async function journal(client, schedule, since = 0) {
  const r = await call(client, 'history', { schedule, since_rank: since, lang: 'en' });
  return r;
}
