// The test host's two loopback origins: the host page's (host.html, host.js, the npm
// modules it imports through an import map, and /mcp relayed to the PalmaPlan server so
// the browser's MCP client talks to it from the host's own origin), and the sandbox
// proxy's (sandbox.html, served with the view's CSP as an HTTP header built from the
// resource's `_meta.ui.csp` given in the query: profile "strict" is the spec's default
// CSP, "permissive" adds 'wasm-unsafe-eval'; frameDomains is ignored, as hosts do).
import { createServer, request as httpRequest } from 'node:http';
import { readFile } from 'node:fs/promises';
import { join, dirname, resolve, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const PUBLIC = join(here, 'public');
const NODE_MODULES = resolve(here, '..', 'node_modules');

/** The CSP a host applies to the view, from `_meta.ui.csp` and the host profile. */
export function buildCsp(csp = {}, profile = 'strict') {
  const list = (a) => (Array.isArray(a) ? a.filter((d) => /^[a-z0-9.*:/-]+$/i.test(d)) : []);
  const resources = list(csp.resourceDomains).join(' ');
  const connect = list(csp.connectDomains).join(' ');
  const base = list(csp.baseUriDomains).join(' ');
  const wasm = profile === 'permissive' ? " 'wasm-unsafe-eval'" : '';
  const r = resources ? ` ${resources}` : '';
  return [
    "default-src 'none'",
    `script-src 'self' 'unsafe-inline'${wasm}${r}`,
    `style-src 'self' 'unsafe-inline'${r}`,
    `img-src 'self' data:${r}`,
    `media-src 'self' data:${r}`,
    `font-src 'self'${r}`,
    `connect-src ${connect || "'none'"}`,
    ...(base ? [`base-uri ${base}`] : []),
    // frameDomains: ignored (no frame-src is opened), as the hosts documented do.
  ].join('; ');
}

const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript', '.json': 'application/json', '.cjs': 'text/javascript' };
const typeOf = (p) => TYPES[p.slice(p.lastIndexOf('.'))] || 'application/octet-stream';

function listen(handler) {
  return new Promise((res) => {
    const server = createServer(handler);
    server.keepAliveTimeout = 1000;
    server.listen(0, '127.0.0.1', () => res(server));
  });
}

/**
 * Starts both origins. `mcpUrl`: the PalmaPlan server's /mcp. Returns
 * {hostOrigin, sandboxOrigin, close()}; `cspLog` lists every CSP header sent.
 */
export async function startHostServers({ mcpUrl }) {
  const cspLog = [];
  const target = new URL(mcpUrl);
  let sandboxOrigin;
  const host = await listen(async (req, res) => {
    const url = new URL(req.url, 'http://x');
    try {
      if (url.pathname === '/mcp') return relay(req, res, target);
      if (url.pathname === '/' || url.pathname === '/host.html') {
        const html = (await readFile(join(PUBLIC, 'host.html'), 'utf8')).replace('__SANDBOX_ORIGIN__', sandboxOrigin);
        res.writeHead(200, { 'Content-Type': TYPES['.html'], 'Cache-Control': 'no-store' });
        return res.end(html);
      }
      if (url.pathname === '/host.js') return send(res, join(PUBLIC, 'host.js'));
      if (url.pathname.startsWith('/nm/')) {
        const p = normalize(join(NODE_MODULES, decodeURIComponent(url.pathname.slice(4))));
        if (!p.startsWith(NODE_MODULES)) return notFound(res);
        return send(res, p);
      }
      notFound(res);
    } catch (e) {
      res.writeHead(500);
      res.end(String(e));
    }
  });
  const hostOrigin = `http://127.0.0.1:${host.address().port}`;
  const sandbox = await listen(async (req, res) => {
    const url = new URL(req.url, 'http://x');
    if (url.pathname !== '/sandbox.html') return notFound(res);
    let csp = {};
    try {
      csp = JSON.parse(url.searchParams.get('csp') || '{}');
    } catch {}
    const profile = url.searchParams.get('profile') === 'permissive' ? 'permissive' : 'strict';
    const header = buildCsp(csp, profile);
    cspLog.push({ profile, header });
    const html = (await readFile(join(PUBLIC, 'sandbox.html'), 'utf8')).replace('__HOST_ORIGIN__', hostOrigin);
    res.writeHead(200, { 'Content-Type': TYPES['.html'], 'Content-Security-Policy': header, 'Cache-Control': 'no-store' });
    res.end(html);
  });
  sandboxOrigin = `http://127.0.0.1:${sandbox.address().port}`;
  return {
    hostOrigin,
    sandboxOrigin,
    cspLog,
    close: () => Promise.all([host, sandbox].map((s) => new Promise((r) => { s.closeAllConnections?.(); s.close(r); }))),
  };
}

async function send(res, path) {
  try {
    const body = await readFile(path);
    res.writeHead(200, { 'Content-Type': typeOf(path), 'Cache-Control': 'no-store' });
    res.end(body);
  } catch {
    notFound(res);
  }
}

function notFound(res) {
  res.writeHead(404, { 'Content-Type': 'text/plain' });
  res.end('not found');
}

/** Relays a request to the PalmaPlan server as a same-origin call would reach it. */
function relay(req, res, target) {
  const headers = { ...req.headers, host: target.host };
  delete headers.origin;
  delete headers.referer;
  const up = httpRequest(
    { host: target.hostname, port: target.port, path: target.pathname + (new URL(req.url, 'http://x').search), method: req.method, headers },
    (upRes) => {
      res.writeHead(upRes.statusCode, upRes.headers);
      upRes.pipe(res);
    },
  );
  up.on('error', (e) => {
    if (!res.headersSent) res.writeHead(502);
    res.end(String(e));
  });
  req.pipe(up);
}
