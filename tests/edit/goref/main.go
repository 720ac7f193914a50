// Command goref is the Go reference for pprof-edit's equivalence test (tests/edit/go-equiv.sh).
// It applies, with github.com/google/pprof/profile, the transforms that `go tool pprof -proto`
// has no flag for, and prints a canonical semantic form of a profile that both sides of the
// comparison go through.
//
//	goref canon FILE            canonical form of FILE as it is
//	goref apply FILE OP...      canonical form after applying OP... in the order given
//	goref gen SEED OUT [drop|baddrop]  write a generated profile (inline frames, labels, 3
//	                            types; with drop_frames/keep_frames, or an invalid drop_frames)
//
// Operations (the profile package's functions; those it lacks in this version are written
// after upstream's, see the comments):
//
//	aggregate=GRAN[,noinlines]  Aggregate as go tool pprof's -granularity/-noinlines do
//	scale=[TYPE=]F[,...]        Scale(F), or one ScaleN (F for TYPE, or all; later wins)
//	normalize=BASEFILE          Normalize(base)
//	setlabel=K=V                SetLabel(K, [V])
//	setnumlabel=K=N[:UNIT]      SetNumLabel(K, [N], [UNIT])
//	removelabel=K               RemoveLabel(K) (pprof-edit's --remove-label is this and
//	                            removenumlabel)
//	removenumlabel=K            RemoveNumLabel(K)
//	renamelabel=OLD=NEW         string and numeric labels of key OLD get key NEW
//	types=T[,T...]              keep only these sample types, in this order
//	prune=DROP[/KEEP]           Prune(^(DROP)$, ^(KEEP)$) like RemoveUninteresting
//	uninteresting               RemoveUninteresting (the profile's drop_frames/keep_frames)
//	compact                     Compact (go tool pprof merges its input once, which drops
//	                            all-zero samples)
//
// Canonical form, a text meant for cmp/diff: header lines (types, default type, period type,
// period, time and duration, drop/keep frames, comments), one "mapping" line per mapping that a
// sample reaches, then one line per distinct (stack, labels) with the summed values, sorted;
// all-zero lines are left out. A stack is its locations leaf to root; a location is its address,
// its mapping's file and its lines innermost first (function|system name if it differs|file|
// start line|line). Ids, table order, string order and unreferenced entries do not show.
package main

import (
	"fmt"
	"math/rand"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/google/pprof/profile"
)

func die(code int, format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "goref: "+format+"\n", args...)
	os.Exit(code)
}

func load(path string) *profile.Profile {
	f, err := os.Open(path)
	if err != nil {
		die(3, "%v", err)
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		die(1, "%s: %v", path, err)
	}
	return p
}

// text is s as it is when it is printable UTF-8, else quoted, so that one canonical line stays
// one line whatever the names hold.
func text(s string) string {
	if !utf8.ValidString(s) {
		return strconv.Quote(s)
	}
	for _, r := range s {
		if !unicode.IsPrint(r) {
			return strconv.Quote(s)
		}
	}
	return s
}

func location(l *profile.Location) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%#x", l.Address)
	if !emptyMapping(l.Mapping) {
		fmt.Fprintf(&b, "@%s", text(l.Mapping.File))
	}
	if l.IsFolded {
		b.WriteString("[folded]")
	}
	for i, ln := range l.Line {
		if i == 0 {
			b.WriteString(":")
		} else {
			b.WriteString("/")
		}
		if f := ln.Function; f != nil {
			b.WriteString(text(f.Name))
			if f.SystemName != f.Name {
				fmt.Fprintf(&b, "|sys=%s", text(f.SystemName))
			}
			fmt.Fprintf(&b, "|%s", text(f.Filename))
			if f.StartLine != 0 {
				fmt.Fprintf(&b, "|start=%d", f.StartLine)
			}
		} else {
			b.WriteString("<nofunc>")
		}
		fmt.Fprintf(&b, "|%d", ln.Line)
	}
	return b.String()
}

// emptyMapping says whether m carries nothing: go tool pprof gives the locations of a profile
// without mappings such a mapping (driver/fetch.go, "add a fake mapping").
func emptyMapping(m *profile.Mapping) bool {
	return m == nil || *m == profile.Mapping{ID: m.ID}
}

