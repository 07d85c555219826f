// Direct editing in the chart (issue 21 item 3), against the real server's bytes, under
// each CSP profile: each gesture with the mouse and with the keyboard — select a link
// and delete it or change its lag, rename a bar, a row, a group or a milestone in place,
// draw a link from a bar's or a milestone's end to another item, draw a new bar in a
// row (whole weeks in a schedule counted in weeks) — calls apply_patch through the host
// as a model would, and the server's state (read over MCP) is what the gesture meant.
// A name being typed keeps its text, focus and selection when someone else moves its
// bar. An empty name is refused in the view; a locked bar refuses its gestures in the view
// with the lock's words; an editor made viewer while the view is open gets the
// server's refusal, said in the view.
import { test } from 'node:test';
import { setup, assert, assertClean, waitBars, waitFor, call, PROFILES, pageRecords } from './fixture.mjs';

const ctx = setup();

/** The schedule's records, as the owner reads them (the demo fits in one page). */
async function records(sid) {
  const page = await call(ctx.owner, 'get_schedule_page', { schedule: sid, page: 0 });
  return pageRecords(page.structured);
}
const links = async (sid) => (await records(sid)).filter((r) => r.link).map((r) => r.link);
const bars = async (sid) => (await records(sid)).filter((r) => r.bar).map((r) => r.bar);

/** The apply_patch calls the view made, as their first command. */
async function patches(host, op) {
  return (await host.state()).appCalls
    .filter((c) => c.name === 'apply_patch' && c.arguments.commands?.[0]?.op === op)
    .map((c) => c.arguments.commands[0]);
}

/** Where the frame's (0,0) is on the host page. */
async function frameOrigin(f) {
  const page = await f.locator('.pp-items').boundingBox();
  const inner = await f.locator('.pp-items').evaluate((e) => { const r = e.getBoundingClientRect(); return { x: r.left, y: r.top }; });
  return { x: page.x - inner.x, y: page.y - inner.y };
}

/** Waits for the one rename field to have the focus; a timeout says how many fields
 * there are, what has the focus and what the notice says. */
async function renameFocused(f, what, ms = 10000) {
  const field = f.locator('.pp-rename');
  await waitFor(async () => (await field.count()) === 1 && (await field.evaluate((e) => document.activeElement === e)), { ms, what }).catch(async (err) => {
    throw new Error(`${err.message}: ${await field.count()} field(s), focus on ${await f.evaluate(() => document.activeElement?.outerHTML.slice(0, 200))}, notice ${await f.locator('.pp-notice').allInnerTexts()}`);
  });
}

/** The grid, focused. */
async function grid(f) {
  const g = f.locator('.pp-scroll[role=grid]');
  await g.focus();
  return g;
}

/** A point in an empty stretch of a row, 90 px long, in the frame's coordinates. */
function emptySpot(f) {
  return f.evaluate(() => {
    const body = document.querySelector('.pp-body').getBoundingClientRect();
    const busy = (x, y) => {
      const el = document.elementFromPoint(x, y);
      return !el || !el.closest('.pp-body') || el.closest('[data-bar],[data-milestone],.pp-lh,[data-lkh],.pp-con,.pp-dl');
    };
    const cells = [...document.querySelectorAll('.pp-cell:not(.pp-group)')];
    const left = Math.max(body.left, document.querySelector('.pp-gridcol').getBoundingClientRect().right) + 4;
    for (const c of cells) {
      const r = c.getBoundingClientRect();
      const y = r.top + r.height / 2;
      for (let x = left; x + 90 < Math.min(body.right, window.innerWidth) - 4; x += 10) {
        let free = true;
        for (let dx = 0; dx <= 90 && free; dx += 5) if (busy(x + dx, y) || busy(x + dx, y - 8) || busy(x + dx, y + 8)) free = false;
        if (free) return { x, y, row: c.querySelector('.pp-rname').textContent };
      }
    }
    return null;
  });
}

/** ↓, then the bar it selected once drawn (not the one selected before). */
async function selectNext(f, g) {
  const sel = async () => ((await f.locator('[data-bar].sel').count()) === 1 ? f.locator('[data-bar].sel').getAttribute('data-bar') : null);
  const was = await sel();
  await g.press('ArrowDown');
  return waitFor(async () => { const now = await sel(); return now && now !== was && now; }, { what: 'the next bar selected' });
}

/** Drags across an empty stretch of a row (a bar being drawn), gives the tip it showed. */
async function drawBar(host, f) {
  const spot = await emptySpot(f);
  assert.ok(spot, 'an empty stretch of a row');
  const o = await frameOrigin(f);
  await host.page.mouse.move(o.x + spot.x, o.y + spot.y);
  await host.page.mouse.down();
  for (let i = 1; i <= 9; i++) await host.page.mouse.move(o.x + spot.x + i * 10, o.y + spot.y);
  await waitFor(async () => (await f.locator('.pp-b.pp-new').count()) === 1, { what: 'the bar being drawn' });
  const tip = await f.locator('.pp-tip[role=status]').innerText();
  await host.page.mouse.up();
  return tip;
}

/** Selects bar `a`, presses its end handle and moves to the start half of bar `b`,
 * until `b` is marked the target; the button is still down (the caller drops). */
