// The backend tool get_weather runs on the server; the page renders its call and result.
import React from "react";
import { CopilotChat, useRenderTool } from "@copilotkit/react-core/v2";
import { z } from "zod";
import Provider from "./Provider.jsx";

function WeatherCard({ status, parameters, result }) {
  let weather = null;
  try {
    weather = result ? JSON.parse(result) : null;
  } catch {
    weather = null;
  }
  return (
    <div className="card" data-testid="weather-card">
      <h3 data-testid="weather-city">{parameters?.city ?? "…"}</h3>
      {status !== "complete" || !weather ? (
        <p>Retrieving the weather…</p>
      ) : (
        <p data-testid="weather-details">
          {weather.conditions}, {weather.temperature}°C, humidity {weather.humidity}%, wind{" "}
          {weather.wind_speed} km/h
        </p>
      )}
    </div>
  );
}

function Chat() {
  useRenderTool({
    name: "get_weather",
    parameters: z.object({ city: z.string() }),
    render: (props) => <WeatherCard {...props} />,
  });
  return <CopilotChat agentId="backend_tool_rendering" />;
}

export default function BackendToolRendering() {
  return (
    <Provider>
      <div className="feature">
        <div className="panel">
          <h1>Backend tool rendering</h1>
        </div>
        <div className="chat">
          <Chat />
        </div>
      </div>
    </Provider>
  );
}
