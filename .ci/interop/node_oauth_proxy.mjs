#!/usr/bin/env node
// The official TypeScript SDK v2 client (@modelcontextprotocol/client, as node_client.mjs)
// through an MCP server's OAuth front (`--oauth-proxy`), the whole authorization-code flow as
// an application drives it, with no browser: .ci/interop.sh --proxy runs it.
//
//   node node_oauth_proxy.mjs URL [--issuer ISSUER] [--login NAME] [--timeout S]
//
// URL is the MCP endpoint (the resource); ISSUER the front's issuer the server must name
// (default: URL's origin followed by /oauth). The client's OAuthClientProvider is in memory, a
// public client (token_endpoint_auth_method none) registered by DCR with the redirect URI
// http://127.0.0.1:PORT/callback (PORT free a moment ago; nothing listens there: the
// redirect is read, never followed). Its redirectToAuthorization(url) hands the URL to
// front_login.mjs, which plays the person (the front's consent, the upstream's login as NAME,
// default alice, and consent) and keeps where the front sends them back. Checks, in order,
// one line each, `PASS  LABEL  DETAIL` or `FAIL  LABEL  DETAIL` (interop.sh counts them; the
// first failure ends the run, the later checks are not printed):
//   node-proxy-401       the first connect() fails with UnauthorizedError, having registered
//                        and sent the person to the front's /authorize (the SDK's pattern)
//   node-proxy-dcr       the registration: a client_id, no client_secret (public client),
//                        the redirect URI echoed
//   node-proxy-approve   the front sends the person back to the redirect URI with a code,
//                        the state the client sent and iss = ISSUER, its metadata's issuer
//   node-proxy-token     transport.finishAuth(callback params) redeems the code (the SDK checks
//                        iss, RFC 9207): a Bearer access token
//   node-proxy-whoami    a new connect() with the token (2026-07-28): the tool `whoami` names
//                        the subject NAME and the scopes notes:read and notes:write
//   node-proxy-scopes    the scoped tools: add_note (notes:write) then search_notes
//                        (notes:read) finds that note
//   node-proxy-refresh   the SDK's auth() with the refresh token (when one was issued): a new
//                        access token without a new authorization, and whoami answers with it
//   node-proxy-rotation  the refresh token was rotated and the replaced one is refused with
//                        invalid_grant (a public client's refresh tokens MUST resist replay)
//   node-proxy-legacy    the same token on a 2025-era connection (initialize): whoami names
//                        NAME; the session then ends with DELETE
// Exit 0 when every check passed, 1 otherwise, 2 on bad usage. The SDK is loaded from
// MCP_NODE_PREFIX (where `npm ci` ran), else from node_modules beside or above this file.

import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import path from 'node:path';

import { approveThroughFront, describe, freePort } from './front_login.mjs';

const PROTOCOL_VERSION = '2026-07-28';
const SCOPES = ['notes:read', 'notes:write'];

function usage(message) {
  process.stderr.write(`${message ? `error: ${message}\n` : ''}usage: node node_oauth_proxy.mjs URL [--issuer ISSUER] [--login NAME] [--timeout S]\n`);
  process.exit(2);
}

function parseArgs(argv) {
  const opts = { login: 'alice', timeoutS: 120 };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => (i + 1 < argv.length ? argv[++i] : usage(`${arg} needs a value`));
    if (arg === '--login') opts.login = value();
    else if (arg === '--issuer') opts.issuer = value();
    else if (arg === '--timeout') opts.timeoutS = Number(value());
    else if (/^https?:\/\//.test(arg) && !opts.url) opts.url = arg;
    else usage(`unexpected argument ${arg}`);
  }
  if (!opts.url) usage('URL is required');
  opts.issuer ??= `${new URL(opts.url).origin}/oauth`;
  if (!(opts.timeoutS > 0)) usage('--timeout must be a positive number');
  return opts;
}

function loadSdk() {
  const prefix = process.env.MCP_NODE_PREFIX;
  const req = createRequire(prefix ? path.resolve(prefix, 'package.json') : import.meta.url);
  return req('@modelcontextprotocol/client');
}