async function dragLink(host, view, a, b) {
  const f = view.frame();
  await f.locator(`[data-bar="${a}"]`).click();
  await view.waitFor(`[data-bar="${a}"].sel`);
  const handle = await (await view.waitFor('[data-lkh="end"]')).boundingBox();
  const target = await f.locator(`[data-bar="${b}"]`).boundingBox();
  const [hx, hy] = [handle.x + handle.width / 2, handle.y + handle.height / 2];
  const [tx, ty] = [target.x + Math.min(4, target.width / 4), target.y + target.height / 2];
  await host.page.mouse.move(hx, hy);
  await host.page.mouse.down();
  for (let i = 1; i <= 10; i++) await host.page.mouse.move(hx + ((tx - hx) * i) / 10, hy + ((ty - hy) * i) / 10);
  await waitFor(async () => (await f.locator(`[data-bar="${b}"].tgt`).count()) === 1, { what: `bar ${b} marked the target` });
}

for (const profile of PROFILES) {
  test(`(edit) ${profile}: links, names and bars edited in place, with the mouse and the keyboard, through apply_patch`, async () => {
    const made = await call(ctx.owner, 'create_schedule', { name: 'Direct editing', demo: true, lang: 'en' });
    const sid = made.structured.schedule_id;
    assert.ok(sid, made.text);
    const host = await ctx.host();
    const view = await host.mount({ tool: 'show_schedule', args: { schedule: sid }, profile, locale: 'en-US' });
    await waitBars(view);
    const f = view.frame();

    // 1. Select a link with the mouse (a click on its arrow), delete it with Delete.
    // A point on an arrow that a click reaches (its bounding box's centre may be off the
    // line, and a start-to-start link begins under its bar): the links' pointer ground
    // is there, and no other arrow of the block passes within 8 px (the view selects
    // the arrow nearest the press).
    const found = await waitFor(() => f.evaluate(() => {
      const near = (q, x, y) => {
        let best = Infinity;
        for (let k = 0; k <= 100; k++) {
          const pt = q.getPointAtLength((q.getTotalLength() * k) / 100);
          best = Math.min(best, Math.hypot(pt.x - x, pt.y - y));
        }
        return best;
      };
      for (const p of document.querySelectorAll('path[data-link]')) {
        const m = p.getScreenCTM();
        const others = [...p.parentElement.querySelectorAll('path[data-link]')].filter((q) => q !== p);
        for (let k = 1; k < 20; k++) {
          const pt = p.getPointAtLength((p.getTotalLength() * k) / 20);
          const x = m.a * pt.x + m.c * pt.y + m.e;
          const y = m.b * pt.x + m.d * pt.y + m.f;
          const at = document.elementFromPoint(x, y);
          if (at?.classList.contains('pp-lh') && at.parentElement === p.parentElement && others.every((q) => near(q, pt.x, pt.y) > 8)) {
            return { id: p.getAttribute('data-link'), x, y };
          }
        }
      }
      return null;
    }), { what: 'a link arrow a click reaches' });
    const hit = f.locator(`#pp-l${found.id}`);
    const linkId = Number(found.id);
    const name = await hit.getAttribute('aria-label');
    assert.match(name, /^(Finish|Start)-to-(start|finish) link from “.+” to “.+”$/, name);
    // The real mouse, at that point of the frame (Playwright's own click aims at the
    // path's box, which a bar may cover).
    const origin = await frameOrigin(f);
    // Hovered, the links' pointer ground names that arrow in its tooltip.
    await host.page.mouse.move(origin.x + found.x, origin.y + found.y);
    await waitFor(() => f.evaluate((id) => document.getElementById(`pp-l${id}`).parentElement.querySelector('.pp-lh > title').textContent, linkId).then((t) => t === name), { what: 'the tooltip naming the arrow under the pointer' });
    await host.page.mouse.click(origin.x + found.x, origin.y + found.y);
    await waitFor(async () => (await f.locator(`path.sel[data-link="${linkId}"]`).count()) === 1, { what: 'the link drawn selected' });
    assert.equal(await f.locator(`#pp-l${linkId}`).getAttribute('aria-selected'), 'true');
    assert.equal(await f.locator('.pp-scroll').getAttribute('aria-activedescendant'), `pp-l${linkId}`);
    assert.match(await f.locator('.pp-details').innerText(), /link from .* Delete: delete this link/);
    let g = await grid(f);
    await g.press('Delete');
    await waitFor(async () => (await patches(host, 'delete_link')).length === 1, { what: 'delete_link sent' });
    assert.deepEqual((await patches(host, 'delete_link'))[0], { op: 'delete_link', link: linkId });
    await waitFor(async () => !(await links(sid)).some((l) => l.id === linkId), { what: 'the link gone on the server' });
    await waitFor(async () => (await f.locator(`[data-link="${linkId}"]`).count()) === 0, { ms: 20000, what: 'the link gone in the view' });

    // 2. The same from the keyboard: ↓ to a bar with links, L selects its first, Delete.
    g = await grid(f);
    let keyLink = null;
    // Each press waits for its own drawing: a read that comes before the L is drawn sees
    // the bar, and one that comes after the next ↓ would name the link of the bar above.
    const activeNow = () => f.locator('.pp-scroll').getAttribute('aria-activedescendant');
    for (let i = 0; i < 30 && !keyLink; i++) {
      const was = await activeNow();
      await g.press('ArrowDown');
      await waitFor(async () => (await activeNow()) !== was, { ms: 5000, what: '↓ drawn' });
      await g.press('l');
      const picked = await waitFor(async () => {
        const a = await activeNow();
        return a?.startsWith('pp-l') ? a : null;
      }, { ms: 1000, what: 'L drawn' }).catch(() => null);
      if (picked) keyLink = Number(picked.slice(4));
    }
    assert.ok(keyLink, 'L selected a link of a bar');
    await g.press('Delete');
    await waitFor(async () => !(await links(sid)).some((l) => l.id === keyLink), { what: 'the keyboard\'s link gone on the server' });
    assert.deepEqual((await patches(host, 'delete_link'))[1], { op: 'delete_link', link: keyLink });
    await waitFor(async () => (await f.locator(`[data-link="${keyLink}"]`).count()) === 0, { ms: 20000, what: 'that link gone in the view' });

    // 3. Rename with a double click; an empty name is refused in the view first.
    const first = await f.locator('[data-bar]').first().getAttribute('data-bar');
    await f.locator(`[data-bar="${first}"]`).dblclick();
    const field = f.locator('.pp-rename');
    await renameFocused(f, 'the rename field, focused');
    assert.match(await field.getAttribute('aria-label'), /^New name of “.+” \(Enter: rename, Esc: cancel\)$/);
    await field.fill('   ');
    await field.press('Enter');
    await waitFor(async () => (await f.locator('[role=alert]').count()) > 0 && /name cannot be empty/.test(await f.locator('[role=alert]').first().innerText()), { what: 'the empty name refused' });
    assert.equal((await patches(host, 'update_period')).length, 0, 'nothing sent for an empty name');
    await field.fill('Renamed with the mouse');
    await field.press('Enter');
    await waitFor(async () => (await bars(sid)).find((b) => String(b.id) === first)?.label === 'Renamed with the mouse', { what: 'the rename on the server' });
    assert.deepEqual((await patches(host, 'update_period'))[0], { op: 'update_period', bar: Number(first), label: 'Renamed with the mouse' });
    await waitFor(async () => /^Renamed with the mouse, /.test(await f.locator(`[data-bar="${first}"]`).getAttribute('aria-label')), { ms: 20000, what: 'the new name in the view' });

    // 4. Rename with F2; Escape first gives up without a call.
    g = await grid(f);
    const second = await selectNext(f, g);
    await g.press('F2');
    await renameFocused(f, 'F2 opens the field');
    await field.press('Escape');
    await waitFor(async () => (await field.count()) === 0, { what: 'Escape closes it' });
    g = await grid(f);
    await g.press('F2');
    await renameFocused(f, 'F2 again');
    await field.press('Control+a');
    await field.pressSequentially('Renamed with keys');
    await field.press('Enter');
    await waitFor(async () => (await bars(sid)).find((b) => String(b.id) === second)?.label === 'Renamed with keys', { what: 'the keyboard rename on the server' }).catch(async (err) => {
      throw new Error(`${err.message}: ${JSON.stringify(await patches(host, 'update_period'))}, notice ${await f.locator('.pp-notice').allInnerTexts()}, field ${await field.count()}`);
    });
    assert.equal((await patches(host, 'update_period')).length, 2);
    await waitFor(async () => /^Renamed with keys, /.test(await f.locator(`[data-bar="${second}"]`).getAttribute('aria-label')), { ms: 20000, what: 'the keyboard name in the view' });

    // 5. Draw a link with the mouse: from the selected bar's end handle to the start half
    // of a bar it is not linked with: finish-to-start.
    const joined = (all, a, b) => all.some((l) => (String(l.from) === a && String(l.to) === b) || (String(l.from) === b && String(l.to) === a));
    const linked = async (a, b) => joined(await links(sid), a, b);
    const frameBox = await view.box().boundingBox();
    const boxes = await Promise.all((await f.locator('[data-bar]').evaluateAll((els) => els.map((e) => e.getAttribute('data-bar'))))
      .map(async (id) => [id, await f.locator(`[data-bar="${id}"]`).boundingBox()]));
    const known = await links(sid);
    let from = null;
    let to = null;
    for (const [a, ra] of boxes) {
      for (const [b, rb] of boxes) {
        // B starts after A ends (no cycle), both well inside the frame.
        if (!from && a !== b && !joined(known, a, b) && rb.x > ra.x + ra.width + 20 && rb.width >= 12
          && rb.x + rb.width < frameBox.x + frameBox.width - 10 && ra.x > frameBox.x + 20) { from = a; to = b; }
      }
    }
    assert.ok(from && to, 'two bars to link');
    await dragLink(host, view, from, to);
    assert.ok(await f.locator('.pp-draft').count(), 'the line being drawn');
    assert.match(await f.locator('.pp-tip[role=status]').innerText(), /^Finish-to-start link from “.+” to “.+”/);
    await host.page.mouse.up();
    await waitFor(async () => (await patches(host, 'add_link')).length === 1, { what: 'add_link sent' });
    assert.deepEqual((await patches(host, 'add_link'))[0], { op: 'add_link', from: Number(from), to: Number(to), kind: 'FS' });
    await waitFor(async () => (await links(sid)).some((l) => String(l.from) === from && String(l.to) === to && (l.kind ?? 'FS') === 'FS'), { what: 'the FS link on the server' });
    const made1 = (await links(sid)).find((l) => String(l.from) === from && String(l.to) === to);
    await waitFor(async () => (await f.locator(`[data-link="${made1.id}"]`).count()) === 1, { ms: 20000, what: 'the new link drawn' });

    // 5b. The same link drawn back closes a loop: the view sends it (it does not know
    // the whole graph), the server refuses it, and the view says why in the person's
    // words: the loop by its labels, no ids, no command, no tool.
    await dragLink(host, view, to, from);
    await host.page.mouse.up();
    await waitFor(async () => (await patches(host, 'add_link')).length === 2, { what: 'the loop sent' });
    const loop = await waitFor(async () => {
      const a = f.locator('[role=alert]');
      const text = (await a.count()) > 0 && (await a.first().innerText());
      return /loop/.test(text || '') && text;
    }, { what: 'the loop refused, said in the view' });
    assert.match(loop, /This link would close a loop of dependencies \(“[^”]+” → “[^”]+” → “[^”]+”\): nothing was changed\./, loop);
    assert.doesNotMatch(loop, /add_link|Command \d|\(\d+\)/, loop);
    assert.ok(!(await links(sid)).some((l) => String(l.from) === to && String(l.to) === from), 'no loop on the server');
    // The first bar selected again, as the keyboard steps below expect.
    await f.locator(`[data-bar="${from}"]`).click();
    await view.waitFor(`[data-bar="${from}"].sel`);

    // 6. Draw a link from the keyboard: C, ↓ to a bar not linked yet, T (start-to-start), Enter.
    g = await grid(f);
    const kFrom = await selectNext(f, g);
    await g.press('c');
    let kTo = null;
    for (let i = 0; i < 30 && !kTo; i++) {
      await g.press('ArrowDown');
      const t = await f.locator('[data-bar].tgt').getAttribute('data-bar').catch(() => null);
      // A bar not linked with it yet, starting no earlier (no cycle).
      const all = await bars(sid);
      const start = (id) => all.find((b) => String(b.id) === id)?.start;
      if (t && start(t) >= start(kFrom) && !(await linked(kFrom, t))) kTo = t;
    }
    assert.ok(kTo, 'a target picked with ↓');
    await g.press('t');
    await waitFor(async () => /^Start-to-start link from/.test(await f.locator('.pp-tip[role=status]').innerText()), { what: 'T changes the type' });
    await g.press('Enter');
    await waitFor(async () => (await patches(host, 'add_link')).length === 3, { what: 'the keyboard add_link sent' });
    assert.deepEqual((await patches(host, 'add_link'))[2], { op: 'add_link', from: Number(kFrom), to: Number(kTo), kind: 'SS' });
    await waitFor(async () => (await links(sid)).some((l) => String(l.from) === kFrom && String(l.to) === kTo && l.kind === 'SS'), { what: 'the SS link on the server' });
    await waitFor(async () => (await f.locator('.pp-tip').count()) === 0, { what: 'the tip gone' });

    // 7. Draw a bar with the mouse in an empty part of a row; it is then renamed in place.
    const drawnTip = await drawBar(host, f);
    assert.match(drawnTip, /^New bar: \d{4}-\d\d-\d\d → \d{4}-\d\d-\d\d$/);
    await waitFor(async () => (await patches(host, 'add_period')).length === 1, { what: 'add_period sent' });
    const add = (await patches(host, 'add_period'))[0];
    assert.equal(add.label, 'New bar');
    assert.equal(`New bar: ${add.start} → ${add.end}`, drawnTip, 'the dates previewed are the dates sent');
    await renameFocused(f, 'the new bar in rename mode', 20000).catch(async (err) => {
      throw new Error(`${err.message}: ${JSON.stringify(add)}, notice ${await f.locator('.pp-notice').allInnerTexts()}, field ${await field.count()}, bar drawn ${await f.locator(`[data-bar="${add.id}"]`).count()}, selected ${await f.locator('[data-bar].sel').count()}`);
    });
    assert.equal(await field.inputValue(), 'New bar');
    await field.fill('Drawn bar');
    await field.press('Enter');
    await waitFor(async () => (await bars(sid)).some((b) => b.id === add.id && b.label === 'Drawn bar' && b.start === add.start && b.end === add.end), { ms: 20000, what: 'the drawn bar, renamed, on the server' }).catch(async (err) => {
      throw new Error(`${err.message}: notice ${await f.locator('.pp-notice').allInnerTexts()}`);
    });

    // 8. A bar from the keyboard: N on the selected bar's row, after it, then named.
    g = await grid(f);
    const nextTo = await selectNext(f, g);
    await g.press('n');
    await waitFor(async () => (await patches(host, 'add_period')).length === 2, { what: 'the keyboard add_period sent' });
    const keyed = (await patches(host, 'add_period'))[1];
    const beside = (await bars(sid)).find((b) => String(b.id) === nextTo);
    assert.equal(keyed.row, beside.row, 'on the selected bar\'s row');
    assert.ok(keyed.start > beside.end, `after it: ${JSON.stringify(keyed)}`);
    await renameFocused(f, 'the keyed bar in rename mode', 20000);
    await field.fill('Keyed bar');
    await field.press('Enter');
    await waitFor(async () => (await bars(sid)).some((b) => b.id === keyed.id && b.label === 'Keyed bar'), { ms: 20000, what: 'the keyed bar, named, on the server' }).catch(async (err) => {
      // What the view sent, said and still shows, so that a failure says which side missed.
      const renames = (await patches(host, 'update_period')).filter((c) => c.bar === keyed.id);
      const onServer = (await bars(sid)).find((b) => b.id === keyed.id);
      throw new Error(`${err.message}: renames sent ${JSON.stringify(renames)}, on the server ${JSON.stringify(onServer)}, notice ${await f.locator('.pp-notice').allInnerTexts()}, field ${await field.count()} ${(await field.count()) ? await field.inputValue() : ''}`);
    });

    // 9. Delete, on a bar with links: the view's question says they go with it, and once
    // the person confirmed, the bar, its links and its actions are deleted (the server
    // asks no second confirmation).
    const doomed = from;
    await f.locator(`[data-bar="${doomed}"]`).click();
    await view.waitFor(`[data-bar="${doomed}"].sel`);
    g = await grid(f);
    await g.press('Delete');
    const question = await (await view.waitFor('.pp-confirm[role=alertdialog]')).innerText();
    assert.match(question, /^Delete the bar “.+”\? This also deletes \d+ links?( and \d+ actions?)? \(Undo brings it all back\)\./, question);
    await f.locator('[data-act=delete-yes]').click();
    await waitFor(async () => !(await bars(sid)).some((b) => String(b.id) === doomed), { ms: 20000, what: 'the linked bar deleted on the server' }).catch(async (err) => {
      throw new Error(`${err.message}: notice ${await f.locator('.pp-notice').allInnerTexts()}`);
    });
    assert.ok(!(await links(sid)).some((l) => String(l.from) === doomed || String(l.to) === doomed), 'its links gone with it');
    await waitFor(async () => (await f.locator(`[data-bar="${doomed}"]`).count()) === 0, { ms: 20000, what: 'the bar gone from the view' });

    // Everything above is in the journal, one entry per gesture.
    const h = await call(ctx.owner, 'history', { schedule: sid, since_rank: 0, lang: 'en' });
    assert.ok(!h.isError, h.text);
    assertClean(host);
  });

  test(`(edit) ${profile}: a name being typed keeps its text, focus and selection when someone else moves its bar`, async () => {
    const made = await call(ctx.owner, 'create_schedule', { name: 'Typing kept', demo: true, lang: 'en' });
    const sid = made.structured.schedule_id;
    const host = await ctx.host();
    const view = await host.mount({ tool: 'show_schedule', args: { schedule: sid }, profile, locale: 'en-US' });
    await waitBars(view);
    const f = view.frame();
    const g = await grid(f);
    const id = await selectNext(f, g);
    await g.press('F2');
    const field = f.locator('.pp-rename');
    await renameFocused(f, 'the rename field, focused');
    await field.fill('Half typed');
    // "lf t" selected, and the element marked: the one drawn again has no mark.
    await field.evaluate((e) => { e.setSelectionRange(2, 6); e.dataset.was = '1'; });
    const moved = await call(ctx.owner, 'move_periods', { schedule: sid, bars: [Number(id)], by: 5, lang: 'en' });
    assert.ok(!moved.isError, moved.text);
    await waitFor(async () => (await f.locator('.pp-rename:not([data-was])').count()) === 1, { ms: 20000, what: 'the field drawn again over the moved bar' });
    const now = await field.evaluate((e) => ({ value: e.value, focused: document.activeElement === e, start: e.selectionStart, end: e.selectionEnd }));
    assert.deepEqual(now, { value: 'Half typed', focused: true, start: 2, end: 6 });
    // The next key replaces the selection, as it would have in the first field.
    await field.press('X');
    await field.press('Enter');
    await waitFor(async () => (await bars(sid)).find((b) => String(b.id) === id)?.label === 'HaXyped', { what: 'the name typed across the redraw, on the server' });
    assertClean(host);
  });

  test(`(edit) ${profile}: a lock refuses the edits in the view; a viewer's are refused by the server, said in the view`, async () => {
    const made = await call(ctx.owner, 'create_schedule', { name: 'Direct editing refused', demo: true, lang: 'en' });
    const sid = made.structured.schedule_id;
    const locked = await call(ctx.owner, 'lock', { schedule: sid, bar: 14, reason: 'Scope review', lang: 'en' });
    assert.ok(!locked.isError, locked.text);
    const email = ctx.server.addUser('Vic', `vic-${profile}@example.org`);
    await call(ctx.owner, 'share_schedule', { schedule: sid, email, role: 'editor', lang: 'en' });
    const token = ctx.server.newToken(email);
    const host = await ctx.host({ token });
    const view = await host.mount({ tool: 'show_schedule', args: { schedule: sid }, profile, locale: 'en-US' });
    await waitBars(view);
    const f = view.frame();
    await waitFor(async () => (await f.locator('[data-act=undo]').count()) === 1, { what: 'an editor view' });

    // The locked bar: F2, C and a link of it are refused in the view with the lock's words.
    await f.locator('[data-bar="14"]').click();
    const g = await grid(f);
    await g.press('F2');
    await waitFor(async () => (await f.locator('body').innerText()).includes('Locked: bar “Nettoyage des données”'), { what: 'the rename refused by the lock' });
    assert.equal(await f.locator('.pp-rename').count(), 0);
    await g.press('c');
    assert.equal(await f.locator('.pp-tip').count(), 0, 'no link drawn from a locked bar');
    await g.press('l');
    // Read once L is drawn (a read before would see the bar and skip the Delete).
    const lockedLink = await waitFor(async () => (await f.locator('.pp-scroll').getAttribute('aria-activedescendant'))?.startsWith('pp-l'), { ms: 2000, what: 'L drawn' }).catch(() => false);
    assert.ok(lockedLink, 'L picks a link of the locked bar (its Delete is what is refused)');
    await g.press('Delete');
    await new Promise((r) => setTimeout(r, 300));
    const calls = (await host.state()).appCalls.filter((c) => c.name === 'apply_patch');
    assert.deepEqual(calls, [], 'nothing sent while the lock holds');

    // Made viewer while the view is open: N is sent, the server refuses, the view says why.
    await call(ctx.owner, 'share_schedule', { schedule: sid, email, role: 'viewer', lang: 'en' });
    await g.press('ArrowDown');
    await g.press('n');
    await waitFor(async () => (await host.state()).appCalls.some((c) => c.name === 'apply_patch'), { what: 'apply_patch sent' });
    const alert = await waitFor(async () => {
      const a = f.locator('[role=alert]');
      return (await a.count()) > 0 && (await a.first().innerText());
    }, { what: 'the refusal in the view' });
    assert.match(alert, /viewer|role|editor/i, alert);
    assert.equal(await f.locator('.pp-rename').count(), 0, 'no rename of a bar never made');
    const after = pageRecords((await call(ctx.owner, 'get_schedule_page', { schedule: sid, page: 0 })).structured).filter((r) => r.bar?.label === 'New bar');
    assert.deepEqual(after, [], 'no bar made');

    // A row renamed by the viewer: the field opens (the view does not know its role has
    // changed), the server refuses the write, the view says why and the name stays.
    await f.locator('.pp-cell[data-row="6"]').dblclick();
    const field = f.locator('.pp-rename');
    await waitFor(async () => (await field.count()) === 1, { what: 'the row\'s field' });
    await field.fill('Not mine to rename');
    await field.press('Enter');
    const renames = async () => (await host.state()).appCalls.filter((c) => c.name === 'apply_patch' && c.arguments.commands?.[0]?.op === 'rename_row');
    await waitFor(async () => (await renames()).length === 1, { what: 'rename_row sent' });
    await waitFor(async () => {
      const a = f.locator('[role=alert]');
      return (await a.count()) > 0 && /viewer/.test(await a.first().innerText());
    }, { what: 'the row rename refused in the view' });
    const row6 = pageRecords((await call(ctx.owner, 'get_schedule_page', { schedule: sid, page: 0 })).structured).find((r) => r.row?.id === 6).row;
    assert.notEqual(row6.name, 'Not mine to rename');
    assertClean(host);
  });

  test(`(edit) ${profile}: rows, groups and milestones renamed in place, links from a milestone, a link's lag, a bar drawn in whole weeks`, async () => {
    const made = await call(ctx.owner, 'create_schedule', { name: 'Direct editing, names', demo: true, lang: 'en' });
    const sid = made.structured.schedule_id;
    // Counted in weeks; a kick-off before the audit (row 6) and a bar after the go-live
    // (row 12), so that links from the milestones make no loop.
    const added = await call(ctx.owner, 'apply_patch', { schedule: sid, expected_rank: 0, commands: [
      { op: 'add_milestone', row: 6, label: 'Kick-off', date: '2026-10-26' },
      { op: 'add_period', row: 12, label: 'Hypercare', start: '2026-12-21', end: '2026-12-24' },
    ] });
    assert.ok(!added.isError, added.text);
    const set = await call(ctx.owner, 'update_settings', { schedule: sid, time_unit: 'week' });
    assert.ok(!set.isError, set.text);
    const all = await records(sid);
    const kick = all.find((r) => r.milestone?.label === 'Kick-off').milestone.id;
    const care = all.find((r) => r.bar?.label === 'Hypercare').bar.id;
    const group6 = all.find((r) => r.row?.id === 6).row.group;
    const host = await ctx.host();
    const view = await host.mount({ tool: 'show_schedule', args: { schedule: sid }, profile, locale: 'en-US' });
    await waitBars(view);
    const f = view.frame();
    const field = f.locator('.pp-rename');
    const active = () => f.locator('.pp-scroll').getAttribute('aria-activedescendant');
    const focused = () => renameFocused(f, 'the rename field, focused');

    // 1. A row renamed with a double click on its name cell.
    await f.locator('.pp-cell[data-row="6"]').dblclick();
    await focused();
    assert.match(await field.getAttribute('aria-label'), /^New name of the row “.+” \(Enter: rename, Esc: cancel\)$/);
    await field.fill('Audit row');
    await field.press('Enter');
    await waitFor(async () => (await records(sid)).find((r) => r.row?.id === 6)?.row.name === 'Audit row', { what: 'the row renamed on the server' });
    assert.deepEqual((await patches(host, 'rename_row'))[0], { op: 'rename_row', row: 6, name: 'Audit row' });
    await waitFor(async () => /Audit row/.test(await f.locator('.pp-cell[data-row="6"]').innerText()), { ms: 20000, what: 'the new name in its cell' });
    assert.equal(await active(), 'pp-r6', 'the row stays selected');

    // 2. Its group from the keyboard: R (the selected row's group), F2, a name, Enter.
    let g = await grid(f);
    await g.press('r');
    await waitFor(async () => (await active()) === `pp-g${group6}`, { what: 'R selects the group' });
    assert.match(await f.locator('.pp-details').innerText(), /^Group “.+” · F2: rename/);
    await g.press('F2');
    await focused();
    assert.match(await field.getAttribute('aria-label'), /^New name of the group “.+”/);
    await field.press('Control+a');
    await field.pressSequentially('Preparation');
    await field.press('Enter');
    await waitFor(async () => (await records(sid)).find((r) => r.group?.id === group6)?.group.name === 'Preparation', { what: 'the group renamed on the server' });
    assert.deepEqual((await patches(host, 'rename_group'))[0], { op: 'rename_group', group: group6, name: 'Preparation' });

    // 3. A milestone from the keyboard: M selects the first, F2 renames it.
    g = await grid(f);
    await g.press('m');
    await waitFor(async () => (await active()) === `pp-m${kick}`, { what: 'M selects the kick-off' });
    await g.press('F2');
    await focused();
    assert.match(await field.getAttribute('aria-label'), /^New name of the milestone “Kick-off”/);
    await field.fill('Kick-off meeting');
    await field.press('Enter');
    await waitFor(async () => (await records(sid)).find((r) => r.milestone?.id === kick)?.milestone.label === 'Kick-off meeting', { what: 'the milestone renamed on the server' });
    assert.deepEqual((await patches(host, 'update_milestone'))[0], { op: 'update_milestone', milestone: kick, label: 'Kick-off meeting' });
    // A double click on the other one opens its field; Escape gives up without a call.
    await f.locator('[data-milestone="19"]').dblclick();
    await focused();
    assert.match(await field.getAttribute('aria-label'), /^New name of the milestone “Go-live S\/4HANA”/);
    await field.press('Escape');
    await waitFor(async () => (await field.count()) === 0, { what: 'Escape closes it' });
    assert.equal((await patches(host, 'update_milestone')).length, 1);

    // 4. A link from a milestone with the mouse: from the kick-off's end handle to the
    // start half of the audit: finish-to-start.
    await f.locator(`[data-milestone="${kick}"]`).click();
    await view.waitFor(`[data-milestone="${kick}"].sel`);
    const handle = await (await view.waitFor('[data-lkh="end"]')).boundingBox();
    const [hx, hy] = [handle.x + handle.width / 2, handle.y + handle.height / 2];
    await host.page.mouse.move(hx, hy);
    await host.page.mouse.down();
    // Toward the audit's start half, read again at each step: a status line above the
    // chart may come or go meanwhile, and the chart with it.
    const aim = async () => {
      // Null while its block is drawn again.
      const t = await waitFor(() => f.locator('[data-bar="13"]').boundingBox(), { what: 'the audit drawn' });
      return [t.x + Math.min(4, t.width / 4), t.y + t.height / 2];
    };
    for (let i = 1; i <= 10; i++) {
      const [tx, ty] = await aim();
      await host.page.mouse.move(hx + ((tx - hx) * i) / 10, hy + ((ty - hy) * i) / 10);
    }
    await waitFor(async () => {
      if ((await f.locator('[data-bar="13"].tgt').count()) === 1) return true;
      await host.page.mouse.move(...(await aim()));
      return false;
    }, { what: 'the audit marked as the target' });
    assert.match(await f.locator('.pp-tip[role=status]').innerText(), /^Finish-to-start link from “Kick-off meeting” to “.+”/);
    await host.page.mouse.up();
    await waitFor(async () => (await links(sid)).some((l) => l.from === kick && l.to === 13), { what: 'the milestone\'s link on the server' });
    assert.deepEqual((await patches(host, 'add_link'))[0], { op: 'add_link', from: kick, to: 13, kind: 'FS' });

    // 5. From the keyboard: M to the go-live, C, ↓/↑ to the bar after it, Enter.
    g = await grid(f);
    // Each press is waited for: a selection read before the view took the key made the
    // loop press once more, past the go-live.
    for (let i = 0; i < 5 && (await active()) !== 'pp-m19'; i++) {
      const was = await active();
      await g.press('m');
      await waitFor(async () => (await active()) !== was, { what: 'M on to the next milestone' });
    }
    assert.equal(await active(), 'pp-m19');
    await g.press('c');
    let picked = null;
    // Down, then up: the order is the chart's (line by line), wherever the bar falls.
    for (const key of ['ArrowDown', 'ArrowUp']) {
      for (let i = 0; i < 15 && picked !== String(care); i++) {
        await g.press(key);
        picked = await f.locator('.tgt').getAttribute('data-bar', { timeout: 500 }).catch(() => null);
      }
    }
    assert.equal(picked, String(care), 'the bar after the go-live picked with ↓');
    await g.press('Enter');
    await waitFor(async () => (await links(sid)).some((l) => l.from === 19 && l.to === care), { what: 'the go-live\'s link on the server' });
    assert.deepEqual((await patches(host, 'add_link'))[1], { op: 'add_link', from: 19, to: care, kind: 'FS' });

    // 6. A link's lag: L on the cutover selects one of its links, + and - move its lag a
    // week at a time (the schedule's unit), each through update_link.
    await f.locator('[data-bar="18"]').click();
    g = await grid(f);
    // Each press waits for its own drawing: a read before it would see the link the
    // press before picked, and one press too many would go past the one wanted.
    for (let i = 0; i < 5; i++) {
      const was = await active();
      if (was === 'pp-l26') break;
      await g.press('l');
      await waitFor(async () => (await active()) !== was, { ms: 5000, what: 'the next link drawn' });
    }
    assert.equal(await active(), 'pp-l26', 'the cutover → go-live link');
    const details = () => f.locator('.pp-details').innerText();
    assert.match(await details(), / · lag: 1 week · Delete: delete this link, \+\/-: lag/);
    await g.press('+');
    await waitFor(async () => / · lag: 2 weeks/.test(await details()), { ms: 20000, what: 'the lag read back' });
    assert.equal((await links(sid)).find((l) => l.id === 26).lag, 2);
    await g.press('-');
    await waitFor(async () => / · lag: 1 week/.test(await details()), { ms: 20000, what: 'the lag back' });
    assert.deepEqual(await patches(host, 'update_link'), [{ op: 'update_link', link: 26, lag: 2 }, { op: 'update_link', link: 26, lag: 1 }]);
    await g.press('Escape');

    // 7. A bar drawn with the mouse takes whole weeks: from the first working day of the
    // week it starts in to the last of the week it ends in.
    const tip = await drawBar(host, f);
    await waitFor(async () => (await patches(host, 'add_period')).length === 1, { what: 'add_period sent' });
    const add = (await patches(host, 'add_period'))[0];
    assert.equal(`New bar: ${add.start} → ${add.end}`, tip, 'the weeks previewed are the weeks sent');
    const weekday = (d) => new Date(`${d}T00:00:00Z`).getUTCDay();
    // Monday and Friday, unless a holiday takes one (then the next or previous day).
    assert.ok([1, 2].includes(weekday(add.start)) && [4, 5].includes(weekday(add.end)), JSON.stringify(add));
    await focused();
    await field.press('Escape');
    assertClean(host);
  });
}

