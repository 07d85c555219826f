// The screenshot comparison itself (host/baselines.mjs), on pictures made here, no
// server and no browser: a picture like its baseline passes, one with a patch larger
// than the ceiling fails naming the file and the share and writes its diff, one of
// another size or without a baseline fails, and a shot that keeps changing is refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, writeFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { compareWithBaseline, settledShot, MAX_RATIO } from '../host/baselines.mjs';

/** A grey picture with an optional red patch of `patch` pixels (one row). */
function picture(width, height, patch = 0) {
  const p = new PNG({ width, height });
  p.data.fill(200);
  for (let i = 0; i < patch; i++) p.data.set([255, 0, 0, 255], i * 4);
  return PNG.sync.write(p);
}

test('a shot is compared with its baseline within the tolerance', async (t) => {
  // Not when the run is writing baselines: the comparer would copy instead.
  if (process.env.E2E_UPDATE_BASELINES === '1') return t.skip('E2E_UPDATE_BASELINES=1');
  const root = mkdtempSync(join(tmpdir(), 'palmaplan-baselines-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const base = join(root, 'baselines');
  const shot = (name, png) => {
    const p = join(root, name);
    writeFileSync(p, png);
    return p;
  };
  // 100 × 100: the ceiling is MAX_RATIO × 10,000 pixels.
  const allowed = Math.floor(MAX_RATIO * 10000);
  mkdirSync(base);
  writeFileSync(join(base, 'a.png'), picture(100, 100));
  assert.equal(compareWithBaseline(shot('a.png', picture(100, 100)), { dir: base }), null);
  assert.equal(compareWithBaseline(shot('a.png', picture(100, 100, allowed)), { dir: base }), null, 'a patch within the ceiling passes');

  const over = compareWithBaseline(shot('a.png', picture(100, 100, allowed + 1)), { dir: base });
  assert.match(over ?? '', /^a\.png: 0\.\d\d % of pixels differ from the baseline/);
  assert.match(over, /E2E_UPDATE_BASELINES=1/);
  assert.ok(existsSync(join(root, 'a.diff.png')), 'the diff is written beside the shot');

  assert.match(compareWithBaseline(shot('a.png', picture(100, 90)), { dir: base }) ?? '', /100×90 px, the baseline 100×100 px/);
  assert.match(compareWithBaseline(shot('b.png', picture(100, 100)), { dir: base }) ?? '', /^b\.png: no baseline/);

  // A picture that never settles is refused; one that does is written.
  let n = 0;
  await assert.rejects(settledShot(async () => picture(10, 10, n++ % 50), join(root, 'c.png'), { tries: 3, pause: 1 }), /still changed/);
  n = 0;
  const settled = await settledShot(async () => picture(10, 10, Math.min(n++, 2)), join(root, 'd.png'), { tries: 5, pause: 1 });
  assert.ok(existsSync(settled));
});
