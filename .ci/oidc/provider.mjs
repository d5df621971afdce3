// The OAuth 2.1 authorization server the authorization tests (tests/tests/oauth*.rs) run
// against: oidc-provider, on loopback only.
//
//   node provider.mjs --modules DIR [--port PORT] [--impostor]
//
// DIR is the node_modules of `npm ci` of this folder (.ci/install.sh puts it under
// target/ci/tools/oidc-provider). PORT defaults to 0: the system picks a free one, so that
// no other process can take it between choosing and binding. Once every issuer listens and
// answers, the provider writes one line to standard output and nothing else there:
//
//   {"issuer":"http://127.0.0.1:PORT","impostor":"http://127.0.0.1:PORT2"}
//
// ("impostor" only with --impostor); that line is its readiness signal. Clients (secret
// "secret" each) get tokens with the client_credentials grant, for any resource they name:
//
//   rs256-client, es256-client, eddsa-client   JWT access tokens (RFC 9068) signed with that alg
//   short-client                               the same (ES256), expiring after 2 seconds
//   future-client                              the same (ES256), not valid before an hour from now (nbf)
//   opaque-client                              opaque tokens, for introspection
//   mcp-server                                 the resource server's own credentials, to introspect
//   code-client                                the authorization-code flow (PKCE), redirect URI
//                                              http://127.0.0.1:5555/callback, ES256 JWTs; login and
//                                              consent are the development pages (any login name)
//   gateway-client                             ES256 JWTs by client_credentials, and the token exchange
//                                              grant (RFC 8693) for a gateway acting for its caller
//   front-client                               the OAuth front of `--oauth-proxy` (.ci/interop.sh
//                                              --proxy) relaying people here: the authorization-code
//                                              flow, scope openid (it needs only `sub`, from the ID
//                                              token), Basic auth at /token, redirect URI
//                                              http://127.0.0.1/oauth/callback on ANY port (a native
//                                              client: loopback redirect URIs match whatever the port,
//                                              RFC 8252 §7.3); login and consent are the development
//                                              pages (any login name becomes the `sub`)
//
// DPoP (RFC 9449) is on for every client: a token request carrying a `DPoP` proof header
// (htm "POST", htu the token endpoint, http://127.0.0.1:PORT/token; ES256, Ed25519 or
// EdDSA) gets a token bound to the proof's key, `"token_type": "DPoP"` and, in a JWT access
// token, `"cnf": {"jkt": <RFC 7638 thumbprint>}`; each proof's jti is accepted once. The
// provider demands no nonce. A request without the header gets a plain bearer token, as
// before (no client requires DPoP).
//
// Scopes granted on every resource: notes:read, notes:write. With --impostor a second
// issuer, on a port of its own, serves the same clients with the same keys: a token it
// issues is signed by a key the real issuer publishes, but names another issuer.
//
// Administration, on the main port:
//   POST /admin/rotate   new signing keys (new kids) take over; the old ones stay published
//   GET  /admin/stats    {"jwks": N, "exchanges": M}: how many times the JWKS has been
//                        fetched, and how many tokens the token exchange has issued
import { createPrivateKey, createPublicKey, generateKeyPairSync, randomUUID, sign, verify } from 'node:crypto';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

function arg(name, fallback) {
  const at = process.argv.indexOf(`--${name}`);
  if (at === -1 || at + 1 >= process.argv.length) {
    if (fallback === undefined) throw new Error(`--${name} is required`);
    return fallback;
  }
  return process.argv[at + 1];
}

const modules = arg('modules');
const wantedPort = Number(arg('port', '0'));
const withImpostor = process.argv.includes('--impostor');
const { default: Provider } = await import(pathToFileURL(join(modules, 'oidc-provider', 'lib', 'index.js')).href);

const SCOPES = 'notes:read notes:write';
const ALGS = {
  'rs256-client': 'RS256',
  'es256-client': 'ES256',
  'eddsa-client': 'EdDSA',
  'short-client': 'ES256',
  'future-client': 'ES256',
  'gateway-client': 'ES256',
  'code-client': 'ES256',
};

// The one client of the authorization-code flow, its login and consent the development pages
// (devInteractions: any login name, no password checked), driven by the tests without a browser.
const CODE_REDIRECT = 'http://127.0.0.1:5555/callback';

