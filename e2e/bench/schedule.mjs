// The benchmarks' schedule of n bars: ten bars a row, a hundred rows a group, each bar
// linked to the next of its row (FS) and each row's first bar to the one of the row
// below it in its group (SS), under automatic scheduling. With `rows` (the render
// bench's BENCH_LINKS=rows), every bar is also linked to the bar in the same place of
// the row below (SS): most links then run between two rows, as in a plan whose teams
// hand work to each other.
export function schedule(n, { rows: between = false } = {}) {
  const perRow = 10;
  const rows = Math.max(1, Math.ceil(n / perRow));
  const groups = Math.max(1, Math.ceil(rows / 100));
  const s = { name: `Bench ${n}`, groups: [], rows: [], bars: [], next_id: 1 };
  let id = 1;
  const gids = [];
  for (let g = 0; g < groups; g++) { gids.push(id); s.groups.push({ id: id++, name: `Group ${g + 1}` }); }
  const day0 = Date.UTC(2026, 9, 1);
  const iso = (d) => new Date(day0 + d * 86400000).toISOString().slice(0, 10);
  let made = 0;
  for (let r = 0; r < rows && made < n; r++) {
    const rid = id++;
    s.rows.push({ id: rid, group: gids[Math.floor(r / 100)], name: `Row ${r + 1}` });
    for (let b = 0; b < perRow && made < n; b++, made++) {
      const start = (r % 30) + b * 7;
      // Half the bars have some progress: the fills are drawn as in a tracked plan.
      const progress = made % 2 ? 40 : 0;
      s.bars.push({ id: id++, row: rid, label: `Task ${made + 1}`, start: iso(start), end: iso(start + 3), ...(progress ? { progress } : {}) });
    }
  }
  // Links, and automatic scheduling, so that a drag previews a cascade: each bar
  // finishes before the next of its row starts (FS), and each row's first bar starts
  // no earlier than the first bar of the row above it in its group of 100 rows (SS), so
  // the first bar of a group has about 1,000 items downstream (issue 16: frame work
  // while dragging such a bar). FS and a zero lag are the defaults, left out: the
  // 100,000-bar import stays under the server's 16 MB request bound.
  s.links = [];
  const byRow = new Map();
  for (const b of s.bars) (byRow.get(b.row) ?? byRow.set(b.row, []).get(b.row)).push(b);
  const rowList = s.rows.map((r) => byRow.get(r.id) ?? []);
  for (let r = 0; r < rowList.length; r++) {
    const row = rowList[r];
    for (let b = 0; b + 1 < row.length; b++) s.links.push({ id: id++, from: row[b].id, to: row[b + 1].id });
    const next = rowList[r + 1];
    if (next?.length && row.length && Math.floor((r + 1) / 100) === Math.floor(r / 100)) {
      const k = between ? Math.min(row.length, next.length) : 1;
      for (let b = 0; b < k; b++) s.links.push({ id: id++, from: row[b].id, to: next[b].id, kind: 'SS' });
    }
  }
  s.settings = { time_zone: 'Europe/Paris', working_weekdays: ['mon', 'tue', 'wed', 'thu', 'fri'], holidays: [], time_unit: 'day', scheduling: 'auto' };
  s.next_id = id;
  return s;
}
