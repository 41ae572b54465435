// The bar of the videos selected in the library, loaded the first time one is selected; once
// loaded it stays, so what was typed in it (a link's title) outlives an emptied selection.
import { useState } from "react";
import { lazyPanel } from "../LazyPanel";
import { useView } from "../core/useStudio";

const SelectionBar = lazyPanel(() => import("./SelectionBar"), "selection bar");

export function Selection() {
  const { selected, created } = useView("shares");
  const [wanted, setWanted] = useState(false);
  if (!wanted && (selected.length > 0 || created)) setWanted(true);
  return wanted ? <SelectionBar /> : null;
}
