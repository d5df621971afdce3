#!/usr/bin/env node
// The conformance suite's `authorization` mode (the authorization-server scenarios) against an
// MCP server's OAuth front (`--oauth-proxy`), with no browser: .ci/interop.sh --proxy runs it,
// on the Node the suite needs (>= 22; lib.sh's conformance_node).
//
//   node authorization.mjs --suite SUITE_JS --issuer ISSUER --resource RESOURCE --out DIR
//                          [--login NAME] [--timeout S]
//
// SUITE_JS is the suite's dist/index.js; ISSUER the front's issuer, exactly as its metadata
// says (the suite compares them byte for byte); RESOURCE the MCP endpoint the tokens are for.
// The suite calls no registration endpoint and needs a client registered with the redirect URI
// http://127.0.0.1:PORT/callback, PORT the callback server it listens on: this script reads
// the front's metadata (RFC 8414, path-inserted well-known URL), registers a public client
// there by DCR (token_endpoint_auth_method none: with `none` listed, the suite authenticates
// as a public client anyway), and runs
//
//   node SUITE_JS authorization --url ISSUER --client-id ID --resource RESOURCE -p PORT -o DIR/run-XXXX
//
// both scenarios, metadata first (never `--scenario`: the code grant reads the metadata
// scenario's result). The suite does not follow its authorization URL: it prints it on a line
// of its own and waits for the browser to reach its callback server. When that line appears
// (a URL starting with the metadata's authorization_endpoint), front_login.mjs plays the
// person (the front's consent, the upstream's login as NAME, default alice, and consent) and
// the Location the front sends them back to is requested, as the browser would.
// The suite's output is shown, each line behind `  | `. Then one line per check,
// `PASS  LABEL  DETAIL` or `FAIL  LABEL  DETAIL` (interop.sh counts them):
//   conformance-dcr         the registration: 201, a client_id, no secret, the redirect URI echoed
//   conformance-approve     the person sent back to the suite's callback with a code, and the
//                           suite's callback server answered
//   conformance-exit        the suite exited 0 (within S seconds, default 180)
//   conformance-metadata    its check authorization-server-metadata is SUCCESS
//   conformance-cimd        its check authorization-server-metadata-cimd is SUCCESS
//                           (client_id_metadata_document_supported: true; the suite itself
//                           would only warn)
//   conformance-code-grant  its check authorization-code-grant is SUCCESS (SKIPPED fails: the
//                           suite skips it without a client id and still exits 0)
// and last the counts of the suite's checks by status. The checks are read from the
// checks.json files the suite writes under DIR. Exit 0 when every line is PASS, 1 otherwise,
// 2 on bad usage.

import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';

import { approveThroughFront, describe, freePort } from '../interop/front_login.mjs';

function usage(message) {
  process.stderr.write(
    `${message ? `error: ${message}\n` : ''}usage: node authorization.mjs --suite SUITE_JS --issuer ISSUER ` +
      '--resource RESOURCE --out DIR [--login NAME] [--timeout S]\n'
  );
  process.exit(2);
}

function parseArgs(argv) {
  const opts = { login: 'alice', timeoutS: 180 };
  const flags = { '--suite': 'suite', '--issuer': 'issuer', '--resource': 'resource', '--out': 'out', '--login': 'login', '--timeout': 'timeoutS' };
  for (let i = 0; i < argv.length; i++) {
    const key = flags[argv[i]];
    if (!key) usage(`unknown argument ${argv[i]}`);
    if (i + 1 >= argv.length) usage(`${argv[i]} needs a value`);
    opts[key] = argv[++i];
  }
  for (const flag of ['--suite', '--issuer', '--resource', '--out']) if (!opts[flags[flag]]) usage(`${flag} is required`);
  opts.timeoutS = Number(opts.timeoutS);
  if (!(opts.timeoutS > 0)) usage('--timeout must be a positive number');
  return opts;
}

