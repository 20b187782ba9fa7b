// Records which change notifications the official @ag-ui/client 1.0.0 fires when the
// conversation is edited directly (addMessage, addMessages, setMessages, setState), in order,
// and what each callback was given. The Python client's tests replay the same scenario.
//
// Input (stdin): {
//   "initialMessages": [...], "initialState": any,
//   "subscribers": [{"name": "a", "async": false, "raiseIn": "onNewMessage" | null}, ...],
//   "actions": [{"op": "addMessage", "message": {...}} | {"op": "addMessages", "messages": [...]}
//               | {"op": "setMessages", "messages": [...]} | {"op": "setState", "state": any}]
// }
// Output (stdout): one JSON list of records, each
//   {"subscriber", "callback", "messageIds", "state", "hasInput", "message"?, "toolCall"?}
// or {"action", "error"} for a callback that raised (an unhandled rejection in TypeScript).
import { AbstractAgent } from "@ag-ui/client";
import { EMPTY } from "rxjs";

class EditedAgent extends AbstractAgent {
  run() {
    return EMPTY;
  }
}

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const scenario = JSON.parse(Buffer.concat(chunks).toString("utf8"));

const records = [];
let currentAction = null;
let outstanding = 0; // async callbacks started and not yet finished
process.on("unhandledRejection", (error) => {
  records.push({ action: currentAction, error: String(error?.message ?? error) });
});

const CALLBACKS = ["onNewMessage", "onNewToolCall", "onMessagesChanged", "onStateChanged"];

function recorder(spec) {
  const subscriber = {};
  for (const callback of CALLBACKS) {
    subscriber[callback] = (params) => {
      const record = {
        subscriber: spec.name,
        callback,
        messageIds: params.messages.map((m) => m.id),
        state: params.state ?? null,
        hasInput: params.input !== undefined,
      };
      if (params.message !== undefined) record.message = params.message.id;
      if (params.toolCall !== undefined) record.toolCall = params.toolCall.id;
      const finish = () => {
        records.push(record);
        if (spec.raiseIn === callback) throw new Error(`${spec.name} failed in ${callback}`);
      };
      if (spec.async) {
        outstanding += 1;
        return new Promise((resolve) => setTimeout(resolve, 1)).then(() => {
          outstanding -= 1;
          return finish();
        });
      }
      return finish();
    };
  }
  return subscriber;
}

const agent = new EditedAgent({
  threadId: "t",
  initialMessages: scenario.initialMessages ?? [],
  initialState: scenario.initialState ?? {},
});
for (const spec of scenario.subscribers) agent.subscribe(recorder(spec));

// Wait until what TypeScript runs "in the background" has settled: no async callback is
// pending at a macrotask turn (the next callback of a chain starts in the microtasks after the
// previous one resolved, so it is already counted by then). A fixed delay raced a loaded machine.
const tick = () => new Promise((resolve) => setTimeout(resolve, 2));
const settle = async () => {
  do await tick();
  while (outstanding > 0);
  await tick();
};

for (const action of scenario.actions) {
  currentAction = action.op;
  if (action.op === "addMessage") agent.addMessage(action.message);
  else if (action.op === "addMessages") agent.addMessages(action.messages);
  else if (action.op === "setMessages") agent.setMessages(action.messages);
  else if (action.op === "setState") agent.setState(action.state);
  await settle();
}
process.stdout.write(JSON.stringify(records));
