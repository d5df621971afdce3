// The browser test of interactive views (MCP Apps), against a running `notes`
// server: in headless Chromium, the official host library (AppBridge, see
// host.js) renders the board view the server serves, in an iframe sandboxed
// with `allow-scripts` alone (the strictest sandbox a host may use) under
// the Content Security Policy its resource declares (the spec's default
// when it declares none). The view receives the tool's input and result and
// renders the notes, then adds a note through its own controls, which call
// the server back; the note must then be on the server. It then deletes that
// note with its delete button: the server asks the host's user to confirm
// (an elicitation, which this host answers as its user would: once "no",
// and the note stays, then "yes", and it is gone). Once per era: 2026-07-28
// requests, or a 2025-11-25 session.
//
// The run fails on any error a page reports (an uncaught exception, a
// console error, a refusal by the sandbox or the CSP), and on any network
// request the view makes: each is refused, since a view must reach its
// server through the host alone. The host page itself is set from here and
// nothing is served to the browser, so no request is expected at all.
//
//   node run.mjs --modules DIR --url URL --chromium PATH [--prefix PREFIX]
//
// PREFIX: what the server URL serves the notes server's tools under (`notes_`
// through a gateway that mounts it at `notes`). The view itself calls the tools
// by their own names, as the notes server names them: the server in front of it
// serves those calls (a mounted view's calls are its own mount's).
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
const prefix = process.argv.includes('--prefix') ? arg('prefix') : '';
const { chromium } = await import(pathToFileURL(join(modules, 'playwright-core', 'index.mjs')).href);
const esbuild = await import(pathToFileURL(join(modules, 'esbuild', 'lib', 'main.js')).href);

const MIME_TYPE = 'text/html;profile=mcp-app';
const EXTENSION = 'io.modelcontextprotocol/ui';
// A host that renders views and can put a server's questions to its user.
const CAPABILITIES = { extensions: { [EXTENSION]: { mimeTypes: [MIME_TYPE] } }, elicitation: { form: {} } };
const CLIENT = { name: 'ci-host', version: '1.0.0' };
// How long anything the browser does may take before the test gives up.
const STUCK_MS = 20000;
// Marks the one connection the test has the view attempt, to see the CSP refuse it.
const PROBE = 'csp-probe';

// The JSON-RPC messages of a response body, as they come: the body itself
// when it is JSON, else each `data:` of its event stream.
async function* messagesOf(response) {
  if (!(response.headers.get('content-type') || '').startsWith('text/event-stream')) {
    yield JSON.parse(await response.text());
    return;
  }
  const decoder = new TextDecoder();
  let buffered = '';
  for await (const chunk of response.body) {
    buffered += decoder.decode(chunk, { stream: true }).replace(/\r\n/g, '\n');
    let end;
    while ((end = buffered.indexOf('\n\n')) !== -1) {
      const event = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      const data = event.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trimStart()).join('\n');
      if (data.trim()) yield JSON.parse(data);
    }
  }
}

// A client of one era, whose user is `user` (questions the server asks go
// to `user.answer(params)`): `call(method, params)` resolves to the result,
// or throws the JSON-RPC error.
async function client(era, user) {
  let nextId = 1;
  let session = null;
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  async function post(message, extra) {
    return fetch(url, { method: 'POST', headers: { ...headers, ...extra }, body: JSON.stringify(message) });
  }
  // The server's request on a session's stream (an elicitation), answered.
  async function answerRequest(request) {
    if (request.method !== 'elicitation/create') throw new Error(`unexpected request from the server: ${JSON.stringify(request)}`);
    const reply = { jsonrpc: '2.0', id: request.id, result: await user.answer(request.params) };
    const sent = await post(reply, { 'mcp-session-id': session, 'mcp-protocol-version': era });
    if (sent.status !== 202) throw new Error(`the answer to ${request.method}: HTTP ${sent.status}`);
  }
  // The answer to request `id`, answering what the server asks meanwhile.
  async function answerTo(response, id) {
    for await (const message of messagesOf(response)) {
      if (message.method !== undefined && message.id !== undefined) await answerRequest(message);
      else if (message.id === id) return message;
    }
    throw new Error(`no answer to ${id}`);
  }
  if (era === '2025-11-25') {
    const init = { jsonrpc: '2.0', id: 0, method: 'initialize',
      params: { protocolVersion: era, capabilities: CAPABILITIES, clientInfo: CLIENT } };
    const response = await post(init, {});
    session = response.headers.get('mcp-session-id');
    const answer = await answerTo(response, 0);
    if (!session || answer.error) throw new Error(`initialize: ${JSON.stringify(answer)}`);
    if (!answer.result.capabilities.extensions?.[EXTENSION]) throw new Error('initialize does not declare the extension');
    const done = await post({ jsonrpc: '2.0', method: 'notifications/initialized' },
      { 'mcp-session-id': session, 'mcp-protocol-version': era });
    if (done.status !== 202) throw new Error(`notifications/initialized: ${done.status}`);
  }
  async function once(method, params) {
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
    const answer = await answerTo(await post(message, extra), id);
    if (answer.error) throw new Error(`${method}: ${JSON.stringify(answer.error)}`);
    return answer.result;
  }
  // At 2026-07-28 a question comes as an `input_required` result: answered,
  // and the request sent again with the answers and the state echoed.
  async function call(method, params) {
    let retry = {};
    for (let round = 1; round <= 5; round += 1) {
      const result = await once(method, { ...params, ...retry });
      if (result.resultType !== 'input_required') return result;
      const inputResponses = {};
      for (const [key, request] of Object.entries(result.inputRequests ?? {})) {
        if (request.method !== 'elicitation/create') throw new Error(`unexpected input request: ${JSON.stringify(request)}`);
        inputResponses[key] = await user.answer(request.params);
      }
      retry = { inputResponses, ...(result.requestState === undefined ? {} : { requestState: result.requestState }) };
    }
    throw new Error(`${method}: still asking after 5 rounds`);
  }
  return { call };
}

