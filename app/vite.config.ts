import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import react from "@vitejs/plugin-react";
import type { Plugin } from "vite";
import { defineConfig } from "vitest/config";

const pkg = fileURLToPath(new URL("../pkg", import.meta.url));

/** Writes .br (quality 11, the largest blocks) and .gz (level 9) beside each built asset, for
 * the server to send. */
function precompress(): Plugin {
  let outDir = "dist";
  return {
    name: "studio-precompress",
    apply: "build",
    configResolved(config) {
      outDir = config.build.outDir;
    },
    closeBundle() {
      const assets = join(outDir, "assets");
      for (const name of readdirSync(assets)) {
        if (!/\.(js|css|wasm|svg)$/.test(name)) continue;
        const file = join(assets, name);
        const data = readFileSync(file);
        const params = {
          [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
          [constants.BROTLI_PARAM_LGBLOCK]: constants.BROTLI_MAX_INPUT_BLOCK_BITS,
        };
        writeFileSync(`${file}.br`, brotliCompressSync(data, { params }));
        writeFileSync(`${file}.gz`, gzipSync(data, { level: 9 }));
      }
    },
  };
}

/** Asks for the page's wasm (`wasm`, a name's start) and the files in `also` from the page's
 * head, so that they download beside the JS instead of after it has run (the JS loads the
 * wasm, then the wasm the config). */
function preloadCore(wasmName: string, also: string[]): Plugin {
  let base = "/";
  return {
    name: "studio-preload-core",
    apply: "build",
    configResolved(config) {
      base = config.base;
    },
    transformIndexHtml: {
      order: "post",
      handler(_html, { bundle }) {
        // The page's own wasm; the sequence editor's loads when a sequence is first opened.
        const wasm = Object.values(bundle ?? {}).find(
          (file) => file.fileName.includes(`${wasmName}_bg`) && file.fileName.endsWith(".wasm"),
        );
        if (!wasm) throw new Error(`no ${wasmName} .wasm in the bundle to preload`);
        return [`${base}${wasm.fileName}`, ...also.map((file) => `${base}${file}`)].map((href) => ({
          tag: "link",
          attrs: { rel: "preload", href, as: "fetch", crossorigin: "" },
          injectTo: "head",
        }));
      },
    },
  };
}

/** In the dev server, a review link's address gets the review page, as server-stub does. */
function reviewPages(): Plugin {
  return {
    name: "studio-review-pages",
    configureServer(server) {
      server.middlewares.use((request, _response, next) => {
        if (request.url?.startsWith("/review/")) request.url = "/review.html";
        next();
      });
    },
  };
}

// Two builds into one dist/: the studio (index.html), then with `--mode review` the page a
// review link opens (review.html), which shares none of the studio's code.
export default defineConfig(({ mode }) => {
  const review = mode === "review";
  return {
    base: "/",
    plugins: [
      react(),
      review ? preloadCore("studio_review", []) : preloadCore("studio_core", ["config.json"]),
      precompress(),
      reviewPages(),
    ],
    // Every browser the app targets (esnext) preloads modules itself: no polyfill shipped.
    build: {
      target: "esnext",
      emptyOutDir: !review,
      assetsInlineLimit: 0,
      modulePreload: { polyfill: false },
      // Everything the first screen imports goes in the entry chunk: left to itself, rolldown
      // puts React's JSX runtime, which the lazy screens share, in a chunk of its own (one more
      // request, and 1.3 KB more on the wire than inside the entry).
      rolldownOptions: {
        input: review ? "review.html" : "index.html",
        output: {
          codeSplitting: { groups: [{ name: review ? "review" : "index", tags: ["$initial"] }] },
        },
      },
    },
    server: {
      fs: { allow: [".", pkg] },
      proxy: {
        "/api": "http://127.0.0.1:8080",
        "/media": "http://127.0.0.1:8080",
        "/config.json": "http://127.0.0.1:8080",
      },
    },
    optimizeDeps: { exclude: ["studio_core"] },
    test: {
      environment: "jsdom",
      setupFiles: ["./test/setup.ts"],
      include: ["test/**/*.test.tsx"],
    },
  };
});
