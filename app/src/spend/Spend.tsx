// The Spend button, and the Spend panel loaded the first time it is opened.
import { lazyPanel } from "../LazyPanel";
import { run, useStudio, useView } from "../core/useStudio";

const SpendPanel = lazyPanel(() => import("./SpendPanel"), "Spend panel");

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
  return <SpendPanel />;
}
