// The real @ag-ui/client 1.0.0 reading a run over HTTP, as tests/proto/test_http_interop.py
// serves it. argv: URL ACCEPT. The client picks its parser from the response Content-Type
// (protobuf frames or SSE); prints {"contentType": ..., "events": [...]} or {"error": ...}.
import { runHttpRequest, transformHttpEventStream } from "@ag-ui/client";
import { lastValueFrom, toArray } from "rxjs";

const [url, accept] = process.argv.slice(2);
let contentType = null;
try {
  const events = await lastValueFrom(
    transformHttpEventStream(
      runHttpRequest(async () => {
        const response = await fetch(url, {
          method: "POST",
          headers: { "Content-Type": "application/json", Accept: accept },
          body: JSON.stringify({ threadId: "t", runId: "r", messages: [] }),
        });
        contentType = response.headers.get("content-type");
        return response;
      }),
    ).pipe(toArray()),
  );
  process.stdout.write(JSON.stringify({ contentType, events }));
} catch (error) {
  process.stdout.write(JSON.stringify({ contentType, error: String(error?.message ?? error) }));
}
