// Replays one event stream through the official @ag-ui/client 1.0.0 with `debug` on and prints
// what its debug logger wrote (console.debug) as JSON: [{"stage", "label", "type"}, ...], where
// "type" is the event type the line is about (null for lifecycle lines).
//
// Input (stdin): {"events": [...], "debug": true | {"events", "lifecycle", "verbose"}}
import { AbstractAgent } from "@ag-ui/client";
import { from } from "rxjs";

process.env.SUPPRESS_TRANSFORMATION_WARNINGS = "1";
console.warn = () => {};
console.error = () => {};

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const request = JSON.parse(Buffer.concat(chunks).toString("utf8"));

const lines = [];
console.debug = (head, data) => {
  const [, stage, label] = /^\[([A-Z]+)\] (.*)$/.exec(head);
  let type = null;
  if (stage === "TRANSFORM") type = label;
  else if (stage !== "LIFECYCLE") {
    const parsed = typeof data === "string" ? JSON.parse(data) : data;
    type = parsed?.type ?? null;
  }
  lines.push({ stage, label, type });
};

class ReplayAgent extends AbstractAgent {
  run() {
    return from(structuredClone(request.events));
  }
}

const agent = new ReplayAgent({ threadId: "t", debug: request.debug });
try {
  await agent.runAgent({ runId: "r" });
} catch {
  // A failed run still logged its lifecycle; the lines are the result.
}
process.stdout.write(JSON.stringify(lines));
