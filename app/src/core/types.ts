// Generated from core-wasm/src/snapshot/ by `UPDATE_TS_TYPES=1 cargo test -p studio-core`; do not edit.

export type Banner = { 
/**
 * One of the spec's banner messages, exactly.
 */
message: string, 
/**
 * What went wrong underneath, when known.
 */
detail: string | null, };

export type JobActivity = "checking" | "saving" | "cancelling" | "removing";

export type JobStatus = "queued" | "running" | "done" | "error" | "other";

export type MentionOffer = { 
/**
 * Where the mention's `@` is, in UTF-16 code units.
 */
start: number, names: Array<string>, };

export type JobView = { id: string, status: JobStatus, badge: string, percent: number, prompt: string, createdLabel: string, previewUrl: string | null, 
/**
 * Shown by the player until it is played (the server's `poster_url`, beyond the spec).
 */
posterUrl: string | null, showProgress: boolean, showPlayer: boolean, canSave: boolean, 
/**
 * The library file name the job's video was saved as ("✓ Saved to library").
 */
savedAs: string | null, canCheck: boolean, canCancel: boolean, canRetry: boolean, 
/**
 * The request in flight for this job, shown as busy buttons.
 */
busy: JobActivity | null, error: string | null, 
/**
 * For one of several takes of a shot: which one, and the shot they share.
 */
take: TakeView | null, };

export type TakeView = { 
/**
 * The first take's job id: the same for every take of the shot.
 */
shot: string, 
/**
 * 1 to `count`.
 */
index: number, count: number, };

export type StreamState = "off" | "connecting" | "open";

export type JobsView = { 
/**
 * The project's jobs, newest first.
 */
items: Array<JobView>, stream: StreamState, };

export type ParentLink = { search: string, title: string, };

export type AssetView = { key: string, fileName: string, title: string, sizeMb: string, dateLabel: string, publicUrl: string | null, 
/**
 * Shown in place of the video until it is hovered or focused.
 */
posterUrl: string | null, prompt: string | null, 
/**
 * The file name a download gets, from the prompt.
 */
downloadName: string, durationBadge: string, 
/**
 * The video it was extended or remixed from: what to search the library for to show it
 * (a file name's stem, or a job id, which its saved video's file name carries), and the
 * title it goes by.
 */
parent: ParentLink | null, favourite: boolean, 
/**
 * `approved`, `rejected`, or null when undecided.
 */
decision: string | null, };

export type LibraryState = "loading" | "empty" | "ready";

export type LibrarySort = "newest" | "oldest" | "largest";

export type PickFilter = "all" | "favourites" | "approved" | "rejected";

export type LibraryView = { state: LibraryState, 
/**
 * The videos that match the search, in the chosen order: all of them in `library`, the
 * grid's window of them in `cards`.
 */
assets: Array<AssetView>, 
/**
 * How many videos match the search and the filter.
 */
matching: number, 
/**
 * The position of `assets[0]` among the matching videos (0 in `library`).
 */
first: number, 
/**
 * Every video in the project, whatever the search.
 */
total: number, query: string, sort: LibrarySort, 
/**
 * A video whose deletion is on its way.
 */
deleting: string | null, 
/**
 * Which picks are shown.
 */
filter: PickFilter, };

export type CredentialsState = "none" | "broken" | "untrusted" | "valid";

export type CredentialsView = { state: CredentialsState, 
/**
 * "Made with AI by {provider/model}", or what a cut is made of.
 */
made: string | null, signer: string | null, 
/**
 * Why a valid signature is not trusted.
 */
note: string | null, errors: Array<string>, };

export type MetadataView = { asset: AssetView, 
/**
 * Basic Info's created time: the date and time the video was saved.
 */
createdLabel: string, loading: boolean, prompt: string | null, 
/**
 * Technical Details: the metadata (or the error object) as formatted JSON.
 */
detailsJson: string | null, 
/**
 * The error object's message when the metadata could not be loaded.
 */
error: string | null, 
/**
 * What the video was made from, when it was made from pictures or another video.
 */
madeFrom: LineageView | null, 
/**
 * Its Content Credentials, once read.
 */
credentials: CredentialsView | null, };

export type ConsoleView = { projectId: string | null, draft: string, 
/**
 * The models offered, the default first.
 */
models: Array<string>, 
/**
 * The model new jobs use.
 */
model: string, 
/**
 * How many takes Generate makes (1 to 8).
 */
takes: number, 
/**
 * How long new jobs are, in seconds; null for the model's default.
 */
seconds: number | null, 
/**
 * The chosen model's default length, when the server said it.
 */
defaultSeconds: number | null, 
/**
 * The size of new jobs (`WxH`); null for the model's default.
 */
size: string | null, 
/**
 * The chosen model's default size, when the server said it.
 */
defaultSize: string | null, canGenerate: boolean, creating: boolean, 
/**
 * After a create refused for a while (429): when Generate may be tried again, in Unix
 * milliseconds; until then the page keeps Generate off and counts down.
 */
againAt: number | null, 
/**
 * What Generate will cost (`$3.20`) by the chosen model's price, the length and size
 * chosen (else its defaults), and the takes; null when free or unknown.
 */
estimate: string | null, 
/**
 * Whether the estimate is above the threshold at which Generate asks first.
 */
confirm: boolean, 
/**
 * The project's cast names, read when the prompt is focused (`loadCast`); `mentionAt`
 * offers those that fit the `@` mention being typed.
 */
cast: Array<string>, };

