#!/usr/bin/env bash
# Publishes dsh-memory-agent to npm: verify -> pack check -> auth gate -> publish.
# If the dsh-publish-plugin command is installed, the whole job is handed to it.
# Exit codes: 0 published, 1 a check failed, 3 no npm credentials (nothing was published).
set -euo pipefail
cd "$(dirname "$0")"

if command -v dsh-publish-plugin >/dev/null 2>&1; then
  echo "== delegating to dsh-publish-plugin =="
  exec dsh-publish-plugin "$@"
fi

echo "== verify =="
bash verify.sh

echo "== pack check =="
pack_json=$(npm pack --dry-run --json 2>/dev/null)
node -e '
  const [pack] = JSON.parse(process.argv[1]);
  const files = pack.files.map((f) => f.path);
  const must = ["lib/api.js", "lib/host/index.js", "lib/cli/main.js", "client/client.js", "client/panel.js", "cordis.patch.yml", "package.json", "README.md", "LICENSE"];
  const missing = must.filter((f) => !files.includes(f));
  const forbidden = files.filter((f) => /^(src|test|bench|scripts|\.ci|client\/src)\//.test(f));
  if (missing.length || forbidden.length) {
    console.error("pack check failed:", { missing, forbidden });
    process.exit(1);
  }
  console.log(`${pack.name}@${pack.version}: ${files.length} files, ${pack.size} bytes packed`);
' "$pack_json"

echo "== auth gate =="
if [ -z "${NPM_TOKEN:-}" ] && ! npm whoami >/dev/null 2>&1; then
  echo "Not logged in to npm: set NPM_TOKEN or run 'npm login', then run publish.sh again." >&2
  echo "Nothing was published." >&2
  exit 3
fi

echo "== publish =="
# verify.sh ran above; --ignore-scripts keeps prepublishOnly (the same checks, for a bare
# `npm publish`) from running them a second time.
npm publish --access public --ignore-scripts "$@"
