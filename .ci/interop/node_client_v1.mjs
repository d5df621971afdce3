#!/usr/bin/env node
// Interop check with the official TypeScript SDK v1 (@modelcontextprotocol/sdk, pinned in
// package.json): the 2025-era client that most deployed MCP clients are built on. It knows
// only the initialize handshake (no server/discover, nothing to negotiate), so this client
// has one mode. Node >= 20.
//
//   node node_client_v1.mjs [--mode legacy] (--url URL | --stdio -- CMD [ARGS...])
//                           [--tool NAME] [--args JSON] [--elicit JSON] [--timeout S]
//
// Sequence: initialize + notifications/initialized (over HTTP the SDK then keeps the
// Mcp-Session-Id and opens its GET stream), tools/list, one tools/call (default
// test_simple_text with the --args object, default {}), which must succeed with non-empty,
// non-error content, then one follow-up read: prompts/get of a prompt that needs no
// arguments (test_simple_prompt when listed, or a gateway's NAME_test_simple_prompt), or else
// resources/read (test://static-text when listed, else the first resource). Over HTTP the session then ends with DELETE,
// which must succeed.
//
// Over HTTP, a non-empty MCP_BEARER_TOKEN in the environment is sent as
// `Authorization: Bearer <token>` on every request: v1's transport takes no bare token, so
// it goes in requestInit's headers, which the transport merges into each request it makes.
// stdio ignores it.
//
// --elicit JSON declares the elicitation capability and answers every elicitation/create
// with accept and JSON as content. Without it no capability is declared.
//
// The SDK is loaded from MCP_NODE_PREFIX (where `npm ci` ran), else from node_modules
// beside or above this file. Prints one JSON document with the keys of node_client.mjs
// (protocolEra is always "legacy") plus followUp; exit 0 on success, 1 on failure, 2 on
// bad usage.

import { createRequire } from 'node:module';
import path from 'node:path';

import { parseArgs, report } from './cli.mjs';


function loadSdk() {
  const prefix = process.env.MCP_NODE_PREFIX;
  const req = createRequire(prefix ? path.resolve(prefix, 'package.json') : import.meta.url);
  return {
    Client: req('@modelcontextprotocol/sdk/client/index.js').Client,
    ElicitRequestSchema: req('@modelcontextprotocol/sdk/types.js').ElicitRequestSchema,
    HttpTransport: req('@modelcontextprotocol/sdk/client/streamableHttp.js').StreamableHTTPClientTransport,
    StdioTransport: req('@modelcontextprotocol/sdk/client/stdio.js').StdioClientTransport
  };
}

// The follow-up read: a prompt without required arguments, else a resource.
async function followUp(client, capabilities, timeout, out) {
  if (capabilities.prompts) {
    out.stage = 'prompts/list';
    const { prompts } = await client.listPrompts(undefined, { timeout });
    const free = prompts.filter((p) => !(p.arguments ?? []).some((a) => a.required));
    const simple = (p) => p.name === 'test_simple_prompt' || p.name.endsWith('_test_simple_prompt');
    const name = (free.find(simple) ?? free[0])?.name;
    if (name !== undefined) {
      out.stage = 'prompts/get';
      const result = await client.getPrompt({ name, arguments: {} }, { timeout });
      if (!(result.messages?.length > 0)) throw new Error(`prompts/get ${name} returned no messages`);
      return { method: 'prompts/get', name, result };
    }
  }
  if (capabilities.resources) {
    out.stage = 'resources/list';
    const { resources } = await client.listResources(undefined, { timeout });
    const uri = (resources.find((r) => r.uri === 'test://static-text') ?? resources[0])?.uri;
    if (uri !== undefined) {
      out.stage = 'resources/read';
      const result = await client.readResource({ uri }, { timeout });
      if (!(result.contents?.length > 0)) throw new Error(`resources/read ${uri} returned no contents`);
      return { method: 'resources/read', uri, result };
    }
  }
  throw new Error('the server lists no prompt without required arguments and no resource');
}

async function run(opts, out) {
  const sdk = loadSdk();
  const timeout = Math.round(opts.timeoutS * 1000);
  const token = process.env.MCP_BEARER_TOKEN;
  if (opts.url && token) out.bearerToken = true;
  const transport = opts.url
    ? new sdk.HttpTransport(
        new URL(opts.url),
        token ? { requestInit: { headers: { Authorization: `Bearer ${token}` } } } : undefined
      )
    : new sdk.StdioTransport({ command: opts.command[0], args: opts.command.slice(1), stderr: 'inherit' });
  // connect() hands the version the server chose to the transport and keeps no copy of
  // its own; catch it on the way.
  const setProtocolVersion = transport.setProtocolVersion?.bind(transport);
  transport.setProtocolVersion = (version) => {
    out.protocolVersion = version;
    setProtocolVersion?.(version);
  };
  const client = new sdk.Client(
    { name: 'mcp-runtime-ci-node-v1', version: '0.1.0' },
    { capabilities: opts.elicit ? { elicitation: {} } : {} }
  );
  if (opts.elicit) {
    out.elicitations = [];
    client.setRequestHandler(sdk.ElicitRequestSchema, async (request) => {
      out.elicitations.push(request.params);
      return { action: 'accept', content: opts.elicit };
    });
  }
  try {
    out.stage = 'initialize';
    await client.connect(transport, { timeout });
    out.protocolEra = 'legacy';
    out.serverInfo = client.getServerVersion() ?? null;
    if (opts.url) out.sessionId = transport.sessionId ?? null;

    out.stage = 'tools/list';
    const listed = await client.listTools(undefined, { timeout });
    out.tools = listed.tools.map((t) => t.name);
    if (!out.tools.includes(opts.tool)) throw new Error(`tools/list has no ${opts.tool}`);

    out.stage = 'tools/call';
    const result = await client.callTool({ name: opts.tool, arguments: opts.args }, undefined, { timeout });
    out.call = { name: opts.tool, arguments: opts.args, result };
    if (result.isError || !(result.content?.length > 0))
      throw new Error(`tools/call ${opts.tool} did not succeed: ${JSON.stringify(result)}`);

    out.followUp = await followUp(client, client.getServerCapabilities() ?? {}, timeout, out);

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

const opts = parseArgs(process.argv.slice(2), 'node_client_v1.mjs', ['legacy']);
const out = { ok: false, client: 'typescript @modelcontextprotocol/sdk', mode: opts.mode, stage: 'start' };
out.transport = opts.url ? 'streamable-http' : 'stdio';
await report(opts, out, run);
