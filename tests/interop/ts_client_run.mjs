// Runs the official @ag-ui/client HttpAgent once against URL and prints the final conversation
// as one JSON line: {messages, state, pendingInterrupts, error, runError, result, newMessageIds}. Used by the Python client's
// interop tests to compare final messages and state with the TypeScript client.
//   node ts_client_run.mjs URL '<initial messages JSON>' '<initial state JSON>'
import { HttpAgent } from "@ag-ui/client";

const [url, messagesJson = "[]", stateJson = "{}"] = process.argv.slice(2);
const agent = new HttpAgent({
  url,
  threadId: "thread-1",
  initialMessages: JSON.parse(messagesJson),
  initialState: JSON.parse(stateJson),
});
let error = null;
let runError = null;
let result = null;
let newMessageIds = null;
try {
  const outcome = await agent.runAgent(
    { runId: "run-1" },
    { onRunErrorEvent: ({ event }) => { runError = { message: event.message, code: event.code ?? null }; } },
  );
  result = outcome.result ?? null;
  newMessageIds = outcome.newMessages.map((m) => m.id);
} catch (e) {
  error = String(e?.message ?? e);
}
process.stdout.write(
  JSON.stringify({
    messages: agent.messages,
    state: agent.state,
    pendingInterrupts: agent.pendingInterrupts,
    error,
    runError,
    result,
    newMessageIds,
  }) + "\n",
);
