// The sequence editor of the open project: its wasm loaded once (the first time the panel
// opens), one editor per panel, and its view through useSyncExternalStore. A wasm that does not
// load is thrown to the panel's boundary (see LazyPanel), whose Retry loads it again.
import { useCallback, useEffect, useState, useSyncExternalStore } from "react";
import init, { SequenceEditor } from "../../../pkg/studio_sequence.js";
import { run, useStudio } from "../core/useStudio";
import type { PanelView } from "./types";

let loaded: Promise<unknown> | undefined;

/** The editor of `projectId`'s sequences, started on `cut` (a sequence's id; "" for the
 * newest). */
export function useSequenceEditor(projectId: string, cut: string): SequenceEditor | null {
  const studio = useStudio();
  // The sequence the address named when the editor opened; later ones are the editor's own.
  const [first] = useState(cut);
  const [editor, setEditor] = useState<SequenceEditor | null>(null);
  const [failure, setFailure] = useState<{ error: unknown } | null>(null);
  useEffect(() => {
    let made: SequenceEditor | null = null;
    let gone = false;
    // A wasm that failed to load is loaded afresh by the panel's Retry.
    loaded ??= init().catch((error: unknown) => {
      loaded = undefined;
      throw error;
    });
    loaded.then(
      () => {
        if (gone) return;
        made = new SequenceEditor(studio.config(), projectId);
        setEditor(made);
        run(made.start(first || undefined));
      },
      (error: unknown) => gone || setFailure({ error }),
    );
    return () => {
      gone = true;
      // Its stream stops, and its memory in the wasm is given back (work still on its way
      // keeps what it needs until it ends).
      made?.close();
      made?.free();
      setEditor(null);
    };
  }, [studio, projectId, first]);
  // Thrown to the panel's boundary, which offers Retry.
  if (failure) throw failure.error;
  return editor;
}

const nothing = () => () => {};

export function usePanelView(editor: SequenceEditor | null): PanelView | null {
  const subscribe = useCallback(
    (onChange: () => void) => (editor ? editor.subscribe(onChange) : nothing()),
    [editor],
  );
  const view = useCallback(() => (editor ? editor.view() : null), [editor]);
  return useSyncExternalStore(subscribe, view);
}
