// `npm run dev`: the widget from source with hot reload, in front of the local server.
// Start the server first (`npm start`, port 8787), then open http://localhost:5173/: every page and
// API call is proxied to the server, while the widget's files come from source:
//   /growsurf.js, /widget/attribution.js → a tiny classic loader that imports the source attribution
//                                          script as a module (it finds its tag by src, as in production)
//   /widget/window.js                    → widget/window/index.tsx
//   /widget/attribution/capture.ts       → the capture stage (start.ts asks for it by this name in dev)
// The production build is scripts/build-widget.ts (`npm run build`), which does not read this file.
import { defineConfig, type Plugin } from 'vite';

/** The local refloop server (`npm start`). */
const SERVER = 'http://localhost:8787';

function widgetFromSource(): Plugin {
  return {
    name: 'refloop-widget-from-source',
    configureServer(server) {
      server.middlewares.use((req, res, next) => {
        const url = req.url ?? '';
        if (/^\/(growsurf\.js|widget\/attribution\.js)(\?|$)/.test(url)) {
          res.setHeader('Content-Type', 'text/javascript; charset=utf-8');
          res.setHeader('Cache-Control', 'no-store');
          // A classic script's import() resolves against the script's own URL: this dev server.
          res.end("import('/@vite/client');import('/widget/attribution/index.ts');\n");
          return;
        }
        if (/^\/widget\/window\.js(\?|$)/.test(url)) req.url = '/widget/window/index.tsx';
        next();
      });
    },
  };
}

export default defineConfig({
  root: '.',
  appType: 'custom',
  plugins: [widgetFromSource()],
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  server: {
    port: 5173,
    // Everything that is not the widget's source or Vite's own files goes to the server.
    proxy: {
      '^/(?!@|__|widget/|shared/|node_modules/|growsurf\\.js)': { target: SERVER, changeOrigin: false },
    },
  },
});
