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
//   GET  /admin/stats    {"jwks": N}: how many times the JWKS has been fetched
import { generateKeyPairSync, randomUUID } from 'node:crypto';
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
};

// One key per algorithm, newest first: oidc-provider signs with the first key of an alg.
function keySet() {
  const kid = () => randomUUID();
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' });
  const ed = generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' });
  return [
    { ...rsa, kid: kid(), alg: 'RS256', use: 'sig' },
    { ...ec, kid: kid(), alg: 'ES256', use: 'sig' },
    { ...ed, kid: kid(), alg: 'EdDSA', use: 'sig' },
  ];
}

const client = (client_id) => ({
  client_id,
  client_secret: 'secret',
  grant_types: ['client_credentials'],
  response_types: [],
  redirect_uris: [],
  scope: SCOPES,
});

function provider(issuer, keys) {
  const oidc = new Provider(issuer, {
    clients: [...Object.keys(ALGS), 'opaque-client', 'mcp-server'].map(client),
    jwks: { keys },
    scopes: SCOPES.split(' '),
    features: {
      devInteractions: { enabled: false },
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
  return oidc;
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
    res.end(JSON.stringify({ jwks: jwksFetches }));
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
