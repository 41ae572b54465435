// The shapes the wasm core hands to the UI (see core-wasm/src/snapshot.rs).

export interface Banner {
  message: string;
  detail: string | null;
}

export interface JobView {
  id: string;
  status: string;
  badge: string;
  percent: number;
  prompt: string;
  createdLabel: string;
  previewUrl: string | null;
  showProgress: boolean;
  showPlayer: boolean;
  canSave: boolean;
  saved: boolean;
  canCheck: boolean;
  checking: boolean;
  saving: boolean;
  error: string | null;
}

export interface AssetView {
  key: string;
  fileName: string;
  title: string;
  sizeMb: string;
  dateLabel: string;
  createdLabel: string;
  publicUrl: string | null;
  thumbnailUrl: string | null;
  durationBadge: string;
}

export interface MetadataView {
  asset: AssetView;
  loading: boolean;
  prompt: string | null;
  detailsJson: string | null;
  error: string | null;
}

export interface Snapshot {
  version: number;
  recent: string[];
  projectId: string | null;
  banner: Banner | null;
  draft: string;
  /** The models the server offers, its default first. */
  models: string[];
  /** The model new jobs use. */
  model: string;
  canGenerate: boolean;
  creating: boolean;
  jobs: JobView[];
  assetsView: "loading" | "empty" | "ready";
  assets: AssetView[];
  metadata: MetadataView | null;
}
