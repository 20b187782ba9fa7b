// Human in the loop: the agent proposes steps (generate_task_steps, a tool the page answers);
// the user unticks some and confirms; the agent carries on with the steps kept.
import React, { useEffect, useState } from "react";
import { CopilotChat, useHumanInTheLoop } from "@copilotkit/react-core/v2";
import { z } from "zod";
import Provider from "./Provider.jsx";

function Steps({ args, status, respond }) {
  const [steps, setSteps] = useState([]);
  const [answer, setAnswer] = useState(null);
  useEffect(() => {
    if (status === "executing" && steps.length === 0 && Array.isArray(args?.steps)) {
      setSteps(args.steps);
    }
  }, [status, args?.steps, steps.length]);
  const shown = steps.length > 0 ? steps : (args?.steps ?? []);
  const toggle = (index) =>
    setSteps((current) =>
      current.map((step, i) =>
        i === index ? { ...step, status: step.status === "enabled" ? "disabled" : "enabled" } : step,
      ),
    );
  const enabled = shown.filter((step) => step.status === "enabled");
  return (
    <div className="card" data-testid="select-steps">
      <h3>Select steps ({enabled.length}/{shown.length})</h3>
      {shown.map((step, index) => (
        <label key={index} data-testid="step-item" style={{ display: "block" }}>
          <input
            type="checkbox"
            checked={step.status === "enabled"}
            disabled={status !== "executing" || answer !== null}
            onChange={() => toggle(index)}
          />
          <span data-testid="step-text">{step.description}</span>
        </label>
      ))}
      {answer === null ? (
        <p>
          <button
            disabled={status !== "executing"}
            onClick={() => {
              setAnswer("rejected");
              respond({ accepted: false });
            }}
          >
            Reject
          </button>{" "}
          <button
            data-testid="perform-steps"
            disabled={status !== "executing"}
            onClick={() => {
              setAnswer("accepted");
              respond({ accepted: true, steps: enabled });
            }}
          >
            Perform steps ({enabled.length})
          </button>
        </p>
      ) : (
        <p data-testid="steps-answer">{answer === "accepted" ? "✓ Accepted" : "✗ Rejected"}</p>
      )}
    </div>
  );
}

function Chat() {
  useHumanInTheLoop({
    name: "generate_task_steps",
    description: "Generates a list of steps for the user to review",
    parameters: z.object({
      steps: z.array(
        z.object({ description: z.string(), status: z.enum(["enabled", "disabled", "executing"]) }),
      ),
    }),
    render: (props) => <Steps {...props} />,
  });
  return <CopilotChat agentId="human_in_the_loop" />;
}

export default function HumanInTheLoop() {
  return (
    <Provider>
      <div className="feature">
        <div className="panel">
          <h1>Human in the loop</h1>
        </div>
        <div className="chat">
          <Chat />
        </div>
      </div>
    </Provider>
  );
}
