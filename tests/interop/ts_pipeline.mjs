// Runs recorded AG-UI event streams through the real TypeScript client pipeline
// (@ag-ui/client 1.0.0: compatibility boundary -> enforce -> transformChunks -> verifyEvents ->
// defaultApplyEvents) by replaying each stream from an agent's run(), and prints one JSON result
// per stream: {ok, error, messages, state}.
//
// Input (stdin): {"streams": [[event, ...], ...], "initialState": any}
// Also: {"mode": "bench", "events": [...], "repeat": N} times the pipeline on one stream.
import {
  AbstractAgent,
  defaultApplyEvents,
  transformChunks,
  verifyEvents,
} from "@ag-ui/client";
import { from, lastValueFrom, toArray } from "rxjs";

process.env.SUPPRESS_TRANSFORMATION_WARNINGS = "1";
console.warn = () => {};
console.error = () => {};

class ReplayAgent extends AbstractAgent {
  constructor(events, initialState) {
    super({ threadId: "t", initialState });
    this.events = events;
  }
  run() {
    return from(this.events);
  }
}

// The three operators alone (no agent, no schema enforcement, no subscribers).
async function runOperators(events) {
  const agent = { messages: [], state: {} };
  const input = { threadId: "t", runId: "r", messages: [], state: {}, tools: [], context: [] };
  const verified = from(events).pipe(transformChunks(), verifyEvents());
  await lastValueFrom(defaultApplyEvents(input, verified, agent, []).pipe(toArray()));
}

async function runStream(events, initialState) {
  const agent = new ReplayAgent(structuredClone(events), initialState);
  try {
    await agent.runAgent({ runId: "r" });
    return { ok: true, error: null, messages: agent.messages, state: agent.state };
  } catch (error) {
    return {
      ok: false,
      error: String(error?.message ?? error),
      messages: agent.messages,
      state: agent.state,
    };
  }
}

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const request = JSON.parse(Buffer.concat(chunks).toString("utf8"));

if (request.mode === "bench") {
  const repeat = request.repeat ?? 20;
  const time = async (run) => {
    for (let i = 0; i < 3; i++) await run(structuredClone(request.events)); // warm up
    const copies = Array.from({ length: repeat }, () => structuredClone(request.events));
    const start = process.hrtime.bigint();
    for (const events of copies) await run(events);
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    return (request.events.length * repeat) / seconds;
  };
  const runAgentRate = await time((events) => new ReplayAgent(events, {}).runAgent({ runId: "r" }));
  const operatorsRate = await time(runOperators);
  process.stdout.write(
    JSON.stringify({ eventsPerSecond: runAgentRate, operatorsEventsPerSecond: operatorsRate }) +
      "\n",
  );
} else {
  const results = [];
  for (const events of request.streams) results.push(await runStream(events, request.initialState ?? {}));
  process.stdout.write(JSON.stringify(results) + "\n");
}
