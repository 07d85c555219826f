// The e2e test host, in the browser: the official AppBridge + PostMessageTransport
// (ext-apps 2.0.4) with the v2 MCP client over streamable HTTP (to /mcp on this origin,
// relayed to PalmaPlan), one sandbox proxy frame per view on the other origin. Enforces
// tool visibility (a visibility-checking oncalltool set after bridge.connect(), and
// callAsModel for the "model" side), records every message both ways, and plays fake
// hosts (early, never, twice, out of order, no tool name, no answer to initialize,
// remount). Driven from Node through window.e2e (see ../harness.mjs).
import { AppBridge, PostMessageTransport, getToolUiResourceUri } from '@modelcontextprotocol/ext-apps/app-bridge';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const SANDBOX = document.querySelector('meta[name=sandbox-origin]').content;
const UI = 'io.modelcontextprotocol/ui';
const log = [];
const frames = new Map();
let mounted = 0;
const state = { client: null, tools: new Map(), modelContext: [], messages: [], links: [], displayModes: [], sizes: [], appCalls: [], hostRefusals: [], logs: [] };

function clone(m) {
  try { return JSON.parse(JSON.stringify(m)); } catch { return String(m); }
}
function record(dir, view, msg) {
  log.push({ seq: log.length, t: performance.now(), dir, view, msg: clone(msg) });
}
function visibility(name) {
  return state.tools.get(name)?._meta?.ui?.visibility ?? ['model', 'app'];
}

async function connect({ token, apps = true }) {
  const capabilities = apps ? { extensions: { [UI]: { mimeTypes: ['text/html;profile=mcp-app'] } } } : {};
  const client = new Client({ name: 'palmaplan-e2e-host', version: '1.0.0' }, { capabilities });
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', location.href), {
    requestInit: { headers: { Authorization: 'Bearer ' + token } },
  }));
  state.client = client;
  const { tools } = await client.listTools();
  state.tools = new Map(tools.map((t) => [t.name, t]));
  return tools.map((t) => ({ name: t.name, visibility: visibility(t.name) }));
}

/** The model side: a view-only tool is refused by the host, as hosts hide it from the model. */
async function callAsModel(name, args = {}) {
  if (!visibility(name).includes('model')) {
    state.hostRefusals.push({ side: 'model', name });
    return { refusedByHost: true };
  }
  return state.client.callTool({ name, arguments: args });
}

function hostContextFor(o, tool) {
  const ctx = {
    theme: o.theme || 'light',
    locale: o.locale || 'en-US',
    timeZone: 'Europe/Paris',
    displayMode: 'inline',
    availableDisplayModes: o.modes || ['inline', 'fullscreen'],
    platform: 'web',
    deviceCapabilities: { touch: false, hover: true },
    containerDimensions: { maxHeight: 2000, width: o.width || 720 },
    userAgent: 'palmaplan-e2e-host',
  };
  if (o.fake !== 'no-tool-name' && !o.noToolInfo) ctx.toolInfo = { id: 'call-' + (o.id || 'x'), tool };
  return ctx;
}

const CAPS = {
  openLinks: {},
  serverTools: {},
  serverResources: {},
  logging: {},
  updateModelContext: { text: {}, structuredContent: {} },
  message: { text: {} },
};

function applyMode(f, mode) {
  f.mode = mode;
  f.box.classList.toggle('fullscreen', mode === 'fullscreen');
  if (mode === 'inline') f.outer.style.height = (f.lastHeight || f.o.height || 400) + 'px';
}

/**
 * Mounts a view: calls `o.tool` with `o.args` (or uses `o.result`), reads the view's
 * resource through MCP, and plays the messages of `o.fake` (null: a well-behaved host).
 */
