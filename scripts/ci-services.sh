#!/usr/bin/env bash
# Installs the Prometheus servers that the metrics and serve tests start on loopback, from Debian's
# packages: prometheus (with promtool), prometheus-node-exporter, prometheus-pushgateway. The tests
# start their own instances on free ports with temp data folders; whatever services the packages
# set up are neither needed nor used.
set -euo pipefail

declare -A binary_of=(
  [prometheus]=/usr/bin/prometheus
  [prometheus-node-exporter]=/usr/bin/prometheus-node-exporter
  [prometheus-pushgateway]=/usr/bin/prometheus-pushgateway
)
missing=()
for package in prometheus prometheus-node-exporter prometheus-pushgateway; do
  [ -x "${binary_of[$package]}" ] || missing+=("$package")
done
[ -x /usr/bin/promtool ] || [[ " ${missing[*]} " == *" prometheus "* ]] || missing+=(prometheus)
[ ${#missing[@]} -eq 0 ] && exit 0

as_root=()
[ "$(id -u)" -eq 0 ] || as_root=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -qq
"${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
