// The MP4 export of the open sequence: its size (the sequence's own or a platform's; the player
// draws the crop window for it), where its captions go (a subtitle track, burnt into the
// picture, or none), and Export MP4.
import { useState } from "react";
import type { SequenceEditor } from "../../../pkg/studio_sequence.js";
import { run } from "../core/useStudio";
import type { Sequence } from "./types";

export function ExportControls({
  editor,
  sequence,
  size,
  onSize,
}: {
  editor: SequenceEditor;
  sequence: Sequence | undefined;
  /** "" for the sequence's own size. */
  size: string;
  onSize: (size: string) => void;
}) {
  const [captions, setCaptions] = useState("track");
  return (
    <>
      <label>
        Export size
        <select value={size} onChange={(event) => onSize(event.target.value)}>
          <option value="">
            {sequence ? `${sequence.size} (the sequence's)` : "The sequence's"}
          </option>
          {editor.exportSizes().map((option) => (
            <option key={option} value={option}>
              {option}
            </option>
          ))}
        </select>
      </label>
      <label>
        Captions
        <select value={captions} onChange={(event) => setCaptions(event.target.value)}>
          <option value="track">As a subtitle track</option>
          <option value="burn">Burnt into the picture</option>
          <option value="none">None</option>
        </select>
      </label>
      <button
        type="button"
        disabled={!sequence || sequence.shots.length === 0}
        onClick={() => run(editor.exportMp4(size || undefined, captions))}
      >
        Export MP4
      </button>
    </>
  );
}
