// The official @ag-ui/a2ui-middleware over a Python upstream: what it makes of the stream.
//   node ts_a2ui_middleware.mjs URL
// Prints every event the middleware passes on (after its processing) as one JSON line.
import { HttpAgent } from "@ag-ui/client";
import { A2UIMiddleware } from "@ag-ui/a2ui-middleware";

const [url] = process.argv.slice(2);
const agent = new HttpAgent({ url, threadId: "a2ui" });
agent.use(new A2UIMiddleware({}));
agent.addMessage({ id: "u1", role: "user", content: "paint" });
const events = [];
await agent.runAgent({ runId: "r1" }, { onEvent: ({ event }) => { events.push(event); } });
process.stdout.write(JSON.stringify(events) + "\n");
