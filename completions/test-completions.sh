#!/bin/sh
# The shell completions offer every tool's --help options (bash and fish complete "TOOL --"
# and must offer exactly the long options --help lists) and the values of --compress; zsh's
# file parses. Shells that are not installed are skipped.
# Usage: test-completions.sh BASH-FILE FISH-FILE ZSH-FILE TOOL...
bash_file=$1
fish_file=$2
zsh_file=$3
shift 3
. "$PPROF_SOURCE_ROOT/tests/cli/tap.sh"
for t in "$@"; do PATH=$(cd "$(dirname "$t")" && pwd):$PATH; done
export PATH

help_long() { # the long options of TOOL's --help, sorted
    "$1" --help | awk '/^  -/ {
        spec = substr($0, 3); sub(/  .*/, "", spec)
        n = split(spec, w, /[ ,=]+/)
        for (i = 1; i <= n; i++) if (w[i] ~ /^--[A-Za-z0-9]/) print w[i]
    }' | sort -u
}

bash_complete() { # TOOL LINE: what bash completion offers at the end of LINE
    bash -c '
        . /usr/share/bash-completion/bash_completion
        . "$1"
        COMP_LINE=$2 COMP_POINT=${#2}
        read -ra COMP_WORDS <<<"$2"
        case $2 in *" ") COMP_WORDS+=("") ;; esac
        COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
        _pprof_tool "${COMP_WORDS[0]}" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
        printf "%s\n" "${COMPREPLY[@]}"' _ "$bash_file" "$1"
}

