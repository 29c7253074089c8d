#!/usr/bin/env bash
# Sets up a fresh Debian machine to build agent-janitor and run its tests: the Debian packages the
# tests drive for real (git, util-linux's flock and unshare, findutils' find and xargs, the
# Prometheus servers, systemd-analyze, strace), then the npm packages. Run as root (or with sudo
# available); a no-op for what is there.
set -euo pipefail
cd "$(dirname "$0")/.."

as_root=()
[ "$(id -u)" -eq 0 ] || as_root=(sudo)
need=()
command -v git >/dev/null || need+=(git)
command -v flock >/dev/null || need+=(util-linux)
command -v git-lfs >/dev/null || need+=(git-lfs)
{ command -v find && command -v xargs; } >/dev/null || need+=(findutils)
if [ ${#need[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  "${as_root[@]}" apt-get update -qq
  "${as_root[@]}" apt-get install -y -qq --no-install-recommends "${need[@]}"
fi
bash scripts/ci-services.sh
bash scripts/ci-deploy-tools.sh

npm ci --no-audit --no-fund
