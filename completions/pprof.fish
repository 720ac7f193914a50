# fish completion for libpprof's tools, installed once per tool under its name: the options
# are read from the tool's own --help, so they follow the version installed; only the values
# of a few options are listed here.
set -l cmd (string replace -r '\.fish$' '' -- (basename (status current-filename)))

# The sample types of the first existing file on the command line (not an option's value):
# the names from pprof-dump's header, without their units.
function __pprof_sample_types
    set -l words (commandline -opc)
    set -l prev ''
    for w in $words[2..-1]
        if not string match -q -- '-*' $w; and test -f $w
            and not contains -- $prev -o --output --base --diff-base --binary --kallsyms --files-from --report-file
            pprof-dump $w 2>/dev/null | sed -n '/^Samples:/{n;s#/[^ ]*##g;p;q}' | string split ' '
            return
        end
        set prev $w
    end
end
for line in (command $cmd --help 2>/dev/null | string match -r '^  -.*')
    set -l spec (string replace -r '^  (\S+(?: \S+)*).*$' '$1' -- $line)
    set -l desc (string trim (string replace -r '^  \S+(?: \S+)*' '' -- $line))
    set -l args -c $cmd
    set -l long (string match -r -g -- '--([A-Za-z0-9][A-Za-z0-9-]*)' $spec)
    set -l short (string match -r -g -- '^-([A-Za-z0-9])\b' $spec)
    test -n "$long"; and set -a args -l $long
    test -n "$short"; and set -a args -s $short
    test -n "$desc"; and set -a args -d $desc
    switch "$long"
        case compress
            set -a args -x -a 'gzip zstd none'
        case format
            switch $cmd
                case pprof-flame
                    set -a args -x -a 'html svg json'
                case pprof-check
                    set -a args -x -a 'text json sarif'
                case pprof-report pprof-top pprof-diff
                    set -a args -x -a 'text json'
                case '*'
                    set -a args -r
            end
        case sample-type sample-index sample-types
            set -a args -x -a '(__pprof_sample_types)'
        case to
            set -a args -x -a 'folded speedscope cpuprofile otlp pprof'
        case colors
            set -a args -x -a 'hot mem io red green blue aqua yellow purple orange lang'
        case fail-on
            set -a args -x -a 'error warning note'
        case inline-conflict
            set -a args -x -a 'keep longest error'
        case demangle
            set -a args -x -a 'full none'
        case report
            set -a args -x -a 'text json'
        case debug-dir sysroot source-path cache-dir
            set -a args -x -a '(__fish_complete_directories)'
        case list peek trim-path
            # a Go regexp, path prefixes: no file names
            set -a args -x
        case from
            if test $cmd = pprof-from-perf
                set -a args -x -a 'perf-data perf-script'
            else if test $cmd = pprof-convert
                set -a args -x -a 'folded cpuprofile otlp pprof'
            else
                set -a args -x -a 'folded pprof'
            end
        case labels
            test $cmd = pprof-from-perf; and set -a args -x -a 'pid tid comm cpu'
            test $cmd = pprof-from-perf; or set -a args -r
        case kallsyms
            set -a args -r -F
        case granularity
            set -a args -x -a 'functions filefunctions files lines addresses'
        case disable enable
            set -a args -x -a "all (command $cmd --list-rules 2>/dev/null | string replace -r ' .*' '')"
        case '*'
            # an option written "--name VALUE" or "--name=VALUE" takes a value
            string match -q -r -- '[ =]' $spec; and set -a args -r
    end
    complete $args
end
