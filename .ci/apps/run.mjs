// The browser test of interactive views (MCP Apps), against a running `notes`
// server: in headless Chromium, the official host library (AppBridge, see
// host.js) renders the board view the server serves, the view receives the
// tool's input and result and renders the notes, then adds a note through
// its form, which calls the server back; the note must then be on the
// server. Once per era: 2026-07-28 requests, or a 2025-11-25 session.
//
//   node run.mjs --modules DIR --url URL --chromium PATH
//
// DIR is the node_modules of `npm ci` of this folder (.ci/install.sh puts it
// under target/ci/tools/apps). Prints `N passed, N failed` last; exits 1 on
// any failure. Nothing is fetched from the network: the host script is
// bundled here from DIR, and the view is the server's own HTML.

import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

function arg(name) {
  const at = process.argv.indexOf(`--${name}`);
  if (at === -1 || at + 1 >= process.argv.length) throw new Error(`--${name} is required`);
  return process.argv[at + 1];
}

const modules = arg('modules');
const url = arg('url');
const chromiumPath = arg('chromium');
const { chromium } = await import(pathToFileURL(join(modules, 'playwright-core', 'index.mjs')).href);
const esbuild = await import(pathToFileURL(join(modules, 'esbuild', 'lib', 'main.js')).href);

const MIME_TYPE = 'text/html;profile=mcp-app';
const EXTENSION = 'io.modelcontextprotocol/ui';
const CAPABILITIES = { extensions: { [EXTENSION]: { mimeTypes: [MIME_TYPE] } } };
const CLIENT = { name: 'ci-host', version: '1.0.0' };

// One JSON-RPC answer from a body that is JSON or an event stream.
async function answerOf(response, id) {
  const text = await response.text();
  if ((response.headers.get('content-type') || '').startsWith('text/event-stream')) {
    for (const line of text.split('\n')) {
      if (!line.startsWith('data:')) continue;
      const data = line.slice(5).trim();
      if (!data) continue;
      const message = JSON.parse(data);
      if (message.id === id) return message;
    }
    throw new Error(`no answer to ${id} in the stream: ${text}`);
  }
  return JSON.parse(text);
}

// A client of one era: `call(method, params)` resolves to the result, or
// throws the JSON-RPC error.
async function client(era) {
  let nextId = 1;
  let session = null;
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  async function post(message, extra) {
    return fetch(url, { method: 'POST', headers: { ...headers, ...extra }, body: JSON.stringify(message) });
  }
  if (era === '2025-11-25') {
    const init = { jsonrpc: '2.0', id: 0, method: 'initialize',
      params: { protocolVersion: era, capabilities: CAPABILITIES, clientInfo: CLIENT } };
    const response = await post(init, {});
    session = response.headers.get('mcp-session-id');
    const answer = await answerOf(response, 0);
    if (!session || answer.error) throw new Error(`initialize: ${JSON.stringify(answer)}`);
    if (!answer.result.capabilities.extensions?.[EXTENSION]) throw new Error('initialize does not declare the extension');
    const done = await post({ jsonrpc: '2.0', method: 'notifications/initialized' },
      { 'mcp-session-id': session, 'mcp-protocol-version': era });
    if (done.status !== 202) throw new Error(`notifications/initialized: ${done.status}`);
  }
  async function call(method, params) {
    const id = nextId++;
    let message;
    let extra;
    if (session) {
      message = { jsonrpc: '2.0', id, method, params };
      extra = { 'mcp-session-id': session, 'mcp-protocol-version': era };
    } else {
      const meta = { 'io.modelcontextprotocol/protocolVersion': era,
        'io.modelcontextprotocol/clientCapabilities': CAPABILITIES, 'io.modelcontextprotocol/clientInfo': CLIENT };
      message = { jsonrpc: '2.0', id, method, params: { ...params, _meta: meta } };
      extra = { 'mcp-protocol-version': era, 'mcp-method': method };
      const name = method === 'resources/read' ? params.uri : params.name;
      if (name !== undefined && ['tools/call', 'resources/read', 'prompts/get'].includes(method)) extra['mcp-name'] = name;
    }
    const answer = await answerOf(await post(message, extra), id);
    if (answer.error) throw new Error(`${method}: ${JSON.stringify(answer.error)}`);
    return answer.result;
  }
  return { call };
}

