#!/usr/bin/env bash
# Builds the Dockerfile, unchanged, with podman on a stand-in of its base image
# (scripts/image-base.sh), and runs the image as docs/operations.md ("Container image") tells
# users to, with the flags of scripts/image-flags.sh, over real homes at their own paths:
#   1. as the image's user (uid 10001), report-only over read-only homes: nothing changes, and the
#      claude-code provider fails closed on root's registry, which that user may not read;
#   2. as root with the five capabilities, without the host's PID namespace: nothing is deleted,
#      every dead item is refused liveness-unknown;
#   3. as root in the host's PID namespace: a dead Watchfire home is deleted (as its owner, with
#      its audit line), one with a live host process inside is refused in-use;
#   4. seventeen more passes, report-only and deleting by turns: twenty containers in all, none may
#      abort (a native addon that dies in garbage collection kills a pass at random);
#   5. serve on the host network for ten passes: /healthz, /metrics, the image's HEALTHCHECK, and
#      a clean exit 0 on SIGTERM.
# The homes are the demo's sandbox (every provider's real state: SQLite databases, git
# repositories, YAML) and two Watchfire homes of an unprivileged owner. Run as root on a clone;
# CI runs it after the test suite (.ci/run). About 3 minutes the first time on a machine, 1 after.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/image-podman.sh
. "$repo/scripts/image-podman.sh"
# shellcheck source=scripts/image-flags.sh
. "$repo/scripts/image-flags.sh"

say() { echo "image-test: $*"; }
fail() {
  echo "image-test: FAILED: $*" >&2
  exit 1
}

[ "$(id -u)" -eq 0 ] || fail "run as root (podman's storage, other owners' homes, setpriv)"
for tool in podman runc debootstrap nm curl setpriv node; do
  command -v "$tool" >/dev/null || fail "$tool is not installed: bash scripts/ci-image-tools.sh installs what this needs"
done
[ -f "$repo/node_modules/yaml/package.json" ] && [ -f "$repo/dist/cli.js" ] \
  || fail "run npm ci and npm run build first: the sandbox is made with the built CLI"

