import { useRef, type RefObject } from "react";
import { run, useStudio, useView } from "../core/useStudio";

type Props = {
  /** A library file name or a finished job's id. */
  video: string;
  /** The player whose current time "At playhead" grabs. */
  player: RefObject<HTMLVideoElement | null>;
};

/** Grab a frame of a video as a reference image, or make the next job extend or remix it. */
export function ShotActions({ video, player }: Props) {
  const studio = useStudio();
  const { canExtend, canRemix, adding } = useView("shot");
  const menu = useRef<HTMLDetailsElement>(null);
  const grab = (at: "first" | "last" | "playhead") => {
    const moment = at === "playhead" ? (player.current?.currentTime ?? 0) : at;
    if (menu.current) menu.current.open = false;
    run(studio.grabFrame(video, moment));
  };
  return (
    <>
      <details className="grab" ref={menu}>
        <summary>Grab frame</summary>
        <div className="grab-menu">
          <button type="button" disabled={adding} onClick={() => grab("playhead")}>
            At playhead
          </button>
          <button type="button" disabled={adding} onClick={() => grab("first")}>
            First frame
          </button>
          <button type="button" disabled={adding} onClick={() => grab("last")}>
            Last frame
          </button>
        </div>
      </details>
      {canExtend && (
        <button type="button" onClick={() => studio.extendVideo(video)}>
          Extend
        </button>
      )}
      {canRemix && (
        <button type="button" onClick={() => studio.remixVideo(video)}>
          Remix
        </button>
      )}
    </>
  );
}