func labels(s *profile.Sample) string {
	var parts []string
	for k, v := range s.Label {
		if len(v) > 0 {
			parts = append(parts, fmt.Sprintf("%q=%q", k, v))
		}
	}
	for k, v := range s.NumLabel {
		if len(v) == 0 {
			continue
		}
		var vs []string
		for i, x := range v {
			u := ""
			if i < len(s.NumUnit[k]) {
				u = s.NumUnit[k][i]
			}
			vs = append(vs, fmt.Sprintf("%d%s", x, u))
		}
		parts = append(parts, fmt.Sprintf("%q=#%s", k, strings.Join(vs, ",")))
	}
	sort.Strings(parts)
	return strings.Join(parts, " ")
}

func canon(p *profile.Profile) {
	var types []string
	for _, st := range p.SampleType {
		types = append(types, st.Type+"/"+st.Unit)
	}
	fmt.Printf("types %s\n", strings.Join(types, ","))
	fmt.Printf("default_sample_type %q\n", p.DefaultSampleType)
	if p.PeriodType != nil {
		fmt.Printf("period_type %s/%s\n", p.PeriodType.Type, p.PeriodType.Unit)
	}
	fmt.Printf("period %d\n", p.Period)
	fmt.Printf("time %d duration %d\n", p.TimeNanos, p.DurationNanos)
	fmt.Printf("drop_frames %q keep_frames %q\n", p.DropFrames, p.KeepFrames)
	fmt.Printf("comments %q\n", p.Comments)

	locText := map[*profile.Location]string{}
	mappings := map[*profile.Mapping]bool{}
	sums := map[string][]int64{}
	for _, s := range p.Sample {
		var fr []string
		for _, l := range s.Location {
			t, ok := locText[l]
			if !ok {
				t = location(l)
				locText[l] = t
			}
			fr = append(fr, t)
			if !emptyMapping(l.Mapping) {
				mappings[l.Mapping] = true
			}
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
	var ms []string
	for m := range mappings {
		ms = append(ms, fmt.Sprintf("mapping %#x-%#x+%#x %q build=%q fn=%v file=%v line=%v inl=%v",
			m.Start, m.Limit, m.Offset, m.File, m.BuildID,
			m.HasFunctions, m.HasFilenames, m.HasLineNumbers, m.HasInlineFrames))
	}
	sort.Strings(ms)
	for _, m := range ms {
		fmt.Println(m)
	}
	var lines []string
	for k, v := range sums {
		zero := true
		for _, x := range v {
			zero = zero && x == 0
		}
		if !zero {
			lines = append(lines, fmt.Sprintf("%v %s", v, k))
		}
	}
	sort.Strings(lines)
	for _, l := range lines {
		fmt.Println(l)
	}
}

func typeIndex(p *profile.Profile, t string) int {
	for i, st := range p.SampleType {
		if st.Type == t {
			return i
		}
	}
	die(2, "no sample type %q", t)
	return -1
}

func anchored(rx string) *regexp.Regexp {
	return regexp.MustCompile("^(" + rx + ")$")
}

func apply(p *profile.Profile, op string) *profile.Profile {
	name, arg := op, ""
	if i := strings.IndexByte(op, '='); i >= 0 {
		name, arg = op[:i], op[i+1:]
	}
	kv := func() (string, string) {
		i := strings.IndexByte(arg, '=')
		if i < 0 {
			die(2, "%s: want KEY=VALUE", op)
		}
		return arg[:i], arg[i+1:]
	}
	var err error
	switch name {
	case "aggregate":
		err = aggregate(p, arg)
	case "scale":
		err = scale(p, arg)
	case "normalize":
		err = p.Normalize(load(arg))
	case "setlabel":
		k, v := kv()
		p.SetLabel(k, []string{v})
	case "setnumlabel":
		k, v := kv()
		unit := ""
		if i := strings.IndexByte(v, ':'); i >= 0 {
			v, unit = v[:i], v[i+1:]
		}
		n, _ := strconv.ParseInt(v, 10, 64)
		setNumLabel(p, k, []int64{n}, []string{unit})
	case "removelabel":
		p.RemoveLabel(arg)
	case "removenumlabel":
		removeNumLabel(p, arg)
	case "renamelabel":
		from, to := kv()
		renameLabel(p, from, to)
	case "types":
		keepTypes(p, strings.Split(arg, ","))
	case "prune":
		drop, keep := arg, ""
		if i := strings.IndexByte(arg, '/'); i >= 0 {
			drop, keep = arg[:i], arg[i+1:]
		}
		var keepRx *regexp.Regexp
		if keep != "" {
			keepRx = anchored(keep)
		}
		p.Prune(anchored(drop), keepRx)
	case "uninteresting":
		err = p.RemoveUninteresting()
	case "compact":
		p = p.Compact()
	default:
		die(2, "unknown operation %q", op)
	}
	if err != nil {
		die(1, "%s: %v", op, err)
	}
	return p
}

// scale applies "[TYPE=]F[,[TYPE=]F...]" as one ScaleN: F alone is for every type, a later entry
// overrides an earlier one (pprof-edit's repeated --scale); F alone, once, is Scale(F).
func scale(p *profile.Profile, arg string) error {
	ratios := make([]float64, len(p.SampleType))
	for j := range ratios {
		ratios[j] = 1
	}
	for _, e := range strings.Split(arg, ",") {
		t, v := "", e
		if i := strings.LastIndexByte(e, '='); i >= 0 {
			t, v = e[:i], e[i+1:]
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			die(2, "scale: %v", err)
		}
		if t == "" {
			if !strings.Contains(arg, ",") {
				p.Scale(f)
				return nil
			}
			for j := range ratios {
				ratios[j] = f
			}
		} else {
			ratios[typeIndex(p, t)] = f
		}
	}
	return p.ScaleN(ratios)
}

// aggregate is go tool pprof's driver.aggregate (internal/driver/driver.go).
func aggregate(p *profile.Profile, arg string) error {
	gran, inlines := arg, true
	if strings.HasSuffix(arg, ",noinlines") {
		gran, inlines = strings.TrimSuffix(arg, ",noinlines"), false
	}
	var function, filename, linenumber, address bool
	switch gran {
	case "addresses":
		if inlines {
			return nil
		}
		function, filename, linenumber, address = true, true, true, true
	case "lines":
		function, filename, linenumber = true, true, true
	case "files":
		filename = true
	case "functions":
		function = true
	case "filefunctions":
		function, filename = true, true
	default:
		die(2, "unexpected granularity %q", gran)
	}
	return p.Aggregate(inlines, function, filename, linenumber, address)
}

// setNumLabel and removeNumLabel are upstream's Profile.SetNumLabel and RemoveNumLabel (added
// after the packaged version): the key's values and units are replaced or removed together.
func setNumLabel(p *profile.Profile, key string, value []int64, unit []string) {
	for _, s := range p.Sample {
		if s.NumLabel == nil {
			s.NumLabel = map[string][]int64{}
		}
		if s.NumUnit == nil {
			s.NumUnit = map[string][]string{}
		}
		s.NumLabel[key] = value
		s.NumUnit[key] = unit
	}
}

func removeNumLabel(p *profile.Profile, key string) {
	for _, s := range p.Sample {
		delete(s.NumLabel, key)
		delete(s.NumUnit, key)
	}
}

// renameLabel has no Go counterpart: every label entry with key OLD gets key NEW (string and
// numeric, units kept). A sample that also has NEW keeps both sets of values, in the order of
// its label entries; for a profile that Go wrote (goref gen), that is the order of the keys.
func renameLabel(p *profile.Profile, from, to string) {
	for _, s := range p.Sample {
		if v, ok := s.Label[from]; ok {
			delete(s.Label, from)
			if from < to {
				s.Label[to] = append(append([]string{}, v...), s.Label[to]...)
			} else {
				s.Label[to] = append(append([]string{}, s.Label[to]...), v...)
			}
		}
		if v, ok := s.NumLabel[from]; ok {
			u := s.NumUnit[from]
			delete(s.NumLabel, from)
			delete(s.NumUnit, from)
			tv, tu := s.NumLabel[to], s.NumUnit[to]
			// units are per value; a key without units has none for any of its values
			if len(u) == 0 && len(v) > 0 {
				u = make([]string, len(v))
			}
			if len(tu) == 0 && len(tv) > 0 {
				tu = make([]string, len(tv))
			}
			if from < to {
				s.NumLabel[to] = append(append([]int64{}, v...), tv...)
				u = append(append([]string{}, u...), tu...)
			} else {
				s.NumLabel[to] = append(append([]int64{}, tv...), v...)
				u = append(append([]string{}, tu...), u...)
			}
			if s.NumUnit == nil {
				s.NumUnit = map[string][]string{}
			}
			s.NumUnit[to] = u
		}
	}
}

// keepTypes has no Go counterpart (-sample_index does not change -proto output): the named
// types' values, in the order given; the default sample type is kept if it is one of them.
func keepTypes(p *profile.Profile, names []string) {
	idx := make([]int, len(names))
	var types []*profile.ValueType
	keepDefault := false
	for i, n := range names {
		idx[i] = typeIndex(p, n)
		types = append(types, p.SampleType[idx[i]])
		keepDefault = keepDefault || n == p.DefaultSampleType
	}
	for _, s := range p.Sample {
		v := make([]int64, len(idx))
		for i, j := range idx {
			v[i] = s.Value[j]
		}
		s.Value = v
	}
	p.SampleType = types
	if !keepDefault {
		p.DefaultSampleType = ""
	}
}

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: goref canon FILE | goref apply FILE OP... | goref gen SEED OUT [drop|baddrop]")
		os.Exit(2)
	}
	switch os.Args[1] {
	case "canon":
		canon(load(os.Args[2]))
	case "apply":
		p := load(os.Args[2])
		for _, op := range os.Args[3:] {
			p = apply(p, op)
		}
		canon(p)
	case "gen":
		if len(os.Args) < 4 {
			die(2, "gen SEED OUT [drop|baddrop]")
		}
		seed, _ := strconv.ParseInt(os.Args[2], 10, 64)
		variant := ""
		if len(os.Args) > 4 {
			variant = os.Args[4]
		}
		p := generate(seed, variant)
		f, err := os.Create(os.Args[3])
		if err != nil {
			die(3, "%v", err)
		}
		if err := p.Write(f); err != nil {
			die(3, "%v", err)
		}
		if err := f.Close(); err != nil {
			die(3, "%v", err)
		}
	default:
		die(2, "unknown mode %q", os.Args[1])
	}
}

