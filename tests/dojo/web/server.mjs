// The CopilotKit runtime (its own package, @copilotkit/runtime) in front of the Python feature
// server, plus the built pages. Usage: node server.mjs <port> <feature server base URL>.
// Each feature is an agent of the runtime: the HttpAgent of @ag-ui/client (the version the
// runtime itself depends on) pointed at <base>/<feature>, the path the dojo uses.
import { createReadStream, existsSync, statSync } from "node:fs";
import { createServer } from "node:http";
import { extname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";

// The tests run offline: no telemetry from the runtime, no install analytics. Set before the
// runtime is loaded (hence the dynamic imports below), as it reads them when it starts.
process.env.COPILOTKIT_TELEMETRY_DISABLED = "true";
process.env.DO_NOT_TRACK = "1";
process.env.SCARF_ANALYTICS = "false";
const { HttpAgent } = await import("@ag-ui/client");
const { CopilotRuntime, ExperimentalEmptyAdapter, copilotRuntimeNodeHttpEndpoint } = await import(
  "@copilotkit/runtime"
);

const FEATURES = [
  "agentic_chat",
  "backend_tool_rendering",
  "human_in_the_loop",
  "agentic_generative_ui",
  "tool_based_generative_ui",
  "shared_state",
  "predictive_state_updates",
];
const TYPES = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".svg": "image/svg+xml" };

const [port, base] = process.argv.slice(2);
if (!port || !base) {
  console.error("usage: node server.mjs <port> <feature server base URL>");
  process.exit(2);
}
const dist = join(fileURLToPath(new URL(".", import.meta.url)), "dist");
const agents = Object.fromEntries(
  FEATURES.map((feature) => [feature, new HttpAgent({ url: `${base}/${feature}` })]),
);
const runtime = new CopilotRuntime({ agents });
const handler = copilotRuntimeNodeHttpEndpoint({
  runtime,
  serviceAdapter: new ExperimentalEmptyAdapter(),
  endpoint: "/api/copilotkit",
});

function sendFile(res, path) {
  res.writeHead(200, { "content-type": TYPES[extname(path)] ?? "application/octet-stream" });
  createReadStream(path).pipe(res);
}

const server = createServer((req, res) => {
  const url = new URL(req.url, "http://localhost");
  if (url.pathname.startsWith("/api/copilotkit")) {
    Promise.resolve(handler(req, res)).catch((error) => {
      console.error(error);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
    return;
  }
  const asset = normalize(join(dist, url.pathname));
  if (asset.startsWith(dist) && existsSync(asset) && statSync(asset).isFile()) {
    sendFile(res, asset);
    return;
  }
  sendFile(res, join(dist, "index.html")); // /feature/<name>: the page picks it from the path
});
server.listen(Number(port), "127.0.0.1", () => {
  console.log(`dojo pages on http://127.0.0.1:${server.address().port}`);
});