started=$SECONDS
version=$(node -p "require('$repo/package.json').version")
image="localhost/agent-janitor:$version"
owner=4243 # a uid no account has, as the image's own 10001 has none on a host
work=$(mktemp -d /tmp/aj-image.XXXXXX)
chmod 0755 "$work" # the image's user reads the homes below it
live_pid=
serve_name=
cleanup() {
  [ -z "$live_pid" ] || kill "$live_pid" 2>/dev/null || true
  [ -z "$serve_name" ] || pm rm -f "$serve_name" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

# ---- the image -------------------------------------------------------------------------------
base=$(bash "$repo/scripts/image-base.sh" "$repo/Dockerfile")
say "base $base ($((SECONDS - started)) s)"

# A proxy that re-signs TLS (as on this project's machines) is trusted the way the host trusts
# it; the Dockerfile takes the CA as a build secret, so it is in no layer of the image.
build_ca=${NODE_EXTRA_CA_CERTS:-$(npm config get cafile 2>/dev/null || true)}
secret=()
[ ! -f "$build_ca" ] || secret=(--secret "id=build-ca,src=$build_ca")
build() {
  pm build --pull=never --network host --format docker "${secret[@]}" "$@" "$repo" >>"$work/build.log" 2>&1 \
    || { tail -40 "$work/build.log" >&2; fail "podman build $*"; }
}
build -t "$image"
# The stages' own images are tagged too, so the prune below keeps their layers (the npm ci steps)
# for the next build, and drops the previous builds'.
build --target build -t localhost/agent-janitor-cache:build
build --target prod-deps -t localhost/agent-janitor-cache:prod-deps
pm image prune -f >/dev/null
say "built $image ($((SECONDS - started)) s)"

user=$(pm image inspect --format '{{.Config.User}}' "$image")
[ "$user" = 10001:10001 ] || fail "the image's user is '$user', not 10001:10001"
health=$(pm image inspect --format '{{json .Config.Healthcheck.Test}}' "$image")
[ "$health" = '["CMD","node","/opt/agent-janitor/healthcheck.mjs"]' ] || fail "HEALTHCHECK is $health"

root_fs=$(pm image mount "$image")
addon="$root_fs/opt/agent-janitor/node_modules/better-sqlite3/build/Release/better_sqlite3.node"
[ -f "$addon" ] || fail "no better-sqlite3 addon in the image"
# An addon compiled against node_object_wrap.h with cleanup hooks (Node.js >= 24.19) carries
# ObjectWrap::CleanupHook and calls RemoveEnvironmentCleanupHook: the abort of nodejs/node#65446.
if nm -D "$addon" | grep -E 'ObjectWrap11CleanupHook|RemoveEnvironmentCleanupHook' >&2; then
  fail "better_sqlite3.node was compiled against node::ObjectWrap's cleanup hooks (see the Dockerfile's base)"
fi
node -e '
  const fs = require("node:fs");
  const [pkgFile, modules] = process.argv.slice(1);
  const pkg = JSON.parse(fs.readFileSync(pkgFile, "utf8"));
  const absent = Object.keys(pkg.dependencies).filter((d) => !fs.existsSync(`${modules}/${d}`));
  // What the dependencies need, one level of package.json after another: a dev dependency that a
  // dependency also needs (semver, through better-sqlite3s installer) belongs in the image.
  const needed = new Set();
  const pending = Object.keys(pkg.dependencies);
  while (pending.length > 0) {
    const name = pending.pop();
    if (needed.has(name)) continue;
    needed.add(name);
    try {
      const own = JSON.parse(fs.readFileSync(`${modules}/${name}/package.json`, "utf8"));
      pending.push(...Object.keys({ ...own.dependencies, ...own.optionalDependencies }));
    } catch {}
  }
  const present = Object.keys(pkg.devDependencies).filter((d) => !needed.has(d) && fs.existsSync(`${modules}/${d}`));
  if (absent.length || present.length) {
    console.error(`image-test: FAILED: dependencies missing ${absent} / dev dependencies shipped ${present}`);
    process.exit(1);
  }' "$repo/package.json" "$root_fs/opt/agent-janitor/node_modules"
pm image unmount "$image" >/dev/null

got=$(pm run --rm --no-healthcheck "$image" --version)
[ "$got" = "$version" ] || fail "--version printed '$got'"
pm run --rm --no-healthcheck "$image" --help >"$work/help"
for command in run serve report demo config; do grep -q "$command" "$work/help" || fail "--help lacks $command"; done

# ---- the homes -------------------------------------------------------------------------------
# The demo's sandbox, made by the built CLI on the host (its own passes leave what is unfinished,
# refused or kept), and a home of uid 4243 with two dead Watchfire session homes (their project is
# gone), one of them the working directory of a live process of that owner.
node "$repo/dist/cli.js" demo --dir "$work/demo" >"$work/demo.out" 2>&1 || { cat "$work/demo.out" >&2; fail "demo"; }
# The image's own user reports on what it may read: a folder closed to it (the tools' 0700 state
# folders, as the demo makes them) is a provider it cannot reconcile, rightly exit 1. Here the
# sandbox is opened to everyone, as a home mounted for a report-only container has to be.
chmod -R a+rX "$work/demo"
home="$work/homes/user4243"
dead="$home/.watchfire/codex-home/retired-project:chat"
live="$home/.watchfire/codex-home/retired-tool:chat"
for session in "$dead" "$live"; do
  mkdir -p "$session/sessions/2026/11/02"
  echo "You are working on the retired project." >"$session/AGENTS.md"
  echo '{"type":"message"}' >"$session/sessions/2026/11/02/rollout-2026-11-02T09-00-00.jsonl"
done
printf 'version: 1\nprojects: []\n' >"$home/.watchfire/projects.yaml"
chown -R "$owner:$owner" "$work/homes"
chmod 0755 "$home"
find "$work/homes" -exec touch -h -d '3 days ago' {} +
(cd "$live" && exec setpriv --reuid="$owner" --regid="$owner" --clear-groups sleep 3600) &
live_pid=$!

config_dir="$work/etc"
mkdir -p "$config_dir"
node -e '
  const fs = require("node:fs");
  const YAML = require(process.argv[1]);
  const [demoConfig, homesGlob, out, schedule] = process.argv.slice(2);
  const config = YAML.parse(fs.readFileSync(demoConfig, "utf8"));
  config.homes.push(homesGlob);
  const watchfire = config.providers.watchfire;
  watchfire.root = [...[watchfire.root ?? []].flat(), `${homesGlob.replace(/\/\*$/, "")}/user4243/.watchfire`];
  config.reportDir = "/var/lib/agent-janitor";
  config.serve = { schedule };
  fs.writeFileSync(out, YAML.stringify(config));
' "$repo/node_modules/yaml" "$work/demo/agent-janitor.yaml" "$work/homes/*" "$config_dir/config.yaml" '*/2 * * * * *'

# Everything below the homes: type, mode, owner, size, times, target and content.
fingerprint() {
  (
    cd "$work"
    find demo homes -printf '%y %m %U:%G %s %T@ %C@ %p -> %l\n' | LC_ALL=C sort
    find demo homes -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum
  )
}
# What a pass that deletes nothing keeps: every entry and its content, but for the times and the
# shared-memory index of the owners' WAL-mode SQLite databases, which SQLite itself rewrites when
# a process that may write them (root) opens one, reading or not.
kept_fingerprint() {
  (
    cd "$work"
    find demo homes -printf '%y %m %U:%G %p -> %l\n' | LC_ALL=C sort
    find demo homes -type f -not -name '*-shm' -print0 | LC_ALL=C sort -z | xargs -0 sha256sum
  )
}

# One pass in a container: $1 names it, then podman's flags up to --, then the tool's arguments.
# The report folder is the host's $work/reports/<name>, owned by the user the pass runs as.
runs=0
pass() {
  local name=$1 report="$work/reports/$1" flags=() status=0
  shift
  while [ "$1" != -- ]; do
    flags+=("$1")
    shift
  done
  shift
  mkdir -p "$report"
  if [[ " ${flags[*]} " == *" --user 0:0 "* ]]; then chown 0:0 "$report"; else chown 10001:10001 "$report"; fi
  pm run --rm --no-healthcheck "${flags[@]}" \
    -v "$config_dir:/etc/agent-janitor:ro" -v "$report:/var/lib/agent-janitor" \
    "$image" "$@" >"$report.out" 2>"$report.err" || status=$?
  runs=$((runs + 1))
  if [ "$status" -ge 128 ] || grep -q 'Assertion failed' "$report.err"; then
    tail -30 "$report.err" >&2
    fail "$name: the pass died (exit $status)"
  fi
  echo "$status" >"$report.status"
}
expect_status() {
  local got
  got=$(cat "$work/reports/$1.status")
  [ "$got" = "$2" ] || {
    tail -20 "$work/reports/$1.err" >&2
    tail -20 "$work/reports/$1.out" >&2
    # The providers that could not be reconciled, and why: what exit 1 stands for.
    node -e '
      const report = JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8"));
      for (const p of report.providers.filter((p) => !p.ok)) console.error(`${p.provider} ${p.root}: ${p.error}`);
    ' "$work/reports/$1/report.json" || true
    fail "$1: exit $got, expected $2"
  }
}
# expect_blind_to_roots_registry NAME: a pass as the image's user exits 1, and only because it may
# not read root's Claude Code registry (/root/.claude, 0700 in the image): the sandbox's homes are
# root's, so the claude-code provider must read it to prove a session of root's ended, and fails
# closed (rule 1) where it cannot. Every other provider is reconciled.
expect_blind_to_roots_registry() {
  expect_status "$1" 1
  node -e '
    const report = JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8"));
    const failed = report.providers.filter((p) => !p.ok);
    const others = failed.filter((p) => p.provider !== "claude-code" || !/\/root\/\.claude\b.*EACCES|EACCES.*\/root\/\.claude\b/.test(p.error));
    if (failed.length === 0 || others.length > 0) {
      for (const p of failed) console.error(`${p.provider} ${p.root}: ${p.error}`);
      process.exit(1);
    }
  ' "$work/reports/$1/report.json" || fail "$1: another provider than claude-code (root's registry) could not be reconciled"
}
# verdict NAME PATH: the verdict and reason of the item at PATH in that pass's report.json.
verdict() {
  node -e '
    const report = JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8"));
    const item = report.items.find((i) => i.path === process.argv[2]);
    console.log(item ? `${item.verdict} ${item.reason ?? ""}`.trim() : "absent");
  ' "$work/reports/$1/report.json" "$2"
}
# same FINGERPRINT WHO: the homes' fingerprint is the one taken into $work/before.
same() {
  "$1" >"$work/after"
  diff "$work/before" "$work/after" >&2 || fail "$2 changed the homes"
}
run_config=(run --config /etc/agent-janitor/config.yaml)
say "homes ready ($((SECONDS - started)) s)"

