# capture-engine as a container: the HTTP service by default, `worker` for asynchronous captures.
# Build: docker build -t capture-engine .
# Registry settings enter as build secrets, mounted for the npm commands only and never in a layer
# (both optional): --secret id=npmrc,src=$HOME/.npmrc for a private registry or its token, and
# --secret id=npm-ca,src=<bundle> for a registry behind a TLS proxy with its own certificate authority.

# --- build: compiles TypeScript with the dev dependencies, which never reach the final image ---
FROM docker.io/library/node:24-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN --mount=type=secret,id=npmrc,target=/root/.npmrc --mount=type=secret,id=npm-ca,target=/run/secrets/npm-ca \
    NODE_EXTRA_CA_CERTS=/run/secrets/npm-ca npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.json tsup.config.ts ./
COPY src src
COPY adapters adapters
COPY plugins plugins
RUN npm run build

# --- runtime ---
FROM docker.io/library/node:24-bookworm-slim
# Debian's Chromium headless shell, ffmpeg, Ghostscript and qpdf (nothing is downloaded at run time), the fonts the
# README installs (emoji and CJK glyphs included), the uBlock Origin package for offline filter lists,
# and tini as PID 1 so that Chromium's children are reaped and signals reach Node.
# Manuals, documentation and translations stay out (copyright files stay): about 70 MB.
RUN printf '%s\n' 'path-exclude /usr/share/doc/*' 'path-include /usr/share/doc/*/copyright' \
      'path-exclude /usr/share/man/*' 'path-exclude /usr/share/locale/*' > /etc/dpkg/dpkg.cfg.d/capture-engine-slim \
 && apt-get update -qq \
 && apt-get install -y -qq --no-install-recommends \
      chromium-headless-shell ffmpeg tini ca-certificates ghostscript qpdf \
      fonts-dejavu-core fonts-liberation fonts-noto-color-emoji fonts-noto-cjk \
      webext-ublock-origin-chromium \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/archives/*
RUN useradd --uid 10001 --user-group --home-dir /home/capture --create-home --shell /usr/sbin/nologin capture \
 && install -d -o capture -g capture /var/lib/capture-engine \
 && install -d -m 700 -o capture -g capture /app/code-cache
WORKDIR /app
COPY package.json package-lock.json ./
# The service runs the optional peers a library user chooses for themselves (Redis queues, S3, the
# framework adapters): the image makes them dependencies so that the lock file pins them too.
RUN --mount=type=secret,id=npmrc,target=/root/.npmrc --mount=type=secret,id=npm-ca,target=/run/secrets/npm-ca \
    node -e 'const fs = require("fs"); const p = JSON.parse(fs.readFileSync("package.json")); \
      for (const name of Object.keys(p.peerDependencies)) { p.dependencies[name] = p.devDependencies[name]; delete p.devDependencies[name]; } \
      fs.writeFileSync("package.json", JSON.stringify(p, null, 2));' \
 && NODE_EXTRA_CA_CERTS=/run/secrets/npm-ca npm ci --omit=dev --no-audit --no-fund \
 && npm cache clean --force
COPY --from=build /src/dist dist

ENV NODE_ENV=production \
    PORT=3000 \
    CAPTURE_STORAGE_DIR=/var/lib/capture-engine \
    CAPTURE_CODE_CACHE_DIR=/app/code-cache
USER capture
# playwright-core compiled once here, not at every container start (docs/configuration.md); outside
# /tmp, which the Helm chart mounts empty. On Node 24 it is Node's own compile cache, in a folder for
# this Node's version: playwright-core's two bundles are its files over 100 kB.
RUN node --input-type=module -e "await import('/app/dist/src/index.js')" && test "$(find /app/code-cache -type f -size +100k | wc -l)" -eq 2
EXPOSE 3000
VOLUME /var/lib/capture-engine
HEALTHCHECK --interval=15s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/healthz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# `serve` is what `npm start` runs; Node itself, not npm, is tini's child so SIGTERM drains it.
ENTRYPOINT ["/usr/bin/tini", "--", "node", "/app/dist/src/cli.js"]
CMD ["serve"]
