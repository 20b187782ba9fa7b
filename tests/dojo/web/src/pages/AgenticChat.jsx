// Agentic chat on CopilotKit's v1 API and @copilotkit/react-ui's chat (as the dojo's page):
// the agent calls the frontend tool change_background, which this page runs.
import React, { useState } from "react";
import { CopilotKit, useFrontendTool } from "@copilotkit/react-core";
import { CopilotChat } from "@copilotkit/react-ui";
import "@copilotkit/react-ui/styles.css";

function Chat() {
  const [background, setBackground] = useState("#ffffff");
  useFrontendTool({
    name: "change_background",
    description: "Change the page's background (any CSS background value).",
    parameters: [{ name: "background", type: "string", description: "The CSS background" }],
    handler: ({ background }) => {
      setBackground(background);
      return { status: "success", message: `Background changed to ${background}` };
    },
  });
  return (
    <div className="feature" data-testid="background-container" style={{ background }}>
      <div className="panel">
        <h1>Agentic chat</h1>
        <p data-testid="background-value">{background}</p>
      </div>
      <div className="chat">
        <CopilotChat labels={{ initial: "Hi, I'm an agent. Want to chat?" }} />
      </div>
    </div>
  );
}

export default function AgenticChat() {
  return (
    <CopilotKit runtimeUrl="/api/copilotkit" agent="agentic_chat" showDevConsole={false}>
      <Chat />
    </CopilotKit>
  );
}
