// The host page of the browser test: the official host library (AppBridge)
// renders a view in a sandboxed iframe, hands it the tool's input and
// result, and passes the view's requests to the Node runner (`__server`),
// which forwards them to the MCP server under test. Bundled by esbuild
// into one script the page inlines: nothing is fetched.
import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";

window.showView = async ({ html, tool, args }) => {
  const frame = document.createElement("iframe");
  // An opaque origin: the view can run scripts and nothing more.
  frame.setAttribute("sandbox", "allow-scripts allow-forms");
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
  frame.srcdoc = html;
  await initialized;
  await bridge.sendToolInput({ arguments: args });
  await bridge.sendToolResult(await window.__server("tools/call", { name: tool.name, arguments: args }));
};
