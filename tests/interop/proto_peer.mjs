// The real @ag-ui/proto 1.0.0 as a peer for tests/proto/test_interop.py.
// stdin: {"stream": <base64 of length-prefixed frames>, "events": [<wire JSON event>, ...]}
// stdout: {"decoded": [<event JSON> | {"__error__": name, "message": text}, ...],
//          "encoded": <base64 of length-prefixed frames, one per event>,
//          "encodeErrors": [{"index": i, "message": text}]}
// Frames are split the way the TypeScript client does it: 4-byte big-endian length, then one
// ag_ui.Event message.
import { decode, encode } from "@ag-ui/proto";

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const request = JSON.parse(Buffer.concat(chunks).toString("utf8"));

const stream = Buffer.from(request.stream ?? "", "base64");
const decoded = [];
let offset = 0;
while (offset + 4 <= stream.length) {
  const length = stream.readUInt32BE(offset);
  const frame = stream.subarray(offset + 4, offset + 4 + length);
  offset += 4 + length;
  try {
    decoded.push(decode(new Uint8Array(frame)));
  } catch (error) {
    decoded.push({ __error__: error.name, message: String(error.message) });
  }
}
if (offset !== stream.length) {
  decoded.push({ __error__: "TrailingBytes", message: `${stream.length - offset} bytes` });
}

const frames = [];
const encodeErrors = [];
(request.events ?? []).forEach((event, index) => {
  try {
    const message = encode(event);
    const prefix = Buffer.alloc(4);
    prefix.writeUInt32BE(message.length);
    frames.push(prefix, Buffer.from(message));
  } catch (error) {
    encodeErrors.push({ index, message: String(error.message) });
  }
});

process.stdout.write(
  JSON.stringify({
    decoded,
    encoded: Buffer.concat(frames).toString("base64"),
    encodeErrors,
  }),
);
