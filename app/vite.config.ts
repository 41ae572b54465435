import { fileURLToPath } from "node:url";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vitest/config";

const pkg = fileURLToPath(new URL("../pkg", import.meta.url));

export default defineConfig({
  base: "/",
  plugins: [react()],
  build: { target: "esnext", assetsInlineLimit: 0 },
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
});