# ---- 1. the image's user, report-only, homes read-only -----------------------------------------
fingerprint >"$work/before"
pass report-only "${image_report_only[@]}" -v "$work:$work:ro" -- "${run_config[@]}" --report-only
expect_blind_to_roots_registry report-only
same fingerprint "the report-only pass as uid 10001"
say "1. uid 10001 report-only: nothing changed"

# ---- 2. root with the capabilities, its own PID namespace --------------------------------------
kept_fingerprint >"$work/before"
pass blind "${image_root[@]}" -v "$work:$work" -- "${run_config[@]}"
expect_status blind 0
same kept_fingerprint "the pass without the host's PID namespace"
for session in "$dead" "$live"; do
  [ "$(verdict blind "$session")" = "refused liveness-unknown" ] \
    || fail "blind pass: $session is '$(verdict blind "$session")', not refused liveness-unknown"
done
say "2. root without --pid=host: nothing deleted, liveness-unknown"

# ---- 3. root with the capabilities in the host's PID namespace ---------------------------------
pass deleting "${image_root[@]}" "${image_host_pid[@]}" "${image_host_ids[@]}" -v "$work:$work" -- "${run_config[@]}"
expect_status deleting 0
[ "$(verdict deleting "$dead")" = "deleted project-deleted" ] || fail "deleting pass: $dead is '$(verdict deleting "$dead")'"
[ ! -e "$dead" ] || fail "deleting pass: $dead is still there"
[ "$(verdict deleting "$live")" = "refused in-use" ] || fail "deleting pass: $live is '$(verdict deleting "$live")'"
[ -f "$live/AGENTS.md" ] || fail "deleting pass: the live session home lost AGENTS.md"
grep -F "\"path\":\"$dead\"" "$work/reports/deleting/audit.jsonl" >/dev/null \
  || fail "deleting pass: no audit line for $dead"