/** The application's side of OAuth, in memory: what the SDK asks and saves, recorded. */
class MemoryProvider {
  constructor(redirectUrl, login) {
    this._redirectUrl = redirectUrl;
    this._login = login;
    this.client = undefined;
    this.savedTokens = [];
    this.authorizations = []; // the URLs the SDK sent the person to
    this.location = undefined; // where the front sent them back
    this.sentState = undefined;
    this.invalidated = [];
  }
  get redirectUrl() {
    return this._redirectUrl;
  }
  get clientMetadata() {
    return {
      client_name: 'mcp-runtime CI (TypeScript SDK through the OAuth front)',
      redirect_uris: [this._redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  state() {
    this.sentState = randomBytes(16).toString('base64url');
    return this.sentState;
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info) {
    this.client = info;
  }
  tokens() {
    return this.savedTokens.at(-1);
  }
  saveTokens(tokens) {
    this.savedTokens.push(tokens);
  }
  async redirectToAuthorization(url) {
    this.authorizations.push(url.href);
    this.location = await approveThroughFront(url.href, { login: this._login });
  }
  saveCodeVerifier(verifier) {
    this._verifier = verifier;
  }
  codeVerifier() {
    return this._verifier;
  }
  saveDiscoveryState(state) {
    this._discovery = state;
  }
  discoveryState() {
    return this._discovery;
  }
  invalidateCredentials(scope) {
    this.invalidated.push(scope);
    if (scope === 'all' || scope === 'client') this.client = undefined;
    if (scope === 'all' || scope === 'tokens') this.savedTokens = [];
    if (scope === 'all' || scope === 'verifier') this._verifier = undefined;
    if (scope === 'all' || scope === 'discovery') this._discovery = undefined;
  }
  get issuer() {
    return this._discovery?.authorizationServerMetadata?.issuer;
  }
}

let passed = 0;
let failed = 0;
function pass(label, detail) {
  passed += 1;
  process.stdout.write(`PASS  ${label.padEnd(20)} ${detail}\n`);
}
class CheckFailed extends Error {}
function fail(label, detail) {
  failed += 1;
  process.stdout.write(`FAIL  ${label.padEnd(20)} ${detail}\n`);
  throw new CheckFailed(detail);
}

// check(LABEL, fn): fn returns the PASS detail, or throws (FAIL with the error).
async function check(label, fn) {
  let detail;
  try {
    detail = await fn();
  } catch (err) {
    if (err instanceof CheckFailed) throw err;
    fail(label, describe(err));
  }
  pass(label, detail);
}

function textOf(result) {
  return (result?.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');
}

async function run(opts, sdk, stage) {
  const serverUrl = new URL(opts.url);
  const redirectUrl = `http://127.0.0.1:${await freePort()}/callback`;
  const provider = new MemoryProvider(redirectUrl, opts.login);
  const timeout = 30_000;
  const newClient = (negotiation) =>
    new sdk.Client({ name: 'mcp-runtime-ci-oauth-proxy', version: '0.1.0' }, { capabilities: {}, versionNegotiation: { mode: negotiation } });
  const whoami = async (client) => {
    const result = await client.callTool({ name: 'whoami', arguments: {} }, { timeout });
    const text = textOf(result);
    if (result.isError) throw new Error(`whoami failed: ${text}`);
    if (!text.includes(opts.login)) throw new Error(`whoami does not name ${opts.login}: ${JSON.stringify(text)}`);
    const missing = SCOPES.filter((scope) => !text.includes(scope));
    if (missing.length) throw new Error(`whoami lacks the scope(s) ${missing.join(' ')}: ${JSON.stringify(text)}`);
    return text;
  };

  stage.at = 'first connect';
  let transport = new sdk.StreamableHTTPClientTransport(serverUrl, { authProvider: provider });
  let client = newClient({ pin: PROTOCOL_VERSION });
  await check('node-proxy-401', async () => {
    let error;
    try {
      await client.connect(transport, { timeout });
    } catch (err) {
      error = err;
    }
    await client.close().catch(() => {});
    if (!error) throw new Error('connect() succeeded without a token: is the server protected?');
    if (!(error instanceof sdk.UnauthorizedError)) throw error;
    if (provider.authorizations.length !== 1) throw new Error(`the SDK sent the person to ${provider.authorizations.length} authorization URL(s)`);
    const authorize = new URL(provider.authorizations[0]);
    const expected = provider._discovery?.authorizationServerMetadata?.authorization_endpoint;
    if (`${authorize.origin}${authorize.pathname}` !== expected) throw new Error(`authorization URL ${authorize.href} is not the metadata's authorization_endpoint ${expected}`);
    return `UnauthorizedError; sent to ${authorize.origin}${authorize.pathname} (issuer ${provider.issuer})`;
  });

  await check('node-proxy-dcr', async () => {
    const info = provider.client;
    if (!info?.client_id) throw new Error(`no client_id registered: ${JSON.stringify(info)}`);
    if (info.client_secret) throw new Error('a public client (token_endpoint_auth_method none) got a client_secret');
    if (!info.redirect_uris?.includes(redirectUrl)) throw new Error(`the registration does not echo the redirect URI: ${JSON.stringify(info)}`);
    if (info.token_endpoint_auth_method && info.token_endpoint_auth_method !== 'none') {
      throw new Error(`registered with token_endpoint_auth_method ${info.token_endpoint_auth_method}, not none`);
    }
    return `client_id ${info.client_id}, no secret, redirect URI ${redirectUrl}`;
  });

  let callback;
  await check('node-proxy-approve', async () => {
    if (!provider.location) throw new Error('the person was never sent back');
    callback = new URL(provider.location);
    if (`${callback.origin}${callback.pathname}` !== redirectUrl) throw new Error(`sent back to ${callback.href}, not ${redirectUrl}`);
    const params = callback.searchParams;
    if (!params.get('code')) throw new Error(`no code in ${callback.href}`);
    if (params.getAll('state').length !== 1 || params.get('state') !== provider.sentState) {
      throw new Error(`state ${JSON.stringify(params.getAll('state'))} is not the one sent (${provider.sentState})`);
    }
    const expectedIssuer = opts.issuer;
    if (params.get('iss') !== expectedIssuer || provider.issuer !== expectedIssuer) {
      throw new Error(`iss ${params.get('iss')}, metadata issuer ${provider.issuer}; expected ${expectedIssuer}`);
    }
    return `back at ${redirectUrl} with a code, the state sent and iss ${params.get('iss')}`;
  });

  stage.at = 'finishAuth';
  await check('node-proxy-token', async () => {
    await transport.finishAuth(callback.searchParams);
    const tokens = provider.tokens();
    if (!tokens?.access_token) throw new Error('no access token saved');
    if (String(tokens.token_type).toLowerCase() !== 'bearer') throw new Error(`token_type ${tokens.token_type}`);
    const parts = [`${tokens.token_type} token`, `expires_in ${tokens.expires_in ?? 'absent'}`, `scope ${tokens.scope ?? 'absent'}`];
    parts.push(tokens.refresh_token ? 'a refresh token' : 'no refresh token');
    return parts.join(', ');
  });

  stage.at = 'second connect';
  let before;
  transport = new sdk.StreamableHTTPClientTransport(serverUrl, { authProvider: provider });
  client = newClient({ pin: PROTOCOL_VERSION });
  try {
    await check('node-proxy-whoami', async () => {
      await client.connect(transport, { timeout });
      const listed = await client.listTools(undefined, { timeout, cacheMode: 'bypass' });
      const names = listed.tools.map((t) => t.name);
      for (const name of ['whoami', 'add_note', 'search_notes']) {
        if (!names.includes(name)) throw new Error(`tools/list has no ${name}: ${names.join(', ')}`);
      }
      return `${client.getNegotiatedProtocolVersion()}: ${await whoami(client)}`;
    });

    stage.at = 'scoped tools';
    await check('node-proxy-scopes', async () => {
      const marker = `through the OAuth front ${randomBytes(6).toString('hex')}`;
      const added = await client.callTool({ name: 'add_note', arguments: { title: 'Front', body: marker, tags: ['ci'] } }, { timeout });
      if (added.isError) throw new Error(`add_note (notes:write) failed: ${textOf(added)}`);
      const found = await client.callTool({ name: 'search_notes', arguments: { query: marker } }, { timeout });
      if (found.isError) throw new Error(`search_notes (notes:read) failed: ${textOf(found)}`);
      const answer = JSON.stringify(found.structuredContent ?? found.content);
      if (!answer.includes(marker)) throw new Error(`search_notes does not find the note just added: ${answer.slice(0, 300)}`);
      return 'add_note (notes:write), then search_notes (notes:read) finds it';
    });

    before = provider.tokens();
    if (before.refresh_token) {
      stage.at = 'refresh';
      await check('node-proxy-refresh', async () => {
        const redirects = provider.authorizations.length;
        const result = await sdk.auth(provider, { serverUrl });
        if (result !== 'AUTHORIZED') throw new Error(`auth() with a refresh token answered ${result}`);
        if (provider.authorizations.length !== redirects) throw new Error('the refresh failed: the SDK started a new authorization instead');
        const after = provider.tokens();
        if (!after?.access_token || after.access_token === before.access_token) throw new Error('no new access token');
        const text = await whoami(client);
        return `a new access token, ${after.refresh_token === before.refresh_token ? 'the same' : 'a new'} refresh token; whoami: ${text}`;
      });
    } else {
      process.stdout.write(`note  ${'node-proxy-refresh'.padEnd(20)} not run: no refresh token was issued\n`);
    }
  } finally {
    await client.close().catch(() => {});
  }

  stage.at = 'legacy connect';
  // The latest token, before the replay below (a front may revoke a replayed token's family).
  transport = new sdk.StreamableHTTPClientTransport(serverUrl, { authProvider: provider });
  client = newClient('legacy');
  try {
    await check('node-proxy-legacy', async () => {
      const redirects = provider.authorizations.length;
      await client.connect(transport, { timeout });
      if (client.getProtocolEra() !== 'legacy') throw new Error(`negotiated era ${client.getProtocolEra()}`);
      const text = await whoami(client);
      if (provider.authorizations.length !== redirects) throw new Error('the SDK had to authorize again');
      const session = transport.sessionId;
      if (session) await transport.terminateSession();
      return `${client.getNegotiatedProtocolVersion()}${session ? ', session ended with DELETE' : ''}: ${text}`;
    });
  } finally {
    await client.close().catch(() => {});
  }

  if (before?.refresh_token) {
    stage.at = 'refresh replay';
    await check('node-proxy-rotation', async () => {
      const after = provider.tokens();
      if (!after.refresh_token || after.refresh_token === before.refresh_token) {
        throw new Error('the refresh answered the same refresh token: a public client\'s refresh tokens must be rotated (or sender-constrained)');
      }
      const metadata = provider._discovery?.authorizationServerMetadata;
      const resource = provider._discovery?.resourceMetadata?.resource;
      try {
        await sdk.refreshAuthorization(provider.issuer, {
          metadata,
          clientInformation: provider.client,
          refreshToken: before.refresh_token,
          resource,
        });
      } catch (err) {
        if (err instanceof sdk.OAuthError && err.code === 'invalid_grant') return `the replaced refresh token is refused: invalid_grant`;
        throw new Error(`the replaced refresh token was refused, but not with invalid_grant: ${describe(err)}`);
      }
      throw new Error('the replaced refresh token was accepted again (replay)');
    });
  }
}

const opts = parseArgs(process.argv.slice(2));
const stage = { at: 'start' };
let timer;
try {
  const sdk = loadSdk();
  await Promise.race([
    run(opts, sdk, stage),
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out after ${opts.timeoutS}s at stage ${stage.at}`)), opts.timeoutS * 1000);
    }),
  ]);
} catch (err) {
  if (!(err instanceof CheckFailed)) {
    failed += 1;
    process.stdout.write(`FAIL  ${'node-proxy'.padEnd(20)} at ${stage.at}: ${describe(err)}\n`);
  }
} finally {
  clearTimeout(timer);
}
// A socket left open must not keep the process alive.
process.exit(failed === 0 && passed > 0 ? 0 : 1);
