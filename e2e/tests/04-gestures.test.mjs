// Acceptance (d): a keyboard gesture in the MCP view (select, ArrowRight) calls
// move_periods through the host, the journal has it, an open /embed page sees it, and
// a gesture on the /embed page is seen by the MCP view; the model context follows the
// selection, and "move this bar by a week" from the model side moves that bar, which
// the view learns as a delta (get_changes_since with records), reading no page again.
import { test } from 'node:test';
import { setup, assert, assertClean, waitBars, waitFor, call, PROFILES } from './fixture.mjs';

const ctx = setup();
const label = (f, id) => f.locator(`[data-bar="${id}"]`).getAttribute('aria-label');

for (const profile of PROFILES) {
  test(`(d) ${profile}: select + ArrowRight moves the bar through move_periods; /embed and MCP view see each other`, async () => {
    // A fresh copy of the demo per profile, so ranks and dates start alike.
    const made = await call(ctx.owner, 'create_schedule', { name: `Gestures ${profile}`, demo: true, lang: 'en' });
    const sid = made.structured.schedule_id;
    assert.ok(sid, made.text);
    // The /embed page, open before the gesture (an editable link from a plain client).
    const link = (await call(ctx.owner, 'show_schedule', { schedule: sid, editable: true, lang: 'en' })).structured.url;
    const embedCtx = await ctx.browser.newContext({ viewport: { width: 1280, height: 800 } });
    const embedReqs = [];
    const embed = await embedCtx.newPage();
    embed.on('request', (r) => embedReqs.push(r.url()));
    await embed.goto(link);
    await waitFor(async () => (await embed.locator('[data-bar]').count()) > 0, { what: 'bars on /embed' });

    const host = await ctx.host();
    const view = await host.mount({ tool: 'show_schedule', args: { schedule: sid }, profile });
    await waitBars(view);
    const f = view.frame();
    await f.locator('.pp-scroll[role=grid]').focus();
    await f.locator('.pp-scroll[role=grid]').press('ArrowDown');
    const sel = await view.waitFor('[data-bar].sel');
    const id = await sel.getAttribute('data-bar');
    const before = await label(f, id);
    const embedBefore = await label(embed, id);
    assert.equal(embedBefore, before, 'both show the same dates');
    await f.locator('.pp-scroll[role=grid]').press('ArrowRight');
    const callMade = await waitFor(async () => (await host.state()).appCalls.find((c) => c.name === 'move_periods'), { what: 'move_periods called' });
    assert.deepEqual(callMade.arguments.bars.map(String), [id]);
    assert.equal(callMade.arguments.by, 1);
    // The host is en-US: the view asks the tools for English, as its chrome is.
    assert.equal(callMade.arguments.lang, 'en', 'the view passes its language to the tools');
    await waitFor(async () => (await label(f, id)) !== before, { what: 'the bar moved in the MCP view' });
    const j = await call(ctx.owner, 'history', { schedule: sid, since_rank: 0, lang: 'en' });
    assert.match(j.text, /move_periods/);
    // The /embed page catches up by polling (2 s at first).
    const after = await label(f, id);
    await waitFor(async () => (await label(embed, id)) === after, { ms: 20000, what: `/embed showing ${after}` });

    // Model context follows the selection; the model moves "this bar" by a week.
    const mc = await waitFor(async () => (await view.evalHost((v) => window.e2e.modelContext(v), view.id)), { what: 'a model context' });
    assert.ok(JSON.stringify(mc).includes(id), JSON.stringify(mc));
    // Live updates come as a delta (the touched records), not by reading the pages again.
    const pages = async () => (await host.state()).appCalls.filter((c) => c.name === 'get_schedule_page').length;
    const pagesBefore = await pages();
    const r = await host.callAsModel('move_periods', { schedule: sid, bars: [Number(id)], by: 5 });
    assert.ok(!r.isError, JSON.stringify(r));
    await waitFor(async () => (await label(f, id)) !== after, { ms: 20000, what: 'the MCP view showing the model\'s move' });
    assert.equal(await pages(), pagesBefore, 'no page read for a live update');
    const polls = (await host.state()).appCalls.filter((c) => c.name === 'get_changes_since');
    assert.ok(polls.length > 0 && polls.every((c) => c.arguments.records === true), JSON.stringify(polls.slice(0, 2)));

    // The other way: a gesture on /embed, seen by the MCP view.
    const shown = await label(f, id);
    await waitFor(async () => (await label(embed, id)) === shown, { ms: 20000, what: '/embed showing the model\'s move' });
    const grid = embed.locator('.pp-scroll[role=grid]');
    await grid.focus();
    await grid.press('ArrowDown');
    await waitFor(async () => (await embed.locator('[data-bar].sel').count()) === 1, { what: 'a bar selected on /embed' });
    const eid = await embed.locator('[data-bar].sel').getAttribute('data-bar');
    const eBefore = await label(embed, eid);
    await grid.press('ArrowLeft');
    await waitFor(async () => (await label(embed, eid)) !== eBefore, { what: 'the bar moved on /embed' });
    const eAfter = await label(embed, eid);
    await waitFor(async () => (await label(f, eid)) === eAfter, { ms: 20000, what: `the MCP view showing ${eAfter}` });
    const origin = new URL(link).origin;
    assert.deepEqual(embedReqs.filter((u) => !u.startsWith(origin)), [], '/embed requests only its own origin');
    await embedCtx.close();
    assertClean(host);
  });
}
