// The Node side of the e2e host: launches Debian's Chromium through playwright-core
// (no browser download), opens the host page, and records what the host must watch:
// every protocol message (from the page's log), every CSP violation (a
// securitypolicyviolation listener in every frame, and the console's "Refused to"
// lines), and every network request with the frame that made it. Gives each mounted
// view as a Playwright Frame (the inner, sandboxed one) with polling helpers.
import { chromium } from 'playwright-core';
import { mkdtempSync, rmSync, existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHostServers } from './servers.mjs';
import { waitFor } from './palmaplan.mjs';

export const PROFILES = ['strict', 'permissive'];

export function chromiumPath() {
  const p = process.env.CHROMIUM || '/usr/bin/chromium';
  if (!existsSync(p)) throw new Error(`no Chromium at ${p}: run e2e/run.sh (it installs Debian's chromium)`);
  return p;
}

/** One Chromium for a test file. */
export async function launch() {
  const userDataDir = mkdtempSync(join(tmpdir(), 'palmaplan-e2e-chromium-'));
  const ctxOpts = {};
  const browser = await chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: [
      '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', '--no-first-run', '--disable-dev-shm-usage',
      '--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1 , EXCLUDE localhost',
    ],
  });
  browser.__dir = userDataDir;
  const close = browser.close.bind(browser);
  browser.close = async () => { await close(); rmSync(userDataDir, { recursive: true, force: true }); };
  return browser;
}

const CSP_HOOK = `(() => {
  document.addEventListener('securitypolicyviolation', (e) => {
    try { window.__e2eCsp({ directive: e.effectiveDirective || e.violatedDirective, blockedURI: e.blockedURI, sample: e.sample, source: e.sourceFile, line: e.lineNumber }); } catch (_) {}
  }, true);
})();`;

/** A host page (one MCP client, one user) on its own browser context. */
export class Host {
  static async open(browser, server, { token = server.token, apps = true, width = 1280, height = 900, colorScheme = 'light', now } = {}) {
    const h = new Host();
    h.server = server;
    h.servers = await startHostServers({ mcpUrl: server.url });
    h.context = await browser.newContext({ viewport: { width, height }, colorScheme, deviceScaleFactor: 1 });
    // `now`: the time every frame's Date gives (the view's "today" comes from it), so a
    // screenshot is the same whatever the day; timers keep running.
    if (now !== undefined) await h.context.clock.setFixedTime(now);
    h.violations = [];
    h.requests = [];
    h.console = [];
    await h.context.exposeBinding('__e2eCsp', ({ frame }, v) => h.violations.push({ frame: frame.url(), ...v }));
    await h.context.addInitScript(CSP_HOOK);
    h.page = await h.context.newPage();
    h.page.on('console', (m) => {
      const text = m.text();
      h.console.push({ type: m.type(), text, frame: m.location()?.url });
      if (/Content Security Policy|Refused to/i.test(text)) h.violations.push({ console: text });
    });
    h.page.on('pageerror', (e) => h.console.push({ type: 'pageerror', text: String(e) }));
    h.page.on('request', (r) => {
      const f = r.frame();
      h.requests.push({ url: r.url(), method: r.method(), frameUrl: f?.url(), parentUrl: f?.parentFrame()?.url(), view: h.isViewFrame(f) });
    });
    await h.page.goto(h.servers.hostOrigin + '/');
    await waitFor(() => h.page.evaluate(() => window.e2e?.ready === true), { what: 'the host page' });
    h.tools = await h.page.evaluate((o) => window.e2e.connect(o), { token, apps });
    return h;
  }

  /** A frame of a view: the inner frame of a sandbox proxy. */
  isViewFrame(f) {
    const parent = f?.parentFrame();
    return !!parent && parent.url().startsWith(this.servers.sandboxOrigin);
  }

  /** Requests made by any view frame. */
  viewRequests() {
    return this.requests.filter((r) => r.view);
  }

  /** Mounts a view; returns a View. */
  async mount(opts) {
    const id = await this.page.evaluate((o) => window.e2e.mount(o), opts);
    const v = new View(this, id);
    await waitFor(() => v.frameOrNull(), { what: `the frame of view ${id}` });
    return v;
  }

  /** The protocol log (optionally of one view). */
  async log(view) {
    const all = await this.page.evaluate(() => window.e2e.log);
    return view ? all.filter((e) => e.view === view) : all;
  }

  async state() {
    return this.page.evaluate(() => {
      const s = window.e2e.state;
      return { modelContext: s.modelContext, messages: s.messages, links: s.links, displayModes: s.displayModes, sizes: s.sizes, appCalls: s.appCalls, hostRefusals: s.hostRefusals, logs: s.logs };
    });
  }

  callAsModel(name, args) {
    return this.page.evaluate(([n, a]) => window.e2e.callAsModel(n, a), [name, args]);
  }

  async close() {
    await this.context.close().catch(() => {});
    await this.servers.close();
  }
}

export class View {
  constructor(host, id) {
    this.host = host;
    this.id = id;
  }

  frameOrNull() {
    const proxy = this.host.page.frames().find((f) => f.name() === 'proxy-' + this.id);
    return proxy?.childFrames()[0] ?? null;
  }

  /** The view's frame (the current one: a remount replaces it). */
  frame() {
    const f = this.frameOrNull();
    if (!f) throw new Error('no frame for view ' + this.id);
    return f;
  }

  /** window.__pp of the view (read through Playwright, which the page's CSP does not bind). */
  pp() {
    return this.frame().evaluate(() => (window.__pp ? JSON.parse(JSON.stringify({ mounted: window.__pp.mounted, path: window.__pp.path, rendered: window.__pp.rendered })) : null));
  }

  async waitMounted(ms = 10000) {
    return waitFor(async () => (await this.pp())?.mounted === true && (await this.pp()), { ms, what: `view ${this.id} mounted` });
  }

  /** Waits for a selector to be attached in the view's frame. */
  async waitFor(selector, ms = 10000) {
    await waitFor(async () => (await this.frame().locator(selector).count()) > 0, { ms, what: `${selector} in view ${this.id}` });
    return this.frame().locator(selector);
  }

  locator(selector) {
    return this.frame().locator(selector);
  }

  async log() {
    return this.host.log(this.id);
  }

  evalHost(fn, ...args) {
    return this.host.page.evaluate(fn, ...args);
  }

  setContext(partial) {
    return this.host.page.evaluate(([id, p]) => window.e2e.setContext(id, p), [this.id, partial]);
  }

  /** The outer (proxy) iframe element's handle, for screenshots. */
  box() {
    return this.host.page.locator(`.box[data-view="${this.id}"]`);
  }
}

/** A folder for screenshots: $E2E_SHOTS or e2e/screenshots/<timestamp>. */
export function shotsDir(base) {
  const dir = process.env.E2E_SHOTS || join(base, 'screenshots', new Date().toISOString().replace(/[:.]/g, '-'));
  mkdirSync(dir, { recursive: true });
  return dir;
}
