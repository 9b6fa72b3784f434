#!/usr/bin/env bash
# Release checks, six steps; any failure stops here with a non-zero exit code.
#
#   bash verify.sh        # everything
#   bash verify.sh 06     # fixture step runs only the cases whose name contains "06"
#
# Steps: 1 environment, 2 clean build, 3 package contract, 4 fixture cases (test/cases.json),
# 5 UI half (and the auto-settle cases), 6 wiring smoke. Step 5 drives the settings panel in Debian's Chromium
# (scripts/chromium-setup.sh installs it with apt-get when /usr/bin/chromium is missing).
set -euo pipefail
cd "$(dirname "$0")"

CASE_FILTER_ARG="${1:-}"

step() { printf '\n== step %s: %s ==\n' "$1" "$2"; }
fail() { printf 'verify.sh: FAILED: %s\n' "$*" >&2; exit 1; }
ok() { printf '  ok: %s\n' "$*"; }
skip() { printf '  skipped: %s\n' "$*"; }

# ---------------------------------------------------------------------------------------------
step 1 "environment (Node >= 20, npm, build dependencies)"
command -v node >/dev/null 2>&1 || fail "node is not on PATH"
command -v npm >/dev/null 2>&1 || fail "npm is not on PATH"
node -e 'const m = Number(process.versions.node.split(".")[0]); process.exit(m >= 20 ? 0 : 1)' \
  || fail "Node >= 20 is required, found $(node --version)"
ok "node $(node --version), npm $(npm --version)"
if [ ! -d node_modules ] || [ ! -x node_modules/.bin/tsc ] || [ ! -x node_modules/.bin/vitest ]; then
  echo "  node_modules is missing or incomplete: npm ci"
  npm ci --no-audit --no-fund || fail "npm ci"
fi
ok "dependencies installed (tsc, vitest present)"

# ---------------------------------------------------------------------------------------------
step 2 "clean lib/ and full tsc build"
rm -rf lib
npm run build || fail "npm run build"
for f in lib/host/index.js lib/api.js lib/cli/main.js; do
  [ -f "$f" ] || fail "the build did not produce $f"
done
ok "lib/ rebuilt from src/"

# ---------------------------------------------------------------------------------------------
step 3 "package contract"
# Handlers are pure: no host context, no direct file system, no working directory.
[ -d lib/tools ] || fail "lib/tools/ is missing"
if hits=$(grep -rnw --include='*.js' 'ctx' lib/tools); then
  printf '%s\n' "$hits" >&2
  fail "lib/tools/ mentions ctx (handlers must not depend on the host context)"
fi
if hits=$(grep -rnF --include='*.js' 'node:fs' lib/tools); then
  printf '%s\n' "$hits" >&2
  fail "lib/tools/ imports node:fs (handlers reach files only through the backend)"
fi
if hits=$(grep -rnF --include='*.js' 'process.cwd()' lib/tools); then
  printf '%s\n' "$hits" >&2
  fail "lib/tools/ calls process.cwd() (the store root comes from the backend)"
fi
ok "lib/tools/ has no ctx, node:fs or process.cwd()"
# The keyword scorer ranks by tokens (BM25 terms, exact tag/entity tokens), never by substrings.
SCORER=lib/retrieve/search.js
[ -f "$SCORER" ] || fail "$SCORER (the keyword scorer) is missing"
if hits=$(grep -nE '\.(includes|indexOf|startsWith)\(' "$SCORER"); then
  printf '%s\n' "$hits" >&2
  fail "$SCORER matches substrings (.includes/.indexOf/.startsWith): score whole tokens"
fi
ok "$SCORER has no substring matching"

node -e '
  const pkg = require("./package.json")
  const bin = pkg.bin && pkg.bin["memory-agent"]
  if (!bin) { console.error("package.json has no bin.memory-agent"); process.exit(1) }
  const fs = require("fs")
  if (!fs.existsSync(bin)) { console.error(`bin.memory-agent points at ${bin}, which the build did not produce`); process.exit(1) }
  if (!fs.readFileSync(bin, "utf8").startsWith("#!/usr/bin/env node")) { console.error(`${bin} has no #!/usr/bin/env node line`); process.exit(1) }
' || fail "package.json bin.memory-agent"
ok "bin.memory-agent -> $(node -p 'require("./package.json").bin["memory-agent"]')"

