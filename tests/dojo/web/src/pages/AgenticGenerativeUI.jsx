// Agentic generative UI: the plan arrives as STATE_SNAPSHOT, each step completed by STATE_DELTA;
// the page renders the agent's state as it changes.
import React from "react";
import { CopilotChat, UseAgentUpdate, useAgent } from "@copilotkit/react-core/v2";
import Provider from "./Provider.jsx";

function Plan() {
  const { agent } = useAgent({
    agentId: "agentic_generative_ui",
    updates: [UseAgentUpdate.OnStateChanged, UseAgentUpdate.OnRunStatusChanged],
  });
  const steps = agent.state?.steps ?? [];
  const done = steps.filter((step) => step.status === "completed").length;
  return (
    <div className="card" data-testid="plan">
      <h3 data-testid="plan-progress">
        {steps.length === 0 ? "No plan yet" : `${done}/${steps.length} steps completed`}
      </h3>
      <ol>
        {steps.map((step, index) => (
          <li key={index} className={`step ${step.status}`} data-testid="plan-step">
            {step.description}: {step.status}
          </li>
        ))}
      </ol>
    </div>
  );
}

export default function AgenticGenerativeUI() {
  return (
    <Provider>
      <div className="feature">
        <div className="panel">
          <h1>Agentic generative UI</h1>
          <Plan />
        </div>
        <div className="chat">
          <CopilotChat agentId="agentic_generative_ui" />
        </div>
      </div>
    </Provider>
  );
}
