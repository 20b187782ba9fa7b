// One minimal page per dojo feature, at /feature/<name> (the dojo's own page names).
import React from "react";
import { createRoot } from "react-dom/client";

import AgenticChat from "./pages/AgenticChat.jsx";
import AgenticGenerativeUI from "./pages/AgenticGenerativeUI.jsx";
import BackendToolRendering from "./pages/BackendToolRendering.jsx";
import HumanInTheLoop from "./pages/HumanInTheLoop.jsx";
import PredictiveStateUpdates from "./pages/PredictiveStateUpdates.jsx";
import SharedState from "./pages/SharedState.jsx";
import ToolBasedGenerativeUI from "./pages/ToolBasedGenerativeUI.jsx";
import "./page.css";

const PAGES = {
  agentic_chat: AgenticChat,
  backend_tool_rendering: BackendToolRendering,
  human_in_the_loop: HumanInTheLoop,
  agentic_generative_ui: AgenticGenerativeUI,
  tool_based_generative_ui: ToolBasedGenerativeUI,
  shared_state: SharedState,
  predictive_state_updates: PredictiveStateUpdates,
};

function Index() {
  return (
    <ul>
      {Object.keys(PAGES).map((name) => (
        <li key={name}>
          <a href={`/feature/${name}`}>{name}</a>
        </li>
      ))}
    </ul>
  );
}

const feature = window.location.pathname.replace(/^\/feature\//, "").replace(/\/$/, "");
const Page = PAGES[feature] ?? Index;
createRoot(document.getElementById("root")).render(<Page />);
