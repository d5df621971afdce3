#!/usr/bin/env node
// Interop check with the official TypeScript SDK v2 client (@modelcontextprotocol/client,
// pinned in package.json). Node >= 20.
//
//   node node_client.mjs [--mode modern] (--url URL | --stdio -- CMD [ARGS...]) [--tool NAME] [--timeout S]
//
// --mode modern (the only mode so far): versionNegotiation pinned to 2026-07-28, so connect()
// sends server/discover, never initialize, and fails rather than fall back. Sequence:
// server/discover, tools/list, tools/call of one tool (default: test_simple_text) without
// arguments, which must succeed with a non-empty, non-error result.
//
// The SDK is loaded from MCP_NODE_PREFIX (where `npm ci` ran), else from node_modules
// beside or above this file. Prints one JSON document; exit 0 on success, 1 on failure,
// 2 on bad usage.

import { createRequire } from 'node:module';
import path from 'node:path';

const PROTOCOL_VERSION = '2026-07-28';

function usage(message) {
  process.stderr.write(
    `${message ? `error: ${message}\n` : ''}usage: node node_client.mjs [--mode modern] ` +
      '(--url URL | --stdio -- CMD [ARGS...]) [--tool NAME] [--timeout S]\n'
  );
  process.exit(2);
}

function parseArgs(argv) {
  const opts = { mode: 'modern', tool: 'test_simple_text', timeoutS: 15, command: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => (i + 1 < argv.length ? argv[++i] : usage(`${arg} needs a value`));
    if (arg === '--') {
      opts.command = argv.slice(i + 1);
      break;
    } else if (arg === '--url') opts.url = value();
    else if (arg === '--stdio') opts.stdio = true;
    else if (arg === '--mode') opts.mode = value();
    else if (arg === '--tool') opts.tool = value();
    else if (arg === '--timeout') opts.timeoutS = Number(value());
    else usage(`unknown argument ${arg}`);
  }
  if (!!opts.url === !!opts.stdio) usage('give exactly one of --url and --stdio');
  if (!!opts.stdio !== opts.command.length > 0) usage('--stdio takes a server command after --, and only --stdio does');
  if (!(opts.timeoutS > 0)) usage('--timeout must be a positive number');
  if (!(opts.mode in MODES)) usage(`--mode must be one of ${Object.keys(MODES).join(', ')}`);
  return opts;
}

function loadSdk() {
  const prefix = process.env.MCP_NODE_PREFIX;
  const req = createRequire(prefix ? path.resolve(prefix, 'package.json') : import.meta.url);
  return { core: req('@modelcontextprotocol/client'), stdio: req('@modelcontextprotocol/client/stdio') };
}

function describe(err) {
  const parts = [];
  for (let e = err, depth = 0; e && depth < 4; depth++, e = e.cause) {
    parts.push(`${e.name ?? 'Error'}${e.code !== undefined ? `[${e.code}]` : ''}: ${e.message ?? String(e)}`);
  }
  return parts.join(' <- ') || String(err);
}

async function modern(opts, out) {
  const { core, stdio } = loadSdk();
  const timeout = Math.round(opts.timeoutS * 1000);
  const transport = opts.url
    ? new core.StreamableHTTPClientTransport(new URL(opts.url))
    : new stdio.StdioClientTransport({ command: opts.command[0], args: opts.command.slice(1), stderr: 'inherit' });
  const client = new core.Client(
    { name: 'mcp-runtime-ci-node', version: '0.1.0' },
    { capabilities: {}, versionNegotiation: { mode: { pin: PROTOCOL_VERSION } } }
  );
  try {
    out.stage = 'server/discover';
    await client.connect(transport, { timeout });
    if (client.getProtocolEra() !== 'modern') throw new Error(`negotiated era ${client.getProtocolEra()}`);
    const discover = client.getDiscoverResult();
    if (!discover?.supportedVersions?.includes(PROTOCOL_VERSION))
      throw new Error(`server/discover does not list ${PROTOCOL_VERSION}: ${JSON.stringify(discover)}`);
    out.serverInfo = client.getServerVersion() ?? null;

    out.stage = 'tools/list';
    const listed = await client.listTools(undefined, { timeout, cacheMode: 'bypass' });
    out.tools = listed.tools.map((t) => t.name);
    if (!out.tools.includes(opts.tool)) throw new Error(`tools/list has no ${opts.tool}`);

    out.stage = 'tools/call';
    const result = await client.callTool({ name: opts.tool, arguments: {} }, { timeout });
    out.call = { name: opts.tool, result };
    if (result.isError || !(result.content?.length > 0))
      throw new Error(`tools/call ${opts.tool} did not succeed: ${JSON.stringify(result)}`);
    out.stage = 'done';
    out.ok = true;
  } finally {
    await client.close().catch(() => {});
  }
}

const MODES = { modern };
const opts = parseArgs(process.argv.slice(2));
const out = { ok: false, client: 'typescript @modelcontextprotocol/client', mode: opts.mode, stage: 'start' };
out.transport = opts.url ? 'streamable-http' : 'stdio';
let timer;
try {
  await Promise.race([
    MODES[opts.mode](opts, out),
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out at stage ${out.stage}`)), opts.timeoutS * 4000);
    })
  ]);
} catch (err) {
  out.error = describe(err);
} finally {
  clearTimeout(timer);
}
process.stdout.write(JSON.stringify(out, null, 2) + '\n');
// A half-open stdio child or socket must not keep the process alive.
process.exit(out.ok ? 0 : 1);
