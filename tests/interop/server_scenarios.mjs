// Runs conversations against a Python AG-UI server with the real @ag-ui/client HttpAgent.
// Usage: node server_scenarios.mjs '<json spec>'
//   spec = {url, threadId?, proto?: bool, turns: [{say?, runId?, resume?: "approve" | ...}]}
// With proto, the agent asks for protobuf (the stock HttpAgent only ever sends
// Accept: text/event-stream) and the response content types are reported.
// Prints one JSON object: every run's events, outcome and failure, the final messages and
// state, and every console warning/error the client produced (there should be none).
import { HttpAgent } from "@ag-ui/client";

const spec = JSON.parse(process.argv[2]);
const warnings = [];
for (const level of ["warn", "error"]) {
  console[level] = (...args) => warnings.push(`${level}: ${args.map(String).join(" ")}`);
}

const PROTO = "application/vnd.ag-ui.event+proto";
const contentTypes = [];
const realFetch = globalThis.fetch;
globalThis.fetch = async (...args) => {
  const response = await realFetch(...args);
  contentTypes.push(response.headers.get("content-type"));
  return response;
};

class ProtobufHttpAgent extends HttpAgent {
  requestInit(input) {
    const init = super.requestInit(input);
    return { ...init, headers: { ...init.headers, Accept: PROTO } };
  }
}

const Agent = spec.proto ? ProtobufHttpAgent : HttpAgent;
const agent = new Agent({ url: spec.url, threadId: spec.threadId ?? "thread-1" });
const runs = [];
let counter = 0;
for (const turn of spec.turns) {
  if (turn.say !== undefined) {
    counter += 1;
    agent.addMessage({ id: `user-${counter}`, role: "user", content: turn.say });
  }
  const parameters = turn.runId === undefined ? {} : { runId: turn.runId };
  if (turn.resume !== undefined) {
    parameters.resume = agent.pendingInterrupts.map((interrupt) =>
      turn.resume === "cancel"
        ? { interruptId: interrupt.id, status: "cancelled" }
        : { interruptId: interrupt.id, status: "resolved", payload: { approved: turn.resume === "approve" } },
    );
  }
  const run = { events: [], failed: null, outcome: null, pendingInterrupts: [] };
  try {
    await agent.runAgent(parameters, {
      onEvent: ({ event }) => {
        run.events.push(event);
      },
      onRunFailed: ({ error }) => {
        run.failed = String(error?.message ?? error);
      },
    });
  } catch (error) {
    run.failed = String(error?.message ?? error);
  }
  const finished = run.events.find((event) => event.type === "RUN_FINISHED");
  run.outcome = finished?.outcome ?? null;
  run.pendingInterrupts = agent.pendingInterrupts;
  runs.push(run);
}
process.stdout.write(
  JSON.stringify({ runs, messages: agent.messages, state: agent.state, warnings, contentTypes }),
);
