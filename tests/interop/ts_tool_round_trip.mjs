// Runs the official @ag-ui/client HttpAgent against URL twice, as a front end with a client-side
// tool does: run 1 offers TOOLS; for every tool call the run leaves pending, the tool message
// RESULT is added; run 2 continues. Prints one JSON line:
// {first: {messages, error, runError, state}, second: {...}}.
//   node ts_tool_round_trip.mjs URL '<tools JSON>' '<tool result text>' '<initial state JSON>'
import { HttpAgent } from "@ag-ui/client";

const [url, toolsJson = "[]", resultText = "done", stateJson = "{}"] = process.argv.slice(2);
const tools = JSON.parse(toolsJson);
const agent = new HttpAgent({
  url,
  threadId: "thread-ts",
  initialMessages: [{ id: "user-1", role: "user", content: "Book the Ritz, please." }],
  initialState: JSON.parse(stateJson),
});

async function run(runId) {
  let error = null;
  let runError = null;
  const types = [];
  try {
    await agent.runAgent(
      { runId, tools },
      {
        onEvent: ({ event }) => { types.push(event.type); },
        onRunErrorEvent: ({ event }) => { runError = { message: event.message, code: event.code ?? null }; },
      },
    );
  } catch (e) {
    error = String(e?.message ?? e);
  }
  return { messages: structuredClone(agent.messages), state: agent.state, error, runError, types };
}

const first = await run("run-1");
const answered = new Set(agent.messages.filter((m) => m.role === "tool").map((m) => m.toolCallId));
let n = 0;
for (const message of agent.messages.slice()) {
  for (const call of message.toolCalls ?? []) {
    if (!answered.has(call.id)) {
      agent.addMessage({ id: `tool-result-${++n}`, role: "tool", toolCallId: call.id, content: resultText });
    }
  }
}
const second = await run("run-2");
process.stdout.write(JSON.stringify({ first, second }) + "\n");
