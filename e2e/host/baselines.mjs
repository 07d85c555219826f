// Screenshots compared with the committed baselines (e2e/baselines/*.png) within a
// tolerance: pixelmatch's per-pixel colour threshold, then a ceiling on the share of
// pixels that differ. A shot over the ceiling, of another size, or without a baseline
// is a failure; a diff image (differing pixels in red over a faded copy of the
// baseline) is written beside the shot. E2E_UPDATE_BASELINES=1 writes the shots as the
// new baselines instead of comparing.
import { readFileSync, writeFileSync, existsSync, mkdirSync, copyFileSync } from 'node:fs';
import { join, dirname, basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import pixelmatch from 'pixelmatch';
import { PNG } from 'pngjs';

export const BASELINES = join(dirname(fileURLToPath(import.meta.url)), '..', 'baselines');

/** pixelmatch's threshold (0 to 1, its YIQ colour distance): 0.1 is its default, which
 *  ignores antialiasing noise but sees a changed colour, border or label. */
export const PIXEL_THRESHOLD = 0.1;
/** The share of pixels that may differ: 0.05 %, 512 px of a 1280 × 800 page, 156 px of a
 *  390 × 800 one. Two runs on the CI's kind of machine (Debian's Chromium, no GPU, the
 *  clock fixed) give the same pixels (0 differing at threshold 0), so the ceiling only
 *  absorbs what another run of the same machine might add; a 2 px line drawn in
 *  another colour across the chart (~500 px) already fails the inline Gantt's shot. */
export const MAX_RATIO = 0.0005;

export const updating = () => process.env.E2E_UPDATE_BASELINES === '1';

/**
 * Takes shots with `take` (a Playwright screenshot giving a Buffer) until two in a row
 * are the same bytes, and writes that one at `path`: a shot taken while the view still
 * draws (a page arriving, a refit) is not the view's settled picture, and compared with
 * a baseline it would fail only on a slow run.
 */
export async function settledShot(take, path, { tries = 10, pause = 100 } = {}) {
  let last = await take();
  for (let i = 0; i < tries; i++) {
    await new Promise((r) => setTimeout(r, pause));
    const next = await take();
    if (next.equals(last)) {
      writeFileSync(path, next);
      return path;
    }
    last = next;
  }
  throw new Error(`${path}: the picture still changed after ${tries + 1} shots`);
}

/**
 * Compares the PNG at `shot` with the baseline of the same name. Returns null when it
 * matches (or was written as the new baseline), else why it does not, naming the files.
 */
export function compareWithBaseline(shot, { threshold = PIXEL_THRESHOLD, maxRatio = MAX_RATIO, dir = BASELINES } = {}) {
  const name = basename(shot);
  const baseline = join(dir, name);
  const how = 'if the change is meant, run the test with E2E_UPDATE_BASELINES=1 and commit e2e/baselines/';
  if (updating()) {
    mkdirSync(dir, { recursive: true });
    copyFileSync(shot, baseline);
    return null;
  }
  if (!existsSync(baseline)) return `${name}: no baseline at ${baseline} (${how})`;
  const a = PNG.sync.read(readFileSync(shot));
  const b = PNG.sync.read(readFileSync(baseline));
  if (a.width !== b.width || a.height !== b.height) {
    return `${name}: ${a.width}×${a.height} px, the baseline ${b.width}×${b.height} px (shot ${shot}; ${how})`;
  }
  const diff = new PNG({ width: a.width, height: a.height });
  const differing = pixelmatch(a.data, b.data, diff.data, a.width, a.height, { threshold });
  const ratio = differing / (a.width * a.height);
  if (ratio <= maxRatio) return null;
  const diffPath = shot.replace(/\.png$/, '.diff.png');
  writeFileSync(diffPath, PNG.sync.write(diff));
  return `${name}: ${(ratio * 100).toFixed(2)} % of pixels differ from the baseline (${differing} px, at most ${(maxRatio * 100).toFixed(2)} %): shot ${shot}, diff ${diffPath} (${how})`;
}
