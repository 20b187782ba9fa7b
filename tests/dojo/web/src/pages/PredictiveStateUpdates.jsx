// Predictive state updates: the agent writes the document into write_document_local's
// arguments; the page shows it as it streams, then confirm_changes asks the user, and the
// accepted document becomes the agent's state.document.
import React from "react";
import {
  CopilotChat,
  UseAgentUpdate,
  useAgent,
  useHumanInTheLoop,
  useRenderTool,
} from "@copilotkit/react-core/v2";
import { z } from "zod";
import Provider from "./Provider.jsx";

function Confirm({ status, respond }) {
  const [answer, setAnswer] = React.useState(null);
  return (
    <div className="card" data-testid="confirm-changes-modal">
      <h3>Confirm changes</h3>
      {answer === null ? (
        <p>
          <button
            data-testid="reject-button"
            disabled={status !== "executing"}
            onClick={() => {
              setAnswer(false);
              respond({ accepted: false });
            }}
          >
            Reject
          </button>{" "}
          <button
            data-testid="confirm-button"
            disabled={status !== "executing"}
            onClick={() => {
              setAnswer(true);
              respond({ accepted: true });
            }}
          >
            Confirm
          </button>
        </p>
      ) : (
        <p data-testid="status-display">{answer ? "✓ Accepted" : "✗ Rejected"}</p>
      )}
    </div>
  );
}

function Document() {
  const { agent } = useAgent({
    agentId: "predictive_state_updates",
    updates: [UseAgentUpdate.OnStateChanged, UseAgentUpdate.OnRunStatusChanged],
  });
  return (
    <div className="card">
      <h3>Saved document</h3>
      <p data-testid="saved-document">{agent.state?.document ?? ""}</p>
    </div>
  );
}

function Tools() {
  useRenderTool({
    name: "write_document_local",
    parameters: z.object({ document: z.string() }),
    render: ({ parameters, status }) => (
      <div className="card" data-testid="document-draft" data-status={status}>
        <h3>Draft</h3>
        <p>{parameters?.document ?? ""}</p>
      </div>
    ),
  });
  useHumanInTheLoop({
    name: "confirm_changes",
    description: "Ask the user to accept the document",
    parameters: z.object({}),
    render: (props) => <Confirm {...props} />,
  });
  return null;
}

export default function PredictiveStateUpdates() {
  return (
    <Provider>
      <Tools />
      <div className="feature">
        <div className="panel">
          <h1>Predictive state updates</h1>
          <Document />
        </div>
        <div className="chat">
          <CopilotChat agentId="predictive_state_updates" />
        </div>
      </div>
    </Provider>
  );
}