// The OAuth front's client: the front listens on a port picked at start, so its callback is
// registered without one, and `application_type: 'native'` has oidc-provider accept it on any
// loopback port (Client#redirectAllowed). A native client may keep its secret (Basic auth);
// the provider asks for consent on every authorization of a native client, the development
// consent page the front's driver passes through.
const FRONT_CLIENT = {
  client_id: 'front-client',
  client_secret: 'secret',
  application_type: 'native',
  grant_types: ['authorization_code'],
  response_types: ['code'],
  redirect_uris: ['http://127.0.0.1/oauth/callback'],
  token_endpoint_auth_method: 'client_secret_basic',
  scope: 'openid',
};

// RFC 8693 token exchange, allowed to gateway-client alone (see `exchange` below).
const EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
let exchanges = 0;

// One key per algorithm, newest first: oidc-provider signs with the first key of an alg.
// Each key comes out of its generation as a JWK already: exporting the generated KeyObject
// instead (`.privateKey.export({ format: 'jwk' })`) can deadlock Node 20 when a collection
// runs during the export and finalizes the generation job, which takes the lock the export
// holds; a provider then hung at start about once in a few hundred.
function keySet() {
  const kid = () => randomUUID();
  const jwk = (type, options) => generateKeyPairSync(type, {
    ...options, publicKeyEncoding: { format: 'jwk' }, privateKeyEncoding: { format: 'jwk' },
  }).privateKey;
  const rsa = jwk('rsa', { modulusLength: 2048 });
  const ec = jwk('ec', { namedCurve: 'P-256' });
  const ed = jwk('ed25519', {});
  return [
    { ...rsa, kid: kid(), alg: 'RS256', use: 'sig' },
    { ...ec, kid: kid(), alg: 'ES256', use: 'sig' },
    { ...ed, kid: kid(), alg: 'EdDSA', use: 'sig' },
  ];
}

const client = (client_id) => (client_id === 'code-client' ? {
  client_id,
  client_secret: 'secret',
  grant_types: ['authorization_code'],
  response_types: ['code'],
  redirect_uris: [CODE_REDIRECT],
  scope: `openid ${SCOPES}`,
} : {
  client_id,
  client_secret: 'secret',
  grant_types: client_id === 'gateway-client' ? ['client_credentials', EXCHANGE] : ['client_credentials'],
  response_types: [],
  redirect_uris: [],
  scope: SCOPES,
});

function provider(issuer, keys) {
  const oidc = new Provider(issuer, {
    clients: [...[...Object.keys(ALGS), 'opaque-client', 'mcp-server'].map(client), FRONT_CLIENT],
    jwks: { keys },
    scopes: SCOPES.split(' '),
    features: {
      devInteractions: { enabled: true },
      clientCredentials: { enabled: true },
      introspection: { enabled: true },
      revocation: { enabled: true },
      // Bound tokens for the requests that carry a proof; without one, bearer tokens.
      dPoP: { enabled: true, allowReplay: false },
      resourceIndicators: {
        enabled: true,
        // A token is for one resource, the one its request names.
        defaultResource: () => undefined,
        useGrantedResource: () => true,
        getResourceServerInfo: (ctx, resource, client) => {
          const alg = ALGS[client.clientId];
          const info = { scope: SCOPES, audience: resource };
          if (client.clientId === 'short-client') info.accessTokenTTL = 2;
          return alg ? { ...info, accessTokenFormat: 'jwt', jwt: { sign: { alg } } } : { ...info, accessTokenFormat: 'opaque' };
        },
      },
    },
    enabledJWA: { requestObjectSigningAlgValues: ['RS256', 'ES256', 'EdDSA'] },
    formats: {
      customizers: {
        // A token whose validity starts later than it was issued, for the `nbf` check.
        jwt: (ctx, token, jwt) => {
          if (token.clientId === 'future-client') jwt.payload.nbf = jwt.payload.iat + 3600;
        },
      },
    },
  });
  oidc.on('server_error', (ctx, error) => console.error('server_error', error));
  oidc.registerGrantType(EXCHANGE, exchange(issuer, keys), ['subject_token', 'subject_token_type', 'scope', 'resource', 'audience']);
  return oidc;
}

const b64 = (value) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

