// Generated from core-wasm/src/sequence/ by `UPDATE_TS_TYPES=1 cargo test -p studio-core`; do not edit.

import type { JobStatus } from "../core/types";

export type Sequence = { id: string, name: string, fps: number, size: string, fit: string, 
/**
 * The standard an export brings its sound to: `web`, `broadcast` or `off`.
 */
loudness: string, version: number, shots: Array<Shot>, 
/**
 * Music and voice under the shots.
 */
lanes: Lanes, 
/**
 * How far the music drops under a voice clip, in dB (0: not at all).
 */
duckDb: number, };

export type Shot = { id: string, label: string, prompt: string | null, takes: Array<string>, take: string | null, inFrame: number, outFrame: number, 
/**
 * The chosen take is no longer in the library.
 */
takeMissing: boolean, 
/**
 * Shown over the shot.
 */
caption: Caption | null, 
/**
 * How long the shot is meant to be, in frames (a script's import plans it).
 */
plannedFrames: number | null, 
/**
 * The take's own sound: its gain in dB, or muted.
 */
gainDb: number, mute: boolean, 
/**
 * Where the crop window's centre sits in the take when an export crops it (`None`: the
 * centre).
 */
reframe: Reframe | null, };

export type Caption = { text: string, inFrame: number | null, outFrame: number | null, };

export type Reframe = { 
/**
 * 0 (left) to 1 (right).
 */
x: number, 
/**
 * 0 (top) to 1 (bottom).
 */
y: number, };

export type CropWindow = { left: number, top: number, width: number, height: number, };

export type MixClip = { sound: string, lane: Lane, 
/**
 * Seconds from the preview's start until it sounds (0 when it already does).
 */
atS: number, 
/**
 * Where in its sound it starts, in seconds.
 */
offsetS: number, durationS: number, 
/**
 * Its level (1: as recorded) at seconds from the preview's start: a line through these
 * points, the first at `at_s` and the last at its end.
 */
levels: Array<[number, number]>, };

export type ShotLevel = { id: string, level: number, };

export type PreviewMix = { clips: Array<MixClip>, shots: Array<ShotLevel>, };

export type Lane = "music" | "voice";

export type LaneClip = { 
/**
 * The sound's id.
 */
sound: string, 
/**
 * Where it starts on the cut.
 */
start_frame: number, 
/**
 * Where it starts and ends in its sound.
 */
in_frame: number, out_frame: number, gain_db: number, fade_in_s: number, fade_out_s: number, };

export type Lanes = { music: Array<LaneClip>, voice: Array<LaneClip>, };

export type EditorView = { 
/**
 * The sequence as edited.
 */
sequence: Sequence, frames: number, canUndo: boolean, canRedo: boolean, 
/**
 * Edits not confirmed by the server yet.
 */
unsaved: boolean, 
/**
 * A save was refused because the sequence changed elsewhere: how many local edits wait
 * to be applied again on top of that change.
 */
keptAside: number, };

export type Summary = { id: string, name: string, shotCount: number, durationS: number, };

export type Video = { url: string, posterUrl: string | null, title: string, 
/**
 * Its length in seconds, from its metadata (when that says).
 */
durationS: number | null, };

export type PanelView = { sequences: Array<Summary>, editor: EditorView | null, saving: boolean, error: string | null, 
/**
 * What the last export or continue started, in words.
 */
notice: string | null, 
/**
 * The shots' takes found in the library so far, by file name.
 */
videos: { [key in string]?: Video }, 
/**
 * The name of the sequence open here that was removed elsewhere: its edits may be kept as
 * a new sequence.
 */
removed: string | null, 
/**
 * The last move, removal, undo or redo, in words (one polite live region says it).
 */
announcement: string | null, 
/**
 * The project's cast, once asked for, and the pictures it may be given.
 */
cast: Array<CastMember>, pictures: Array<Picture>, 
/**
 * What Generate all would make and cost, asked for and not started yet.
 */
estimate: Estimate | null, 
/**
 * The models Generate all may use, read when it is first asked for.
 */
models: Array<GenerateModel>, 
/**
 * The takes being made for the open sequence's shots, by shot id.
 */
making: { [key in string]?: Array<ShotJob> }, 
/**
 * The project's sounds, once asked for (newest first).
 */
sounds: Array<Sound>, };

export type CastMember = { id: string, name: string, 
/**
 * `character`, `prop` or `location`.
 */
kind: string, description: string | null, 
/**
 * Ids of the project's pictures, in the order they are sent.
 */
references: Array<string>, };

export type Picture = { id: string, url: string, };

export type Estimate = { shots: number, jobs: number, seconds: number, estimateUsd: number, 
/**
 * What the monthly caps leave (`None`: no cap).
 */
remainingUsd: number | null, enough: boolean, madeWith: GenerateWith, };

export type GenerateWith = { model: string | null, multiShot: boolean, };

export type GenerateModel = { id: string, 
/**
 * The server's default.
 */
default: boolean, 
/**
 * How many shots it makes in one call, where it makes several (Kling 3.0: 6).
 */
mostShots: number | null, };

export type ShotJob = { 
/**
 * The job's id.
 */
job: string, status: JobStatus, 
/**
 * 0 to 100.
 */
progress: number, 
/**
 * The provider reports no progress: it is estimated from the time taken.
 */
estimated: boolean, 
/**
 * Why it failed.
 */
error: string | null, };

export type Sound = { id: string, name: string, 
/**
 * Its length, decoded to the end.
 */
durationS: number, 
/**
 * Where it is served.
 */
url: string, };
