/// <reference types="vite/client" />
// `import.meta.env.DEV` is true under the Vite dev server and vitest, false in `npm run build` output.

/** The capture stage's file under /widget/ (`chunks/capture-<hash>.js`), set by scripts/build-widget.ts. */
declare const __REFLOOP_CAPTURE__: string;

/** The corner launcher's file under /widget/ (`chunks/launcher-<hash>.js`), set by scripts/build-widget.ts. */
declare const __REFLOOP_LAUNCHER__: string;

/** The form-capture chunk's file under /widget/ (`chunks/form-<hash>.js`), set by scripts/build-widget.ts. */
declare const __REFLOOP_FORM__: string;

/** The corner launcher's drawing under /widget/ (`chunks/launcher-ui-<hash>.js`), set by scripts/build-widget.ts. */
declare const __REFLOOP_LAUNCHER_UI__: string;

/** The Stripe client-reference chunk under /widget/ (`chunks/stripe-<hash>.js`), set by scripts/build-widget.ts. */
declare const __REFLOOP_STRIPE__: string;
