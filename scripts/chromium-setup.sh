#!/usr/bin/env bash
# Makes sure the browser tests (test/panel/) have a Chromium: Debian's `chromium` package at
# /usr/bin/chromium, and a font with Chinese glyphs for the Chinese screenshots
# (fonts-wqy-microhei, 1.6 MB). Playwright's own browser downloads are never used.
#
#   bash scripts/chromium-setup.sh
#
# Idempotent: with both present it installs nothing. Installs with apt-get (as root, or through
# `sudo -n`); when the package lists are stale it runs apt-get update once and tries again.
# Exits non-zero with a message saying what to do when Chromium cannot be installed.
set -euo pipefail

CHROMIUM=/usr/bin/chromium
missing() {
  packages=()
  [ -x "$CHROMIUM" ] || packages+=(chromium)
  if ! command -v fc-list >/dev/null 2>&1 || [ -z "$(fc-list :lang=zh 2>/dev/null | head -n 1)" ]; then
    packages+=(fonts-wqy-microhei)
  fi
  [ ${#packages[@]} -gt 0 ]
}
missing || exit 0

# Test files run in parallel and each calls this: one installs, the others wait and re-check.
if command -v flock >/dev/null 2>&1; then
  exec 9>"${TMPDIR:-/tmp}/dsh-memory-agent-chromium-setup.lock"
  flock 9
  missing || exit 0
fi

fail() {
  echo "chromium-setup: $1" >&2
  echo "chromium-setup: the browser tests need Debian's chromium at $CHROMIUM; install it with" >&2
  echo "chromium-setup:   apt-get update && apt-get install -y chromium fonts-wqy-microhei" >&2
  exit 1
}

if [ "$(id -u)" -eq 0 ]; then
  SUDO=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  SUDO=(sudo -n)
else
  fail "not root and no password-less sudo: cannot install ${packages[*]}"
fi
command -v apt-get >/dev/null 2>&1 || fail "apt-get not found (not a Debian-like system)"

export DEBIAN_FRONTEND=noninteractive
install() { "${SUDO[@]}" apt-get -o DPkg::Lock::Timeout=300 install -y --no-install-recommends "${packages[@]}"; }
echo "chromium-setup: installing ${packages[*]}" >&2
if ! install >&2; then
  "${SUDO[@]}" apt-get -o DPkg::Lock::Timeout=300 update >&2 || fail "apt-get update failed"
  if ! install >&2; then
    # Without the font only the Chinese screenshots suffer; without Chromium nothing runs.
    [ -x "$CHROMIUM" ] || fail "apt-get install ${packages[*]} failed"
    echo "chromium-setup: warning: could not install ${packages[*]}; Chinese text in screenshots shows as boxes" >&2
  fi
fi
[ -x "$CHROMIUM" ] || fail "$CHROMIUM is still missing after installing ${packages[*]}"
