// Benchmark peer for benchmarks/bench_client.py: the official @ag-ui/client HttpAgent processing
// the same SSE bytes, either from memory (a custom fetch returning the bytes: parse, enforce,
// chunks, verify, apply) or from a URL over loopback. Prints one JSON line {bestMs, events}.
//   node bench_client_ts.mjs memory FILE ROUNDS
//   node bench_client_ts.mjs url URL ROUNDS EVENTS
import { readFileSync } from "node:fs";
import { HttpAgent } from "@ag-ui/client";

const [mode, source, roundsText, eventsText] = process.argv.slice(2);
const rounds = Number(roundsText);
const body = mode === "memory" ? readFileSync(source) : null;
const memoryFetch = async () =>
  new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } });

let events = Number(eventsText ?? 0);
let best = Infinity;
// As many untimed warm-up rounds first, so V8 has optimized the client before the timed ones.
for (let round = -rounds; round < rounds; round++) {
  const agent = new HttpAgent({
    url: mode === "memory" ? "http://memory/agent" : source,
    ...(mode === "memory" ? { fetch: memoryFetch } : {}),
  });
  let seen = 0;
  const started = performance.now();
  await agent.runAgent({}, { onEvent: () => { seen += 1; } });
  const elapsed = performance.now() - started;
  if (round >= 0 && elapsed < best) best = elapsed;
  events = seen;
}
process.stdout.write(JSON.stringify({ bestMs: best, events }) + "\n");
