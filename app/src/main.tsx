import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./App";
import { createStudio, Studio } from "./core/studio";
import { StudioContext } from "./core/useStudio";
import { StartFailure } from "./StartFailure";
import "./base.css";
import "./styles.css";

const root = document.getElementById("root");
try {
  const studio = await createStudio();
  Object.assign(window, { studio, Studio });
  if (root) {
    createRoot(root).render(
      <StrictMode>
        <StudioContext.Provider value={studio}>
          <App />
        </StudioContext.Provider>
      </StrictMode>,
    );
  }
} catch (error) {
  if (root) createRoot(root).render(<StartFailure error={error} />);
}
