#!/bin/sh
# Every tool given has a man page docs/man/TOOL.1.scd whose OPTIONS section lists exactly the
# options its --help lists; every page source is in docs/man/meson.build's list; with scdoc
# installed, every page renders.
# Usage: test-help.sh "PAGE..." TOOL...
pages=$1
shift
. "$PPROF_SOURCE_ROOT/tests/cli/tap.sh"
man="$PPROF_SOURCE_ROOT/docs/man"

# Option names from --help: lines indented by exactly two spaces then '-'; the part before the
# first two-space gap is the option spec ("-o, --output FILE", "--compress=FORMAT").
help_opts() {
    "$1" --help | awk '/^  -/ {
        spec = substr($0, 3); sub(/  .*/, "", spec)
        n = split(spec, w, /[ ,=]+/)
        for (i = 1; i <= n; i++) if (w[i] ~ /^--?[A-Za-z0-9]/) print w[i]
    }' | sort -u
}
# Option names from a page: the *-x*, *--long* items of its OPTIONS section.
man_opts() {
    awk '/^# OPTIONS/ { f = 1; next } /^# / { f = 0 } f && /^\*-/' "$1" |
        grep -o '\*--*[A-Za-z0-9][A-Za-z0-9-]*' | tr -d '*' | sort -u
}

for tool in "$@"; do
    name=$(basename "$tool")
    page="$man/$name.1.scd"
    [ -f "$page" ]
    ok $? "$name has a man page ($name.1.scd)"
    [ -f "$page" ] || continue
    help_opts "$tool" >"$tmp/help"
    man_opts "$page" >"$tmp/man"
    [ -s "$tmp/help" ]
    ok $? "$name --help lists options"
    missing=$(comm -23 "$tmp/help" "$tmp/man" | tr '\n' ' ')
    [ -z "$missing" ]
    ok $? "$name: every --help option is in the page${missing:+ (missing: $missing)}"
    extra=$(comm -13 "$tmp/help" "$tmp/man" | tr '\n' ' ')
    [ -z "$extra" ]
    ok $? "$name: every option of the page is in --help${extra:+ (not in --help: $extra)}"
    case " $pages " in *" $name.1 "*) r=0 ;; *) r=1 ;; esac
    ok $r "$name.1 is in docs/man/meson.build's list"
done

for src in "$man"/*.scd; do
    page=$(basename "$src" .scd)
    case " $pages " in *" $page "*) r=0 ;; *) r=1 ;; esac
    ok $r "$page.scd is in docs/man/meson.build's list (so it is built and installed)"
    if command -v scdoc >/dev/null 2>&1; then
        scdoc <"$src" >"$tmp/page" 2>"$tmp/err" && grep -q '^\.SH' "$tmp/page"
        ok $? "$page renders with scdoc"
        [ -s "$tmp/err" ] && diag "$(cat "$tmp/err")"
    fi
done
done_testing
