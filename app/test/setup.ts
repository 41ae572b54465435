// Loads the real wasm core into jsdom and cleans up between tests.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { cleanup } from "@testing-library/react";
import "@testing-library/jest-dom/vitest";
import { afterEach } from "vitest";
import { initSync } from "../../pkg/studio_core.js";

// web_sys::window() checks `globalThis instanceof Window`, which jsdom's global is not.
Object.defineProperty(Window, Symbol.hasInstance, {
  value: (value: unknown) => value === globalThis || value === window,
});

// jsdom lays nothing out and has no ResizeObserver: this one reports each element once, as
// it starts being observed (with jsdom's zero sizes).
class ResizeObserverStandIn {
  constructor(private readonly callback: ResizeObserverCallback) {}
  observe(target: Element) {
    const entry = { target, contentRect: target.getBoundingClientRect() };
    this.callback([entry as ResizeObserverEntry], this as unknown as ResizeObserver);
  }
  unobserve() {}
  disconnect() {}
}
globalThis.ResizeObserver ??= ResizeObserverStandIn;

// jsdom plays no media: play() resolves, as a muted preview's does, and pause() does nothing.
HTMLMediaElement.prototype.play = () => Promise.resolve();
HTMLMediaElement.prototype.pause = () => undefined;

// jsdom has no media queries: every one answers "no match" (no preference, like most visitors).
window.matchMedia ??= (query: string) =>
  ({
    matches: false,
    media: query,
    onchange: null,
    addEventListener: () => {},
    removeEventListener: () => {},
    addListener: () => {},
    removeListener: () => {},
    dispatchEvent: () => false,
  }) as MediaQueryList;

initSync({ module: readFileSync(resolve(process.cwd(), "../pkg/studio_core_bg.wasm")) });

afterEach(() => {
  cleanup();
  localStorage.clear();
});
