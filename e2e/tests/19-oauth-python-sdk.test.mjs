// A real OAuth client end to end: the official MCP Python SDK's OAuthClientProvider
// (e2e/oauth/sdk_flow.py, in the venv e2e/oauth/venv.sh makes) connects to
// `palmaplan serve` by its URL alone — discovery through the 401's resource_metadata,
// dynamic registration, PKCE S256, the sign-in and consent pages answered by a scripted
// browser — then calls list_schedules, refreshes, and finds the rotated refresh token
// refused. The password is set as a person does, through `palmaplan user set-password`
// on standard input.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Palmaplan } from '../host/palmaplan.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const PASSWORD = 'a long passphrase for the e2e test';

let server;
let python;
before(async () => {
  python = process.env.PALMAPLAN_OAUTH_PYTHON
    || execFileSync('bash', [join(here, '..', 'oauth', 'venv.sh')], { encoding: 'utf8' }).trim();
  server = await Palmaplan.start({ lang: 'en' });
  execFileSync(server.bin, ['user', 'set-password', '--email', 'owner@localhost', '--data-dir', server.dataDir],
    { input: `${PASSWORD}\n`, encoding: 'utf8' });
});
after(async () => { await server?.stop(); });

test('the MCP Python SDK signs in by OAuth, calls a tool and refreshes', async () => {
  const r = await new Promise((resolve) => {
    execFile(python, [join(here, '..', 'oauth', 'sdk_flow.py'), server.url, 'owner@localhost', PASSWORD],
      { timeout: 120000, maxBuffer: 4 << 20 },
      (err, stdout, stderr) => resolve({ code: err ? (err.code ?? 1) : 0, stdout, stderr }));
  });
  assert.equal(r.code, 0, `exit ${r.code}\n${r.stdout}\n${r.stderr.slice(-8000)}`);
  assert.match(r.stdout, /^12 passed, 0 failed$/m, r.stdout);
});
