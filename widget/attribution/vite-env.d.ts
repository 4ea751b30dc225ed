/// <reference types="vite/client" />
// `import.meta.env.DEV` is true under the Vite dev server and vitest, false in `npm run build` output.

/** The capture stage's file under /widget/ (`chunks/capture-<hash>.js`), set by scripts/build-widget.ts. */
declare const __REFLOOP_CAPTURE__: string;
