// Command goconvert is the Go side of bench/convert-bench.sh: profile.Parse of one file, then
// profile.Write (gzip, Go's default level) or, with -raw, WriteUncompressed, to standard output.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"

	"github.com/google/pprof/profile"
)

func main() {
	raw := flag.Bool("raw", false, "write uncompressed (WriteUncompressed)")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: goconvert [-raw] FILE")
		os.Exit(2)
	}
	f, err := os.Open(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	p, err := profile.Parse(f)
	f.Close()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	if *raw {
		err = p.WriteUncompressed(w)
	} else {
		err = p.Write(w)
	}
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
}
