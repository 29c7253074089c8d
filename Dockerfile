# agent-janitor container image.
#   docker build -t agent-janitor:0.1.0 .      (podman: podman build --format docker ...)
# The image runs as an unprivileged user (uid 10001) that owns nothing on a host, so by default
# it can only report. To delete across a host's homes, run it as root with hostPID and the five
# capabilities docs/operations.md names (see "Container image" there). scripts/image-test.sh
# builds this file and runs the image both ways.
#
# Every stage starts from the same pinned Node.js LTS image on Debian 12 (bookworm, slim). Node.js
# 22, not 24: better-sqlite3 12 wraps its objects in node::ObjectWrap, whose header from 24.19 on
# adds an environment cleanup hook per object and removes it in the destructor; when V8 collects
# a statement with no context entered, the removal finds no environment and the process aborts
# (nodejs/node#65446). An addon compiled against 22's headers, prebuilt or here, has no such hook.
ARG NODE_IMAGE=node:22.23.5-bookworm-slim

# ---- build: every dependency, then the TypeScript compile -------------------------------------
FROM ${NODE_IMAGE} AS build
# better-sqlite3 compiles its native addon where its prebuilt binary cannot be fetched (an offline
# or proxied build, a platform it has none for), against the headers this base image ships in
# /usr/local/include/node: node-gyp would otherwise download them from nodejs.org.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
ENV npm_config_nodedir=/usr/local
WORKDIR /src
COPY package.json package-lock.json ./
# Behind a proxy that re-signs TLS, the build is handed its CA as a secret (never kept in a layer):
#   docker build --secret id=build-ca,src=/etc/ssl/certs/ca-certificates.crt ...
RUN --mount=type=secret,id=build-ca,required=false \
    if [ -f /run/secrets/build-ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/build-ca; fi \
 && npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY scripts/make-executable.mjs scripts/
COPY src/ src/
RUN npm run build

# ---- prod-deps: production dependencies only, in a stage of their own ---------------------------
# Installed without their install scripts: the one native addon (better-sqlite3) is the one the
# build stage compiled for this very base image, so it is compiled once, not twice.
FROM ${NODE_IMAGE} AS prod-deps
WORKDIR /opt/agent-janitor
COPY package.json package-lock.json ./
RUN --mount=type=secret,id=build-ca,required=false \
    if [ -f /run/secrets/build-ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/build-ca; fi \
 && npm ci --omit=dev --ignore-scripts --no-audit --no-fund
COPY --from=build /src/node_modules/better-sqlite3/build/Release/better_sqlite3.node node_modules/better-sqlite3/build/Release/

# ---- runtime -----------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime
ARG NODE_IMAGE
ARG VERSION=0.1.0
LABEL org.opencontainers.image.title="agent-janitor" \
      org.opencontainers.image.description="Reclaims the disk scratch AI coding-agent tools leave behind, deleting only what it can prove dead." \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.licenses="MIT" \
      org.opencontainers.image.base.name="docker.io/library/${NODE_IMAGE}"
# git (and git-lfs) are run against the owners' repositories. findutils' find and xargs walk the
# folders a pass measures ahead of it (slim images have them already; named here as a need). tini
# hands a stop signal to agent-janitor (serve then finishes the pass under way) and reaps what is
# left; with -s it does so as a subreaper too where it is not PID 1 (--pid=host, hostPID pods).
RUN apt-get update \
 && apt-get install -y --no-install-recommends git git-lfs findutils tini ca-certificates \
 && rm -rf /var/lib/apt/lists/*
# A dedicated uid that no host account uses, so the default user owns nothing on a mounted home.
RUN groupadd --system --gid 10001 agent-janitor \
 && useradd --system --uid 10001 --gid 10001 --home-dir /var/lib/agent-janitor --no-create-home --shell /usr/sbin/nologin agent-janitor \
 && install -d -o 10001 -g 10001 -m 0750 /var/lib/agent-janitor
WORKDIR /opt/agent-janitor
COPY package.json ./
COPY --from=prod-deps /opt/agent-janitor/node_modules/ node_modules/
COPY --from=build /src/dist/ dist/
COPY deploy/docker/healthcheck.mjs ./
RUN ln -s /opt/agent-janitor/dist/cli.js /usr/local/bin/agent-janitor
# HOME is the tool's own folder whatever the user: run as root with the host's /root mounted, git
# and node still read no configuration of the host's root.
ENV NODE_ENV=production HOME=/var/lib/agent-janitor
USER 10001:10001
EXPOSE 9464
# Meaningful for `serve` only (a `run` container ends long before the start period does).
HEALTHCHECK --interval=60s --timeout=10s --start-period=5m --retries=3 \
  CMD ["node", "/opt/agent-janitor/healthcheck.mjs"]
ENTRYPOINT ["/usr/bin/tini", "-s", "--", "agent-janitor"]
CMD ["--help"]
