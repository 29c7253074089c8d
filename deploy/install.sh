#!/usr/bin/env bash
# Installs agent-janitor's systemd units and a config, for the system (as root) or for your own
# user manager (--user), then enables the timer. Run it again at any time: files whose content is
# already in place are left untouched, and an existing config is kept unless --config names one.
#
#   sudo deploy/install.sh                         # system: /etc/systemd/system, /etc/agent-janitor
#   deploy/install.sh --user                       # you:    ~/.config/systemd/user, ~/.config/agent-janitor
#   sudo deploy/install.sh --config ./my.yaml      # install (after checking) this config
#   deploy/install.sh --root /tmp/stage --no-enable  # lay the files out below a staging root only
#   deploy/install.sh --root /tmp/stage --bin /usr/bin/agent-janitor  # ExecStart as on the target
set -euo pipefail

usage() {
  cat <<'USAGE'
usage: install.sh [--user] [--config FILE] [--bin PATH] [--root DIR] [--no-enable] [--uninstall]
  --user        install for your own `systemd --user` instead of the system manager
  --config FILE check this config with `agent-janitor config` and install it (replacing the old one)
  --bin PATH    the agent-janitor executable for ExecStart (default: the one on PATH); the
                shipped units name /usr/local/bin/agent-janitor, which this replaces
  --root DIR    install below DIR (a staging root; systemctl is not called). --bin then names
                the path on the target system: it need not exist below DIR. The config is
                checked with DIR/PATH where that exists, else with the agent-janitor on PATH,
                else with this checkout's build (dist/cli.js)
  --no-enable   do not reload systemd or enable the timer
  --uninstall   disable the timer and remove the units (the config and reports stay)
USAGE
}

die() { echo "install.sh: $*" >&2; exit 2; }

mode=system config="" bin="" root="" enable=1 uninstall=0
while [ $# -gt 0 ]; do
  case "$1" in
    --user) mode=user ;;
    --config) [ $# -ge 2 ] || die "--config needs a file"; config=$2; shift ;;
    --bin) [ $# -ge 2 ] || die "--bin needs a path"; bin=$2; shift ;;
    --root) [ $# -ge 2 ] || die "--root needs a folder"; root=${2%/}; shift ;;
    --no-enable) enable=0 ;;
    --uninstall) uninstall=1 ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown argument: $1" ;;
  esac
  shift
done

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
units_from="$here/systemd/$mode"
[ -f "$units_from/agent-janitor.service" ] || die "$units_from/agent-janitor.service is missing"

if [ "$mode" = system ]; then
  [ -n "$root" ] || [ "$(id -u)" -eq 0 ] || die "the system units are installed as root (or use --user)"
  unit_dir=/etc/systemd/system
  config_path=/etc/agent-janitor/config.yaml
  systemctl=(systemctl)
else
  [ -n "${HOME:-}" ] || die "HOME is not set"
  unit_dir=${XDG_CONFIG_HOME:-$HOME/.config}/systemd/user
  config_path=${XDG_CONFIG_HOME:-$HOME/.config}/agent-janitor/config.yaml
  systemctl=(systemctl --user)
fi

run_systemctl() {
  if [ -n "$root" ] || [ "$enable" -eq 0 ]; then
    echo "skipped: ${systemctl[*]} $*"
  else
    "${systemctl[@]}" "$@"
  fi
}

if [ "$uninstall" -eq 1 ]; then
  run_systemctl disable --now agent-janitor.timer || true
  for unit in agent-janitor.timer agent-janitor.service; do
    if [ -e "$root$unit_dir/$unit" ]; then rm -f "$root$unit_dir/$unit"; echo "removed: $unit_dir/$unit"; fi
  done
  run_systemctl daemon-reload
  echo "kept: $config_path and the reports"
  exit 0
fi

if [ -z "$bin" ]; then
  bin=$(command -v agent-janitor || true)
  [ -n "$bin" ] || die "agent-janitor is not on PATH: install it (npm install -g .) or name it with --bin"
fi
case "$bin" in /*) ;; *) die "--bin must be an absolute path, not $bin" ;; esac

# The agent-janitor that checks the config: the one ExecStart names, where it can be run here. A
# staging root is laid out for another system, whose binary may not be below it yet.
checker=("$root$bin")
if [ ! -x "$root$bin" ]; then
  [ -n "$root" ] || die "$bin is not an executable"
  if command -v agent-janitor >/dev/null; then
    checker=("$(command -v agent-janitor)")
  elif [ -f "$here/dist/cli.js" ] && command -v node >/dev/null; then
    checker=(node "$here/dist/cli.js")
  else
    die "$root$bin does not exist, and no agent-janitor here can check the config: put one on PATH or build this checkout (npm run build)"
  fi
  echo "note: $root$bin does not exist yet; the config is checked with ${checker[*]}"
fi

# Everything is checked and staged before the first file is replaced.
config_from=""
if [ -n "$config" ]; then
  [ -f "$config" ] || die "$config: no such file"
  config_from=$config
elif [ ! -e "$root$config_path" ]; then
  config_from="$units_from/config.yaml"
fi
if [ -n "$config_from" ]; then
  "${checker[@]}" config --config "$config_from" >/dev/null || die "$config_from: the config is not valid (see above); nothing was installed"
fi

staging=$(mktemp -d)
trap 'rm -rf "$staging"' EXIT
exec_start="ExecStart=$bin run --config $config_path"
sed "s|^ExecStart=.*|$exec_start|" "$units_from/agent-janitor.service" > "$staging/agent-janitor.service"
cp "$units_from/agent-janitor.timer" "$staging/agent-janitor.timer"

# Puts a file in place unless the same content is already there.
place() {
  local from=$1 to=$2 mode=$3
  if [ -f "$root$to" ] && cmp -s "$from" "$root$to"; then
    echo "unchanged: $to"
  else
    install -D -m "$mode" "$from" "$root$to"
    echo "installed: $to"
  fi
}

changed=0
for unit in agent-janitor.service agent-janitor.timer; do
  out=$(place "$staging/$unit" "$unit_dir/$unit" 0644)
  echo "$out"
  case "$out" in installed:*) changed=1 ;; esac
done
if [ -n "$config_from" ]; then
  place "$config_from" "$config_path" 0644
else
  echo "kept: $config_path (the existing config; --config FILE replaces it)"
fi

if [ "$changed" -eq 1 ]; then run_systemctl daemon-reload; fi
run_systemctl enable --now agent-janitor.timer
if [ "$mode" = user ] && [ -z "$root" ]; then
  echo "note: to run while you are logged out: loginctl enable-linger $(id -un)"
fi
