// The echo server of the benchmark written with the official TypeScript MCP
// SDK as its documentation shows: one tool `echo` taking `{ text: string }`
// and answering the text, over Streamable HTTP at `/mcp` on plain `node:http`.
//
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

import * as z from 'zod/v4';

// The tool's input schema, built once at module scope and closed over by the
// per-request factory, as "Serve over HTTP" advises for whatever the factory
// can share ("create connection pools and caches once at module scope"); the
// documentation's examples build it inline in the factory, which cost about
// 13% more server CPU per call here (zod builds the schema's JSON Schema anew).
const EchoInput = z.object({ text: z.string() });

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
