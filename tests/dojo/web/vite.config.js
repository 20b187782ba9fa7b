// The pages are built once (npm run build) and served as static files by server.mjs.
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

export default defineConfig({
  plugins: [react()],
  build: { outDir: "dist", emptyOutDir: true, chunkSizeWarningLimit: 8000 },
  logLevel: "warn",
});
