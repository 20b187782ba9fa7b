// Tool-based generative UI: the agent calls the frontend tool generate_haiku; the page shows
// the haiku card from the call's arguments and answers the call.
import React, { useState } from "react";
import { CopilotChat, useFrontendTool } from "@copilotkit/react-core/v2";
import { z } from "zod";
import Provider from "./Provider.jsx";

function Haiku({ haiku }) {
  return (
    <div className="card" data-testid="haiku-card">
      {haiku.japanese.map((line, index) => (
        <p key={index}>
          <strong data-testid="haiku-japanese-line">{line}</strong>
          <br />
          <span data-testid="haiku-english-line">{haiku.english[index]}</span>
        </p>
      ))}
    </div>
  );
}

export default function ToolBasedGenerativeUI() {
  const [haikus, setHaikus] = useState([]);
  function Tools() {
    useFrontendTool({
      name: "generate_haiku",
      description: "Show a haiku: three Japanese lines and their English translation",
      parameters: z.object({ japanese: z.array(z.string()), english: z.array(z.string()) }),
      handler: async (haiku) => {
        setHaikus((current) => [...current, haiku]);
        return "Haiku shown";
      },
    });
    return null;
  }
  return (
    <Provider>
      <Tools />
      <div className="feature">
        <div className="panel">
          <h1>Tool-based generative UI</h1>
          {haikus.map((haiku, index) => (
            <Haiku key={index} haiku={haiku} />
          ))}
        </div>
        <div className="chat">
          <CopilotChat agentId="tool_based_generative_ui" />
        </div>
      </div>
    </Provider>
  );
}
