// TypeScript @ag-ui/proto 1.0.0 on the stream mix from bench_proto.py (stdin: wire JSON events).
// Prints {"encode_us": per-event encode, "decode_us": per-event decode}, best of 7 rounds.
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import path from "node:path";

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, "..", "tests", "interop", "package.json"));
const { encode, decode } = require("@ag-ui/proto");

process.env.SUPPRESS_TRANSFORMATION_WARNINGS = "1";
const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const events = JSON.parse(Buffer.concat(chunks).toString("utf8"));
const messages = events.map((event) => encode(event));

function best(fn, rounds = 7, number = 20) {
  let min = Infinity;
  for (let r = 0; r < rounds; r++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < number; i++) fn();
    const seconds = Number(process.hrtime.bigint() - start) / 1e9 / number;
    min = Math.min(min, seconds);
  }
  return min;
}

for (let i = 0; i < 20; i++) events.forEach((e) => encode(e)); // warm up the JIT
const encodeSeconds = best(() => events.forEach((e) => encode(e)));
const decodeSeconds = best(() => messages.forEach((m) => decode(m)));
process.stdout.write(
  JSON.stringify({
    encode_us: (encodeSeconds / events.length) * 1e6,
    decode_us: (decodeSeconds / events.length) * 1e6,
  }),
);
