// The frame measure the benches share (bench/render.mjs for our view, bench/dhtmlx.mjs
// for DHTMLX Gantt), so that both are read the same way: installed in a page with
// `page.evaluate(installBenchFrames)`, then `window.__benchFrames(each)` runs `each(i)`
// in 120 animation frames and gives each frame's interval and its main-thread work:
// from the frame's start (every animation callback, a chart's drawing among them) to
// the end of its style, layout and paint, which a message posted in the frame waits for.
// With `pct`, the percentile both read them by.
export function installBenchFrames() {
  window.__benchFrames = (each) => new Promise((res) => {
    const times = [];
    const work = [];
    let last = performance.now();
    let i = 0;
    const step = (frameStart) => {
      const now = performance.now();
      times.push(now - last);
      last = now;
      const ch = new MessageChannel();
      ch.port1.onmessage = () => work.push(performance.now() - frameStart);
      ch.port2.postMessage(0);
      each(i);
      if (++i < 120) requestAnimationFrame(step); else setTimeout(() => res({ times: times.slice(1), work: work.slice(1) }), 50);
    };
    requestAnimationFrame(step);
  });
}

/** The p-th percentile of `a` (nearest rank). */
export const pct = (a, p) => { const s = [...a].sort((x, y) => x - y); return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]; };
