// Issue 17 §1 in a real browser: "today" for a schedule is the date in ITS time zone,
// in the view as on the server. At any instant Pacific/Kiritimati (UTC+14) and
// Pacific/Pago_Pago (UTC-11) are on different days, so two identical schedules in
// those zones draw their today line one or two days apart. A zone the database does
// not know is refused with the closest names.
import { test } from 'node:test';
import { setup, assert, assertClean, waitBars, waitFor, call, PROFILES } from './fixture.mjs';

const ctx = setup();

const iso = (ms) => new Date(ms).toISOString().slice(0, 10);
// One bar from 20 days before to 20 days after the real today, in a zone.
function schedule(zone) {
  const now = Date.now();
  return {
    name: `Zone ${zone}`,
    settings: { time_zone: zone, working_weekdays: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'], holidays: [], time_unit: 'day' },
    groups: [{ id: 1, name: 'G' }],
    rows: [{ id: 2, group: 1, name: 'R' }],
    bars: [{ id: 3, row: 2, label: 'Around today', start: iso(now - 20 * 86400000), end: iso(now + 20 * 86400000) }],
    next_id: 4,
  };
}

async function todayOffset(host, sid, profile) {
  const view = await host.mount({ tool: 'show_schedule', args: { schedule: sid, zoom: 'day' }, profile });
  await waitBars(view);
  const f = view.frame();
  await waitFor(async () => (await f.locator('.pp-today').count()) === 1, { what: 'the today line' });
  // The today line's place from the bar's start, in pixels: the same bar, the same
  // zoom, so only "today" differs between the two schedules.
  return f.evaluate(() => document.querySelector('.pp-today').getBoundingClientRect().left - document.querySelector('[data-bar="3"]').getBoundingClientRect().left);
}

for (const profile of PROFILES) {
  test(`(zones) ${profile}: today is the date in the schedule's zone, in the view`, async () => {
    const east = await call(ctx.owner, 'import_schedule', { name: `East ${profile}`, json: schedule('Pacific/Kiritimati') });
    const west = await call(ctx.owner, 'import_schedule', { name: `West ${profile}`, json: schedule('Pacific/Pago_Pago') });
    assert.ok(east.structured?.schedule_id && west.structured?.schedule_id, `${east.text} ${west.text}`);
    const host = await ctx.host();
    const e = await todayOffset(host, east.structured.schedule_id, profile);
    const w = await todayOffset(host, west.structured.schedule_id, profile);
    assert.ok(e > w + 5, `Kiritimati's today is later than Pago Pago's: ${e} px against ${w} px from the bar's start`);
    assertClean(host);
  });
}

test('(zones) a zone the database does not know is refused with the closest names', async () => {
  const r = await call(ctx.owner, 'import_schedule', { name: 'Nowhere', json: schedule('Mars/Olympus') });
  assert.ok(r.isError, r.text);
  assert.match(r.text, /is not a time zone of the IANA database/);
  const made = await call(ctx.owner, 'create_schedule', { name: 'Zones' });
  const u = await call(ctx.owner, 'update_settings', { schedule: made.structured.schedule_id, time_zone: 'Europe/Pari' });
  assert.ok(u.isError, u.text);
  assert.match(u.text, /“Europe\/Paris”/);
});
