#!/usr/bin/env node
// Interop check with the official TypeScript SDK v2 client (@modelcontextprotocol/client,
// pinned in package.json). Node >= 20.
//
//   node node_client.mjs [--mode modern|legacy|auto] (--url URL | --stdio -- CMD [ARGS...])
//                        [--tool NAME] [--args JSON] [--elicit JSON] [--timeout S]
//
// --mode sets the client's versionNegotiation, which decides what connect() sends:
//   modern  (default) pinned to 2026-07-28: server/discover only; a server that does not
//           answer it fails the run instead of being retried with initialize.
//   legacy  initialize + notifications/initialized (the 2025 handshake). Over HTTP the
//           transport keeps the Mcp-Session-Id; close() leaves the session open, so the
//           run ends it with terminateSession() (DELETE), which must succeed.
//   auto    server/discover, falling back to initialize for a server that is not a
//           2026-07-28 one. Over stdio the SDK probes in a throwaway copy of the server
//           process before starting the one it keeps.
// Then tools/list and one tools/call (default test_simple_text with the --args object,
// default {}), which must succeed with non-empty, non-error content.
//
// Over HTTP, a non-empty MCP_BEARER_TOKEN in the environment is the transport's bearer
// token: a minimal authProvider (token() only) the SDK asks before every request, so every
// POST, GET and DELETE carries `Authorization: Bearer <token>`. stdio ignores it.
//
// --elicit JSON declares the elicitation capability and answers every elicitation with
// accept and JSON as content: on a legacy connection the server's elicitation/create
// request, on a modern one an input_required round, which callTool() answers through the
// same handler before it retries. Without --elicit no capability is declared.
//
// The SDK is loaded from MCP_NODE_PREFIX (where `npm ci` ran), else from node_modules
// beside or above this file. Prints one JSON document (ok, mode, transport, stage,
// protocolEra, protocolVersion, serverInfo, sessionId over HTTP, tools, call,
// elicitations, error); exit 0 on success, 1 on failure, 2 on bad usage.

import { createRequire } from 'node:module';
import path from 'node:path';

import { parseArgs, report } from './cli.mjs';

const PROTOCOL_VERSION = '2026-07-28';
// versionNegotiation.mode for each --mode, and the stage connect() stands for.
const MODES = {
  modern: { negotiation: { pin: PROTOCOL_VERSION }, stage: 'server/discover' },
  legacy: { negotiation: 'legacy', stage: 'initialize' },
  auto: { negotiation: 'auto', stage: 'negotiate' }
};


function loadSdk() {
  const prefix = process.env.MCP_NODE_PREFIX;
  const req = createRequire(prefix ? path.resolve(prefix, 'package.json') : import.meta.url);
  return { core: req('@modelcontextprotocol/client'), stdio: req('@modelcontextprotocol/client/stdio') };
}

async function run(opts, out) {
  const { core, stdio } = loadSdk();
  const timeout = Math.round(opts.timeoutS * 1000);
  const token = process.env.MCP_BEARER_TOKEN;
  if (opts.url && token) out.bearerToken = true;
  const transport = opts.url
    ? new core.StreamableHTTPClientTransport(
        new URL(opts.url),
        token ? { authProvider: { token: async () => token } } : undefined
      )
    : new stdio.StdioClientTransport({ command: opts.command[0], args: opts.command.slice(1), stderr: 'inherit' });
  const client = new core.Client(
    { name: 'mcp-runtime-ci-node', version: '0.1.0' },
    {
      capabilities: opts.elicit ? { elicitation: {} } : {},
      versionNegotiation: { mode: MODES[opts.mode].negotiation }
    }
  );
  if (opts.elicit) {
    out.elicitations = [];
    client.setRequestHandler('elicitation/create', async (request) => {
      out.elicitations.push(request.params);
      return { action: 'accept', content: opts.elicit };
    });
  }
  try {
    out.stage = MODES[opts.mode].stage;
    await client.connect(transport, { timeout });
    out.protocolEra = client.getProtocolEra() ?? null;
    out.protocolVersion = client.getNegotiatedProtocolVersion() ?? null;
    out.serverInfo = client.getServerVersion() ?? null;
    if (opts.url) out.sessionId = transport.sessionId ?? null;
    const expected = { modern: 'modern', legacy: 'legacy' }[opts.mode];
    if (expected && out.protocolEra !== expected) throw new Error(`${opts.mode} mode negotiated era ${out.protocolEra}`);
    if (out.protocolEra === 'modern') {
      const discover = client.getDiscoverResult();
      if (!discover?.supportedVersions?.includes(out.protocolVersion))
        throw new Error(`server/discover does not list ${out.protocolVersion}: ${JSON.stringify(discover)}`);
    }

    out.stage = 'tools/list';
    const listed = await client.listTools(undefined, { timeout, cacheMode: 'bypass' });
    out.tools = listed.tools.map((t) => t.name);
    if (!out.tools.includes(opts.tool)) throw new Error(`tools/list has no ${opts.tool}`);

    out.stage = 'tools/call';
    const result = await client.callTool({ name: opts.tool, arguments: opts.args }, { timeout });
    out.call = { name: opts.tool, arguments: opts.args, result };
    if (result.isError || !(result.content?.length > 0))
      throw new Error(`tools/call ${opts.tool} did not succeed: ${JSON.stringify(result)}`);

    if (out.sessionId) {
      out.stage = 'DELETE';
      await transport.terminateSession();
    }
    out.stage = 'done';
    out.ok = true;
  } finally {
    // A run that stopped early still ends its session, and its own error stays the one reported.
    if (!out.ok && transport.sessionId) await transport.terminateSession().catch(() => {});
    await client.close().catch(() => {});
  }
}

const opts = parseArgs(process.argv.slice(2), 'node_client.mjs', Object.keys(MODES));
const out = { ok: false, client: 'typescript @modelcontextprotocol/client', mode: opts.mode, stage: 'start' };
out.transport = opts.url ? 'streamable-http' : 'stdio';
await report(opts, out, run);
