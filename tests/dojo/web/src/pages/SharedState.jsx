// Shared state: the recipe lives in the agent's state; the user edits it here (agent.setState)
// and the agent completes it (STATE_DELTA), each side seeing the other's changes.
import React from "react";
import { CopilotChat, UseAgentUpdate, useAgent } from "@copilotkit/react-core/v2";
import Provider from "./Provider.jsx";

const INITIAL = { recipe: { title: "", ingredients: [], instructions: [] } };

function Recipe() {
  const { agent } = useAgent({
    agentId: "shared_state",
    updates: [UseAgentUpdate.OnStateChanged, UseAgentUpdate.OnRunStatusChanged],
  });
  const recipe = agent.state?.recipe ?? INITIAL.recipe;
  const change = (next) => agent.setState({ ...(agent.state ?? {}), recipe: { ...recipe, ...next } });
  const setIngredient = (index, field, value) =>
    change({
      ingredients: recipe.ingredients.map((item, i) => (i === index ? { ...item, [field]: value } : item)),
    });
  return (
    <div className="card" data-testid="recipe">
      <h3>{recipe.title || "Your recipe"}</h3>
      <h4>Ingredients</h4>
      {recipe.ingredients.map((item, index) => (
        <div key={index} className="ingredient-card" data-testid="ingredient-card">
          <input
            className="ingredient-name-input"
            value={item.name ?? ""}
            onChange={(event) => setIngredient(index, "name", event.target.value)}
          />
          <input
            className="ingredient-amount-input"
            value={item.amount ?? ""}
            onChange={(event) => setIngredient(index, "amount", event.target.value)}
          />
        </div>
      ))}
      <button
        data-testid="add-ingredient"
        onClick={() => change({ ingredients: [...recipe.ingredients, { icon: "🍴", name: "", amount: "" }] })}
      >
        + Add ingredient
      </button>
      <h4>Instructions</h4>
      <ol data-testid="instructions">
        {(recipe.instructions ?? []).map((step, index) => (
          <li key={index} className="instruction-item">
            {step}
          </li>
        ))}
      </ol>
    </div>
  );
}

export default function SharedState() {
  return (
    <Provider>
      <div className="feature">
        <div className="panel">
          <h1>Shared state</h1>
          <Recipe />
        </div>
        <div className="chat">
          <CopilotChat agentId="shared_state" />
        </div>
      </div>
    </Provider>
  );
}
