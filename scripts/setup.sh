#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine (Node 20 present) for this repository: system packages
# (only those missing), pnpm pinned through npm, workspace dependencies, the native addon, and
# `ppl` on PATH (scripts/link-ppl.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES="mesa-vulkan-drivers libvulkan-dev glslc cmake g++ make python3 chromium"
missing=""
for p in $APT_PACKAGES; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "setup: installing system packages:$missing" >&2
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q >/dev/null
  $SUDO apt-get install -y -q --no-install-recommends $missing >/dev/null
fi

PNPM_VERSION=12.4.2
if ! command -v pnpm >/dev/null 2>&1 || [ "$(pnpm --version 2>/dev/null)" != "$PNPM_VERSION" ]; then
  echo "setup: installing pnpm $PNPM_VERSION" >&2
  npm install -g --silent "pnpm@$PNPM_VERSION" >/dev/null
fi

pnpm install --frozen-lockfile --reporter=silent
pnpm build
bash scripts/link-ppl.sh
