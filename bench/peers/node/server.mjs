// The peer server of the benchmark written with the official TypeScript MCP
// SDK as its documentation shows, over Streamable HTTP at `/mcp` on plain
// `node:http`, with two tools:
// - `echo` takes `{ text: string }` and answers the text (no I/O);
// - `lookup` takes `{ key: string }`, reads the key from Redis (`GET`) and
//   then fetches `BENCH_HTTP_URL`, and answers `<value> <body>`: the I/O-bound
//   workload. Its clients are made once per process and shared by every
//   request: one node-redis client (`createClient` from `redis`, connected at
//   start-up as its README does) for `BENCH_REDIS_URL`, and the global `fetch`,
//   whose default agent keeps connections alive. Without either variable
//   the server starts and lists `lookup` all the same, and a call answers a
//   tool error naming what is missing, so `echo` runs need neither.
//
//   [BENCH_REDIS_URL=redis://HOST:PORT BENCH_HTTP_URL=http://HOST:PORT/PATH] \
//   node server.mjs http 127.0.0.1:PORT [--sessions] [--sdk v1]
//
// It runs from bench/target/peers/node/, where bench/peers/install.sh copies
// it beside the node_modules it imports from.
//
// By default it is v2 (`@modelcontextprotocol/server`, the line both SDK
// READMEs recommend for servers, the one that speaks 2026-07-28):
// - stateless (default): `createMcpHandler(factory, { responseMode: 'json' })`,
//   a fresh `McpServer` per request, mounted with `toNodeHandler` behind the
//   `localhostHostValidation` / `localhostOriginValidation` guards ("Serve over
//   HTTP", "Mount it on your runtime"). It serves 2026-07-28 requests and, by
//   its default `legacy: 'stateless'`, 2025-era requests without sessions.
// - `--sessions`: the documented routing for a sessionful 2025-era deployment
//   ("Support legacy clients", "Sessions, state, and scaling"):
//   `isLegacyRequest` sends 2025-era traffic to one
//   `NodeStreamableHTTPServerTransport` per session, kept in a map by its
//   `Mcp-Session-Id` (JSON responses, `enableJsonResponse: true`), and
//   everything else to a strict `createMcpHandler(factory, { legacy: 'reject',
//   responseMode: 'json' })`.
//
// `--sdk v1` serves the same with v1 (`@modelcontextprotocol/sdk`, the
// maintenance line, 2025-era revisions only): stateless, a new `McpServer` and
// `StreamableHTTPServerTransport({ sessionIdGenerator: undefined,
// enableJsonResponse: true })` per request, closed when the response closes;
// with `--sessions`, a transport per session in a map.
//
// The body is read here (as the documentation's `express.json()` does) where
// the routing needs it parsed; the stateless v2 handler reads it itself.

import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';

import { createClient } from 'redis';
import * as z from 'zod/v4';

// The tools' input schemas, built once at module scope and closed over by the
// per-request factory, as "Serve over HTTP" advises for whatever the factory
// can share ("create connection pools and caches once at module scope"); the
// documentation's examples build it inline in the factory, which cost about
// 13% more server CPU per call here (zod builds the schema's JSON Schema anew).
const EchoInput = z.object({ text: z.string() });
const LookupInput = z.object({ key: z.string() });
const LOOKUP_DESCRIPTION = 'Reads a key from Redis and calls an HTTP endpoint.';

// `lookup`'s configuration and its Redis client (connected below, once the
// arguments are checked), at module scope for the same reason: the stateless
// modes build a server per request, and all of them share the one client.
const REDIS_URL = process.env.BENCH_REDIS_URL || undefined;
const HTTP_URL = process.env.BENCH_HTTP_URL || undefined;
let redis;

const toolError = text => ({ content: [{ type: 'text', text }], isError: true });

/** The `lookup` tool, the same callback for v1 and v2. */
async function lookup({ key }) {
    const missing = [
        ['BENCH_REDIS_URL', REDIS_URL],
        ['BENCH_HTTP_URL', HTTP_URL]
    ].filter(([, value]) => !value);
    if (missing.length > 0) {
        return toolError(`lookup is not configured: ${missing.map(([name]) => name).join(' and ')} not set`);
    }
    const value = await redis.get(key);
    if (value === null) return toolError(`No key "${key}" in Redis`);
    const response = await fetch(HTTP_URL);
    // Read before checking the status: an unread body keeps the connection
    // from going back to the pool.
    const body = await response.text();
    if (!response.ok) return toolError(`GET ${HTTP_URL} answered ${response.status}`);
    return { content: [{ type: 'text', text: `${value} ${body}` }] };
}

const args = process.argv.slice(2);
const flag = name => args.includes(name);
const option = name => (args.indexOf(name) >= 0 ? args[args.indexOf(name) + 1] : undefined);
if (args[0] !== 'http' || !args[1]) {
    console.error('usage: node server.mjs http HOST:PORT [--sessions] [--sdk v1|v2]');
    process.exit(2);
}
const address = args[1];
const colon = address.lastIndexOf(':');
const host = address.slice(0, colon);
const port = Number(address.slice(colon + 1));
const sessions = flag('--sessions');
const sdk = option('--sdk') ?? 'v2';
if (REDIS_URL) {
    redis = await createClient({ url: REDIS_URL })
        .on('error', error => console.error('Redis client error:', error))
        .connect();
}

/** The whole body, parsed as JSON; `undefined` when empty or not JSON. */
async function readJson(req) {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    if (chunks.length === 0) return undefined;
    try {
        return JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
        return undefined;
    }
}

