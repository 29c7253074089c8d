#!/usr/bin/env bash
# Installs the real tools that test/deploy checks the deployment artifacts with, on a fresh
# Debian machine (called by .ci/run; a no-op where they are installed already):
#   systemd-analyze (Debian `systemd`)      verifies the units in systemd/
#   promtool        (Debian `prometheus`)   checks the rules the PrometheusRule carries
#   unshare         (Debian `util-linux`)   runs a pass in a PID namespace of its own, as a pod
#                                            without hostPID would
#   strace          (Debian `strace`)       lists the system calls of a pass, for SystemCallFilter
# The Kubernetes API schemas come from npm (devDependencies kubernetes-models and
# @kubernetes-models/prometheus-operator). kustomize is neither a Debian nor an npm package: the
# tests render the kustomizations themselves, and compare with `kubectl kustomize` where kubectl
# is installed (it is on this project's machine image).
set -euo pipefail

need=()
command -v systemd-analyze >/dev/null || need+=(systemd)
command -v promtool >/dev/null || need+=(prometheus)
command -v unshare >/dev/null || need+=(util-linux)
command -v strace >/dev/null || need+=(strace)
if [ ${#need[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${need[@]}"
fi
command -v kubectl >/dev/null \
  || echo "ci-deploy-tools: kubectl is not installed; the test's own kustomize rendering is not compared with kubectl's" >&2