// The token exchange grant (RFC 8693), for a gateway acting for its caller: the subject
// token must be a JWT access token this issuer signed, unexpired, granted every scope
// asked; the answer is a JWT access token for the `resource` asked, whose `sub` is the
// caller's (its client, for a client-credentials token), `client_id` the gateway and `act`
// names the gateway (RFC 8693 §4.1). Otherwise 400 invalid_grant or invalid_scope.
function exchange(issuer, keys) {
  return async (ctx) => {
    const params = ctx.oidc.params;
    const refuse = (error, description) => {
      ctx.status = 400;
      ctx.body = { error, error_description: description };
    };
    if (params.subject_token_type !== ACCESS_TOKEN_TYPE) return refuse('invalid_request', 'subject_token_type');
    const [head, body, signature] = String(params.subject_token || '').split('.');
    let header;
    let claims;
    try {
      header = JSON.parse(Buffer.from(head, 'base64url'));
      claims = JSON.parse(Buffer.from(body, 'base64url'));
    } catch {
      return refuse('invalid_grant', 'the subject token is not a JWT');
    }
    const jwk = keys.find((key) => key.kid === header.kid && key.alg === header.alg);
    if (!jwk) return refuse('invalid_grant', 'the subject token is signed with an unknown key');
    const publicKey = createPublicKey({ key: jwk, format: 'jwk' });
    const data = Buffer.from(`${head}.${body}`);
    const sig = Buffer.from(signature || '', 'base64url');
    const good = header.alg === 'EdDSA'
      ? verify(null, data, publicKey, sig)
      : verify('sha256', data, header.alg === 'ES256' ? { key: publicKey, dsaEncoding: 'ieee-p1363' } : publicKey, sig);
    const now = Math.floor(Date.now() / 1000);
    if (!good || claims.iss !== issuer || !(claims.exp > now)) return refuse('invalid_grant', 'the subject token is not valid');
    const asked = String(params.scope || '').split(' ').filter(Boolean);
    const granted = String(claims.scope || '').split(' ');
    if (!asked.every((scope) => granted.includes(scope))) return refuse('invalid_scope', 'the caller was not granted it');
    exchanges += 1;
    const signer = keys.find((key) => key.alg === 'ES256');
    const gateway = ctx.oidc.client.clientId;
    const payload = {
      iss: issuer, sub: claims.sub || claims.client_id, client_id: gateway, aud: params.resource || params.audience,
      scope: asked.join(' '), act: { sub: gateway }, iat: now, exp: now + 300, jti: randomUUID(),
    };
    const input = `${b64({ alg: 'ES256', typ: 'at+jwt', kid: signer.kid })}.${b64(payload)}`;
    const key = createPrivateKey({ key: signer, format: 'jwk' });
    const signed = sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' }).toString('base64url');
    ctx.body = {
      access_token: `${input}.${signed}`, issued_token_type: ACCESS_TOKEN_TYPE, token_type: 'Bearer',
      expires_in: 300, scope: payload.scope,
    };
  };
}

// listen: resolves with the port `server` was given once it listens on loopback.
function listen(server, port) {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server.address().port));
  });
}

let keys = keySet();
let current;
let jwksFetches = 0;

// The issuer names its own port, which is known only once the server listens: the
// provider behind it is made then, before anything is announced.
const server = createServer((req, res) => {
  if (req.url === '/admin/rotate' && req.method === 'POST') {
    keys = [...keySet(), ...keys];
    // A new instance over the same (module-wide) in-memory storage: issued opaque tokens
    // stay known, new tokens are signed with the new keys.
    current = provider(issuer, keys);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ kids: keys.slice(0, 3).map((k) => k.kid) }));
    return;
  }
  if (req.url === '/admin/stats') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ jwks: jwksFetches, exchanges }));
    return;
  }
  if (req.url.startsWith('/jwks')) jwksFetches += 1;
  current.callback()(req, res);
});
const issuer = `http://127.0.0.1:${await listen(server, wantedPort)}`;
current = provider(issuer, keys);
const ready = { issuer };

if (withImpostor) {
  let impostor;
  const impostorServer = createServer((req, res) => impostor.callback()(req, res));
  ready.impostor = `http://127.0.0.1:${await listen(impostorServer, 0)}`;
  impostor = provider(ready.impostor, keys);
}

// Ready only when each issuer answers its own discovery document.
for (const url of [ready.issuer, ready.impostor].filter(Boolean)) {
  const answer = await fetch(`${url}/.well-known/openid-configuration`);
  if (!answer.ok) throw new Error(`${url} does not answer its metadata: ${answer.status}`);
  await answer.arrayBuffer();
}
console.error(`oidc-provider: issuer ${issuer}`);
process.stdout.write(`${JSON.stringify(ready)}\n`);