pack_json=$(npm pack --dry-run --json 2>/dev/null) || fail "npm pack --dry-run"
printf '%s' "$pack_json" | node -e '
  const text = require("fs").readFileSync(0, "utf8")
  const files = JSON.parse(text)[0].files.map((f) => f.path)
  const problems = []
  for (const need of ["lib/host/index.js", "lib/api.js", "lib/cli/main.js", "lib/tools/index.js", "client/client.js", "client/panel.js", "package.json"])
    if (!files.includes(need)) problems.push(`missing ${need}`)
  if (!files.some((f) => f.startsWith("lib/"))) problems.push("no lib/ files")
  for (const f of files) if (/^(src|test)\//.test(f)) problems.push(`ships ${f}`)
  if (problems.length > 0) { console.error(problems.join("\n")); process.exit(1) }
  console.log(`  ok: npm pack lists ${files.length} files, lib/ included, no src/ or test/`)
' || fail "npm pack contents"

# The DSH bundle: package.json points the host at cordis.patch.yml, whose top level is an array
# of patches and whose `insert` is a list of loader entries naming this package (a mapping there
# crashes the host's patch composer), and the package entry is the plugin.
node -e '
  const fs = require("fs")
  const pkg = require("./package.json")
  const problems = []
  const patchPath = pkg.dsh && pkg.dsh.bundle && pkg.dsh.bundle.patch
  if (patchPath !== "./cordis.patch.yml") problems.push(`dsh.bundle.patch is ${JSON.stringify(patchPath)}, not "./cordis.patch.yml"`)
  else if (!fs.existsSync(patchPath)) problems.push(`${patchPath} is missing`)
  else {
    // js-yaml comes with gray-matter (a dependency): resolved from there, not assumed hoisted.
    const yaml = require(require.resolve("js-yaml", { paths: [require.resolve("gray-matter")] }))
    const patch = (yaml.safeLoad || yaml.load)(fs.readFileSync(patchPath, "utf8"))
    if (!Array.isArray(patch)) problems.push("cordis.patch.yml: the top level is not an array")
    else {
      const inserts = patch.filter((p) => p && "insert" in p)
      if (inserts.length === 0) problems.push("cordis.patch.yml: no insert patch")
      for (const p of inserts) {
        if (!Array.isArray(p.insert)) problems.push("cordis.patch.yml: insert is not a list")
        else if (!p.insert.some((e) => e && e.name === pkg.name)) problems.push(`cordis.patch.yml: no inserted entry names ${pkg.name}`)
      }
    }
  }
  if (pkg.exports["."].default !== "./lib/host/index.js") problems.push("exports[\".\"] is not the plugin entry ./lib/host/index.js")
  if (problems.length > 0) { console.error(problems.join("\n")); process.exit(1) }
' || fail "DSH bundle contract"
ok "dsh.bundle.patch -> cordis.patch.yml (top-level array, insert lists $(node -p 'require("./package.json").name')); entry is the plugin"
# The DSH client half: package.json declares a web client whose exports["./client"] is a
# ModuleLoader artifact registered under the package name, requiring nothing but React (the only
# module the web shell seeds for it).
node -e '
  const fs = require("fs")
  const pkg = require("./package.json")
  const problems = []
  const client = pkg.dsh && pkg.dsh.client
  if (!client || client.platform !== "web") problems.push("dsh.client.platform is not \"web\"")
  const file = pkg.exports["./client"]
  if (file !== "./client/client.js") problems.push(`exports["./client"] is ${JSON.stringify(file)}, not "./client/client.js"`)
  else if (!fs.existsSync(file)) problems.push(`${file} is missing (npm run build makes it)`)
  else {
    const code = fs.readFileSync(file, "utf8")
    if (!/^window\.__ModuleLoader__\.load\(\{$/m.test(code)) problems.push(`${file} does not call window.__ModuleLoader__.load({ ... })`)
    if (!code.includes(`id: ${JSON.stringify(pkg.name)},`)) problems.push(`${file} is not registered under the package name ${pkg.name}`)
    const requires = [...code.matchAll(/\brequire\("([^"]+)"\)/g)].map((m) => m[1]).filter((r) => r !== "react")
    if (requires.length > 0) problems.push(`${file} requires ${requires.join(", ")}; the shell seeds only react for it`)
    if (!/exports\.apply = apply;/.test(code) || !/exports\.inject = inject;/.test(code)) problems.push(`${file} does not export inject and apply`)
  }
  if (problems.length > 0) { console.error(problems.join("\n")); process.exit(1) }
' || fail "DSH client artifact"
ok "dsh.client (web) -> client/client.js: ModuleLoader artifact $(node -p 'require("./package.json").name'), requires only react, exports inject and apply"

# ---------------------------------------------------------------------------------------------
step 4 "fixture cases (test/cases.json)${CASE_FILTER_ARG:+, filter \"$CASE_FILTER_ARG\"}"
CASE_FILTER="$CASE_FILTER_ARG" npx vitest run test/fixtures.test.ts || fail "fixture cases"

# ---------------------------------------------------------------------------------------------
step 5 "UI half (settings panel in headless Chromium, panel API, auto-settle)"
npx vitest run test/api.test.ts test/panel/ || fail "UI half"
npx vitest run test/auto-settle.test.ts || fail "auto-settle"

# ---------------------------------------------------------------------------------------------
step 6 "wiring smoke (cordis Context + SystemPrompt + ToolRuntime + the plugin, in process)"
npx vitest run test/host-inprocess.test.ts || fail "wiring smoke"

printf '\nverify.sh: all steps passed\n'
