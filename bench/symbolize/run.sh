#!/bin/sh
# The symbolization benchmark (docs/bench/symbolize.md): N addresses (default 20000) spread over
# the instructions of bench/symbolize/gen.sh's binary, as a profile of raw addresses; then
# pprof-symbolize, llvm-symbolizer --inlines (one process, every address on stdin) and
# go tool pprof -symbolize=local -proto, each timed with /usr/bin/time; then the frames of
# pprof-symbolize compared with llvm-symbolizer's, address by address.
#   bench/symbolize/run.sh BUILD BIN [N]
set -eu
build=$1 bin=$2 n=${3:-20000}
src=$(cd "$(dirname "$0")/../.." && pwd)
w=$(mktemp -d /tmp/pprof-symbench.XXXXXX)
trap 'rm -rf "$w"' EXIT
SRC=$src python3 - "$build/tests/symbolize/sz_mkprofile" "$bin" "$n" "$w" <<'PY'
import os, sys
sys.path.insert(0, os.path.join(os.environ["SRC"], "tests", "symbolize"))
import symtest as st
mk, binary, n, w = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
addrs = st.instructions(binary, n)
base = st.base_for(binary)
st.profile_for(mk, os.path.join(w, "raw.pb.gz"), binary, addrs, base)
open(os.path.join(w, "addrs"), "w").write("".join("0x%x\n" % a for a in addrs))
print("%d addresses" % len(addrs))
PY
runone() { name=$1; shift; /usr/bin/time -f "$name: %e s wall, %U s user, %M KB peak RSS" "$@" 2>"$w/time.$name" >"$w/out.$name" || true; tail -1 "$w/time.$name"; }
runone pprof-symbolize "$build/tools/pprof-symbolize" "$w/raw.pb.gz" -o "$w/sym.pb.gz" --demangle=none --report-file "$w/rep"
runone llvm-symbolizer sh -c "llvm-symbolizer --inlines --no-demangle --obj='$bin' < '$w/addrs'"
runone go-pprof sh -c "go tool pprof -symbolize=local -proto '$w/raw.pb.gz' > '$w/go.pb.gz'"
SRC=$src python3 - "$build/tools/pprof-dump" "$bin" "$w" <<'PY'
import os, sys
sys.path.insert(0, os.path.join(os.environ["SRC"], "tests", "symbolize"))
import symtest as st
dump, binary, w = sys.argv[1:4]
base = st.base_for(binary)
addrs = [int(l, 16) for l in open(os.path.join(w, "addrs"))]
ours, _ = st.frames_by_address(st.dump(dump, os.path.join(w, "sym.pb.gz")))
llvm = st.llvm_frames(binary, addrs, demangle=False)
fix = lambda fr: [("??" if x == "" else x, f, l, c) for (x, f, l, c) in fr]
diff = [a for a in addrs if fix(st.ours_as_llvm(ours.get(base + a, []))) != llvm[a]]
print("identical to llvm-symbolizer --inlines: %d of %d (%.3f %%)" % (len(addrs) - len(diff), len(addrs), 100.0 * (len(addrs) - len(diff)) / len(addrs)))
for a in diff[:20]:
    print("  0x%x ours %s" % (a, fix(st.ours_as_llvm(ours.get(base + a, [])))))
    print("  0x%x llvm %s" % (a, llvm[a]))
PY
