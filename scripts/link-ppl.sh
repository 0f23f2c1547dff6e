#!/usr/bin/env bash
# Puts a real `ppl` on PATH: a symbolic link to packages/cli/bin/ppl.js (which runs the built
# command, packages/cli/dist/main.js, in the same process) in npm's directory of global
# commands — where pnpm itself was installed, so it is on PATH wherever pnpm is — or in
# PPL_BIN_DIR when set. Where that directory is not writable, ~/.local/bin is used and setup says
# whether it is on PATH.
set -euo pipefail
cd "$(dirname "$0")/.."
target="$PWD/packages/cli/bin/ppl.js"

dir="${PPL_BIN_DIR:-}"
if [ -z "$dir" ]; then
  dir="$(npm prefix -g)/bin"
  if ! [ -w "$dir" ]; then dir="$HOME/.local/bin"; fi
fi
mkdir -p "$dir"
link="$dir/ppl"
# Another program of that name is left alone; a link (ours, from an earlier checkout) is replaced.
if [ -e "$link" ] && ! [ -L "$link" ]; then
  echo "setup: $link exists and is not a link; not replacing it (use \`pnpm ppl\`, or remove it and run setup again)" >&2
  exit 0
fi
ln -sfn "$target" "$link"
case ":$PATH:" in
  *":$dir:"*) ;;
  *) echo "setup: linked $link; add $dir to PATH to run \`ppl\` (\`pnpm ppl\` works as it is)" >&2 ;;
esac