const host = (await esbuild.build({
  entryPoints: [new URL('./host.js', import.meta.url).pathname],
  bundle: true, format: 'iife', write: false, logLevel: 'error', nodePaths: [modules],
})).outputFiles[0].text;

let passed = 0;
let failed = 0;
const browser = await chromium.launch({ executablePath: chromiumPath });
try {
  for (const era of ['2026-07-28', '2025-11-25']) {
    try {
      await run(era);
      passed += 1;
      console.log(`ok: ${era}: the board rendered the tool's result, and its note reached the server`);
    } catch (error) {
      failed += 1;
      console.log(`FAILED: ${era}: ${error.stack || error}`);
    }
  }
} finally {
  await browser.close();
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);

async function run(era) {
  const server = await client(era);
  const tools = (await server.call('tools/list', {})).tools;
  const tool = tools.find((t) => t.name === 'show_board');
  const uri = tool?._meta?.ui?.resourceUri;
  if (!uri?.startsWith('ui://')) throw new Error(`show_board names no view: ${JSON.stringify(tool)}`);
  const appOnly = tools.find((t) => t.name === 'remove_from_board');
  if (JSON.stringify(appOnly?._meta?.ui?.visibility) !== '["app"]') throw new Error('remove_from_board is not app-only');
  const { contents } = await server.call('resources/read', { uri });
  if (contents.length !== 1 || contents[0].mimeType !== MIME_TYPE) throw new Error(`the view ${uri} is read as ${contents.length} item(s) of type ${contents.map((c) => c.mimeType).join(', ')}, not one of ${MIME_TYPE}`);

  // What the view asks of the server, through the host.
  const forwarded = [];
  const page = await browser.newPage();
  page.on('pageerror', (error) => console.log(`  page error: ${error}`));
  await page.exposeFunction('__server', async (method, params) => {
    forwarded.push([method, params]);
    return server.call(method, params);
  });
  await page.setContent(`<!doctype html><html><body><script>${host}</script></body></html>`);
  const title = `From the view, ${era} ${Date.now()}`;
  // A view that never answers the host's handshake never renders: give up.
  const shown = page.evaluate((view) => window.showView(view), { html: contents[0].text, tool, args: {} });
  const gaveUp = new Promise((_, reject) => {
    setTimeout(() => reject(new Error('the view never completed the handshake with the host')), 20000).unref();
  });
  await Promise.race([shown, gaveUp]);
  const view = page.frameLocator('iframe');
  // The view got the tool's input, then its result, and rendered the notes.
  await view.locator('body[data-input]').waitFor({ timeout: 20000 });
  await view.locator('body[data-rendered]').waitFor({ timeout: 20000 });
  const before = await view.locator('article.note').count();
  if (before < 1) throw new Error('the board rendered no note (the notebook starts with one)');
  // The view calls the server back: add a note through its form.
  await view.locator('#title').fill(title);
  await view.locator('#body').fill('Added by the board in a browser.');
  await view.locator('#tags').fill('browser');
  await view.locator('#add button[type=submit]').click();
  await view.locator('article.note h2', { hasText: title }).waitFor({ timeout: 20000 });
  if (!forwarded.some(([method, params]) => method === 'tools/call' && params.name === 'add_note')) {
    throw new Error(`the view's add_note never reached the server: ${JSON.stringify(forwarded)}`);
  }
  // The note is on the server, whoever asks.
  const found = await (await client(era)).call('tools/call', { name: 'search_notes', arguments: { query: title } });
  if (!JSON.stringify(found.structuredContent ?? found.content).includes(title)) {
    throw new Error(`the note is not on the server: ${JSON.stringify(found)}`);
  }
  await page.close();
}
