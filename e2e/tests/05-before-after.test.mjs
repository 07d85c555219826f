// Acceptance (e): what_if's before/after in the view under both CSPs: Accept applies
// the proposal through apply_patch at its rank; Accept after another write says "out of
// date" and writes nothing; Decline writes nothing; a proposal with changes not shown
// offers no Accept; diff_versions is read-only.
import { test } from 'node:test';
import { setup, assert, assertClean, waitFor, call, PROFILES, MODEL_ONLY } from './fixture.mjs';

const ctx = setup();

async function demo(name) {
  const made = await call(ctx.owner, 'create_schedule', { name, demo: true, lang: 'en' });
  return made.structured.schedule_id;
}
async function rank(sid) {
  return (await call(ctx.owner, 'get_schedule', { schedule: sid, lang: 'en' })).structured.rank;
}
async function proposal(host, sid, profile, commands = [{ op: 'move_periods', bars: [14], by: 5 }]) {
  const view = await host.mount({ tool: 'what_if', args: { schedule: sid, commands }, profile });
  await view.waitMounted();
  await view.waitFor('.pp-changes li');
  return view;
}
const text = (view) => view.frame().evaluate(() => document.body.innerText);

for (const profile of PROFILES) {
  test(`(e) ${profile}: what_if before/after: Accept, out-of-date Accept, Decline, changes not shown, diff_versions`, async (t) => {
    const host = await ctx.host();

    await t.test('Accept applies the proposal at its rank', async () => {
      const sid = await demo(`Accept ${profile}`);
      const view = await proposal(host, sid, profile);
      assert.ok((await view.locator('.pp-changes li').count()) >= 1);
      // The person reads what changes, not the model's instructions to accept it.
      const listed = await view.frame().evaluate(() => document.querySelector('.pp-changes').innerText);
      assert.doesNotMatch(listed, /apply_patch|expected_rank|structuredContent/, listed);
      // Items by their labels, without the ids the model acts with.
      assert.doesNotMatch(listed, MODEL_ONLY, listed);
      assert.ok((await view.locator('[data-bar]').count()) > 0, 'the before/after Gantt');
      const r0 = await rank(sid);
      await view.locator('[data-act=accept]').click();
      const c = await waitFor(async () => (await host.state()).appCalls.find((x) => x.view === view.id && x.name === 'apply_patch'), { what: 'apply_patch' });
      assert.equal(c.arguments.expected_rank, r0);
      assert.equal(c.arguments.schedule, sid);
      assert.deepEqual(c.arguments.commands.map((x) => x.op), ['move_periods']);
      await waitFor(async () => (await rank(sid)) === r0 + 1, { what: 'one write' });
      await waitFor(async () => (await view.locator('[data-act=accept]').count()) === 0, { what: 'no Accept once accepted' });
    });

    await t.test('Accept after another write: "out of date", nothing written', async () => {
      const sid = await demo(`Stale ${profile}`);
      const view = await proposal(host, sid, profile);
      await call(ctx.owner, 'move_periods', { schedule: sid, bars: [15], by: 1 });
      const r1 = await rank(sid);
      await view.locator('[data-act=accept]').click();
      await waitFor(async () => /out of date/i.test(await text(view)), { what: '"out of date" in the view' });
      assert.equal(await rank(sid), r1, 'nothing written');
    });

    await t.test('Decline writes nothing', async () => {
      const sid = await demo(`Decline ${profile}`);
      const view = await proposal(host, sid, profile);
      const r0 = await rank(sid);
      const before = await text(view);
      await view.locator('[data-act=decline]').click();
      await waitFor(async () => (await text(view)) !== before, { what: 'the view reacting to Decline' });
      assert.equal(await view.locator('[data-act=accept]').count(), 0);
      assert.ok(!(await host.state()).appCalls.some((x) => x.view === view.id && x.name === 'apply_patch'));
      assert.equal(await rank(sid), r0);
    });

    await t.test('changes not shown: no Accept, and they are listed', async () => {
      const sid = await demo(`Hidden ${profile}`);
      const view = await host.mount({ tool: 'what_if', args: { schedule: sid, commands: [{ op: 'move_periods', bars: [14], by: 2 }, { op: 'set_row_member', row: 10, member: null }] }, profile });
      await view.waitMounted();
      await waitFor(async () => (await view.locator('.pp-changes li').count()) > 0 || /not shown/i.test(await text(view)), { what: 'the change list' });
      assert.equal(await view.locator('[data-act=accept]').count(), 0);
      assert.match(await text(view), /not shown|member/i);
    });

    await t.test('diff_versions is read-only', async () => {
      const sid = await demo(`Diff ${profile}`);
      await call(ctx.owner, 'save_version', { schedule: sid, name: 'Baseline' });
      await call(ctx.owner, 'move_periods', { schedule: sid, bars: [14], by: 3 });
      const view = await host.mount({ tool: 'diff_versions', args: { schedule: sid, from: 'Baseline', to: 'current' }, profile });
      await view.waitMounted();
      await view.waitFor('.pp-changes li');
      assert.equal(await view.locator('[data-act=accept]').count(), 0);
      assert.equal(await view.locator('[data-act=decline]').count(), 0);
      const listed = await view.frame().evaluate(() => document.querySelector('.pp-changes').innerText);
      assert.match(listed, /Nettoyage des données/, listed);
      assert.doesNotMatch(listed, MODEL_ONLY, listed);
    });

    assertClean(host);
  });
}
