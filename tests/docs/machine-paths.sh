#!/usr/bin/env bash
# Documents name paths relative to the repository and commands anyone can run: no path of one
# machine (a scratch or build directory under /tmp, /work, /home or /root) in the README or docs/.
set -uo pipefail
root=${PPROF_SOURCE_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$root" || exit 2
hits=$(grep -nE '(^|[^A-Za-z0-9_$.])/(tmp|work|home|root)/[A-Za-z0-9_.-]' README.md docs/*.md docs/man/*.scd 2>/dev/null)
if [ -n "$hits" ]; then
  echo "documents that name one machine's paths:"
  echo "$hits"
  exit 1
fi
echo "ok: no machine paths in README.md, docs/*.md, docs/man/*.scd"
