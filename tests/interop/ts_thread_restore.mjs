// A TypeScript front end restoring a stored thread after a reload, as docs/threads.md shows:
// @ag-ui/client 1.0.0's HttpAgent does not implement connect, so the page reads
// GET <agent>/threads/<id> and sets the messages and state, then sends only its new message.
//   node ts_thread_restore.mjs URL THREAD_ID 'new message text' '<headers JSON>'
// Prints {restored, sent, messages, state} as one JSON line.
import { HttpAgent } from "@ag-ui/client";

const [url, threadId, text, headersJson = "{}"] = process.argv.slice(2);
const headers = JSON.parse(headersJson);

const response = await fetch(`${url}/threads/${encodeURIComponent(threadId)}`, { headers });
if (!response.ok) {
  process.stdout.write(JSON.stringify({ error: response.status }) + "\n");
  process.exit(0);
}
const thread = await response.json();
const agent = new HttpAgent({ url, threadId, headers });
agent.setMessages(thread.messages);
agent.setState(thread.state ?? {});
const restored = agent.messages.length;
agent.addMessage({ id: "ts-user-2", role: "user", content: text });
await agent.runAgent({ runId: "ts-run-2" });
process.stdout.write(
  JSON.stringify({ restored, messages: agent.messages, state: agent.state }) + "\n",
);
