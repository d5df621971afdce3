// The host page of the browser test: the official host library (AppBridge)
// renders a view in an iframe under the strictest sandbox a host may use,
// with the Content Security Policy the view's resource declares, hands it
// the tool's input and result, and passes the view's requests to the Node
// runner (`__server`), which forwards them to the MCP server under test as
// the host's MCP client (answering the server's questions to the user).
// Bundled by esbuild into one script the page inlines: nothing is fetched.
import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";

// A domain list entry as a CSP source: what could end the directive or the
// attribute (`;`, quotes, spaces, newlines, `<`) drops it, as hosts do.
const sources = (domains) =>
  (Array.isArray(domains) ? domains : []).filter((d) => typeof d === "string" && d && !/[;,'"\s<>]/.test(d));

// The CSP of a view, built as MCP Apps has hosts build it from the
// resource's `_meta.ui.csp`: only the declared domains, and without a
// declaration the spec's default, which allows the view's own inline
// script and style and `data:` images and media, and no connection at all.
function viewPolicy(csp) {
  if (!csp || typeof csp !== "object") {
    return [
      "default-src 'none'",
      "script-src 'self' 'unsafe-inline'",
      "style-src 'self' 'unsafe-inline'",
      "img-src 'self' data:",
      "media-src 'self' data:",
      "connect-src 'none'",
      "object-src 'none'",
    ].join("; ");
  }
  const join = (...parts) => parts.flat().join(" ");
  const resources = sources(csp.resourceDomains);
  const frames = sources(csp.frameDomains);
  const bases = sources(csp.baseUriDomains);
  return [
    "default-src 'none'",
    join("script-src 'self' 'unsafe-inline'", csp.wasmUnsafeEval === true ? "'wasm-unsafe-eval'" : [], resources),
    join("style-src 'self' 'unsafe-inline'", resources),
    join("img-src 'self' data:", resources),
    join("media-src 'self' data:", resources),
    join("font-src 'self'", resources),
    join("connect-src 'self'", sources(csp.connectDomains)),
    frames.length ? join("frame-src", frames) : "frame-src 'none'",
    "object-src 'none'",
    bases.length ? join("base-uri", bases) : "base-uri 'self'",
  ].join("; ");
}

// `html` with `policy` as its first element in <head> (a sandboxed srcdoc
// has no response headers to carry it), so that it governs all that follows.
function withPolicy(html, policy) {
  const content = policy.replace(/&/g, "&amp;").replace(/"/g, "&quot;");
  const meta = `<meta http-equiv="Content-Security-Policy" content="${content}">`;
  for (const open of [/<head(\s[^>]*)?>/i, /<html(\s[^>]*)?>/i]) {
    const found = open.exec(html);
    if (found) return html.slice(0, found.index + found[0].length) + meta + html.slice(found.index + found[0].length);
  }
  return meta + html;
}

window.showView = async ({ html, csp, tool, args }) => {
  const frame = document.createElement("iframe");
  // Scripts in an opaque origin and nothing more: no forms, popups, top
  // navigation, downloads, modals, pointer lock or storage of any origin.
  frame.setAttribute("sandbox", "allow-scripts");
  frame.style.width = "800px";
  frame.style.height = "600px";
  document.body.append(frame);
  const bridge = new AppBridge(
    null,
    { name: "ci-host", version: "1.0.0" },
    { serverTools: {}, serverResources: {}, logging: {} },
    { hostContext: { theme: "light", displayMode: "inline", availableDisplayModes: ["inline"], toolInfo: { tool } } },
  );
  bridge.oncalltool = (params) => window.__server("tools/call", params);
  bridge.onreadresource = (params) => window.__server("resources/read", params);
  const initialized = new Promise((resolve) => {
    bridge.oninitialized = resolve;
  });
  await bridge.connect(new PostMessageTransport(frame.contentWindow, frame.contentWindow));
  frame.srcdoc = withPolicy(html, viewPolicy(csp));
  await initialized;
  await bridge.sendToolInput({ arguments: args });
  await bridge.sendToolResult(await window.__server("tools/call", { name: tool.name, arguments: args }));
};