export type ImageRole = "first_frame" | "last_frame" | "reference";

export type VideoRole = "extend" | "remix";

export type Fit = "crop" | "pad";

export type ReferenceView = { id: string, url: string, width: number, height: number, 
/**
 * "Uploaded", or the video and moment it was grabbed at.
 */
origin: string, 
/**
 * Its role in the next job, when attached.
 */
role: ImageRole | null, };

export type RoleChoice = { role: ImageRole, label: string, 
/**
 * How many images one job may have in it.
 */
most: number, };

export type SourceVideoView = { 
/**
 * A library file name or a job id.
 */
name: string, role: VideoRole, 
/**
 * "Extend" or "Remix".
 */
label: string, };

export type ShotView = { 
/**
 * The project's reference images, newest first.
 */
references: Array<ReferenceView>, 
/**
 * The roles the chosen model takes (none: it makes video from the prompt alone).
 */
roles: Array<RoleChoice>, canExtend: boolean, canRemix: boolean, video: SourceVideoView | null, fit: Fit, 
/**
 * How attached images of another shape will be fitted, when there are any.
 */
fitNote: string | null, 
/**
 * An upload or frame grab is on its way.
 */
adding: boolean, };

export type LineageImage = { reference: string, role: string, url: string | null, };

export type LineageView = { 
/**
 * The video it extends or remixes, with the role's label.
 */
parent: string | null, parentRole: string | null, 
/**
 * Each reference image with its role's label, and its address while it is kept.
 */
images: Array<LineageImage>, fit: Fit | null, };

export type CompareItem = { 
/**
 * A saved video's key or a finished job's id.
 */
id: string, title: string, url: string, };

export type CompareView = { chosen: Array<CompareItem>, open: boolean, 
/**
 * Whether enough are chosen (2 to 4).
 */
canOpen: boolean, };

export type Verdict = "approved" | "changes_requested";

export type CommentView = { id: string, 
/**
 * The video's file name.
 */
video: string, atSeconds: number, 
/**
 * `m:ss.s`.
 */
atLabel: string, name: string, 
/**
 * Shown as text, never as markup.
 */
text: string, createdLabel: string, };

export type VerdictView = { id: string, video: string, verdict: Verdict, 
/**
 * "Approved" or "Changes requested".
 */
label: string, name: string, createdLabel: string, };

export type NotesView = { comments: Array<CommentView>, decisions: Array<VerdictView>, };

export type ShareView = { id: string, 
/**
 * The shared videos' file names.
 */
videos: Array<string>, commentsEnabled: boolean, createdLabel: string, expiresLabel: string, expired: boolean, notes: NotesView, };

export type CreatedView = { id: string, 
/**
 * `<public base>/review/<token>`: the only time the token is shown.
 */
url: string, expiresLabel: string, };

export type SharesView = { 
/**
 * Keys of the saved videos selected.
 */
selected: Array<string>, loaded: boolean, 
/**
 * A link is being made or revoked.
 */
busy: boolean, links: Array<ShareView>, 
/**
 * By video file name.
 */
byVideo: { [key in string]?: NotesView }, 
/**
 * The link made last: its url is shown only now.
 */
created: CreatedView | null, };

export type SpendDayView = { 
/**
 * `YYYY-MM-DD` (UTC).
 */
date: string, label: string, 
/**
 * The day's bar, 0 to 1 of the highest day.
 */
height: number, };

export type SpendModelView = { model: string, label: string, seconds: number, jobs: number, };

export type SpendView = { open: boolean, loading: boolean, 
/**
 * Whether an answer has been read.
 */
loaded: boolean, 
/**
 * Why it could not be read.
 */
error: string | null, 
/**
 * Spent in the 30 days (`$3.20`).
 */
totalLabel: string, 
/**
 * Spent this month plus the estimates of queued and running jobs.
 */
committedLabel: string, 
/**
 * The project's monthly cap; null when it has none.
 */
capLabel: string | null, 
/**
 * How much of the cap is committed, 0 to 1; null without a cap.
 */
used: number | null, 
/**
 * The last 30 days, oldest first.
 */
days: Array<SpendDayView>, 
/**
 * Most spent first.
 */
models: Array<SpendModelView>, };

export type ReviewState = "closed" | "loading" | "ready" | "gone" | "failed";

export type ReviewVideoView = { fileName: string, 
/**
 * What it shows (its prompt, or an exported cut's sequence name), else its id.
 */
title: string, 
/**
 * Its id, from its file name.
 */
id: string, url: string, posterUrl: string, notes: NotesView, };

export type ReviewView = { state: ReviewState, 
/**
 * The link's title, when it was given one.
 */
title: string | null, videos: Array<ReviewVideoView>, expiresLabel: string, commentsEnabled: boolean, 
/**
 * The name the reviewer gave last, to fill the Name fields.
 */
name: string, 
/**
 * A comment or decision is on its way.
 */
sending: boolean, 
/**
 * Why the page or the last comment or decision failed.
 */
error: string | null, };

export type Snapshot = { version: number, recent: Array<string>, banner: Banner | null, console: ConsoleView, jobs: JobsView, library: LibraryView, 
/**
 * The library as the grid shows it: the matching videos of its window only.
 */
cards: LibraryView, metadata: MetadataView | null, shot: ShotView, compare: CompareView, shares: SharesView, spend: SpendView, };
