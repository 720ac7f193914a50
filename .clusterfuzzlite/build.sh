#!/bin/bash -eu
# Builds every fuzz harness the way OSS-Fuzz and ClusterFuzzLite call a project's build.sh:
# $CC/$CXX and $CFLAGS/$CXXFLAGS carry the sanitizer and coverage flags, $LIB_FUZZING_ENGINE
# links the engine, and each harness lands in $OUT with its seed corpus (fuzz_NAME_seed_corpus.zip:
# the kept corpus and the regressions) and its dictionary (fuzz_NAME.dict). $WORK holds the build.
# The dependencies are linked statically: the service runs the harnesses where only $OUT is.
# scripts/test runs this script with the local clang and libFuzzer (fuzz/oss-fuzz-check).
src=${SRC_DIR:-$(cd "$(dirname "$0")/.." && pwd)}
work=${WORK:-$(mktemp -d)}
build=$work/libpprof-fuzz-build
# meson takes CFLAGS for compiling only; the sanitizers' runtimes come in at link time.
export LDFLAGS="${LDFLAGS:-} ${CFLAGS:-}"
if [ ! -f "$build/build.ninja" ]; then
  meson setup "$build" "$src" -Dfuzzing=external -Dfuzz_link="$LIB_FUZZING_ENGINE" \
    -Dtools=false -Dtests=false -Dbench=false -Dman=disabled -Dwerror=false \
    -Dprefer_static=true -Db_lundef=false --buildtype=plain -Dgraphviz=disabled >/dev/null
fi
harnesses=$(sed -n "s/^fuzz_harnesses = \[\(.*\)\]/\1/p" "$src/fuzz/meson.build" | sed "s/[',]/ /g")
[ -n "${harnesses// /}" ] || { echo "build.sh: no harness list read from fuzz/meson.build" >&2; exit 1; }
targets=()
for h in $harnesses; do targets+=("fuzz/fuzz_$h"); done
ninja -C "$build" "${targets[@]}"
for h in $harnesses; do
  cp "$build/fuzz/fuzz_$h" "$OUT/"
  cp "$src/corpus/dict/pprof.dict" "$OUT/fuzz_$h.dict"
  seeds=("$src/corpus/$h")
  [ -d "$src/corpus/regress/$h" ] && seeds+=("$src/corpus/regress/$h")
  [ "$h" = checker ] && seeds+=("$src/corpus/check")
  rm -f "$OUT/fuzz_${h}_seed_corpus.zip"
  # -j: flat names as the service expects; files only (zip -r of each dir's contents)
  find "${seeds[@]}" -type f -print | zip -q -j -@ "$OUT/fuzz_${h}_seed_corpus.zip"
done
