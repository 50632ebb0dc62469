import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/**
 * The operator console's front end: Preact, built by Vite into console/dist, which collab-host serves
 * under /console/ (src/console/console-files.ts). No CDN: every script, style and font is in the build.
 */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/console/',
  publicDir: false,
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // The page's content security policy allows no inline script: no polyfill snippet.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    target: 'es2022',
  },
  logLevel: 'warn',
});
