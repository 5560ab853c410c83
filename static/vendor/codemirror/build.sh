#!/usr/bin/env bash
# Rebuild codemirror.bundle.js (one minified ES module) and LICENSES.txt from
# the versions pinned in package.json / package-lock.json, in a temporary
# folder: npm ci, then esbuild. Needs Node.js and npm.
#
#   bash static/vendor/codemirror/build.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp "$here/package.json" "$here/package-lock.json" "$here/index.mjs" "$work/"
cd "$work"
npm ci --no-audit --no-fund --loglevel=error
npx esbuild index.mjs --bundle --format=esm --minify --legal-comments=none \
  --outfile="$here/codemirror.bundle.js"
{
  for dir in $(find node_modules -name package.json -path '*node_modules/*/package.json' \
      -not -path '*/esbuild*' -not -path '*/node_modules/*/node_modules/*' | sort); do
    pkg="$(dirname "$dir")"
    [ -f "$pkg/LICENSE" ] || continue
    echo "=== ${pkg#node_modules/} $(node -p "require('./$dir').version")"
    cat "$pkg/LICENSE"
    echo
  done
} > "$here/LICENSES.txt"
echo "Wrote $here/codemirror.bundle.js and LICENSES.txt"
