/**
 * electron-vite 6 build:
 *   main     → out/main/index.js (Electron main, ESM) and out/main/web.js (browser mode, ESM);
 *              `dependencies` stay external (electron-vite's default `externalizeDeps`), the
 *              rest (electron-store included) is bundled.
 *   preload  → out/preload/index.cjs (CommonJS: a sandboxed preload can only `require`).
 *   renderer → out/renderer (index.html + assets), from renderer/.
 */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'electron-vite';

const root = dirname(fileURLToPath(import.meta.url));

export default defineConfig({
  main: {
    build: {
      outDir: resolve(root, 'out/main'),
      externalizeDeps: true,
      rolldownOptions: {
        input: {
          index: resolve(root, 'main/index.ts'),
          web: resolve(root, 'main/web.ts'),
          cli: resolve(root, 'main/cli.ts'),
        },
      },
    },
  },
  preload: {
    build: {
      outDir: resolve(root, 'out/preload'),
      // Bundle everything but `electron`: a sandboxed preload cannot require node_modules.
      externalizeDeps: false,
      rolldownOptions: {
        input: { index: resolve(root, 'preload/index.ts') },
        output: {
          format: 'cjs',
          entryFileNames: '[name].cjs',
          chunkFileNames: '[name]-[hash].cjs',
        },
      },
    },
  },
  renderer: {
    root: resolve(root, 'renderer'),
    plugins: [react()],
    build: {
      outDir: resolve(root, 'out/renderer'),
      // electron-vite leaves the renderer unminified; minified, the first script is a third of the size.
      minify: true,
      // The first script's budget (1.1 MB, every file index.html loads) is bench/renderer-load.ts's
      // check; the per-chunk warning would only repeat it less precisely.
      chunkSizeWarningLimit: 1100,
      rolldownOptions: {
        input: resolve(root, 'renderer/index.html'),
      },
    },
  },
});