// generate builds a small profile that exercises what the corpus has little of: inline frames,
// locations without lines, function names with argument lists (Prune strips them), string
// labels with several values, numeric labels with and without units (and a key whose unit
// varies), three sample types, empty stacks, and header drop/keep frames with drop (baddrop: a
// drop_frames that does not compile).
func generate(seed int64, variant string) *profile.Profile {
	r := rand.New(rand.NewSource(seed))
	p := &profile.Profile{
		SampleType: []*profile.ValueType{
			{Type: "samples", Unit: "count"},
			{Type: "cpu", Unit: "nanoseconds"},
			{Type: "alloc_space", Unit: "bytes"},
		},
		DefaultSampleType: "cpu",
		PeriodType:        &profile.ValueType{Type: "cpu", Unit: "nanoseconds"},
		Period:            10000000,
		TimeNanos:         1700000000000000000 + seed,
		DurationNanos:     10000000000,
		Comments:          []string{"generated by tests/edit/goref", fmt.Sprintf("seed %d", seed)},
	}
	switch variant {
	case "drop":
		p.DropFrames = `runtime\..*|std::__1::.*`
		p.KeepFrames = `runtime\.main|std::__1::thread.*`
	case "baddrop": // Go's RemoveUninteresting fails, and go tool pprof goes on unpruned
		p.DropFrames = `runtime\.(`
	}
	p.Mapping = []*profile.Mapping{
		{ID: 1, Start: 0x400000, Limit: 0x800000, File: "/usr/bin/server", BuildID: "b1d5e7",
			HasFunctions: true, HasFilenames: true, HasLineNumbers: true, HasInlineFrames: true},
		{ID: 2, Start: 0x7f0000000000, Limit: 0x7f0000200000, Offset: 0x1000,
			File: "/lib/x86_64-linux-gnu/libc.so.6", BuildID: "c0ffee", HasFunctions: true},
		{ID: 3, Start: 0x7fff0000, Limit: 0x7fff2000, File: "[vdso]"},
	}
	names := []struct{ name, file string }{
		{"main.main", "/src/server/main.go"},
		{"runtime.main", "/usr/lib/go/src/runtime/proc.go"},
		{"runtime.goexit", "/usr/lib/go/src/runtime/asm_amd64.s"},
		{"runtime.mallocgc", "/usr/lib/go/src/runtime/malloc.go"},
		{"runtime.newobject", "/usr/lib/go/src/runtime/malloc.go"},
		{"net/http.(*conn).serve", "/usr/lib/go/src/net/http/server.go"},
		{"net/http.HandlerFunc.ServeHTTP", "/usr/lib/go/src/net/http/server.go"},
		{"main.(*Server).handle", "/src/server/handler.go"},
		{"main.(*Server).handle.func1", "/src/server/handler.go"},
		{"main.parseRequest", "/src/server/parse.go"},
		{"main.encode", "/src/server/encode.go"},
		{"encoding/json.Marshal", "/usr/lib/go/src/encoding/json/encode.go"},
		{"encoding/json.(*encodeState).marshal", "/usr/lib/go/src/encoding/json/encode.go"},
		{"strings.Builder.WriteString", "/usr/lib/go/src/strings/builder.go"},
		{"std::__1::vector<int>::push_back(int const&)", "/usr/include/c++/v1/vector"},
		{"std::__1::thread::thread<void (*)()>(void (*)())", "/usr/include/c++/v1/thread"},
		{"compress/flate.(*compressor).deflate", "/usr/lib/go/src/compress/flate/deflate.go"},
		{"operator new(unsigned long)", "/usr/include/c++/v1/new"},
		{"sync.(*Mutex).Lock", "/usr/lib/go/src/sync/mutex.go"},
		{"main.worker", "/src/server/worker.go"},
		// simplifyFunc's cases: reserved names keep their brackets, a leading '.' goes
		{"ns::(anonymous namespace)::Handler::operator()(int) const", "/src/ns/handler.cc"},
		{"(anonymous namespace)::init(void)", "/src/ns/init.cc"},
		{"std::function<void ()>::operator()() const", "/usr/include/c++/v1/functional"},
		{".ppc_elf_func", "/src/ppc.c"},
		{"", "/src/anonymous.c"},
	}
	for i, n := range names {
		sys := n.name
		if i%5 == 3 {
			sys = "_Z" + strconv.Itoa(len(n.name)) + strings.ReplaceAll(n.name, " ", "")
		}
		p.Function = append(p.Function, &profile.Function{ID: uint64(i + 1), Name: n.name,
			SystemName: sys, Filename: n.file, StartLine: int64(10 * (i + 1))})
	}
	// locations: in the main binary with 1-3 lines (inlining), in libc with one line and no
	// line number, in the vdso without lines
	for i := 0; i < 60; i++ {
		l := &profile.Location{ID: uint64(i + 1)}
		switch {
		case i < 44:
			l.Mapping, l.Address = p.Mapping[0], 0x401000+uint64(i)*0x40
			depth := 1
			if i%3 == 1 {
				depth = 2 + r.Intn(2)
			}
			for d := 0; d < depth; d++ {
				f := p.Function[r.Intn(len(p.Function))]
				l.Line = append(l.Line, profile.Line{Function: f, Line: f.StartLine + int64(r.Intn(40))})
			}
		case i < 54:
			l.Mapping, l.Address = p.Mapping[1], 0x7f0000001000+uint64(i)*0x100
			f := p.Function[13+r.Intn(5)]
			l.Line = []profile.Line{{Function: f}}
		default:
			l.Mapping, l.Address = p.Mapping[2], 0x7fff0100+uint64(i)*0x10
		}
		p.Location = append(p.Location, l)
	}
	// every stack ends at main.main, so that filters on runtime frames keep some samples
	root := p.Location[0]
	root.Line = []profile.Line{{Function: p.Function[0], Line: 12}}
	for i := 0; i < 400; i++ {
		s := &profile.Sample{Label: map[string][]string{}, NumLabel: map[string][]int64{},
			NumUnit: map[string][]string{}}
		depth := r.Intn(12)
		if i%97 == 5 {
			depth = -1 // empty stack
		}
		for d := 0; d < depth; d++ {
			s.Location = append(s.Location, p.Location[1+r.Intn(len(p.Location)-1)])
		}
		if depth >= 0 {
			s.Location = append(s.Location, root)
		}
		n := int64(1 + r.Intn(20))
		s.Value = []int64{n, n * 10000000, int64(r.Intn(3)) * int64(512<<uint(r.Intn(12)))}
		if r.Intn(4) > 0 {
			s.Label["thread"] = []string{fmt.Sprintf("worker-%d", r.Intn(6))}
		}
		if r.Intn(3) == 0 {
			s.Label["endpoint"] = []string{"/api/items", "/api/users"}[:1+r.Intn(2)]
		}
		if r.Intn(2) == 0 {
			s.NumLabel["bytes"] = []int64{int64(64 << uint(r.Intn(16)))}
			s.NumUnit["bytes"] = []string{"bytes"}
		}
		if r.Intn(3) == 0 {
			// the first samples say milliseconds, a few later ones seconds: Go takes the
			// first unit for the key
			u := "ms"
			if i > 200 && r.Intn(4) == 0 {
				u = "s"
			}
			s.NumLabel["latency"] = []int64{int64(r.Intn(2000))}
			s.NumUnit["latency"] = []string{u}
		}
		if r.Intn(4) == 0 {
			s.NumLabel["request"] = []int64{int64(1 << uint(r.Intn(24)))} // unit inferred: bytes
		}
		if r.Intn(5) == 0 {
			s.NumLabel["goroutine"] = []int64{int64(r.Intn(50)), int64(r.Intn(50))}
		}
		p.Sample = append(p.Sample, s)
	}
	if err := p.CheckValid(); err != nil {
		die(1, "generated profile is invalid: %v", err)
	}
	return p
}
