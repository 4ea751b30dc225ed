# refloop in a container (issue #21): `docker build -t refloop .`, then see README.md#docker.
# One process per container: node itself is PID 1 (exec-form CMD), so `docker stop`'s SIGTERM reaches
# the server, which finishes the requests in progress, closes the database and exits 0.

# --- build: dependencies (better-sqlite3 falls back to a source build), the widget, the console and the compiled server
FROM node:20-bookworm-slim AS build
RUN apt-get update -qq \
 && apt-get install -y -qq --no-install-recommends python3 make g++ >/dev/null \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts here, then the native build and our own prepare once the sources are in.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund
COPY . .
RUN npm rebuild better-sqlite3 esbuild \
 && node scripts/build-server.mjs \
 && node --import tsx scripts/build-widget.ts \
 && node --import tsx scripts/build-console.ts

# --- runtime
FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8787 \
    DATA_DIR=/data \
    LOG_FORMAT=json
WORKDIR /app
COPY --from=build /app /app
# The data folder (SQLite file, uploads, demo state) belongs to the unprivileged `node` user (uid 1000).
RUN mkdir -p /data && chown node:node /data
VOLUME ["/data"]
USER node
EXPOSE 8787
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8787)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
STOPSIGNAL SIGTERM
CMD ["node", "bin/refloop.js", "serve"]
