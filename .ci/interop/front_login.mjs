// A person approving an MCP client at the OAuth front (`--oauth-proxy`), without a browser:
// the front's consent page, then the upstream provider's development login and consent pages
// (oidc-provider's devInteractions, .ci/oidc/provider.mjs), then the front's callback.
//
//   import { approveThroughFront } from './front_login.mjs';
//   const location = await approveThroughFront(authorizationUrl, { login: 'alice' });
//
// authorizationUrl is the front's /authorize URL an MCP client (or the conformance suite)
// would open in a browser. Every request is a plain `fetch` with `redirect: 'manual'`; the
// browser's part is played here: a cookie jar (name=value, kept per origin and Path, a cookie
// set empty is deleted), each 303 followed by a GET of its Location (relative ones resolved),
// and each page's form posted:
//   - the front's consent page: its one form, with a hidden `authorization` input and a
//     `decision` button; posted as authorization=ID&decision=allow to the form's action;
//   - the upstream's pages: a form with a hidden `prompt` of `login` (posted as
//     prompt=login&login=LOGIN&password=unused: any name is accepted and becomes the `sub`)
//     or `consent` (posted as prompt=consent), to the form's action.
// The walk ends at the redirect the front's /oauth/callback answers with: its Location (the
// MCP client's redirect_uri with code, state and iss) is returned, not requested. It fails,
// with an Error naming the step, its status and an excerpt of the body, when a page is none
// of the above, a status is unexpected, the front sends the person to the client without
// having shown its consent page or from elsewhere than its callback, the client's redirect
// carries an `error`, or after 20 requests. Node >= 20 (fetch, Headers#getSetCookie).

import { createServer } from 'node:net';

const MAX_STEPS = 20;
const TIMEOUT_MS = 30_000;

/** A cookie jar per origin and path, as a browser keeps one (RFC 6265, the parts used here). */
class CookieJar {
  #cookies = new Map(); // `${origin} ${path} ${name}` -> { origin, path, name, value }

  /** Records the Set-Cookie headers of `response`, an answer to a request for `url`. */
  store(url, response) {
    for (const header of response.headers.getSetCookie()) {
      const [pair, ...attributes] = header.split(';');
      const at = pair.indexOf('=');
      if (at < 1) continue;
      const name = pair.slice(0, at).trim();
      const value = pair.slice(at + 1).trim();
      let path = null;
      let expired = value === '';
      for (const attribute of attributes) {
        const [key, ...rest] = attribute.split('=');
        const attributeValue = rest.join('=').trim();
        switch (key.trim().toLowerCase()) {
          case 'path':
            if (attributeValue.startsWith('/')) path = attributeValue;
            break;
          case 'max-age':
            if (Number(attributeValue) <= 0) expired = true;
            break;
          case 'expires':
            if (Date.parse(attributeValue) <= Date.now()) expired = true;
            break;
        }
      }
      // RFC 6265 §5.1.4 default-path: the request path up to its last `/`.
      if (path === null) {
        const slash = url.pathname.lastIndexOf('/');
        path = slash > 0 ? url.pathname.slice(0, slash) : '/';
      }
      const key = `${url.origin} ${path} ${name}`;
      if (expired) this.#cookies.delete(key);
      else this.#cookies.set(key, { origin: url.origin, path, name, value });
    }
  }

  /** The Cookie header for a request to `url`, or undefined when no cookie applies. */
  header(url) {
    const matching = [...this.#cookies.values()]
      .filter((c) => c.origin === url.origin && pathMatches(url.pathname, c.path))
      // Longer paths first (RFC 6265 §5.4).
      .sort((a, b) => b.path.length - a.path.length);
    return matching.length ? matching.map((c) => `${c.name}=${c.value}`).join('; ') : undefined;
  }
}

// RFC 6265 §5.1.4 path-match.
function pathMatches(requestPath, cookiePath) {
  if (requestPath === cookiePath) return true;
  if (!requestPath.startsWith(cookiePath)) return false;
  return cookiePath.endsWith('/') || requestPath[cookiePath.length] === '/';
}

const ENTITIES = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", '#39': "'" };
function unescapeHtml(text) {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, entity) => {
    const lower = entity.toLowerCase();
    if (lower.startsWith('#x')) return String.fromCodePoint(parseInt(lower.slice(2), 16));
    if (lower.startsWith('#')) return String.fromCodePoint(parseInt(lower.slice(1), 10));
    return ENTITIES[lower] ?? whole;
  });
}

