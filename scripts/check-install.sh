#!/usr/bin/env bash
# Checks that the packages install into a user's own project: packs every package (`pnpm pack`,
# after `pnpm build`), creates a fresh project outside the repository that installs the tarballs,
# with their dependencies resolved offline from pnpm's store (which the repository's own install
# filled), and there:
#   - the addon is built on install (where cmake and a C++ compiler exist);
#   - a model importing @ppl/ppl and @ppl/tensor by name type-checks against the installed
#     declarations (and a wrong use of them is an error);
#   - the installed `ppl` samples it, with the addon and without it (the CPU backend).
# Takes about a minute, most of it compiling the addon. Usage: bash scripts/check-install.sh [DIR]
# (DIR: where to create the project; a new temporary directory by default). Exits non-zero on the
# first failure.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="${1:-$(mktemp -d /tmp/ppl-install-check-XXXXXX)}"
packs="$work/packs"
project="$work/project"
mkdir -p "$packs" "$project"

echo "check-install: packing into $packs" >&2
(cd "$repo" && pnpm build >/dev/null)
for p in tensor ppl vulkan ppl-vulkan cli; do
  (cd "$repo/packages/$p" && pnpm pack --pack-destination "$packs" >/dev/null)
done
tgz() { echo "$packs/ppl-$1-0.1.0.tgz"; }

cat >"$project/package.json" <<EOF
{
  "name": "ppl-install-check",
  "private": true,
  "type": "module",
  "dependencies": {
    "@ppl/cli": "file:$(tgz cli)",
    "@ppl/ppl": "file:$(tgz ppl)",
    "@ppl/tensor": "file:$(tgz tensor)"
  }
}
EOF
# The tarballs name each other by version; the overrides point those at the tarballs. The addon's
# install script and esbuild's are allowed to run, as a user allows them.
cat >"$project/pnpm-workspace.yaml" <<EOF
overrides:
  "@ppl/tensor": "file:$(tgz tensor)"
  "@ppl/ppl": "file:$(tgz ppl)"
  "@ppl/vulkan": "file:$(tgz vulkan)"
  "@ppl/ppl-vulkan": "file:$(tgz ppl-vulkan)"
allowBuilds:
  "@ppl/vulkan@file:$(realpath --relative-to="$project" "$(tgz vulkan)")": true
  esbuild: true
EOF
cp "$repo/examples/eight_schools.ts" "$repo/examples/eight_schools.json" "$project/"
cat >"$project/tsconfig.json" <<'EOF'
{
  "compilerOptions": {
    "target": "ES2022", "module": "NodeNext", "moduleResolution": "NodeNext", "strict": true,
    "noEmit": true, "skipLibCheck": false, "types": []
  },
  "include": ["eight_schools.ts"]
}
EOF

cd "$project"
echo "check-install: installing into $project (offline)" >&2
pnpm install --offline --reporter=append-only >install.log 2>&1 || { tail -30 install.log >&2; exit 1; }
addon="$(find node_modules/.pnpm -path '*@ppl/vulkan/build/Release/ppl_vulkan.node' | head -1)"
if command -v cmake >/dev/null && command -v c++ >/dev/null; then
  [ -n "$addon" ] || { echo "check-install: the addon was not built on install" >&2; tail -30 install.log >&2; exit 1; }
  echo "check-install: addon built on install: $addon" >&2
fi

tsc="$repo/node_modules/typescript/bin/tsc"
node "$tsc" -p tsconfig.json
echo 'import { normal } from "@ppl/ppl"; export const x: number = normal(0, 1);' >wrong.ts
if node "$tsc" --noEmit --strict --module nodenext --moduleResolution nodenext wrong.ts >wrong.log 2>&1; then
  echo "check-install: a wrong use of the declarations type-checked" >&2; exit 1
fi
grep -q "TS2322" wrong.log
echo "check-install: the model type-checks against the installed declarations" >&2

run() { ./node_modules/.bin/ppl sample eight_schools.ts --data eight_schools.json --chains 2 --warmup 200 --draws 100 --seed 5 --quiet "$@"; }
run --output out-auto >/dev/null
run --output out-cpu --backend cpu >/dev/null
# Without the addon the default backend is the CPU's, which draws as --backend cpu does.
PPL_VULKAN_ADDON=/nonexistent/ppl_vulkan.node run --output out-no-addon >/dev/null
for d in out-auto out-cpu out-no-addon; do
  [ -s "$d/chain-1.csv" ] && [ -s "$d/chain-2.csv" ] || { echo "check-install: $d has no chain files" >&2; exit 1; }
done
cmp <(grep -v '^#' out-cpu/chain-1.csv) <(grep -v '^#' out-no-addon/chain-1.csv)
./node_modules/.bin/ppl summary out-auto >/dev/null
echo "check-install: ok — the installed ppl sampled a model importing the packages by name, with and without the addon ($project)" >&2