mkdir "$tmp/fish"
profile=$PPROF_SOURCE_ROOT/corpus/examples/query-fib.pb.gz # sample types samples, cpu
for tool in "$@"; do
    name=$(basename "$tool")
    help_long "$tool" >"$tmp/want"
    if [ -f /usr/share/bash-completion/bash_completion ] && command -v bash >/dev/null; then
        bash_complete "$name --" | sed 's/=$//' | sort -u >"$tmp/bash"
        cmp -s "$tmp/want" "$tmp/bash"
        ok $? "bash: '$name --' offers exactly the long options of --help"
        cmp -s "$tmp/want" "$tmp/bash" || diag "$(diff "$tmp/want" "$tmp/bash")"
        if grep -qx -- --compress "$tmp/want"; then
            [ "$(bash_complete "$name --compress " | sort | tr '\n' ' ')" = "gzip none zstd " ]
            ok $? "bash: '$name --compress ' offers gzip, zstd, none"
        fi
        if [ "$name" = pprof-flame ]; then
            [ "$(bash_complete "$name --colors " | sort | tr '\n' ' ')" = "aqua blue green hot io lang mem orange purple red yellow " ]
            ok $? "bash: 'pprof-flame --colors ' offers the palettes"
            [ "$(bash_complete "$name --format " | sort | tr '\n' ' ')" = "html json svg " ]
            ok $? "bash: 'pprof-flame --format ' offers html, svg, json"
        fi
        if grep -qx -- --demangle "$tmp/want"; then
            [ "$(bash_complete "$name --demangle " | sort | tr '\n' ' ')" = "full none " ]
            ok $? "bash: '$name --demangle ' offers full, none"
        fi
        case $name in
        pprof-check) want_formats="json sarif text " ;;
        pprof-report | pprof-top | pprof-diff) want_formats="json text " ;;
        *) want_formats="" ;;
        esac
        if [ -n "$want_formats" ]; then
            got=$(bash_complete "$name --format " | sort | tr '\n' ' ')
            [ "$got" = "$want_formats" ]
            ok $? "bash: '$name --format ' offers $want_formats(got: $got)"
        fi
        if grep -qx -- --sample-type "$tmp/want"; then
            got=$(bash_complete "$name $profile --sample-type " | sort | tr '\n' ' ')
            [ "$got" = "cpu samples " ]
            ok $? "bash: '$name PROFILE --sample-type ' offers the profile's types (got: $got)"
        fi
        if [ "$name" = pprof-from-perf ]; then
            [ "$(bash_complete "$name --from " | sort | tr '\n' ' ')" = "perf-data perf-script " ]
            ok $? "bash: '$name --from ' offers perf-data, perf-script"
            bash_complete "$name --labels " | grep -qx comm
            ok $? "bash: '$name --labels ' offers comm"
        fi
    else
        skip "bash: $name" "bash-completion is not installed"
    fi
    if command -v fish >/dev/null; then
        cp "$fish_file" "$tmp/fish/$name.fish"
        fish --no-config -c "set -p fish_complete_path $tmp/fish; complete -C '$name --'" |
            cut -f1 | sed 's/=$//' | sort -u >"$tmp/fish.out"
        cmp -s "$tmp/want" "$tmp/fish.out"
        ok $? "fish: '$name --' offers exactly the long options of --help"
        cmp -s "$tmp/want" "$tmp/fish.out" || diag "$(diff "$tmp/want" "$tmp/fish.out")"
        if grep -qx -- --compress "$tmp/want"; then
            got=$(fish --no-config -c "set -p fish_complete_path $tmp/fish; complete -C '$name --compress='" |
                cut -f1 | sort | tr '\n' ' ')
            [ "$got" = "--compress=gzip --compress=none --compress=zstd " ]
            ok $? "fish: '$name --compress=' offers gzip, zstd, none (got: $got)"
        fi
        if [ "$name" = pprof-flame ]; then
            got=$(fish --no-config -c "set -p fish_complete_path $tmp/fish; complete -C '$name --format='" |
                cut -f1 | sort | tr '\n' ' ')
            [ "$got" = "--format=html --format=json --format=svg " ]
            ok $? "fish: 'pprof-flame --format=' offers html, svg, json (got: $got)"
        fi
        if grep -qx -- --demangle "$tmp/want"; then
            got=$(fish --no-config -c "set -p fish_complete_path $tmp/fish; complete -C '$name --demangle='" |
                cut -f1 | sort | tr '\n' ' ')
            [ "$got" = "--demangle=full --demangle=none " ]
            ok $? "fish: '$name --demangle=' offers full, none (got: $got)"
        fi
        if grep -qx -- --sample-type "$tmp/want"; then
            got=$(fish --no-config -c "set -p fish_complete_path $tmp/fish; complete -C '$name $profile --sample-type='" |
                cut -f1 | sort | tr '\n' ' ')
            [ "$got" = "--sample-type=cpu --sample-type=samples " ]
            ok $? "fish: '$name PROFILE --sample-type=' offers the profile's types (got: $got)"
        fi
        if [ "$name" = pprof-check ]; then
            got=$(fish --no-config -c "set -p fish_complete_path $tmp/fish; complete -C '$name --format='" |
                cut -f1 | sort | tr '\n' ' ')
            [ "$got" = "--format=json --format=sarif --format=text " ]
            ok $? "fish: 'pprof-check --format=' offers text, json, sarif (got: $got)"
        fi
        if [ "$name" = pprof-from-perf ]; then
            got=$(fish --no-config -c "set -p fish_complete_path $tmp/fish; complete -C '$name --from='" |
                cut -f1 | sort | tr '\n' ' ')
            [ "$got" = "--from=perf-data --from=perf-script " ]
            ok $? "fish: '$name --from=' offers perf-data, perf-script (got: $got)"
        fi
    else
        skip "fish: $name" "fish is not installed"
    fi
done
if command -v zsh >/dev/null; then
    zsh -n "$zsh_file"
    ok $? "zsh: _pprof parses"
    head -1 "$zsh_file" | grep -q '^#compdef -p pprof-\*$'
    ok $? "zsh: _pprof is registered for every pprof-* command"
else
    skip "zsh" "zsh is not installed"
fi
done_testing
