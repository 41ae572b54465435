import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./App";
import { createStudio, Studio } from "./core/studio";
import { StudioContext } from "./core/useStudio";
import "./styles.css";

const studio = await createStudio();
Object.assign(window, { studio, Studio });

const root = document.getElementById("root");
if (root) {
  createRoot(root).render(
    <StrictMode>
      <StudioContext.Provider value={studio}>
        <App />
      </StudioContext.Provider>
    </StrictMode>,
  );
}
