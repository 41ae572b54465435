// Plays a sequence through on two video elements: while one shows a shot, the other holds the
// next one loaded and paused at its in point, and takes over when the shot's last frame has
// been shown for its frame's time (watched with requestVideoFrameCallback), so no cut waits
// for a load. I and O set the showing shot's in and out points at the player's time.
import { useEffect, useRef, useState, type KeyboardEvent } from "react";

export type Clip = { id: string; label: string; url: string; inS: number; outS: number };

type Props = {
  clips: Clip[];
  fps: number;
  onPoint: (id: string, point: "in" | "out", seconds: number) => void;
};

/** Loads `clip` into `video`, paused at its in point. */
function cue(video: HTMLVideoElement, clip: Clip) {
  if (video.dataset.url !== clip.url) {
    video.dataset.url = clip.url;
    video.src = clip.url;
  }
  video.currentTime = clip.inS;
}

export function SequencePlayer({ clips, fps, onPoint }: Props) {
  const first = useRef<HTMLVideoElement>(null);
  const second = useRef<HTMLVideoElement>(null);
  const element = (n: number) => (n === 0 ? first : second).current;
  const [showing, setShowing] = useState(0);
  const [front, setFront] = useState(0);
  const [playing, setPlaying] = useState(false);
  const state = useRef({ showing: 0, front: 0, clips });
  useEffect(() => {
    state.current.clips = clips;
  }, [clips]);

  // Stopped, the player shows the chosen shot's in point and holds the next one ready.
  useEffect(() => {
    if (playing) return;
    const clip = clips[showing];
    const [shown, other] = [element(front), element(1 - front)];
    if (!clip || !shown || !other) return;
    cue(shown, clip);
    const next = clips[showing + 1];
    if (next) cue(other, next);
  }, [clips, showing, front, playing]);

  const play = () => {
    const start = state.current;
    start.showing = showing;
    start.front = front;
    const watch = () => {
      const now = state.current;
      const video = element(now.front);
      const clip = now.clips[now.showing];
      if (!video || !clip) return;
      video.requestVideoFrameCallback((_, frame) => {
        if (frame.mediaTime < clip.outS - 1.5 / fps) return watch();
        // The shot's last frame is showing: the next shot takes over when its time is up.
        const left = frame.expectedDisplayTime + 1000 / fps - performance.now();
        setTimeout(() => cut(video), Math.max(0, left - 4));
      });
    };
    const cut = (video: HTMLVideoElement) => {
      const now = state.current;
      const next = now.clips[now.showing + 1];
      const other = element(1 - now.front);
      if (!next || !other) {
        video.pause();
        setPlaying(false);
        return;
      }
      // Shown now, not at React's next render.
      other.className = "front";
      video.className = "back";
      void other.play();
      video.pause();
      now.front = 1 - now.front;
      now.showing += 1;
      setFront(now.front);
      setShowing(now.showing);
      const after = now.clips[now.showing + 1];
      if (after) cue(video, after);
      watch();
    };
    setPlaying(true);
    void element(front)?.play();
    watch();
  };

  const stop = () => {
    for (const n of [0, 1]) element(n)?.pause();
    setPlaying(false);
  };

  const onKeyDown = (event: KeyboardEvent) => {
    const clip = clips[showing];
    const video = element(front);
    if (!clip || !video || event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.key === "i") onPoint(clip.id, "in", video.currentTime);
    else if (event.key === "o") onPoint(clip.id, "out", video.currentTime);
    else return;
    event.preventDefault();
  };

  const clip = clips[showing];
  return (
    <div
      className="sequence-player"
      tabIndex={0}
      onKeyDown={onKeyDown}
      aria-label="Sequence player"
    >
      <div className="sequence-screen">
        {[0, 1].map((n) => (
          <video
            key={n}
            ref={n === 0 ? first : second}
            muted
            playsInline
            preload="auto"
            data-testid={`sequence-video-${n}`}
            className={n === front ? "front" : "back"}
            aria-hidden={n !== front}
          />
        ))}
      </div>
      <div className="sequence-controls">
        <button type="button" disabled={clips.length === 0} onClick={playing ? stop : play}>
          {playing ? "Stop" : "Play sequence"}
        </button>
        <span aria-live="polite">
          {clip ? `${clip.label} (${showing + 1} of ${clips.length})` : "No shots"}
        </span>
        <button
          type="button"
          disabled={playing || showing === 0}
          onClick={() => setShowing(showing - 1)}
        >
          Previous shot
        </button>
        <button
          type="button"
          disabled={playing || showing + 1 >= clips.length}
          onClick={() => setShowing(showing + 1)}
        >
          Next shot
        </button>
      </div>
    </div>
  );
}
