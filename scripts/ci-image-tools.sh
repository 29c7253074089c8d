#!/usr/bin/env bash
# Installs what scripts/image-test.sh builds and runs the container image with, from Debian's
# packages (called by .ci/run; a no-op where they are installed already):
#   podman       (Debian `podman`)       builds the Dockerfile and runs the image, as root
#   runc         (Debian `runc`)         the OCI runtime podman is told to use
#   debootstrap  (Debian `debootstrap`)  makes the stand-in of the Dockerfile's base image
#   nm           (Debian `binutils`)     lists the symbols of the image's native addon
#   curl         (Debian `curl`)         asks serve for /healthz and /metrics
set -euo pipefail

need=()
command -v podman >/dev/null || need+=(podman)
command -v runc >/dev/null || need+=(runc)
command -v debootstrap >/dev/null || need+=(debootstrap)
command -v nm >/dev/null || need+=(binutils)
command -v curl >/dev/null || need+=(curl)
if [ ${#need[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${need[@]}"
fi
