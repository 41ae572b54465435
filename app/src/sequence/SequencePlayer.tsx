// Plays a sequence through on two video elements: while one shows a shot, the other holds the
// next one loaded and paused at its in point, and takes over when the shot's last frame has
// been shown for its frame's time (watched with requestVideoFrameCallback), so no cut waits
// for a load. A shot without a take to play (missing from the library, or not made yet) shows
// a slate for its length, and the run goes on.
//
// Each run of Play has a token every callback checks: Stop cancels the frame callback and the
// cut timer and pauses in place, so Stop then Play never runs two chains. The player follows
// shots by id, so edits made while it plays (a move, a removal) never make it skip or freeze.
// Stopped, the arrow keys step a frame; anywhere in the editor J, K, L and Space play and stop
// as editors use them, and I and O set the showing shot's in and out points at its time. Over the picture, the part of the take an export of the chosen size
// keeps (a 16:9 take in a 9:16 cut) is framed and the rest dimmed. Playing, each take is heard
// at its shot's level and the lanes under it (`previewSound.ts`).
import { useEffect, useRef, useState, type KeyboardEvent } from "react";
import type { PreviewSound } from "./previewSound";
import type { CropWindow } from "./types";

export type Clip = {
  id: string;
  label: string;
  /** `null`: no take to play; `slate` says why. */
  url: string | null;
  slate: string;
  inS: number;
  outS: number;
  /** Shown over the take between these seconds on it (the player plays only the shot's part). */
  caption: { text: string; startS: number; endS: number } | null;
};

type Props = {
  clips: Clip[];
  fps: number;
  onPoint: (id: string, point: "in" | "out", seconds: number) => void;
  /** What an export keeps of shot `id`'s take of this size; `null`: all of it. */
  cropWindow: (id: string, width: number, height: number) => CropWindow | null;
  /** Plays the takes' own sound and the lanes while the sequence plays. */
  sound: PreviewSound;
};

/** Where the take's picture sits in the screen (the video shows it whole, letterboxed), as
 * fractions of the screen. */
type Picture = { width: number; height: number; left: number; top: number };

function pictureOf(video: HTMLVideoElement): Picture {
  const scale = Math.min(
    video.clientWidth / video.videoWidth,
    video.clientHeight / video.videoHeight,
  );
  const width = (video.videoWidth * scale) / video.clientWidth;
  const height = (video.videoHeight * scale) / video.clientHeight;
  return { width, height, left: (1 - width) / 2, top: (1 - height) / 2 };
}

/** The crop window over the picture: what the export keeps, the rest dimmed. */
function CropFrame({ picture, crop }: { picture: Picture; crop: CropWindow }) {
  const percent = (n: number) => `${n * 100}%`;
  return (
    <div
      className="sequence-crop"
      data-testid="sequence-crop"
      aria-hidden="true"
      style={{
        left: percent(picture.left + crop.left * picture.width),
        top: percent(picture.top + crop.top * picture.height),
        width: percent(crop.width * picture.width),
        height: percent(crop.height * picture.height),
      }}
    />
  );
}

/**
 * Gives `video` the caption of `clip` as its one cue, in the take's time: the browser draws it
 * over the picture while the take is inside it, and screen readers can read it.
 */
function caption(video: HTMLVideoElement, clip: Clip | undefined) {
  const track =
    Array.from(video.textTracks).find((t) => t.kind === "captions") ??
    video.addTextTrack("captions", "Captions");
  for (const old of Array.from(track.cues ?? [])) track.removeCue(old);
  if (clip?.caption) {
    track.addCue(new VTTCue(clip.caption.startS, clip.caption.endS, clip.caption.text));
  }
  track.mode = "showing";
}

/** Loads `clip` into `video`, paused at its in point, with its caption. */
function cue(video: HTMLVideoElement, clip: Clip | undefined) {
  if (!clip?.url) return;
  caption(video, clip);
  if (video.dataset.url !== clip.url) {
    video.dataset.url = clip.url;
    video.src = clip.url;
  }
  video.currentTime = clip.inS;
}

/** Where the arrow keys step the stopped player, in frames. */
const FRAME_STEPS: Partial<Record<string, number>> = { ArrowLeft: -1, ArrowRight: 1 };

/** What a run of Play holds: its token, and the frame callback and timer to cancel. */
type Run = {
  token: number;
  frame: { video: HTMLVideoElement; handle: number } | null;
  timer: number;
};

