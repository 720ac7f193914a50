#!/usr/bin/env bash
# Documents name paths relative to the repository and commands anyone can run: no path of one
# machine (a scratch or build directory under /tmp, /work, /home or /root) in the README or docs/.
# And the repository is self-contained: no build file, script, test, source or document names a
# directory beside it (the dot-dot "shared" one) or the machine's work tree, so a clone anywhere runs every test.
set -uo pipefail
root=${PPROF_SOURCE_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$root" || exit 2
fail=0
hits=$(grep -nE '(^|[^A-Za-z0-9_$.])/(tmp|work|home|root)/[A-Za-z0-9_.-]' README.md docs/*.md docs/bench/*.md docs/man/*.scd 2>/dev/null)
if [ -n "$hits" ]; then
  echo "documents that name one machine's paths:"
  echo "$hits"
  fail=1
else
  echo "ok: no machine paths in README.md, docs/*.md, docs/bench/*.md, docs/man/*.scd"
fi

# The files a build or a test reads, and every document: tracked ones when this is a git
# checkout, else (a release tarball) every file of the tree but build directories.
files() {
  if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git ls-files -z
  else
    find . -path ./.git -prune -o -path './build*' -prune -o -path './subprojects' -prune \
      -o -type f -print0 | sed -z 's|^\./||'
  fi | grep -zE '(^|/)(meson\.build|meson_options\.txt)$|\.(c|h|py|md|def|sh|scd|awk|txt)$|^(scripts|tests|bench|\.ci)/' |
    xargs -0 -r grep -IlE '\.\./shared|/wor[k]/' 2>/dev/null
}
outside=$(files)
if [ -n "$outside" ]; then
  echo "files that name a path outside the repository (a sibling "shared" directory or the work tree):"
  for f in $outside; do grep -nHE '\.\./shared|/wor[k]/' "$f" | head -3; done
  fail=1
else
  echo "ok: no meson file, script, test, source or document names a sibling "shared" directory or the work tree"
fi

# Every document under docs/ that a file cites (a page or a man page) is in the repository.
cited=$(files_all() { if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then git ls-files -z;
  else find . -path ./.git -prune -o -path './build*' -prune -o -type f -print0; fi; }
  files_all | xargs -0 -r grep -IohE '(^|[^A-Za-z0-9_./-])docs/[A-Za-z0-9_/-]+\.(md|scd)' 2>/dev/null |
    sed -E 's|^[^d]*||' | sort -u)
missing=0
for d in $cited; do
  [ -f "$d" ] || { echo "cited but not in the repository: $d"; missing=1; fail=1; }
done
[ $missing -eq 0 ] && echo "ok: every cited docs/ file is in the repository ($(echo "$cited" | wc -w) cited)"
exit $fail
