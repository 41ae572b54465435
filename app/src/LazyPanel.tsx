// A panel loaded the first time it is shown (its own chunk, and for some its own wasm). A load
// that fails (a deploy while the tab is open, or offline) shows a message with Retry inside the
// panel's own area, never a blank studio: Retry loads it afresh.
import { Component, lazy, Suspense, useState, type ComponentType, type ReactNode } from "react";

type Loader<P> = () => Promise<{ default: ComponentType<P> }>;

type BoundaryProps = { name: string; onRetry: () => void; children: ReactNode };

class LoadBoundary extends Component<BoundaryProps, { failed: boolean }> {
  state = { failed: false };

  static getDerivedStateFromError() {
    return { failed: true };
  }

  render() {
    if (!this.state.failed) return this.props.children;
    return (
      <div className="panel load-failure" role="alert">
        <p>The {this.props.name} could not be loaded. Check the connection, then try again.</p>
        <button type="button" onClick={this.props.onRetry}>
          Retry
        </button>
      </div>
    );
  }
}

/** The component `load` brings, shown in a boundary that offers Retry when loading fails. */
export function lazyPanel<P extends object>(
  load: Loader<P>,
  name: string,
  fallback: ReactNode = null,
): ComponentType<P> {
  // One loaded component for every mount, so a panel shown again renders at once (a new
  // `lazy` would suspend for a tick first); a new one only after a failed load.
  let loaded = { attempt: 0, Loaded: lazy(load) };
  return function LazyPanel(props: P) {
    const [{ attempt, Loaded }, setLoad] = useState(loaded);
    const retry = () => {
      loaded = { attempt: attempt + 1, Loaded: lazy(load) };
      setLoad(loaded);
    };
    return (
      <LoadBoundary key={attempt} name={name} onRetry={retry}>
        <Suspense fallback={fallback}>
          <Loaded {...props} />
        </Suspense>
      </LoadBoundary>
    );
  };
}