async function mount(o) {
  const id = o.id || 'v' + ++mounted;
  o.id = id;
  const tool = state.tools.get(o.tool);
  if (!tool) throw new Error('no tool ' + o.tool);
  const uri = getToolUiResourceUri(tool);
  const read = await state.client.readResource({ uri });
  const content = read.contents[0];
  // o.editHtml [from, to]: a host that serves a page other than the server's (one it kept
  // from another build, say).
  const html = o.editHtml ? content.text.replace(o.editHtml[0], o.editHtml[1]) : content.text;
  const csp = content._meta?.ui?.csp ?? {};
  const box = document.createElement('div');
  box.className = 'box';
  box.dataset.view = id;
  box.style.width = (o.width || 720) + 'px';
  const outer = document.createElement('iframe');
  outer.dataset.view = id;
  outer.name = 'proxy-' + id;
  outer.style.height = (o.height || 400) + 'px';
  box.appendChild(outer);
  const ready = new Promise((res) => {
    const l = (e) => {
      if (e.source === outer.contentWindow && e.data?.method === 'ui/notifications/sandbox-proxy-ready') {
        removeEventListener('message', l);
        res();
      }
    };
    addEventListener('message', l);
  });
  outer.src = `${SANDBOX}/sandbox.html?profile=${encodeURIComponent(o.profile || 'strict')}&csp=${encodeURIComponent(JSON.stringify(csp))}`;
  document.getElementById('views').appendChild(box);
  // A conversation scrolls a new view into sight (o.offscreen keeps it below the fold).
  if (!o.offscreen) box.scrollIntoView({ block: 'start' });
  await ready;
  const win = outer.contentWindow;
  const f = { id, o, box, outer, win, html, csp, mode: 'inline', inits: 0, result: o.result ?? null, ctx: hostContextFor(o, tool) };
  frames.set(id, f);
  // `holdPages`: the view's requests for pages after page 0 wait for `releasePages`.
  f.pagesHeld = o.holdPages ? new Promise((r) => { f.releasePages = r; }) : null;
  const raw = (msg) => { record('out', id, msg); win.postMessage(msg, SANDBOX); };
  f.raw = raw;
  const needResultFirst = ['early', 'twice', 'out-of-order', 'no-tool-name', 'never'].includes(o.fake);
  if (needResultFirst && !f.result && o.fake !== 'never') f.result = await state.client.callTool({ name: o.tool, arguments: o.args || {} });
  addEventListener('message', (e) => {
    if (e.source !== win) return;
    record('in', id, e.data);
    if (o.fake === 'early' && e.data?.method === 'ui/initialize') {
      // Before the answer to initialize (the listener runs before the bridge's).
      raw({ jsonrpc: '2.0', method: 'ui/notifications/tool-input', params: { arguments: o.args || {} } });
      raw({ jsonrpc: '2.0', method: 'ui/notifications/tool-result', params: f.result });
    }
  });
  if (o.fake === 'never-init') {
    // A host that never answers ui/initialize (nor anything else).
    raw({ jsonrpc: '2.0', method: 'ui/notifications/sandbox-resource-ready', params: { html, sandbox: 'allow-scripts', csp } });
    return id;
  }
  // o.caps: a host that announces other capabilities (MCP Inspector's, say).
  // The host says which CSP it applied (hostCapabilities.sandbox.csp): under the
  // permissive profile it allows WebAssembly, and says so (ext-apps PR 667's
  // wasmUnsafeEval). o.saysWasm: a host that says so whatever it applied.
  const says = (o.profile === 'permissive' || o.saysWasm) ? { wasmUnsafeEval: true } : {};
  const { wasmUnsafeEval: _asked, ...domains } = csp;
  const caps = o.caps || { ...CAPS, sandbox: { csp: { ...domains, ...says } } };
  const bridge = new AppBridge(state.client, { name: o.hostName || 'E2E Host', version: '1.0.0' }, caps, { hostContext: f.ctx });
  f.bridge = bridge;
  bridge.onmessage = async (p) => { state.messages.push({ view: id, ...clone(p) }); return {}; };
  bridge.onopenlink = async (p) => { state.links.push({ view: id, ...clone(p) }); return {}; };
  bridge.onrequestdisplaymode = async ({ mode }) => {
    const granted = (o.grantModes || ['inline', 'fullscreen']).includes(mode) ? mode : 'inline';
    state.displayModes.push({ view: id, asked: mode, granted });
    applyMode(f, granted);
    f.ctx = { ...f.ctx, displayMode: granted };
    bridge.setHostContext(f.ctx);
    return { mode: granted };
  };
  bridge.onupdatemodelcontext = async (p) => { state.modelContext.push({ view: id, ...clone(p) }); f.modelContext = clone(p); return {}; };
  bridge.onsizechange = ({ width, height }) => {
    state.sizes.push({ view: id, width, height });
    if (typeof height === 'number' && height > 0) {
      f.lastHeight = Math.min(Math.ceil(height), 2000);
      if (f.mode === 'inline') outer.style.height = f.lastHeight + 'px';
    }
  };
  bridge.onloggingmessage = (p) => state.logs.push({ view: id, ...clone(p) });
  bridge.oninitialized = () => { f.inits += 1; afterInit(f).catch((e) => console.error('afterInit', e)); };
  const transport = new PostMessageTransport(win, win);
  const send = transport.send.bind(transport);
  transport.send = (m, opt) => { record('out', id, m); return send(m, opt); };
  await bridge.connect(transport);
  // After connect (which installs a plain forwarder): the host enforces visibility.
  bridge.oncalltool = async (params, extra) => {
    state.appCalls.push({ view: id, name: params.name, arguments: clone(params.arguments) });
    if (!visibility(params.name).includes('app')) {
      state.hostRefusals.push({ side: 'app', name: params.name });
      return { isError: true, content: [{ type: 'text', text: `The host does not let views call ${params.name}.` }] };
    }
    if (f.pagesHeld && params.name === 'get_schedule_page' && params.arguments?.page > 0) await f.pagesHeld;
    const r = await state.client.request({ method: 'tools/call', params }, { signal: extra?.mcpReq?.signal });
    // `spoilPacked`: the first packed answer's first part replaced by a gzip stream of
    // bytes that are not UTF-8 (as a broken server or relay could send).
    const packed = r?.structuredContent?.packed_parts;
    if (o.spoilPacked && !f.spoiled && Array.isArray(packed) && packed.length) {
      f.spoiled = true;
      const bad = new Uint8Array(await new Response(new Blob([new Uint8Array([0x5b, 0xff, 0xfe, 0x5d])]).stream().pipeThrough(new CompressionStream('gzip'))).arrayBuffer());
      packed[0] = btoa(String.fromCharCode(...bad));
    }
    return r;
  };
  await bridge.sendSandboxResourceReady({ html, sandbox: 'allow-scripts', csp });
  return id;
}

