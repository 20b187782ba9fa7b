// What the official @ag-ui/client 1.0.0 does depending on versions, for the Python client's
// tests to compare with. Prints one JSON object per case.
//
// Input (stdin): {"cases": [{
//   "maxProtocolVersion": "0.0.39" | null,     // the peer ceiling a subclass declares (null: default)
//   "initialMessages": [...], "initialState": any,
//   "events": [...]                            // what the agent answers
// }, ...]}
// Output: [{"input", "messages", "state", "pendingInterrupts", "error", "warnings"}, ...] where "input" is what
// reached the agent's run() after the middleware chain and "warnings" the console.warn texts.
import { AbstractAgent } from "@ag-ui/client";
import { from } from "rxjs";

const warnings = [];
console.warn = (...parts) => warnings.push(parts.map(String).join(" "));
console.error = () => {};

class ReplayAgent extends AbstractAgent {
  constructor(spec) {
    // The ceiling getter runs inside super(): it can only read a module-level value.
    ReplayAgent.ceiling = spec.maxProtocolVersion;
    super({
      threadId: "t",
      initialMessages: spec.initialMessages ?? [],
      initialState: spec.initialState ?? {},
    });
    this.spec = spec;
  }

  get maxProtocolVersion() {
    return ReplayAgent.ceiling ?? super.maxProtocolVersion;
  }

  run(input) {
    this.received = structuredClone(input);
    return from(structuredClone(this.spec.events));
  }
}

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const request = JSON.parse(Buffer.concat(chunks).toString("utf8"));

const results = [];
for (const spec of request.cases) {
  warnings.length = 0;
  const agent = new ReplayAgent(spec);
  let error = null;
  try {
    await agent.runAgent({ runId: "r" });
  } catch (e) {
    error = String(e?.message ?? e);
  }
  results.push({
    input: agent.received ?? null,
    messages: agent.messages,
    state: agent.state,
    pendingInterrupts: agent.pendingInterrupts,
    error,
    warnings: [...warnings],
  });
}
process.stdout.write(JSON.stringify(results));
