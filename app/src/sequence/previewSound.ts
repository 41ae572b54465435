// The preview's sound, played through Web Audio as the core's preview mix says: each shot's own
// sound at its level while its take shows, and the music and voice lanes from where Play
// started, each clip's level a line through the mix's points (gain, fades, the duck), so the
// preview sounds as the export will. What plays when, and how loud, is the core's; this only
// plays it.
import { useMemo } from "react";
import type { SequenceEditor } from "../../../pkg/studio_sequence.js";
import type { PreviewMix } from "./types";

export type PreviewSource = {
  /** What plays from the start of shot `id`. */
  mix: (id: string) => PreviewMix | null;
  /** Where each sound is served, by id. */
  url: (sound: string) => string | undefined;
};

export class PreviewSound {
  private context: AudioContext | null = null;
  /** The two videos' takes, each through its own gain once heard. */
  private readonly takes = new Map<HTMLVideoElement, GainNode>();
  private levels = new Map<string, number>();
  private clips: { audio: HTMLAudioElement; gain: GainNode; timers: number[] }[] = [];

  constructor(private readonly source: PreviewSource) {}

  /** Starts the lanes from the start of shot `id`: called by the click on Play, so the
   * browser lets the sound start. */
  start(id: string) {
    this.stop();
    const mix = this.source.mix(id);
    if (!mix) return;
    const context = (this.context ??= new AudioContext());
    void context.resume();
    this.levels = new Map(mix.shots.map((shot) => [shot.id, shot.level]));
    const now = context.currentTime;
    for (const clip of mix.clips) {
      const url = this.source.url(clip.sound);
      const [first, ...rest] = clip.levels;
      if (!url || !first) continue;
      const audio = new Audio(url);
      audio.preload = "auto";
      audio.currentTime = clip.offsetS;
      const gain = context.createGain();
      context.createMediaElementSource(audio).connect(gain).connect(context.destination);
      gain.gain.setValueAtTime(first[1], now + first[0]);
      for (const [at, level] of rest) gain.gain.linearRampToValueAtTime(level, now + at);
      const timers = [
        window.setTimeout(() => void audio.play(), clip.atS * 1000),
        window.setTimeout(() => audio.pause(), (clip.atS + clip.durationS) * 1000),
      ];
      this.clips.push({ audio, gain, timers });
    }
  }

  /** Shot `id`'s take, on `video`, heard at its level; `others` silent. */
  take(video: HTMLVideoElement, id: string, others: (HTMLVideoElement | null)[]) {
    const context = this.context;
    if (!context) return;
    this.gainOf(context, video).gain.value = this.levels.get(id) ?? 1;
    for (const other of others)
      if (other && other !== video) this.gainOf(context, other).gain.value = 0;
  }

  /** Everything silent, the lanes let go. */
  stop() {
    for (const { audio, gain, timers } of this.clips) {
      for (const timer of timers) window.clearTimeout(timer);
      audio.pause();
      audio.removeAttribute("src");
      gain.disconnect();
    }
    this.clips = [];
    for (const gain of this.takes.values()) gain.gain.value = 0;
  }

  /** `video`'s gain; the first time, its sound is taken into the graph and unmuted there. */
  private gainOf(context: AudioContext, video: HTMLVideoElement): GainNode {
    let gain = this.takes.get(video);
    if (!gain) {
      gain = context.createGain();
      context.createMediaElementSource(video).connect(gain).connect(context.destination);
      video.muted = false;
      this.takes.set(video, gain);
    }
    return gain;
  }
}

/** The preview's sound of `editor`'s open sequence, one for the editor's life. */
export function usePreviewSound(editor: SequenceEditor | null): PreviewSound {
  return useMemo(
    () =>
      new PreviewSound({
        mix: (id) => editor?.previewMix(id) ?? null,
        url: (id) => editor?.view().sounds.find((sound) => sound.id === id)?.url,
      }),
    [editor],
  );
}
