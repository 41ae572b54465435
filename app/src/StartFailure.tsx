/** What the page shows when the core cannot start (its WebAssembly did not load, say): what
 * failed, and a way to try again, instead of a white page. */
export function StartFailure({ error }: { error: unknown }) {
  return (
    <main className="start-failure" role="alert">
      <h1>Studio could not start</h1>
      <p>{error instanceof Error ? error.message : String(error)}</p>
      <p>Check the connection, then try again.</p>
      <button type="button" onClick={() => window.location.reload()}>
        Retry
      </button>
    </main>
  );
}
