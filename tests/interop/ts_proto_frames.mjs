// Encodes AG-UI events (a JSON array on stdin) with the official @ag-ui/proto 1.0.0 into the
// binary transport (4-byte big-endian length + one Event message each) on stdout.
import { encode } from "@ag-ui/proto";

let input = "";
for await (const chunk of process.stdin) input += chunk;
const parts = [];
for (const event of JSON.parse(input)) {
  const message = encode(event);
  const prefix = Buffer.alloc(4);
  prefix.writeUInt32BE(message.length);
  parts.push(prefix, Buffer.from(message));
}
process.stdout.write(Buffer.concat(parts));