// The host's user: answers each question with the next of `decisions`
// (`accept` confirms a deletion, `decline` refuses it), and remembers it.
function user(decisions) {
  const asked = [];
  return {
    asked,
    async answer(params) {
      asked.push(params);
      const decision = decisions.shift();
      if (decision === undefined) throw new Error(`a question nobody expected: ${JSON.stringify(params)}`);
      return decision === 'accept' ? { action: 'accept', content: { delete: true } } : { action: decision };
    },
  };
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
      console.log(`ok: ${era}: the board rendered the tool's result under its sandbox and CSP, fetched nothing, `
        + 'its note reached the server, and its deletion waited for the user to confirm');
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
  const person = user([]);
  const server = await client(era, person);
  const tools = (await server.call('tools/list', {})).tools;
  const tool = tools.find((t) => t.name === `${prefix}show_board`);
  const uri = tool?._meta?.ui?.resourceUri;
  if (!uri?.startsWith('ui://')) throw new Error(`${prefix}show_board names no view: ${JSON.stringify(tool)}`);
  const appOnly = tools.find((t) => t.name === `${prefix}remove_from_board`);
  if (JSON.stringify(appOnly?._meta?.ui?.visibility) !== '["app"]') throw new Error('remove_from_board is not app-only');
  const { contents } = await server.call('resources/read', { uri });
  if (contents.length !== 1 || contents[0].mimeType !== MIME_TYPE) throw new Error(`the view ${uri} is read as ${contents.length} item(s) of type ${contents.map((c) => c.mimeType).join(', ')}, not one of ${MIME_TYPE}`);
  // The content item's `_meta.ui` wins over the listing's; the board declares no CSP.
  const csp = contents[0]._meta?.ui?.csp;

  // What the page reports, and what it asks of the network: each one fails the run.
  const problems = [];
  const context = await browser.newContext();
  await context.route('**/*', (route) => {
    problems.push(`a request refused: ${route.request().method()} ${route.request().url()}`);
    return route.abort('blockedbyclient');
  });
  await context.routeWebSocket(/.*/, (socket) => {
    problems.push(`a web socket refused: ${socket.url()}`);
    return socket.close();
  });
  const page = await context.newPage();
  page.on('pageerror', (error) => problems.push(`page error: ${error}`));
  // The browser's report of the refusal the test provokes below, and only that one, is expected.
  const provoked = (text) => text.includes(PROBE) && text.includes('Content Security Policy');
  page.on('console', (message) => {
    if (message.type() === 'error' && !provoked(message.text())) problems.push(`console error: ${message.text()}`);
  });
  // What the browser itself reports beside the console: a form submission, a navigation or a
  // storage access the sandbox refused, a resource the CSP refused.
  const devtools = await context.newCDPSession(page);
  devtools.on('Log.entryAdded', ({ entry }) => {
    if (entry.level === 'error' && !provoked(entry.text)) problems.push(`browser error (${entry.source}): ${entry.text}`);
  });
  await devtools.send('Log.enable');
  try {
    await use(page);
  } catch (error) {
    // What the page reported is often why the step timed out: said first.
    if (problems.length) throw new Error(`the page reported:\n    ${problems.join('\n    ')}\n  then: ${error.message}`);
    throw error;
  } finally {
    await context.close();
  }
  if (problems.length) throw new Error(`the page reported:\n    ${problems.join('\n    ')}`);

  async function use(page) {
    // What the view asks of the server, through the host.
    const forwarded = [];
    await page.exposeFunction('__server', async (method, params) => {
      forwarded.push([method, params]);
      return server.call(method, params);
    });
    await page.setContent(`<!doctype html><html><body><script>${host}</script></body></html>`);
    const title = `From the view, ${era} ${Date.now()}`;
    // A view that never answers the host's handshake never renders: give up.
    const shown = page.evaluate((view) => window.showView(view), { html: contents[0].text, csp, tool, args: {} });
    const gaveUp = new Promise((_, reject) => {
      setTimeout(() => reject(new Error('the view never completed the handshake with the host')), STUCK_MS).unref();
    });
    await Promise.race([shown, gaveUp]);
    const sandbox = await page.locator('iframe').getAttribute('sandbox');
    if (sandbox !== 'allow-scripts') throw new Error(`the view's iframe is sandboxed with "${sandbox}"`);
    const view = page.frameLocator('iframe');
    // The view got the tool's input, then its result, and rendered the notes.
    await view.locator('body[data-input]').waitFor({ timeout: STUCK_MS });
    await view.locator('body[data-rendered]').waitFor({ timeout: STUCK_MS });
    const before = await view.locator('article.note').count();
    if (before < 1) throw new Error('the board rendered no note (the notebook starts with one)');

    // The CSP is in force: a connection the view attempts is refused by the browser, before
    // any request is made (without the CSP, the route above would refuse it, and say so).
    const frame = await (await page.locator('iframe').elementHandle()).contentFrame();
    const probe = `${url}?${PROBE}`;
    const refused = await frame.evaluate((target) => new Promise((resolve) => {
      document.addEventListener('securitypolicyviolation', (e) => resolve(e.effectiveDirective), { once: true });
      const other = () => setTimeout(() => resolve('refused, but not by the CSP'), 2000);
      fetch(target).then(() => resolve('fetched'), other);
    }), probe);
    if (refused !== 'connect-src') throw new Error(`the view's fetch of ${probe}: ${refused}, not refused by connect-src`);

    // The view calls the server back: add a note with its controls.
    await view.locator('#title').fill(title);
    await view.locator('#body').fill('Added by the board in a browser.');
    await view.locator('#tags').fill('browser');
    await view.locator('#add-note').click();
    const card = view.locator('article.note', { has: view.locator('h2', { hasText: title }) });
    await card.waitFor({ timeout: STUCK_MS });
    if (!forwarded.some(([method, params]) => method === 'tools/call' && params.name === 'add_note')) {
      throw new Error(`the view's add_note never reached the server: ${JSON.stringify(forwarded)}`);
    }
    // The note is on the server, whoever asks.
    const reader = await client(era, user([]));
    const found = async () => JSON.stringify(
      await reader.call('tools/call', { name: `${prefix}search_notes`, arguments: { query: title } }));
    if (!(await found()).includes(title)) throw new Error(`the note is not on the server: ${await found()}`);

    // Deleting it from the board asks the user: who first says no, and the note stays...
    const id = Number(await card.getAttribute('data-id'));
    const question = `Delete note ${id}, "${title}"?`;
    const refusing = user(['decline']);
    person.answer = refusing.answer;
    const shows = () => forwarded.filter(([method, params]) => method === 'tools/call' && params.name === 'show_board');
    const showsBefore = shows().length;
    await card.locator('button.delete').click();
    await waitUntil(() => refusing.asked.length === 1 && shows().length > showsBefore,
      'the question, and the board shown again after the answer');
    if (refusing.asked[0].message !== question) throw new Error(`asked ${JSON.stringify(refusing.asked)}, not ${question}`);
    if (!(await found()).includes(title)) throw new Error('the note was deleted though the user said no');
    if (await card.count() !== 1) throw new Error('the board no longer shows the note the user kept');
    // ...then yes, and it is gone, from the board and from the server.
    const confirming = user(['accept']);
    person.answer = confirming.answer;
    await card.locator('button.delete').click();
    await card.waitFor({ state: 'detached', timeout: STUCK_MS });
    if (confirming.asked.length !== 1 || confirming.asked[0].message !== question) {
      throw new Error(`asked ${JSON.stringify(confirming.asked)}, not once ${question}`);
    }
    if ((await found()).includes(title)) throw new Error('the board removed the note, but the server still has it');
  }
}

// Polls `done` every 50 ms until it holds, or fails after STUCK_MS saying `what`.
async function waitUntil(done, what) {
  const deadline = Date.now() + STUCK_MS;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`waited in vain for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
