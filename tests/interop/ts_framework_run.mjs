// Runs @ag-ui/client's HttpAgent once with the request given as JSON on stdin
// ({url, threadId, runId, messages, state, tools, resume}) and prints one JSON line:
// {messages, state, error, runError, outcome, declared, warnings}. Used to check that the
// TypeScript client accepts every stream the framework apps send, without a warning
// ("warnings": what it wrote with console.warn; "declared": RUN_STARTED.protocolVersion).
import { HttpAgent } from "@ag-ui/client";

const warnings = [];
console.warn = (...parts) => warnings.push(parts.map(String).join(" "));

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const request = JSON.parse(Buffer.concat(chunks).toString("utf8"));
const agent = new HttpAgent({
  url: request.url,
  threadId: request.threadId,
  initialMessages: request.messages ?? [],
  initialState: request.state ?? {},
});
let error = null;
let runError = null;
let outcome = null;
let declared = null;
try {
  const parameters = { runId: request.runId, tools: request.tools ?? [] };
  if (request.resume) parameters.resume = request.resume;
  await agent.runAgent(parameters, {
    onRunErrorEvent: ({ event }) => { runError = { message: event.message, code: event.code ?? null }; },
    onRunStartedEvent: ({ event }) => { declared = event.protocolVersion ?? null; },
    onRunFinishedEvent: ({ event }) => { outcome = event.outcome ?? null; },
  });
} catch (e) {
  error = String(e?.message ?? e);
}
process.stdout.write(JSON.stringify({ messages: agent.messages, state: agent.state, error, runError, outcome, declared, warnings }) + "\n");
