// Issue 21 item 2: the marks read at a glance. With the critical path shown, the demo's
// critical bars, its go-live milestone and its seven driving links (20–26) carry the
// critical marks and nothing else does; the marks' red is at least 3:1 on the chart's
// background in light and dark; a bar at risk of an absence shows its badge and says
// why in its accessible name; the before/after's ghosts are outlined at 3:1 in dark;
// the legend lists exactly the marks on screen.
import { test } from 'node:test';
import { setup, assert, assertClean, waitBars, call } from './fixture.mjs';

const ctx = setup();
let sid;
let sideLink;

// The WCAG contrast ratio of two computed colours ("rgb(r, g, b)" or "rgba(...)"); the
// second is the chart's background, opaque, over which a translucent first is blended
// first (a faint rgba outline must not pass for its opaque colour).
function contrast(a, b) {
  const rgba = (c) => {
    const v = c.match(/[\d.]+/g).map(Number);
    return [v[0], v[1], v[2], v[3] ?? 1];
  };
  const [fg, bg] = [rgba(a), rgba(b)];
  const seen = fg.slice(0, 3).map((v, i) => v * fg[3] + bg[i] * (1 - fg[3]));
  const lum = (rgb) => {
    const [r, g, bl] = rgb.map((v) => {
      v /= 255;
      return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [x, y] = [lum(seen), lum(bg.slice(0, 3))].sort((p, q) => q - p);
  return (x + 0.05) / (y + 0.05);
}

/** What the view draws: the marks' owners, computed styles and the legend's entries. */
async function marks(view) {
  const m = await view.frame().evaluate(() => {
    const bg = getComputedStyle(document.querySelector('.pp-scroll')).backgroundColor;
    const ids = (sel, attr) => [...document.querySelectorAll(sel)].map((e) => Number(e.getAttribute(attr))).sort((a, b) => a - b);
    const bars = [...document.querySelectorAll('[data-bar]')].map((e) => {
      const cs = getComputedStyle(e);
      return {
        id: Number(e.dataset.bar),
        label: e.getAttribute('aria-label'),
        title: e.getAttribute('title') || '',
        cls: e.className,
        // The badge is the bar's ::after: there when its content is the glyph.
        badge: getComputedStyle(e, '::after').content.includes('⚠'),
        border: cs.borderTopColor,
        borderTop: parseFloat(cs.borderTopWidth),
        borderLeft: parseFloat(cs.borderLeftWidth),
      };
    });
    const ms = [...document.querySelectorAll('[data-milestone]')].map((e) => ({
      id: Number(e.dataset.milestone),
      crit: e.classList.contains('crit'),
      label: e.getAttribute('aria-label'),
      fill: getComputedStyle(e).backgroundColor,
    }));
    const links = [...document.querySelectorAll('path[data-link]')].map((e) => {
      const cs = getComputedStyle(e);
      return {
        id: Number(e.dataset.link),
        crit: e.classList.contains('crit'),
        width: parseFloat(cs.strokeWidth),
        stroke: cs.stroke,
        arrow: e.getAttribute('marker-end'),
      };
    });
    const arrowC = document.querySelector('#pp-arrow-c path');
    const legend = [...document.querySelectorAll('.pp-legend .pp-lg')].map((e) => [...e.classList].find((c) => c.startsWith('pp-lg-')).slice(6)).sort();
    // The marks on screen, by the legend's keys.
    const present = {
      crit: document.querySelector('.pp-b.crit'),
      cms: document.querySelector('.pp-ms.crit'),
      clk: document.querySelector('path.crit'),
      risk: document.querySelector('.pp-b.flag'),
      late: document.querySelector('.pp-b.late'),
      overdue: document.querySelector('.pp-b.overdue'),
      con: document.querySelector('.pp-con'),
      dl: document.querySelector('.pp-dl'),
    };
    return {
      bg,
      theme: document.documentElement.dataset.theme,
      bars,
      ms,
      links,
      critIds: ids('[data-bar].crit', 'data-bar'),
      arrowFill: arrowC ? getComputedStyle(arrowC).fill : null,
      arrowStroke: arrowC ? getComputedStyle(arrowC).stroke : null,
      legend,
      present: Object.keys(present).filter((k) => present[k]).sort(),
    };
  });
  for (const b of m.bars) b.contrast = contrast(b.border, m.bg);
  for (const x of m.ms) x.contrast = contrast(x.fill, m.bg);
  for (const l of m.links) l.contrast = contrast(l.stroke, m.bg);
  return m;
}

test('(marks) set-up: row 10 is Thomas Dubois\'s, a side bar with slack and its link', async () => {
  const made = await call(ctx.owner, 'create_schedule', { name: 'Marks', demo: true, lang: 'en' });
  sid = made.structured.schedule_id;
  // Thomas Dubois (member 4) is away on 26 and 27 Nov: on "Migration à blanc" (bar 16,
  // row 10) once the row is his.
  let r = await call(ctx.owner, 'update_row', { schedule: sid, row: 10, member: 4 });
  assert.equal(r.isError, false, r.text);
  // A short bar early in row 6 leading to "Recette utilisateurs" (17): it has slack, so
  // neither it nor its link is critical.
  r = await call(ctx.owner, 'add_period', { schedule: sid, row: 6, label: "Revue d'audit", start: '2026-11-04', end: '2026-11-05' });
  assert.equal(r.isError, false, r.text);
  const sideBar = r.structured.bar;
  r = await call(ctx.owner, 'add_link', { schedule: sid, from: sideBar, to: 17 });
  assert.equal(r.isError, false, r.text);
  sideLink = r.structured.link;
  assert.ok(sideLink > 26, `the new link's id: ${r.text}`);
});

for (const theme of ['light', 'dark']) {
  test(`(marks) ${theme}: critical bars, go-live and links 20–26 marked in red at 3:1; the absence's badge and words; the legend`, async () => {
    const host = await ctx.host({ colorScheme: theme });
    const view = await host.mount({ tool: 'show_schedule', args: { schedule: sid, critical_path: true }, profile: 'strict', theme });
    await waitBars(view);
    const m = await marks(view);
    assert.equal(m.theme, theme);
    assert.match(m.bg, /^rgb\(/, `an opaque chart background: ${m.bg}`);
    // The demo's chain of six bars is critical; the side bar is not.
    assert.deepEqual(m.critIds, [13, 14, 15, 16, 17, 18]);
    assert.equal(m.bars.length, 7);
    for (const b of m.bars.filter((x) => x.cls.includes('crit'))) {
      assert.ok(b.contrast >= 3, `bar ${b.id}'s border ${b.border} on ${m.bg}: ${b.contrast.toFixed(2)}`);
      assert.equal(b.borderTop, 2, `bar ${b.id}: a 2 px border`);
      assert.ok(b.borderLeft >= 4, `bar ${b.id}: a left stripe`);
      assert.match(b.label, /, critical/);
    }
    const side = m.bars.find((b) => !b.cls.includes('crit'));
    assert.equal(side.borderTop, 0, 'no critical border on the side bar');
    assert.doesNotMatch(side.label, /critical/);
    // The go-live (19), the demo's one milestone, in the same red.
    assert.deepEqual(m.ms.map((x) => [x.id, x.crit]), [[19, true]]);
    assert.ok(m.ms[0].contrast >= 3, `the go-live's red: ${m.ms[0].contrast}`);
    assert.match(m.ms[0].label, /, critical$/);
    // The seven driving links, thicker, red, with the red arrowhead; the side link not.
    assert.deepEqual(m.links.filter((l) => l.crit).map((l) => l.id).sort((a, b) => a - b), [20, 21, 22, 23, 24, 25, 26]);
    const plain = m.links.find((l) => l.id === sideLink);
    assert.ok(plain && !plain.crit, `link ${sideLink} drawn, not critical`);
    assert.equal(plain.arrow, 'url(#pp-arrow)');
    for (const l of m.links.filter((x) => x.crit)) {
      assert.equal(l.arrow, 'url(#pp-arrow-c)');
      assert.ok(l.width > plain.width, `link ${l.id} thicker (${l.width} > ${plain.width})`);
      assert.ok(l.contrast >= 3, `link ${l.id}'s red: ${l.contrast}`);
      assert.equal(l.stroke, m.arrowFill, 'the arrowhead is the line\'s red');
      assert.equal(l.stroke, m.arrowStroke, 'and so is its outline');
    }
    // "Migration à blanc" (16), at risk of Thomas Dubois's absence: the badge and why.
    const b16 = m.bars.find((b) => b.id === 16);
    assert.ok(b16.badge, 'the at-risk badge on bar 16');
    assert.match(b16.label, /at risk: Thomas Dubois away on 2 working days \(2026-11-26 → 2026-11-27\)/, b16.label);
    assert.match(b16.title, /Thomas Dubois away on 2 working days/);
    // The badge is on exactly the bars at risk (the plan's risks, late, overdue).
    for (const b of m.bars) {
      const flagged = / (risk|late|overdue)\b/.test(b.cls);
      assert.equal(b.badge, flagged, `bar ${b.id} (${b.cls}): badge ${b.badge}`);
      assert.equal(/at risk/.test(b.label), flagged, b.label);
    }
    // The legend names exactly the marks drawn.
    assert.deepEqual(m.legend, m.present);
    for (const k of ['crit', 'cms', 'clk', 'risk']) assert.ok(m.legend.includes(k), `${k} in ${m.legend}`);
    assertClean(host, theme);
  });
}

test('(marks) without critical_path: no critical mark, and none in the legend', async () => {
  const host = await ctx.host();
  const view = await host.mount({ tool: 'show_schedule', args: { schedule: sid }, profile: 'strict' });
  await waitBars(view);
  const m = await marks(view);
  assert.deepEqual(m.critIds, []);
  assert.ok(m.ms.every((x) => !x.crit) && m.links.every((l) => !l.crit));
  assert.deepEqual(m.legend, m.present);
  assert.ok(!m.legend.some((k) => ['crit', 'cms', 'clk'].includes(k)), m.legend.join());
  assert.ok(m.legend.includes('risk'));
  assertClean(host);
});

test('(marks) dark: the before/after\'s ghosts are outlined at 3:1', async () => {
  const host = await ctx.host({ colorScheme: 'dark' });
  const view = await host.mount({ tool: 'what_if', args: { schedule: sid, commands: [{ op: 'move_periods', bars: [14], by: 5 }] }, profile: 'strict', theme: 'dark' });
  await view.waitMounted();
  await view.waitFor('.pp-shadow');
  const g = await view.frame().evaluate(() => {
    const bg = getComputedStyle(document.querySelector('.pp-scroll')).backgroundColor;
    const cs = getComputedStyle(document.querySelector('.pp-shadow'));
    return { bg, dark: document.documentElement.dataset.theme, style: cs.borderTopStyle, width: parseFloat(cs.borderTopWidth), color: cs.borderTopColor };
  });
  g.contrast = contrast(g.color, g.bg);
  assert.equal(g.dark, 'dark');
  assert.equal(g.style, 'dashed');
  assert.ok(g.width >= 2, `a 2 px outline: ${g.width}`);
  assert.ok(g.contrast >= 3, `the ghost's outline ${g.color} on ${g.bg}: ${g.contrast.toFixed(2)}`);
  assertClean(host, 'ghost');
});