for (const profile of PROFILES) {
  test(`(edit) ${profile}: a kanban card moved from the keyboard keeps the focus, in its new column`, async () => {
    const made = await call(ctx.owner, 'create_schedule', { name: 'Kanban moves', demo: true, lang: 'en' });
    const sid = made.structured.schedule_id;
    assert.ok(sid, made.text);
    const status = async (action) => (await call(ctx.owner, 'list_actions', { schedule: sid })).structured.actions.find((a) => a.id === action)?.status;
    const host = await ctx.host();
    const view = await host.mount({ tool: 'show_schedule', args: { schedule: sid, view: 'kanban' }, profile, locale: 'en-US' });
    const f = view.frame();
    const first = f.locator('.pp-col').first().locator('[data-act=status][data-dir=next]').first();
    await waitFor(async () => (await first.count()) === 1, { what: 'a card to do, with its → button' });
    const action = Number(await first.getAttribute('data-action'));
    const next = f.locator(`[data-act=status][data-action="${action}"][data-dir=next]`);
    // Where the focus is: the card's action, the button's way, the column's index.
    const focus = () => f.evaluate(() => {
      const e = document.activeElement;
      const col = e?.closest('.pp-col');
      return e && col ? `${e.getAttribute('data-action')} ${e.getAttribute('data-dir')} ${[...document.querySelectorAll('.pp-col')].indexOf(col)}` : `${e?.tagName}`;
    });
    await next.focus();
    await host.page.keyboard.press('Enter');
    await waitFor(async () => (await status(action)) === 'in_progress', { what: 'the action in progress on the server' });
    // The board is drawn again with the card in the second column; the focus went with
    // it, to the same way's button, so Enter moves it on.
    let was = '';
    await waitFor(async () => (was = await focus()) === `${action} next 1`, { what: 'the focus on the moved card' }).catch(async (e) => {
      throw new Error(`${e.message}: the focus on ${was}`);
    });
    await host.page.keyboard.press('Enter');
    await waitFor(async () => (await status(action)) === 'done', { what: 'the action done on the server' });
    // Done has no → button: the focus is on its ← one.
    await waitFor(async () => (was = await focus()) === `${action} prev 2`, { what: 'the focus on the done card\'s ← button' }).catch(async (e) => {
      throw new Error(`${e.message}: the focus on ${was}`);
    });
    const sent = (await host.state()).appCalls.filter((c) => c.name === 'set_action_status');
    assert.deepEqual(sent.map((c) => c.arguments.status), ['in_progress', 'done']);
    await assertClean(host);
  });
}
