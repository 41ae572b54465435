// The Spend button, and the Spend panel loaded the first time it is opened.
import { lazy, Suspense } from "react";
import { run, useStudio, useView } from "../core/useStudio";

const SpendPanel = lazy(() => import("./SpendPanel"));

export function SpendButton() {
  const studio = useStudio();
  const { open } = useView("spend");
  return (
    <button
      type="button"
      className="spend-toggle"
      aria-expanded={open}
      onClick={() => (open ? studio.closeSpend() : run(studio.openSpend()))}
    >
      Spend
    </button>
  );
}

export function Spend() {
  const { open } = useView("spend");
  if (!open) return null;
  return (
    <Suspense fallback={null}>
      <SpendPanel />
    </Suspense>
  );
}
