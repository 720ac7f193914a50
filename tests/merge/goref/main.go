// Command goref is the Go reference for pprof-merge's equivalence test: it merges profiles with
// github.com/google/pprof/profile.Merge and prints a canonical semantic form that ignores ids,
// table order and address rebasing.
//
//	goref merge [-intersect] FILE...   canonical form of profile.Merge(FILE...)
//	goref canon FILE                   canonical form of one profile as it is
//	goref raw FILE                     Go's Profile.String() of it, not merged
//	goref sig FILE...                  "TYPES|PERIOD_TYPE FILE" per file ("invalid FILE")
//
// Canonical form: the sample types, the period type, then one line per distinct
// (stack, labels) with the summed values, sorted. A stack is its frames leaf to root; a frame is
// function|file|line for each Line of a Location (innermost first), or mapping+offset for a
// Location without lines.
package main

import (
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/google/pprof/profile"
)

func load(path string) *profile.Profile {
	f, err := os.Open(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", path, err)
		os.Exit(1)
	}
	return p
}

func frames(l *profile.Location) []string {
	if len(l.Line) == 0 {
		addr := l.Address
		name := ""
		if l.Mapping != nil {
			addr -= l.Mapping.Start
			name = l.Mapping.BuildID
			if name == "" {
				name = l.Mapping.File
			}
		}
		return []string{fmt.Sprintf("%s+%#x", name, addr)}
	}
	var out []string
	for _, ln := range l.Line {
		fn, file := "", ""
		if ln.Function != nil {
			fn, file = ln.Function.Name, ln.Function.Filename
		}
		out = append(out, fmt.Sprintf("%s|%s|%d", fn, file, ln.Line))
	}
	return out
}

func labels(s *profile.Sample) string {
	var parts []string
	for k, v := range s.Label {
		parts = append(parts, fmt.Sprintf("%q=%q", k, v))
	}
	for k, v := range s.NumLabel {
		parts = append(parts, fmt.Sprintf("%q=#%v%q", k, v, s.NumUnit[k]))
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

func canon(p *profile.Profile) {
	var types []string
	for _, st := range p.SampleType {
		types = append(types, st.Type+"/"+st.Unit)
	}
	fmt.Printf("types %s\n", strings.Join(types, ","))
	if p.PeriodType != nil {
		fmt.Printf("period_type %s/%s\n", p.PeriodType.Type, p.PeriodType.Unit)
	}
	sums := map[string][]int64{}
	for _, s := range p.Sample {
		var fr []string
		for _, l := range s.Location {
			fr = append(fr, frames(l)...)
		}
		k := strings.Join(fr, ";") + " {" + labels(s) + "}"
		v := sums[k]
		if v == nil {
			v = make([]int64, len(s.Value))
			sums[k] = v
		}
		for i, x := range s.Value {
			v[i] += x
		}
	}
	var lines []string
	for k, v := range sums {
		zero := true
		for _, x := range v {
			zero = zero && x == 0
		}
		if zero {
			continue
		}
		lines = append(lines, fmt.Sprintf("%v %s", v, k))
	}
	sort.Strings(lines)
	for _, l := range lines {
		fmt.Println(l)
	}
}

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: goref merge [-intersect] FILE... | goref canon FILE")
		os.Exit(2)
	}
	switch os.Args[1] {
	case "sig":
		// one line per file: its merge-compatibility signature, or "invalid"
		for _, a := range os.Args[2:] {
			f, err := os.Open(a)
			if err != nil {
				fmt.Printf("invalid %s\n", a)
				continue
			}
			p, err := profile.Parse(f)
			f.Close()
			if err != nil {
				fmt.Printf("invalid %s\n", a)
				continue
			}
			var types []string
			for _, st := range p.SampleType {
				types = append(types, st.Type+"/"+st.Unit)
			}
			pt := ""
			if p.PeriodType != nil {
				pt = p.PeriodType.Type + "/" + p.PeriodType.Unit
			}
			fmt.Printf("%s|%s %s\n", strings.Join(types, ","), pt, a)
		}
	case "canon":
		canon(load(os.Args[2]))
	case "raw":
		// goref raw FILE: what `go tool pprof -raw -symbolize=none` prints of FILE without its
		// merge of the input: profile.Parse, the fake mapping the driver adds to a profile
		// without mappings, then Profile.String()
		p := load(os.Args[2])
		if len(p.Mapping) == 0 {
			m := &profile.Mapping{ID: 1}
			p.Mapping = []*profile.Mapping{m}
			for _, l := range p.Location {
				l.Mapping = m
			}
		}
		fmt.Print(p.String())
	case "default":
		// goref default TYPE IN OUT: IN with its default sample type set to TYPE ("" = none),
		// as /debug/pprof/allocs differs from /debug/pprof/heap
		if len(os.Args) != 5 {
			os.Exit(2)
		}
		p := load(os.Args[3])
		p.DefaultSampleType = os.Args[2]
		f, err := os.Create(os.Args[4])
		if err == nil {
			err = p.Write(f)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	case "merge":
		args := os.Args[2:]
		intersect := false
		if args[0] == "-intersect" {
			intersect, args = true, args[1:]
		}
		var ps []*profile.Profile
		for _, a := range args {
			ps = append(ps, load(a))
		}
		if intersect {
			if err := compatibilize(ps); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
		}
		m, err := profile.Merge(ps)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		canon(m)
	default:
		os.Exit(2)
	}
}

// compatibilize is google/pprof's CompatibilizeSampleTypes (PR #734), which the packaged 2021
// version lacks: keep the sample types (by type name) common to all profiles, in the first
// profile's order.
func compatibilize(ps []*profile.Profile) error {
	common := map[string]int{}
	for _, p := range ps {
		seen := map[string]bool{}
		for _, st := range p.SampleType {
			if !seen[st.Type] {
				seen[st.Type] = true
				common[st.Type]++
			}
		}
	}
	var keep []string
	for _, st := range ps[0].SampleType {
		if common[st.Type] == len(ps) {
			keep = append(keep, st.Type)
		}
	}
	if len(keep) == 0 {
		return fmt.Errorf("profiles have empty common sample type list")
	}
	for _, p := range ps {
		idx := map[string]int{}
		for i, st := range p.SampleType {
			if _, ok := idx[st.Type]; !ok {
				idx[st.Type] = i
			}
		}
		var types []*profile.ValueType
		for _, t := range keep {
			types = append(types, p.SampleType[idx[t]])
		}
		for _, s := range p.Sample {
			v := make([]int64, len(keep))
			for i, t := range keep {
				v[i] = s.Value[idx[t]]
			}
			s.Value = v
		}
		p.SampleType = types
	}
	return nil
}
