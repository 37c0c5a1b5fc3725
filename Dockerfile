# The controller's image, for those who build with Docker. `npm run image` builds the same image
# without a Docker engine (scripts/image/), reproducibly, and this file takes the same steps: Debian
# bookworm's libc, C++ runtime, CA certificates and time zones unpacked by mmdebstrap (no shell,
# no package manager), the pinned Node.js, the CLI bundled with its production dependencies, run
# as 65532 with the bundle as entrypoint. Keep the two in step.
#
#   docker build -t <registry>/temporal-worker-controller:0.1.0 .

# The Node.js that package.json pins (the npm `node` package); esbuild, a dev dependency, bundles
# the CLI into /app (scripts/bundle.ts).
FROM node:24.21.0-bookworm-slim AS app
WORKDIR /build
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY scripts ./scripts
COPY src ./src
RUN node scripts/bundle.ts /app

FROM debian:bookworm-slim AS root-filesystem
RUN apt-get update \
 && apt-get install -y --no-install-recommends mmdebstrap binutils ca-certificates \
 && rm -rf /var/lib/apt/lists/*
RUN mmdebstrap --variant=extract --include=libc6,libstdc++6,libgcc-s1,ca-certificates,tzdata --quiet bookworm /root-filesystem
COPY --from=app /usr/local/bin/node /root-filesystem/usr/local/bin/node
COPY --from=app /app /root-filesystem/app
# Node asks who it runs as (os.userInfo); there is no shell to log in with. Its debug information
# is a sixth of it.
RUN cd /root-filesystem \
 && printf 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n' > etc/passwd \
 && printf 'root:x:0:\nnonroot:x:65532:\n' > etc/group \
 && mkdir -p home/nonroot tmp && chmod 1777 tmp \
 && strip usr/local/bin/node \
 && chown -R 0:0 app

FROM scratch
COPY --from=root-filesystem /root-filesystem/ /
USER 65532:65532
WORKDIR /app
ENV PATH=/usr/local/bin:/usr/bin:/bin NODE_ENV=production MALLOC_ARENA_MAX=2 MALLOC_MMAP_THRESHOLD_=131072
ENTRYPOINT ["/usr/local/bin/node", "--max-semi-space-size=1", "--optimize-for-size", "--no-maglev", "/app/src/cli/main.js"]