function jsonError(res, status, code, message) {
    res.writeHead(status, { 'content-type': 'application/json' }).end(
        JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null })
    );
}

async function v2() {
    const { createMcpHandler, isInitializeRequest, isLegacyRequest, McpServer } = await import(
        '@modelcontextprotocol/server'
    );
    const {
        localhostHostValidation,
        localhostOriginValidation,
        NodeStreamableHTTPServerTransport,
        toNodeHandler,
        toWebRequest
    } = await import('@modelcontextprotocol/node');

    const buildServer = () => {
        const server = new McpServer({ name: 'bench-node', version: '0.1.0' });
        server.registerTool(
            'echo',
            { description: 'Echoes the text back.', inputSchema: EchoInput },
            async ({ text }) => ({ content: [{ type: 'text', text }] })
        );
        server.registerTool('lookup', { description: LOOKUP_DESCRIPTION, inputSchema: LookupInput }, lookup);
        return server;
    };

    const validateHost = localhostHostValidation();
    const validateOrigin = localhostOriginValidation();

    if (!sessions) {
        const handler = createMcpHandler(buildServer, { responseMode: 'json' });
        const nodeHandler = toNodeHandler(handler);
        return async (req, res) => {
            if (!validateHost(req, res) || !validateOrigin(req, res)) return;
            await nodeHandler(req, res);
        };
    }

    const modern = toNodeHandler(createMcpHandler(buildServer, { legacy: 'reject', responseMode: 'json' }));
    const transports = new Map();
    const legacy = async (req, res, body) => {
        const sessionId = req.headers['mcp-session-id'];
        if (sessionId && transports.has(sessionId)) {
            await transports.get(sessionId).handleRequest(req, res, body);
        } else if (!sessionId && isInitializeRequest(body)) {
            const transport = new NodeStreamableHTTPServerTransport({
                sessionIdGenerator: () => randomUUID(),
                enableJsonResponse: true,
                onsessioninitialized: id => {
                    transports.set(id, transport);
                }
            });
            transport.onclose = () => {
                if (transport.sessionId) transports.delete(transport.sessionId);
            };
            await buildServer().connect(transport);
            await transport.handleRequest(req, res, body);
        } else if (sessionId) {
            jsonError(res, 404, -32001, 'Session not found');
        } else {
            jsonError(res, 400, -32000, 'Bad Request: Session ID required');
        }
    };
    return async (req, res) => {
        if (!validateHost(req, res) || !validateOrigin(req, res)) return;
        if (req.method !== 'POST') return legacy(req, res, undefined);
        const body = await readJson(req);
        const probe = await toWebRequest(req, body);
        await ((await isLegacyRequest(probe, body)) ? legacy(req, res, body) : modern(req, res, body));
    };
}

async function v1() {
    const { McpServer } = await import('@modelcontextprotocol/sdk/server/mcp.js');
    const { StreamableHTTPServerTransport } = await import('@modelcontextprotocol/sdk/server/streamableHttp.js');
    const { isInitializeRequest } = await import('@modelcontextprotocol/sdk/types.js');

    const buildServer = () => {
        const server = new McpServer({ name: 'bench-node', version: '0.1.0' });
        server.registerTool(
            'echo',
            { description: 'Echoes the text back.', inputSchema: EchoInput.shape },
            async ({ text }) => ({ content: [{ type: 'text', text }] })
        );
        server.registerTool('lookup', { description: LOOKUP_DESCRIPTION, inputSchema: LookupInput.shape }, lookup);
        return server;
    };

    if (!sessions) {
        return async (req, res) => {
            if (req.method !== 'POST') return jsonError(res, 405, -32000, 'Method not allowed.');
            const body = await readJson(req);
            const server = buildServer();
            const transport = new StreamableHTTPServerTransport({
                sessionIdGenerator: undefined,
                enableJsonResponse: true
            });
            res.on('close', () => {
                transport.close();
                server.close();
            });
            await server.connect(transport);
            await transport.handleRequest(req, res, body);
        };
    }

    const transports = new Map();
    return async (req, res) => {
        const body = req.method === 'POST' ? await readJson(req) : undefined;
        const sessionId = req.headers['mcp-session-id'];
        if (sessionId && transports.has(sessionId)) {
            await transports.get(sessionId).handleRequest(req, res, body);
        } else if (!sessionId && isInitializeRequest(body)) {
            const transport = new StreamableHTTPServerTransport({
                sessionIdGenerator: () => randomUUID(),
                enableJsonResponse: true,
                onsessioninitialized: id => {
                    transports.set(id, transport);
                }
            });
            transport.onclose = () => {
                if (transport.sessionId) transports.delete(transport.sessionId);
            };
            await buildServer().connect(transport);
            await transport.handleRequest(req, res, body);
        } else if (sessionId) {
            jsonError(res, 404, -32001, 'Session not found');
        } else {
            jsonError(res, 400, -32000, 'Bad Request: Session ID required');
        }
    };
}

const serve = sdk === 'v1' ? await v1() : await v2();
const server = createServer((req, res) => {
    if (req.url !== '/mcp' && !req.url.startsWith('/mcp?')) {
        res.writeHead(404).end();
        return;
    }
    serve(req, res).catch(error => {
        console.error('error serving a request:', error);
        if (!res.headersSent) jsonError(res, 500, -32603, 'Internal server error');
    });
});
server.listen(port, host, () => {
    console.error(`bench-node (${sdk}${sessions ? ', sessions' : ''}) listening on http://${address}/mcp`);
});
process.on('SIGTERM', () => process.exit(0));
process.on('SIGINT', () => process.exit(0));
