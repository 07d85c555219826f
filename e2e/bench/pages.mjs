// Pages benchmark (a script, not a test): how long after show_schedule's answer a view's
// page 0 comes, when the schedule was just written (its pages are not made yet). An
// MCP Apps client calls show_schedule and, as a host does on the tool's input, asks
// for page 0 at once; the script prints, per round, show_schedule's time, page 0's,
// and page 0's lag behind the answer (what the view waits for before it can draw),
// then the time of page 0 asked for alone after a write (making the pages, plus the
// round trip) and of page 1 (from the cache: the round trip alone). Medians of ROUNDS.
// Servers are named on the command line and measured in turn, round by round, so that
// two builds meet the same machine:
//   node bench/pages.mjs [bars] [name=path/to/palmaplan ...]   (default: 100000, $PALMAPLAN_BIN)
import { Palmaplan, call } from '../host/palmaplan.mjs';
import { schedule } from './schedule.mjs';

const args = process.argv.slice(2);
const bars = Number(args.find((a) => /^\d+$/.test(a)) ?? 100000);
const named = args.filter((a) => a.includes('=')).map((a) => a.split('='));
const builds = named.length ? named : [['server', process.env.PALMAPLAN_BIN ?? '']];
const ROUNDS = Number(process.env.ROUNDS ?? 7);
const median = (a) => { const s = [...a].sort((x, y) => x - y); return s[Math.floor(s.length / 2)]; };
const ms = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;

const servers = [];
try {
  for (const [name, bin] of builds) {
    if (bin) process.env.PALMAPLAN_BIN = bin;
    const server = await Palmaplan.start();
    const owner = await server.client();
    const apps = await server.client({ apps: 'extensions' });
    const json = schedule(bars);
    const imp = await call(owner, 'import_schedule', { name: `Bench ${bars}`, json });
    if (imp.isError) throw new Error(imp.text);
    const sid = imp.structured.schedule_id;
    servers.push({ name, server, owner, apps, sid, bar: json.bars[0].id, show: [], page0: [], lag: [], alone: [], cached: [] });
  }
  const write = async (s, round) => {
    const moved = await call(s.owner, 'move_periods', { schedule: s.sid, bars: [s.bar], by: round % 2 ? -1 : 1 });
    if (moved.isError) throw new Error(moved.text);
  };
  for (let round = 0; round < ROUNDS; round++) {
    for (const s of servers) {
      await write(s, round);
      const t0 = process.hrtime.bigint();
      let showMs = 0;
      let pageMs = 0;
      await Promise.all([
        call(s.apps, 'show_schedule', { schedule: s.sid }).then((r) => { if (r.isError) throw new Error(r.text); showMs = ms(t0); }),
        call(s.apps, 'get_schedule_page', { schedule: s.sid, page: 0 }).then((r) => { if (r.isError) throw new Error(r.text); pageMs = ms(t0); }),
      ]);
      s.show.push(showMs);
      s.page0.push(pageMs);
      s.lag.push(pageMs - showMs);
      await write(s, round + 1);
      let t = process.hrtime.bigint();
      const alone = await call(s.apps, 'get_schedule_page', { schedule: s.sid, page: 0 });
      if (alone.isError) throw new Error(alone.text);
      s.alone.push(ms(t));
      t = process.hrtime.bigint();
      const cached = await call(s.apps, 'get_schedule_page', { schedule: s.sid, page: 1 });
      if (cached.isError) throw new Error(cached.text);
      s.cached.push(ms(t));
    }
  }
  console.log(`\n${bars} bars, medians of ${ROUNDS} rounds (ms)`);
  console.log('build        show_schedule  page 0 beside it  page 0 after the answer  page 0 alone  page 1 (cached)');
  for (const s of servers) {
    const f = (a) => String(Math.round(median(a))).padStart(6);
    console.log(`${s.name.padEnd(12)} ${f(s.show)}         ${f(s.page0)}            ${f(s.lag)}               ${f(s.alone)}        ${f(s.cached)}`);
  }
} finally {
  for (const s of servers) await s.server.stop();
}
