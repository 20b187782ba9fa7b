// The v2 provider every page but agentic chat uses, pointed at server.mjs's runtime.
import React from "react";
import { CopilotKitProvider } from "@copilotkit/react-core/v2";
import "@copilotkit/react-core/v2/styles.css";

export default function Provider({ children }) {
  return (
    <CopilotKitProvider runtimeUrl="/api/copilotkit" showDevConsole={false}>
      {children}
    </CopilotKitProvider>
  );
}
