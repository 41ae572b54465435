import { useRef } from "react";
import { run, useStudio, useView } from "../core/useStudio";

/** The accepted picture types for the file picker (the server tells them by their bytes). */
const ACCEPT = "image/png,image/jpeg,image/webp";

/** What the next job is made from besides its prompt: the project's reference images with
 * their roles, the video it extends or remixes, and how other shapes are fitted. */
export function ShotInputs() {
  const studio = useStudio();
  const shot = useView("shot");
  const picker = useRef<HTMLInputElement>(null);

  const add = (files: FileList | null) => {
    for (const file of Array.from(files ?? [])) run(studio.uploadReference(file));
  };
  const setRole = (id: string, role: string) => {
    try {
      studio.setRole(id, role === "" ? undefined : role);
    } catch (error) {
      window.alert(String((error as Error).message));
    }
  };
  const attached = shot.references.some((r) => r.role !== null);

  return (
    <div className="shot" aria-label="Shot inputs">
      {shot.video && (
        <p className="shot-video">
          <span className="badge">{shot.video.label}</span> {shot.video.name}
          <button
            type="button"
            className="ghost"
            aria-label={`Stop ${shot.video.label.toLowerCase()}`}
            onClick={() => studio.clearVideo()}
          >
            ✕
          </button>
        </p>
      )}
      <ul className="references" aria-label="Reference images">
        {shot.references.map((reference) => (
          <li key={reference.id} className={reference.role ? "reference attached" : "reference"}>
            <img
              src={reference.url}
              alt={`Reference ${reference.origin}`}
              title={`${reference.origin} · ${reference.width}x${reference.height}`}
              width={64}
              height={Math.round((64 * reference.height) / Math.max(reference.width, 1))}
              loading="lazy"
            />
            {shot.roles.length > 0 && (
              <select
                aria-label={`Role of ${reference.id}`}
                value={reference.role ?? ""}
                onChange={(e) => setRole(reference.id, e.target.value)}
              >
                <option value="">Not used</option>
                {shot.roles.map((choice) => (
                  <option key={choice.role} value={choice.role}>
                    {choice.most > 1 ? `${choice.label} (up to ${choice.most})` : choice.label}
                  </option>
                ))}
              </select>
            )}
            <button
              type="button"
              className="ghost"
              aria-label={`Remove reference ${reference.id}`}
              onClick={() => run(studio.removeReference(reference.id))}
            >
              ✕
            </button>
          </li>
        ))}
        <li className="reference add">
          <button
            type="button"
            disabled={shot.adding}
            aria-busy={shot.adding}
            onClick={() => picker.current?.click()}
          >
            {shot.adding ? "Adding..." : "Add image"}
          </button>
          <input
            ref={picker}
            type="file"
            accept={ACCEPT}
            multiple
            hidden
            aria-label="Reference image file"
            onChange={(e) => {
              add(e.target.files);
              e.target.value = "";
            }}
          />
        </li>
      </ul>
      {attached && shot.fitNote && (
        <p className="fit-note">
          {shot.fitNote}.{" "}
          <label>
            Fit
            <select value={shot.fit} onChange={(e) => studio.setFit(e.target.value)}>
              <option value="crop">Centre crop</option>
              <option value="pad">Pad</option>
            </select>
          </label>
        </p>
      )}
    </div>
  );
}
