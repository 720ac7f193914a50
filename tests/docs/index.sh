#!/usr/bin/env bash
# The README stays an entry page and docs/README.md stays the index of every document:
# - README.md is at most 200 lines (tool detail lives in the man pages);
# - every docs/*.md and docs/bench/*.md is linked from docs/README.md;
# - every relative link of README.md and the documents names a file of the repository;
# - README.md gives the two commands and, with docs/architecture.md, the edit-build-test loop.
set -uo pipefail
root=${PPROF_SOURCE_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$root" || exit 2
fail=0

lines=$(wc -l <README.md)
if [ "$lines" -le 200 ]; then
  echo "ok: README.md has $lines lines (at most 200)"
else
  echo "README.md has $lines lines, more than 200: move tool detail to its man page (docs/man/) or a document under docs/"
  fail=1
fi

# The link targets of a markdown file, one per line: [text](target), without a #fragment;
# fenced code blocks and `code spans` hold no links.
links() {
  awk '/^ *```/ { f = !f; next } !f' "$1" | sed -E 's/`[^`]*`//g' |
    grep -oE '\]\([^)[:space:]]+\)' | sed -E 's/^\]\(//; s/\)$//; s/#.*$//'
}

indexed=$(links docs/README.md | sort -u)
n=0
for f in docs/*.md docs/bench/*.md; do
  [ "$f" = docs/README.md ] && continue
  n=$((n + 1))
  if ! grep -qxF "${f#docs/}" <<<"$indexed"; then
    echo "$f is not linked from docs/README.md: add a line for it under design, formats, tools or benchmarks"
    fail=1
  fi
done
echo "checked: docs/README.md links each of the $n documents above unless named"

bad=0
for f in README.md docs/*.md docs/bench/*.md; do
  dir=$(dirname "$f")
  while IFS= read -r t; do
    case "$t" in '' | *://* | mailto:*) continue ;; esac
    if [ ! -e "$dir/$t" ]; then
      echo "$f: link to $t: no such file ($dir/$t)"
      bad=1
    fi
  done < <(links "$f")
done
[ $bad -eq 0 ] && echo "ok: every relative link of README.md, docs/*.md and docs/bench/*.md names a file"
[ $bad -eq 0 ] || fail=1

for want in 'bash scripts/demo' 'bash scripts/test' 'ninja -C build && meson test -C build --suite quick'; do
  for f in README.md docs/architecture.md; do
    case "$want" in bash*) [ "$f" = README.md ] || continue ;; esac
    if grep -qF -- "$want" "$f"; then
      echo "ok: $f gives \`$want\`"
    else
      echo "$f does not give \`$want\`"
      fail=1
    fi
  done
done
for s in scripts/demo scripts/test; do
  [ -f "$s" ] || { echo "README.md names $s, which is not in the repository"; fail=1; }
done
exit $fail