async function afterInit(f) {
  const { o, bridge } = f;
  const n = (m, params) => f.raw({ jsonrpc: '2.0', method: m, params });
  if (f.inits > 1 || o.fake === 'remount') {
    // A remounted frame: the host replays what it has.
    if (f.inits > 1) {
      await bridge.sendToolInput({ arguments: o.args || {} });
      if (f.result) await bridge.sendToolResult(f.result);
      return;
    }
  }
  switch (o.fake) {
    case 'early':
      return; // already sent before initialize was answered
    case 'never':
      await bridge.sendToolInput({ arguments: o.args || {} });
      return; // and never a result
    case 'twice':
      await bridge.sendToolInput({ arguments: o.args || {} });
      await bridge.sendToolInput({ arguments: o.args || {} });
      await bridge.sendToolResult(f.result);
      await bridge.sendToolResult(f.result);
      return;
    case 'out-of-order':
      n('ui/notifications/tool-result', f.result);
      n('ui/notifications/tool-input', { arguments: o.args || {} });
      return;
    case 'no-tool-name':
      n('ui/notifications/tool-result', f.result);
      return;
    default:
      break;
  }
  await bridge.sendToolInput({ arguments: o.inputArgs || o.args || {} });
  if (o.cancel === 'before') {
    await bridge.sendToolCancelled({ reason: 'The user stopped it' });
    return;
  }
  if (!f.result) f.result = await state.client.callTool({ name: o.tool, arguments: o.args || {} });
  if (o.hold) {
    f.release = () => bridge.sendToolResult(f.result);
    return;
  }
  await bridge.sendToolResult(f.result);
  if (o.cancel === 'after') await bridge.sendToolCancelled({ reason: 'Too late to cancel' });
}

function frame(id) {
  const f = frames.get(id);
  if (!f) throw new Error('no view ' + id);
  return f;
}

window.e2e = {
  log,
  state,
  connect,
  mount,
  callAsModel,
  ready: true,
  /** Merges a partial hostContext and lets the bridge send host-context-changed. */
  setContext(id, partial) {
    const f = frame(id);
    f.ctx = { ...f.ctx, ...partial };
    if (partial.theme) document.body.classList.toggle('dark', partial.theme === 'dark');
    f.bridge.setHostContext(f.ctx);
  },
  async teardown(id) {
    const f = frame(id);
    const r = await f.bridge.teardownResource({ reason: 'e2e' });
    return clone(r);
  },
  async ping(id) {
    const f = frame(id);
    return clone(await f.bridge.request({ method: 'ping', params: {} }, undefined));
  },
  remount(id) {
    const f = frame(id);
    f.raw({ jsonrpc: '2.0', method: 'e2e/remount' });
  },
  /** Whether a view mounted with `hold` has its result ready to release. */
  held(id) { return typeof frame(id).release === 'function'; },
  release(id) { return frame(id).release?.(); },
  releasePages(id) { frame(id).releasePages?.(); },
  cancel(id, reason) { return frame(id).bridge.sendToolCancelled({ reason }); },
  send(id, msg) { frame(id).raw(msg); },
  modelContext(id) { return frame(id).modelContext ?? null; },
  mode(id) { return frame(id).mode; },
  /** The host changes the display mode on its own (as a host's own full-screen button). */
  setMode(id, mode) {
    const f = frame(id);
    applyMode(f, mode);
    f.ctx = { ...f.ctx, displayMode: mode };
    f.bridge.setHostContext(f.ctx);
  },
  unmount(id) { const f = frame(id); f.box.remove(); frames.delete(id); },
};
