// A TypeScript front end that sends only its new message: each turn a new @ag-ui/client
// HttpAgent on the same thread, holding nothing but the question (a page that keeps no history).
//   node ts_thread_turns.mjs URL THREAD_ID 'question 1' 'question 2' ...
// Prints {turns: [{state, messageIds}], warnings} as one JSON line: what each turn ended with,
// and everything the client wrote to the console (a failed state patch warns there).
import { HttpAgent } from "@ag-ui/client";

const [url, threadId, ...questions] = process.argv.slice(2);
const warnings = [];
for (const name of ["warn", "error", "log"]) {
  console[name] = (...args) => warnings.push(args.map(String).join(" "));
}
const turns = [];
for (const [index, question] of questions.entries()) {
  const agent = new HttpAgent({ url, threadId });
  agent.addMessage({ id: `ts-question-${index}`, role: "user", content: question });
  await agent.runAgent({ runId: `ts-run-${index}` });
  turns.push({ state: agent.state, messageIds: agent.messages.map((m) => m.id) });
}
process.stdout.write(JSON.stringify({ turns, warnings }) + "\n");
