import type { LibrarySort, PickFilter } from "../core/types";
import { useStudio, useView } from "../core/useStudio";
import { AssetGrid } from "./AssetGrid";

const SORTS: { value: LibrarySort; label: string }[] = [
  { value: "newest", label: "Newest" },
  { value: "oldest", label: "Oldest" },
  { value: "largest", label: "Largest" },
];

const FILTERS: { value: PickFilter; label: string }[] = [
  { value: "all", label: "All" },
  { value: "favourites", label: "★ Favourites" },
  { value: "approved", label: "Approved" },
  { value: "rejected", label: "Rejected" },
];

export function AssetLibrary() {
  const studio = useStudio();
  const library = useView("cards");
  const { matching, state, total, query } = library;
  const filtering = query.trim() !== "" || library.filter !== "all";
  return (
    <section className="panel library" aria-labelledby="library-heading">
      <h2 id="library-heading">Asset Library ({total} videos)</h2>
      {state === "ready" && (
        <div className="library-tools">
          <input
            type="search"
            value={query}
            placeholder="Search by prompt or title"
            aria-label="Search videos"
            onChange={(event) => studio.searchLibrary(event.target.value)}
          />
          <label className="sort">
            Sort
            <select
              value={library.sort}
              onChange={(event) => studio.sortLibrary(event.target.value)}
            >
              {SORTS.map((sort) => (
                <option key={sort.value} value={sort.value}>
                  {sort.label}
                </option>
              ))}
            </select>
          </label>
          <div className="chips" role="group" aria-label="Show">
            {FILTERS.map((filter) => (
              <button
                key={filter.value}
                type="button"
                className="chip"
                aria-pressed={library.filter === filter.value}
                onClick={() => studio.filterLibrary(filter.value)}
              >
                {filter.label}
              </button>
            ))}
          </div>
        </div>
      )}
      <p className="visually-hidden" role="status" aria-label="Search results">
        {state === "ready" &&
          (filtering ? `${matching} of ${total} videos match` : `${total} videos`)}
      </p>
      {state === "loading" && <p className="empty">Loading assets...</p>}
      {state === "empty" && (
        <p className="empty">
          No videos saved yet. Generate and save some videos to see them here.
        </p>
      )}
      {state === "ready" && matching === 0 && (
        <p className="empty">
          {query.trim() ? <>No videos match &ldquo;{query}&rdquo;.</> : "No videos here yet."}
        </p>
      )}
      {state === "ready" && matching > 0 && <AssetGrid cards={library} />}
    </section>
  );
}