// GET url as the browser would, once the suite's callback server listens (it prints the URL
// and starts listening at the same time: a refused connection is tried again, for up to 5 s).
async function reach(url) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(30_000) });
    } catch (err) {
      if (err.cause?.code !== 'ECONNREFUSED' || attempt >= 25) throw err;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

const results = [];
function line(ok, label, detail) {
  results.push(ok);
  process.stdout.write(`${ok ? 'PASS' : 'FAIL'}  ${label.padEnd(22)} ${detail}\n`);
}

// Every check in the checks.json files under `dir`.
function suiteChecks(dir) {
  const checks = [];
  const walk = (at) => {
    for (const name of readdirSync(at)) {
      const full = path.join(at, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (name === 'checks.json') checks.push(...JSON.parse(readFileSync(full, 'utf8')));
    }
  };
  walk(dir);
  return checks;
}

async function main(opts) {
  const issuer = opts.issuer;
  const issuerUrl = new URL(issuer);
  const wellKnown = `${issuerUrl.origin}/.well-known/oauth-authorization-server${issuerUrl.pathname.replace(/\/$/, '')}`;
  const answer = await fetch(wellKnown, { signal: AbortSignal.timeout(30_000) });
  if (!answer.ok) throw new Error(`${wellKnown} answered ${answer.status}: ${(await answer.text()).slice(0, 300)}`);
  const metadata = await answer.json();
  if (!metadata.registration_endpoint || !metadata.authorization_endpoint) {
    throw new Error(`the metadata at ${wellKnown} lacks registration_endpoint or authorization_endpoint: ${JSON.stringify(metadata)}`);
  }

  const port = await freePort();
  const redirectUri = `http://127.0.0.1:${port}/callback`;
  let clientId;
  {
    const registration = await fetch(metadata.registration_endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({
        client_name: 'mcp-runtime CI (conformance suite, authorization mode)',
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      }),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await registration.text();
    let body;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    const problems = [];
    if (registration.status !== 201) problems.push(`status ${registration.status}`);
    if (!body?.client_id) problems.push('no client_id');
    if (body?.client_secret) problems.push('a client_secret for a public client');
    if (!body?.redirect_uris?.includes(redirectUri)) problems.push('the redirect URI not echoed');
    if (problems.length) {
      line(false, 'conformance-dcr', `POST ${metadata.registration_endpoint}: ${problems.join(', ')}: ${text.slice(0, 300)}`);
      return;
    }
    clientId = body.client_id;
    line(true, 'conformance-dcr', `client_id ${clientId} (public), redirect URI ${redirectUri}`);
  }

  mkdirSync(opts.out, { recursive: true });
  const outDir = mkdtempSync(path.join(opts.out, 'run-'));
  const args = [opts.suite, 'authorization', '--url', issuer, '--client-id', clientId, '--resource', opts.resource, '-p', String(port), '-o', outDir];
  process.stdout.write(`running: ${path.basename(process.execPath)} ${args.join(' ')}\n`);
  const suite = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' } });
  const exited = new Promise((resolve) => suite.on('exit', (code, signal) => resolve({ code, signal })));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    suite.kill('SIGTERM');
  }, opts.timeoutS * 1000);

  let approval; // the approval's promise, once the authorization URL was printed
  const prefix = metadata.authorization_endpoint;
  createInterface({ input: suite.stderr }).on('line', (text) => process.stdout.write(`  ! ${text}\n`));
  createInterface({ input: suite.stdout }).on('line', (text) => {
    process.stdout.write(`  | ${text}\n`);
    const url = text.trim();
    if (approval || !(url.startsWith(`${prefix}?`))) return;
    approval = (async () => {
      try {
        const location = await approveThroughFront(url, { login: opts.login });
        const back = new URL(location);
        if (`${back.origin}${back.pathname}` !== redirectUri) throw new Error(`sent back to ${location}, not ${redirectUri}`);
        const reached = await reach(location);
        const said = (await reached.text()).trim();
        if (reached.status !== 200) throw new Error(`the suite's callback answered ${reached.status}: ${said.slice(0, 200)}`);
        line(true, 'conformance-approve', `back at the suite's callback with a code (it answered: ${said.slice(0, 60)})`);
      } catch (err) {
        line(false, 'conformance-approve', describe(err));
        // The suite would wait five minutes for a callback that will not come.
        suite.kill('SIGTERM');
      }
    })();
  });

  const { code, signal } = await exited;
  clearTimeout(timer);
  await approval;
  if (!approval) line(false, 'conformance-approve', `the suite printed no URL starting with ${prefix}?`);
  const how = signal ? `killed by ${signal}${timedOut ? ` after ${opts.timeoutS}s` : ''}` : `exit ${code}`;
  line(code === 0, 'conformance-exit', how);

  const checks = suiteChecks(outDir);
  const byId = new Map(checks.map((c) => [c.id, c]));
  for (const [label, id] of [
    ['conformance-metadata', 'authorization-server-metadata'],
    ['conformance-cimd', 'authorization-server-metadata-cimd'],
    ['conformance-code-grant', 'authorization-code-grant'],
  ]) {
    const check = byId.get(id);
    if (!check) line(false, label, `${id}: not in the suite's results (${outDir})`);
    else line(check.status === 'SUCCESS', label, `${id}: ${check.status}${check.errorMessage ? ` (${check.errorMessage})` : ''}`);
  }
  const counts = {};
  for (const c of checks) counts[c.status] = (counts[c.status] ?? 0) + 1;
  const summary = Object.entries(counts).map(([status, n]) => `${n} ${status}`).join(', ') || 'no checks';
  process.stdout.write(`the suite's checks: ${summary} (results: ${outDir})\n`);
}

const opts = parseArgs(process.argv.slice(2));
try {
  await main(opts);
} catch (err) {
  line(false, 'conformance', describe(err));
}
process.exit(results.length > 0 && results.every(Boolean) ? 0 : 1);