// The attributes of one tag's text (`<input type="hidden" name="x" value="y"/>`), lower-case names.
function attributesOf(tag) {
  const attributes = {};
  const pattern = /([^\s"'<>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g;
  const inner = tag.replace(/^<\s*[a-z]+/i, '').replace(/\/?>$/, '');
  for (const match of inner.matchAll(pattern)) {
    attributes[match[1].toLowerCase()] = unescapeHtml(match[2] ?? match[3] ?? match[4] ?? '');
  }
  return attributes;
}

// Every form of a page: its method, action and its inputs and buttons.
function formsOf(page) {
  return [...page.matchAll(/<form\b[^>]*>[\s\S]*?<\/form\s*>/gi)].map(([form]) => {
    const open = attributesOf(form.match(/<form\b[^>]*>/i)[0]);
    const fields = [...form.matchAll(/<(input|button)\b[^>]*>/gi)].map(([tag, kind]) => ({
      kind: kind.toLowerCase(),
      ...attributesOf(tag),
    }));
    return { method: (open.method || 'get').toLowerCase(), action: open.action, fields };
  });
}

function excerpt(body) {
  const text = body
    .replace(/<(script|style)\b[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

/**
 * Drives an authorization at the front as a person who logs in upstream as `login` and
 * approves everything; resolves with the Location the front's callback redirects to (the
 * client's redirect_uri with `code`, `state` and `iss`), which it does not request.
 */
// A loopback port that was free a moment ago (a callback server binds it, or nothing does).
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

// An error and its causes, on one line.
export function describe(err) {
  const parts = [];
  for (let e = err, depth = 0; e && depth < 4; depth++, e = e.cause) {
    parts.push(`${e.name ?? 'Error'}${e.code !== undefined ? `[${e.code}]` : ''}: ${e.message ?? String(e)}`);
  }
  return (parts.join(' <- ') || String(err)).replace(/\s+/g, ' ');
}

export async function approveThroughFront(authorizationUrl, { login = 'alice', onStep } = {}) {
  const start = new URL(authorizationUrl);
  const front = start.origin;
  const jar = new CookieJar();
  const trail = [];
  let consentShown = false;
  let next = { method: 'GET', url: start, body: undefined };

  const steps = () => trail.map((s, i) => `  ${i + 1}. ${s}`).join('\n');
  const fail = (what, status, body) => {
    const detail = body === undefined ? '' : `: ${excerpt(body)}`;
    return new Error(`approveThroughFront: step ${trail.length} (${what}) answered ${status}${detail}\nsteps:\n${steps()}`);
  };

  for (let step = 1; step <= MAX_STEPS; step += 1) {
    const { method, url, body } = next;
    const headers = { accept: 'text/html,application/xhtml+xml' };
    const cookie = jar.header(url);
    if (cookie) headers.cookie = cookie;
    if (body !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
    const label = `${method} ${url.origin}${url.pathname}`;
    let response;
    try {
      response = await fetch(url, { method, headers, body, redirect: 'manual', signal: AbortSignal.timeout(TIMEOUT_MS) });
    } catch (error) {
      trail.push(`${label} -> no answer`);
      throw fail(label, `nothing (${error.cause?.code ?? error.cause?.message ?? error.message})`);
    }
    jar.store(url, response);
    trail.push(`${label} -> ${response.status}`);
    onStep?.({ step, method, url: url.href, status: response.status });

    if ([301, 302, 303, 307, 308].includes(response.status)) {
      await response.arrayBuffer();
      const location = response.headers.get('location');
      if (!location) throw fail(label, `${response.status} without a Location`);
      const target = new URL(location, url);
      const fromFrontCallback = url.origin === front && url.pathname.endsWith('/callback');
      if (fromFrontCallback) {
        // The front's callback sends the person back to the client: the end of the walk.
        if (!consentShown) throw fail(label, `${response.status} to ${target.href}, but the front never showed its consent page`);
        const error = target.searchParams.get('error');
        if (error !== null) {
          const description = target.searchParams.get('error_description');
          throw fail(label, `${response.status} to the client with error=${error}${description ? ` (${description})` : ''}: ${target.href}`);
        }
        return target.href;
      }
      if (url.origin === front && target.origin !== front && !consentShown) {
        // The front sent the person elsewhere (the client, the upstream) before any consent.
        throw fail(label, `${response.status} to ${target.href} before the front showed its consent page`);
      }
      // A 307/308 would repeat a POST; the pages here answer 302/303, which become a GET.
      next = [307, 308].includes(response.status) ? { method, url: target, body } : { method: 'GET', url: target, body: undefined };
      continue;
    }

    const page = await response.text();
    if (response.status !== 200) throw fail(label, response.status, page);
    const forms = formsOf(page);
    const hidden = (form, name) => form.fields.find((f) => f.kind === 'input' && f.name === name)?.value;

    if (url.origin === front) {
      // The front's consent page: exactly one form, a hidden `authorization`, an allow button.
      const consent = forms.filter((form) => hidden(form, 'authorization') !== undefined);
      if (forms.length !== 1 || consent.length !== 1) {
        throw fail(label, `200, a page with ${forms.length} form(s) (${consent.length} with a hidden \`authorization\`), not the front's consent page`, page);
      }
      const [form] = consent;
      const allow = form.fields.some((f) => f.kind === 'button' && f.name === 'decision' && f.value === 'allow');
      if (!allow) throw fail(label, '200, a consent form without a decision=allow button', page);
      if (form.method !== 'post' || !form.action) throw fail(label, `200, a consent form with method ${form.method} and action ${form.action}`, page);
      consentShown = true;
      const fields = new URLSearchParams({ authorization: hidden(form, 'authorization'), decision: 'allow' });
      next = { method: 'POST', url: new URL(form.action, url), body: fields.toString() };
      continue;
    }

    // The upstream's development pages: a hidden `prompt` says which one.
    const form = forms.find((f) => ['login', 'consent'].includes(hidden(f, 'prompt')));
    if (!form) throw fail(label, '200, neither the login nor the consent page of the provider', page);
    const fields = hidden(form, 'prompt') === 'login'
      ? new URLSearchParams({ prompt: 'login', login, password: 'unused' })
      : new URLSearchParams({ prompt: 'consent' });
    next = { method: 'POST', url: new URL(form.action || url.href, url), body: fields.toString() };
  }
  throw new Error(`approveThroughFront: ${MAX_STEPS} requests, and the front never sent the person back to the client\nsteps:\n${steps()}`);
}