say "3. root with --pid=host: the dead home deleted and audited, the live one refused in-use"

# ---- 4. more passes: twenty containers, none aborts ------------------------------------------
kept_fingerprint >"$work/before"
for n in $(seq 4 20); do
  if [ $((n % 2)) -eq 0 ]; then
    pass "again-$n" "${image_report_only[@]}" -v "$work:$work:ro" -- "${run_config[@]}" --report-only
    expect_blind_to_roots_registry "again-$n"
  else
    pass "again-$n" "${image_root[@]}" "${image_host_pid[@]}" "${image_host_ids[@]}" -v "$work:$work" -- "${run_config[@]}"
    expect_status "again-$n" 0
  fi
done
same kept_fingerprint "a pass after the first deleting one"
say "4. $runs passes, none aborted, the later ones changed nothing ($((SECONDS - started)) s)"

# ---- 5. serve on the host network ------------------------------------------------------------
port=$(node -e 'const s = require("node:net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); });')
serve_name="aj-image-test-$$"
mkdir -p "$work/reports/serve"
# No systemd here to run the HEALTHCHECK on its interval: the test runs it itself.
pm run -d --name "$serve_name" "${image_root[@]}" "${image_host_pid[@]}" "${image_host_ids[@]}" --network host --health-interval disable \
  -e "AGENT_JANITOR_HEALTHCHECK_URL=http://127.0.0.1:$port/healthz" \
  -v "$config_dir:/etc/agent-janitor:ro" -v "$work/reports/serve:/var/lib/agent-janitor" -v "$work:$work" \
  "$image" serve --config /etc/agent-janitor/config.yaml --listen "127.0.0.1:$port" >/dev/null 2>"$work/serve-start.err" \
  || { cat "$work/serve-start.err" >&2; fail "serve did not start"; }
successes=0
for _ in $(seq 1 120); do
  sleep 1
  metrics=$(curl -fsS "http://127.0.0.1:$port/metrics" 2>/dev/null) || continue
  successes=$(sed -n 's/^agent_janitor_runs_total{result="success"} \([0-9]*\)$/\1/p' <<<"$metrics")
  [ "${successes:-0}" -lt 10 ] || break
done
[ "${successes:-0}" -ge 10 ] || { pm logs "$serve_name" 2>&1 | tail -30 >&2; fail "serve made ${successes:-0} passes, not 10"; }
grep -q '^agent_janitor_items{' <<<"$metrics" || fail "/metrics has no agent_janitor_items"
curl -fsS "http://127.0.0.1:$port/healthz" | grep -q '"status":"ok"' || fail "/healthz is not ok"
pm healthcheck run "$serve_name" >/dev/null 2>&1 || fail "the image's HEALTHCHECK fails while serve runs"
pm stop -t 120 "$serve_name" >/dev/null 2>"$work/serve-stop.err"
code=$(pm inspect --format '{{.State.ExitCode}}' "$serve_name")
pm logs "$serve_name" >"$work/serve.log" 2>&1
[ "$code" = 0 ] || { tail -30 "$work/serve.log" >&2; fail "serve exited $code on SIGTERM"; }
! grep -q 'Assertion failed' "$work/serve.log" || fail "serve aborted"
pm rm "$serve_name" >/dev/null 2>&1
serve_name=
say "5. serve: $successes passes, /healthz and /metrics answered, HEALTHCHECK healthy, exit 0 on SIGTERM"

say "passed: $runs passes and a serve of $successes in $((SECONDS - started)) s"
