// Computes Go's answers for the pattern table in cases.txt: whether regexp.Compile accepts
// each pattern (and Go's reason when it does not) and whether MatchString matches each subject.
// Run from the repository root: go run tests/regex/gen.go tests/regex/cases.txt >tests/regex/expected.tsv
// The 'regex-go-table' test (suite slow) reruns it and compares with the checked-in file.
package main

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"os"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
)

// fields splits a line into Go-quoted strings separated by blanks.
func fields(line string) ([]string, error) {
	var out []string
	for {
		line = strings.TrimLeft(line, " \t")
		if line == "" {
			return out, nil
		}
		q, err := strconv.QuotedPrefix(line)
		if err != nil {
			return nil, fmt.Errorf("%q: %v", line, err)
		}
		s, _ := strconv.Unquote(q)
		out = append(out, s)
		line = line[len(q):]
	}
}

// hx is s in hex, "-" when empty.
func hx(s string) string {
	if s == "" {
		return "-"
	}
	return hex.EncodeToString([]byte(s))
}

func main() {
	f, err := os.Open(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	fmt.Println("# Go's answers for tests/regex/cases.txt, written by tests/regex/gen.go; do not edit.")
	fmt.Println("# P<TAB>pattern hex (or N<TAB>count<TAB>open hex<TAB>core hex<TAB>close hex: open^count core close^count),")
	fmt.Println("# then E<TAB>Go's reason, or M<TAB>subject hex<TAB>0 or 1 per subject (- is empty)")
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		nest := 0
		if strings.HasPrefix(line, "nest ") {
			sp := strings.IndexByte(line[5:], ' ')
			nest, _ = strconv.Atoi(line[5 : 5+sp])
			line = line[5+sp:]
		}
		fs, err := fields(line)
		if err != nil || len(fs) == 0 || (nest > 0 && len(fs) < 3) {
			fmt.Fprintf(os.Stderr, "cases.txt:%d: bad line: %v\n", n, err)
			os.Exit(1)
		}
		pat := fs[0]
		subj := fs[1:]
		if nest > 0 { // nest N "open" "core" "close" subjects...: open^N core close^N
			pat = strings.Repeat(fs[0], nest) + fs[1] + strings.Repeat(fs[2], nest)
			subj = fs[3:]
		}
		if nest > 0 {
			fmt.Printf("N\t%d\t%s\t%s\t%s\n", nest, hx(fs[0]), hx(fs[1]), hx(fs[2]))
		} else {
			fmt.Printf("P\t%s\n", hx(pat))
		}
		re, err := regexp.Compile(pat)
		if err != nil {
			why := err.Error()
			if e, ok := err.(*syntax.Error); ok {
				why = string(e.Code)
			}
			fmt.Printf("E\t%s\n", why)
			continue
		}
		for _, s := range subj {
			m := 0
			if re.MatchString(s) {
				m = 1
			}
			fmt.Printf("M\t%s\t%d\n", hx(s), m)
		}
	}
}