export function SequencePlayer({ clips, fps, onPoint, cropWindow, sound }: Props) {
  const first = useRef<HTMLVideoElement>(null);
  const second = useRef<HTMLVideoElement>(null);
  const element = (n: number) => (n === 0 ? first : second).current;
  // The shot showing, by id, and where it stood when chosen (for when it is removed).
  const [showing, setShowing] = useState<{ id: string | null; at: number }>({ id: null, at: 0 });
  const [front, setFront] = useState(0);
  const [playing, setPlaying] = useState(false);
  // The front video's take: its size in pixels and where its picture sits.
  const [take, setTake] = useState<{ url: string; size: [number, number]; picture: Picture }>();
  const latest = useRef({ clips, front: 0 });
  const run = useRef<Run>({ token: 0, frame: null, timer: 0 });
  useEffect(() => {
    latest.current.clips = clips;
  }, [clips]);

  // The shot showing, by id; when it is gone, the one now where it stood.
  const found = clips.findIndex((clip) => clip.id === showing.id);
  const index = found >= 0 ? found : Math.min(showing.at, clips.length - 1);
  const clip = index >= 0 ? clips[index] : undefined;
  const showAt = (at: number) => setShowing({ id: latest.current.clips[at]?.id ?? null, at });

  // Stopped, the player shows the chosen shot's in point and holds the next one ready. Each is
  // cued again only when what it shows changed (a point set, a move), so Stop leaves the
  // player where it was.
  const key = (c: Clip | undefined) =>
    c ? `${c.id} ${c.url} ${c.inS} ${c.caption?.text} ${c.caption?.startS} ${c.caption?.endS}` : "";
  const shownKey = key(clip);
  const nextKey = key(clips[index + 1]);
  useEffect(() => {
    const shown = element(front);
    if (!playing && clip && shown) cue(shown, clip);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [shownKey, front]);
  useEffect(() => {
    const other = element(1 - front);
    if (!playing && other) cue(other, clips[index + 1]);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [nextKey, front]);

  const ended = (token: number) => token !== run.current.token;

  const play = () => {
    const token = run.current.token + 1;
    run.current = { token, frame: null, timer: 0 };
    latest.current.front = front;
    const show = (at: number) => {
      const { clips: now } = latest.current;
      const next = now[at];
      if (!next) return finish();
      showAt(at);
      const [shown, back] = [element(latest.current.front), element(1 - latest.current.front)];
      if (!shown || !back) return finish();
      if (!next.url) {
        shown.pause();
        cue(back, now[at + 1]);
        run.current.timer = window.setTimeout(
          () => ended(token) || show(at + 1),
          (next.outS - next.inS) * 1000,
        );
        return;
      }
      let video = shown;
      if (video.dataset.url !== next.url && back.dataset.url === next.url) {
        // Cued on the other element while the shot before played or a slate showed.
        [video.className, back.className] = ["back", "front"];
        video.pause();
        latest.current.front = 1 - latest.current.front;
        setFront(latest.current.front);
        video = back;
      } else if (video.dataset.url !== next.url) {
        cue(video, next);
      }
      caption(video, next);
      sound.take(video, next.id, [element(0), element(1)]);
      void video.play();
      watch(at, video);
    };
    const watch = (at: number, video: HTMLVideoElement) => {
      const current = latest.current.clips[at];
      if (!current) return finish();
      const handle = video.requestVideoFrameCallback((_, frame) => {
        if (ended(token)) return;
        if (frame.mediaTime < current.outS - 1.5 / fps) return watch(at, video);
        // The shot's last frame is showing: the next shot takes over when its time is up.
        const left = frame.expectedDisplayTime + 1000 / fps - performance.now();
        run.current.timer = window.setTimeout(() => cut(at, video), Math.max(0, left - 4));
      });
      run.current.frame = { video, handle };
    };
    const cut = (at: number, video: HTMLVideoElement) => {
      if (ended(token)) return;
      const now = latest.current.clips;
      const next = now[at + 1];
      const other = element(1 - latest.current.front);
      if (!next) return finish();
      if (!next.url || !other || other.dataset.url !== next.url) {
        video.pause();
        return show(at + 1);
      }
      // Shown now, not at React's next render.
      other.className = "front";
      video.className = "back";
      sound.take(other, next.id, [element(0), element(1)]);
      void other.play();
      video.pause();
      latest.current.front = 1 - latest.current.front;
      setFront(latest.current.front);
      showAt(at + 1);
      cue(video, now[at + 2]);
      watch(at + 1, other);
    };
    const finish = () => {
      if (ended(token)) return;
      stop();
    };
    setPlaying(true);
    const from = latest.current.clips[Math.max(index, 0)];
    if (from) sound.start(from.id);
    show(Math.max(index, 0));
  };

  const stop = () => {
    const { frame, timer } = run.current;
    run.current = { token: run.current.token + 1, frame: null, timer: 0 };
    frame?.video.cancelVideoFrameCallback(frame.handle);
    window.clearTimeout(timer);
    for (const n of [0, 1]) element(n)?.pause();
    sound.stop();
    setPlaying(false);
  };

  // Nothing of a run outlives the player.
  useEffect(
    () => () => {
      const { frame, timer } = run.current;
      run.current.token += 1;
      frame?.video.cancelVideoFrameCallback(frame.handle);
      window.clearTimeout(timer);
      sound.stop();
    },
    [sound],
  );

  const measure = (video: HTMLVideoElement) => {
    if (video.videoWidth > 0 && video.className === "front" && video.dataset.url)
      setTake({
        url: video.dataset.url,
        size: [video.videoWidth, video.videoHeight],
        picture: pictureOf(video),
      });
  };
  useEffect(() => {
    const video = element(front);
    if (video) measure(video);
  }, [front, clip?.url]);
  const crop = clip?.url && take?.url === clip.url ? cropWindow(clip.id, ...take.size) : null;

  // Stopped, the arrow keys step a frame of the showing shot while the player has the focus.
  const onKeyDown = (event: KeyboardEvent) => {
    const video = element(front);
    const step = FRAME_STEPS[event.key];
    if (!clip?.url || !video || playing || step === undefined || event.altKey) return;
    const at = video.currentTime + step / fps;
    video.currentTime = Math.min(Math.max(at, clip.inS), clip.outS);
    event.preventDefault();
  };
  // Anywhere in the editor but a text field: Space plays and stops (on a button it presses
  // the button), L plays, K stops, J stops and goes back a second (to the shot before from
  // its first frame), I and O set the showing shot's in and out points at the player's time.
  const onEditorKey = (event: globalThis.KeyboardEvent) => {
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target instanceof Element ? event.target : null;
    if (target?.closest("input, textarea, select, [contenteditable]")) return;
    const key = event.key === " " ? "space" : event.key.toLowerCase();
    const video = element(front);
    if (key === "space" && !target?.closest("button, a, summary, [role=slider]")) {
      if (playing) stop();
      else if (clips.length > 0) play();
    } else if (key === "l" && !playing && clips.length > 0) play();
    else if (key === "k" && playing) stop();
    else if (key === "j" && clip && video) {
      if (playing) stop();
      if (clip.url && video.currentTime - clip.inS > 0.5 / fps)
        video.currentTime = Math.max(clip.inS, video.currentTime - 1);
      else if (index > 0) showAt(index - 1);
    } else if ((key === "i" || key === "o") && clip?.url && video)
      onPoint(clip.id, key === "i" ? "in" : "out", video.currentTime);
    else return;
    event.preventDefault();
  };
  const editorKey = useRef(onEditorKey);
  useEffect(() => {
    editorKey.current = onEditorKey;
  });
  useEffect(() => {
    const listen = (event: globalThis.KeyboardEvent) => editorKey.current(event);
    document.addEventListener("keydown", listen);
    return () => document.removeEventListener("keydown", listen);
  }, []);

  return (
    <div
      className="sequence-player"
      role="group"
      tabIndex={0}
      onKeyDown={onKeyDown}
      aria-label="Sequence player"
      aria-keyshortcuts="Space J K L I O ArrowLeft ArrowRight"
      aria-describedby="sequence-player-keys"
    >
      <p id="sequence-player-keys" className="visually-hidden">
        Space plays and stops, L plays, K stops, J goes back a second. I sets the in point and O the
        out point at the player&apos;s time; stopped, the arrow keys step a frame.
      </p>
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
            onLoadedMetadata={(event) => measure(event.currentTarget)}
          />
        ))}
        {crop && take && <CropFrame picture={take.picture} crop={crop} />}
        {clip && !clip.url && (
          <div className="sequence-slate" data-testid="sequence-slate">
            <strong>{clip.label}</strong>
            <span>{clip.slate}</span>
          </div>
        )}
      </div>
      <div className="sequence-controls">
        <button type="button" disabled={clips.length === 0} onClick={playing ? stop : play}>
          {playing ? "Stop" : "Play sequence"}
        </button>
        <span>{clip ? `${clip.label} (${index + 1} of ${clips.length})` : "No shots"}</span>
        <button type="button" disabled={playing || index <= 0} onClick={() => showAt(index - 1)}>
          Previous shot
        </button>
        <button
          type="button"
          disabled={playing || index + 1 >= clips.length}
          onClick={() => showAt(index + 1)}
        >
          Next shot
        </button>
      </div>
    </div>
  );
}
