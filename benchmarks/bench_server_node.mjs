// bench_server.py's Node row: node's http server streaming the benchmark's run with the
// TypeScript @ag-ui/encoder 1.0.0 (tests/interop/node_modules), one write per event.
// Usage: node bench_server_node.mjs PORT. The body is RunAgentInput; forwardedProps.events is
// the number of deltas, forwardedProps.paced makes the run yield to the event loop
// (setImmediate) before each delta, as bench_server.py's Python agents await asyncio.sleep(0).
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import http from "node:http";
import path from "node:path";

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, "..", "tests", "interop", "package.json"));
const { EventEncoder } = require("@ag-ui/encoder");
const { EventType } = require("@ag-ui/core");

const WORDS = ["Hello", " wörld", ", ", "this", " is", " a", " tést", " 🚀", " of", " streaming"];
const turn = () => new Promise((resolve) => setImmediate(resolve));

const server = http.createServer(async (request, response) => {
  const chunks = [];
  for await (const chunk of request) chunks.push(chunk);
  const run = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  const props = run.forwardedProps || {};
  const count = Number(props.events ?? 100);
  const encoder = new EventEncoder({ accept: request.headers.accept });
  response.writeHead(200, { "content-type": encoder.getContentType(), "cache-control": "no-cache" });
  const ids = { threadId: run.threadId, runId: run.runId };
  response.write(encoder.encode({ type: EventType.RUN_STARTED, ...ids }));
  response.write(
    encoder.encode({ type: EventType.TEXT_MESSAGE_START, messageId: "msg-1", role: "assistant" }),
  );
  for (let index = 0; index < count; index++) {
    if (props.paced) await turn();
    const delta = WORDS[index % WORDS.length];
    response.write(
      encoder.encode({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: "msg-1", delta }),
    );
  }
  response.write(encoder.encode({ type: EventType.TEXT_MESSAGE_END, messageId: "msg-1" }));
  response.end(encoder.encode({ type: EventType.RUN_FINISHED, ...ids }));
});
server.listen(Number(process.argv[2]), "127.0.0.1");
