import { useEffect, useRef, useState, type CSSProperties, type KeyboardEvent } from "react";
import type { CompareItem } from "../core/types";
import { useStudio } from "../core/useStudio";
import { useModal } from "../useModal";

/** One frame at 24 fps: what the arrow keys step, and the most two players may drift apart. */
const FRAME = 1 / 24;

type Props = { items: CompareItem[] };

/** 2 to 4 videos side by side under one control: play, pause and seek move them all (the
 * first leads; the others are pulled back whenever they drift half a frame), the arrow keys
 * step one frame while the videos have focus (the sliders and the checkbox keep their own
 * keys), and two videos can be wiped one over the other. */
export default function ComparePlayer({ items }: Props) {
  const studio = useStudio();
  const players = useRef<(HTMLVideoElement | null)[]>([]);
  const [playing, setPlaying] = useState(false);
  const [time, setTime] = useState(0);
  const [duration, setDuration] = useState(0);
  const [wipe, setWipe] = useState(50);
  const [wiping, setWiping] = useState(false);
  const canWipe = items.length === 2;
  const dialog = useRef<HTMLDivElement>(null);
  useModal(dialog, true, () => studio.closeCompare(false));
  const videos = () => players.current.filter((v): v is HTMLVideoElement => v !== null);

  const seek = (to: number) => {
    const end = Math.min(...videos().map((v) => v.duration || 0));
    const at = Math.max(0, Math.min(to, Number.isFinite(end) && end > 0 ? end : to));
    for (const video of videos()) video.currentTime = at;
    setTime(at);
  };
  const play = () => {
    for (const video of videos()) video.play().catch(() => undefined);
    setPlaying(true);
  };
  const pause = () => {
    for (const video of videos()) video.pause();
    seek(videos()[0]?.currentTime ?? 0);
    setPlaying(false);
  };

  // While playing, the followers are kept on the leader's time.
  useEffect(() => {
    if (!playing) return;
    let frame = 0;
    const follow = () => {
      const [leader, ...others] = videos();
      if (leader) {
        for (const video of others) {
          if (Math.abs(video.currentTime - leader.currentTime) > FRAME / 2)
            video.currentTime = leader.currentTime;
        }
        setTime(leader.currentTime);
        if (leader.ended) setPlaying(false);
      }
      frame = requestAnimationFrame(follow);
    };
    frame = requestAnimationFrame(follow);
    return () => cancelAnimationFrame(frame);
  }, [playing]);

  const onKey = (event: KeyboardEvent) => {
    if (event.key === "ArrowRight" || event.key === "ArrowLeft") {
      event.preventDefault();
      for (const video of videos()) video.pause();
      setPlaying(false);
      const now = videos()[0]?.currentTime ?? 0;
      seek(now + (event.key === "ArrowRight" ? FRAME : -FRAME));
    } else if (event.key === " ") {
      event.preventDefault();
      if (videos()[0]?.paused) play();
      else pause();
    }
  };

  const layered = canWipe && wiping;
  return (
    <div className="overlay compare-overlay">
      <div
        ref={dialog}
        className="modal compare"
        role="dialog"
        aria-modal="true"
        aria-labelledby="compare-title"
      >
        <div className="modal-head">
          <h2 id="compare-title">Compare</h2>
          <button
            type="button"
            className="ghost"
            aria-label="Close"
            onClick={() => studio.closeCompare(false)}
          >
            ×
          </button>
        </div>
        <div
          className={`compare-grid${layered ? " wiped" : ""}`}
          data-count={items.length}
          role="group"
          aria-label="Compared videos"
          aria-describedby="compare-keys"
          tabIndex={0}
          onKeyDown={onKey}
        >
          {items.map((item, i) => (
            <figure key={item.id} className="compare-item">
              <video
                ref={(el) => {
                  players.current[i] = el;
                }}
                src={item.url}
                muted
                playsInline
                preload="auto"
                aria-label={`Compared video ${item.title}`}
                style={
                  layered && i === 1
                    ? ({ clipPath: `inset(0 0 0 ${wipe}%)` } as CSSProperties)
                    : undefined
                }
                onLoadedMetadata={(e) => i === 0 && setDuration(e.currentTarget.duration || 0)}
              />
              {!layered && <figcaption>{item.title}</figcaption>}
            </figure>
          ))}
        </div>
        <div className="compare-controls">
          <button type="button" className="primary" onClick={playing ? pause : play}>
            {playing ? "Pause" : "Play"}
          </button>
          <input
            type="range"
            aria-label="Seek"
            min={0}
            max={duration || 0}
            step={FRAME}
            value={Math.min(time, duration || 0)}
            onChange={(e) => seek(Number(e.target.value))}
          />
          <span className="muted">
            {time.toFixed(2)} / {duration.toFixed(2)} s
          </span>
          {canWipe && (
            <label className="wipe">
              <input
                type="checkbox"
                checked={wiping}
                onChange={(e) => setWiping(e.target.checked)}
              />
              Wipe
            </label>
          )}
          {layered && (
            <input
              type="range"
              aria-label="Wipe position"
              min={0}
              max={100}
              value={wipe}
              onChange={(e) => setWipe(Number(e.target.value))}
            />
          )}
        </div>
        <p className="hint" id="compare-keys">
          With the videos focused, Space plays or pauses and ← and → step one frame. Esc closes.
        </p>
      </div>
    </div>
  );
}
