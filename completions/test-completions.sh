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

# has_opt OPT: the tool's --help lists OPT
has_opt() { grep -qx -- "$1" "$tmp/want"; }

# bash_offers LINE "V1 V2...": bash completes LINE with exactly these values (sorted)
bash_offers() {
    got=$(bash_complete "$1" | sort | tr '\n' ' ')
    [ "$got" = "$2 " ]
    ok $? "bash: '$1' offers $2 (got: $got)"
}

# fish_offers "TOOL ... --opt=" "V1 V2...": fish completes it with exactly --opt=V1 ... (sorted)
fish_offers() {
    opt=${1##* }
    want=$(for v in $2; do printf '%s%s ' "$opt" "$v"; done)
    got=$(fish --no-config -c "set -p fish_complete_path $tmp/fish; complete -C '$1'" |
        cut -f1 | sort | tr '\n' ' ')
    [ "$got" = "$want" ]
    ok $? "fish: '$1' offers $2 (got: $got)"
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
        has_opt --compress && bash_offers "$name --compress " "gzip none zstd"
        case $name in
        pprof-flame)
            bash_offers "$name --colors " "aqua blue green hot io lang mem orange purple red yellow"
            bash_offers "$name --format " "html json svg"
            ;;
        pprof-check) bash_offers "$name --format " "json sarif text" ;;
        pprof-report | pprof-top | pprof-diff) bash_offers "$name --format " "json text" ;;
        pprof-from-perf) bash_offers "$name --from " "perf-data perf-script" ;;
        pprof-convert)
            bash_offers "$name --to " "cpuprofile folded otlp pprof speedscope"
            bash_offers "$name --from " "cpuprofile folded otlp pprof"
            ;;
        esac
        has_opt --demangle && bash_offers "$name --demangle " "full none"
        has_opt --sample-type && bash_offers "$name $profile --sample-type " "cpu samples"
        if [ "$name" = pprof-report ]; then
            # --list takes a regexp (no file names); --source-path directories only
            bash_offers "$name --list " ""
            mkdir -p "$tmp/cwd/srcdir" && : >"$tmp/cwd/file.pb"
            got=$(cd "$tmp/cwd" && bash_complete "$name --source-path " | tr '\n' ' ')
            [ "$got" = "srcdir " ]
            ok $? "bash: '$name --source-path ' offers directories only (got: $got)"
        fi
        if [ "$name" = pprof-from-perf ]; then
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
        has_opt --compress && fish_offers "$name --compress=" "gzip none zstd"
        has_opt --demangle && fish_offers "$name --demangle=" "full none"
        has_opt --sample-type && fish_offers "$name $profile --sample-type=" "cpu samples"
        case $name in
        pprof-flame) fish_offers "$name --format=" "html json svg" ;;
        pprof-check) fish_offers "$name --format=" "json sarif text" ;;
        pprof-report | pprof-top | pprof-diff) fish_offers "$name --format=" "json text" ;;
        pprof-from-perf) fish_offers "$name --from=" "perf-data perf-script" ;;
        pprof-convert)
            fish_offers "$name --to=" "cpuprofile folded otlp pprof speedscope"
            fish_offers "$name --from=" "cpuprofile folded otlp pprof"
            ;;
        esac
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
