import type { RefObject } from "react";
import { run, useStudio, useView } from "../core/useStudio";
import type { MenuItem } from "../Menu";

/** The menu items that make a shot from a video (a library file name or a finished job's id):
 * grab a frame of it as a reference image (at the player's time, or its first or last frame),
 * or make the next job extend or remix it. */
export function useShotItems(
  video: string,
  player: RefObject<HTMLVideoElement | null>,
): { items: MenuItem[]; extend: (() => void) | null; remix: (() => void) | null } {
  const studio = useStudio();
  const { canExtend, canRemix, adding } = useView("shot");
  const grab = (at: "first" | "last" | "playhead") => () => {
    const moment = at === "playhead" ? (player.current?.currentTime ?? 0) : at;
    run(studio.grabFrame(video, moment));
  };
  const extend = canExtend ? () => studio.extendVideo(video) : null;
  const remix = canRemix ? () => studio.remixVideo(video) : null;
  const items: MenuItem[] = [
    { label: "Grab frame at playhead", onSelect: grab("playhead"), disabled: adding },
    { label: "Grab first frame", onSelect: grab("first"), disabled: adding },
    { label: "Grab last frame", onSelect: grab("last"), disabled: adding },
  ];
  if (extend) items.push({ label: "Extend", onSelect: extend });
  if (remix) items.push({ label: "Remix", onSelect: remix });
  return { items, extend, remix };
}
