// The PalmaPlan server under test, from Node: starts `palmaplan serve` on a fresh data
// folder and a free loopback port (as tests/tests/common/mod.rs does in Rust), reads the
// owner's first token from its stdout, runs its CLI (users, tokens), and gives MCP
// clients (@modelcontextprotocol/client v2 over streamable HTTP) with or without the
// MCP Apps capability, by each of the three routes.
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const here = dirname(fileURLToPath(import.meta.url));
export const REPO = resolve(here, '..', '..');
export const UI_EXT = 'io.modelcontextprotocol/ui';
export const UI_CAP = { mimeTypes: ['text/html;profile=mcp-app'] };

/** The binary: $PALMAPLAN_BIN, else $CARGO_TARGET_DIR/debug/palmaplan, else target/debug. */
export function binary() {
  const candidates = [
    process.env.PALMAPLAN_BIN,
    process.env.CARGO_TARGET_DIR && join(process.env.CARGO_TARGET_DIR, 'debug', 'palmaplan'),
    join(REPO, 'target', 'debug', 'palmaplan'),
  ].filter(Boolean);
  const found = candidates.find((p) => existsSync(p));
  if (!found) throw new Error(`no palmaplan binary (tried ${candidates.join(', ')}): run e2e/run.sh`);
  return found;
}

/** A free loopback port (bound then released). */
export function freePort() {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => res(port));
    });
  });
}

/** Polls `cond` (sync or async) every `every` ms until truthy; throws with `what` after `ms`. */
export async function waitFor(cond, { ms = 10000, every = 50, what = 'condition' } = {}) {
  const end = Date.now() + ms;
  let last;
  for (;;) {
    try {
      last = await cond();
      if (last) return last;
    } catch (e) {
      last = e;
    }
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what} (last: ${last})`);
    await new Promise((r) => setTimeout(r, every));
  }
}

export class Palmaplan {
  /** Starts a server on a new data folder; resolves once /healthz answers. */
  static async start({ lang = 'en' } = {}) {
    const p = new Palmaplan();
    p.bin = binary();
    p.dataDir = mkdtempSync(join(tmpdir(), 'palmaplan-e2e-'));
    p.port = await freePort();
    p.base = `http://127.0.0.1:${p.port}`;
    p.url = `${p.base}/mcp`;
    p.lang = lang;
    p.proc = spawn(p.bin, ['serve', '--data-dir', p.dataDir, '--addr', `127.0.0.1:${p.port}`, '--lang', lang], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    p.proc.stdout.on('data', (d) => (out += d));
    p.proc.stderr.on('data', (d) => (err += d));
    p.token = await waitFor(() => (out.match(/ppt_[0-9a-f]{16,}/) || [])[0], {
      ms: 20000,
      what: `the owner's token on stdout (stderr: ${err.slice(-500)})`,
    });
    await waitFor(async () => (await fetch(`${p.base}/healthz`)).ok, { ms: 10000, what: '/healthz' });
    p.demoId = 1;
    return p;
  }

  /** Runs the CLI on this server's data folder; returns its stdout. */
  cli(...args) {
    return execFileSync(this.bin, [...args, '--data-dir', this.dataDir], { encoding: 'utf8' });
  }

  /** Adds a server user; returns their e-mail. */
  addUser(name, email) {
    this.cli('user', 'add', '--name', name, '--email', email);
    return email;
  }

  /** A new named token for a user (read-only if asked). */
  newToken(email, { readOnly = false, label = 'e2e' } = {}) {
    const out = this.cli('token', 'create', '--user', email, '--label', label, ...(readOnly ? ['--read-only'] : []));
    const m = out.match(/ppt_[0-9a-f]{16,}/);
    if (!m) throw new Error(`no token in: ${out}`);
    return m[0];
  }

  /**
   * An MCP client. `apps`: undefined (a plain client), "extensions" or "experimental"
   * (announced at initialize). `token` defaults to the owner's.
   */
  async client({ apps, token = this.token, name = 'palmaplan-e2e' } = {}) {
    const capabilities = {};
    if (apps) capabilities[apps] = { [UI_EXT]: UI_CAP };
    const client = new Client({ name, version: '0' }, { capabilities });
    const transport = new StreamableHTTPClientTransport(new URL(this.url), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    });
    await client.connect(transport);
    return client;
  }

  async stop() {
    if (this.proc && this.proc.exitCode === null) {
      const done = new Promise((r) => this.proc.once('exit', r));
      this.proc.kill('SIGINT');
      await Promise.race([done, new Promise((r) => setTimeout(r, 5000))]);
      if (this.proc.exitCode === null) this.proc.kill('SIGKILL');
    }
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}

/** The fields of the records a page writes as arrays, in their order
 * (shared-model/src/paging.rs, "The record stream"): a bar's progress comes first of its
 * optional fields. */
const ARRAY_FIELDS = {
  bar: ['id', 'row', 'label', 'start', 'end', 'progress', 'color', 'notes', 'pin', 'constraint', 'deadline', 'actual_start', 'actual_finish'],
  milestone: ['id', 'row', 'label', 'date', 'color', 'notes', 'constraint', 'deadline'],
  link: ['id', 'from', 'to', 'kind', 'lag'],
  action: ['id', 'bar', 'label', 'status', 'assignee'],
};

/** The fields an array holds as day numbers (days since 1970-01-01), given back as the
 * "YYYY-MM-DD" the tools write. */
const DAY_FIELDS = new Set(['start', 'end', 'date', 'pin', 'deadline', 'actual_start', 'actual_finish']);
const isoDay = (n) => new Date(n * 86400000).toISOString().slice(0, 10);

/** A record with its fields named: pages write bars, milestones, links and actions as arrays. */
function named(record) {
  const [kind, fields] = Object.entries(record)[0];
  if (kind === 'cut') return { cut: { ...fields, record: named(fields.record) } };
  if (!Array.isArray(fields)) return record;
  const names = ARRAY_FIELDS[kind];
  if (!names || fields.length > names.length) throw new Error(`a ${kind} record of ${fields.length} fields: ${JSON.stringify(record)}`);
  return { [kind]: Object.fromEntries(fields.map((v, i) => [names[i], DAY_FIELDS.has(names[i]) && Number.isInteger(v) ? isoDay(v) : v])) };
}

/** The records of a get_schedule_page answer's structuredContent (sent as texts), with
 * their fields named. */
export function pageRecords(structured) {
  return structured.record_parts.flatMap((t) => JSON.parse(t)).flatMap(apart).map(named);
}

/** The records of an element of a page's records: itself, or those of a run
 * (`{"bars":[[...],[...]]}`, one key, the kind's plural: no kind ends in "s"). */
function apart(element) {
  const [key, value] = Object.entries(element)[0];
  return key.endsWith('s') ? value.map((fields) => ({ [key.slice(0, -1)]: fields })) : [element];
}

/** Calls a tool and gives {text, structured, isError, raw}. */
export async function call(client, name, args = {}) {
  const raw = await client.callTool({ name, arguments: args });
  const text = (raw.content || []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');
  return { text, structured: raw.structuredContent, isError: raw.isError === true, raw };
}
