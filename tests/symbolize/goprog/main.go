// Symbolization test program: a heap profile (and, with a second argument, a CPU profile) whose stacks go through inlined functions,
// generics, methods and closures, written by runtime/pprof.
package main

import (
	"os"
	"runtime"
	"runtime/pprof"
	"time"
)

type tree struct {
	left, right *tree
	v           int
}

func leaf(v int) *tree { return &tree{v: v} } // inlined

func build(d int) *tree {
	if d == 0 {
		return leaf(d)
	}
	return &tree{build(d - 1), build(d - 1), d}
}

func mapOf[K comparable, V any](k K, v V) map[K]V { return map[K]V{k: v} }

type store struct{ items [][]byte }

func (s *store) add(n int) { s.items = append(s.items, make([]byte, n)) }

var sink []interface{}
var hsink uint64

func mix(h uint64, v int) uint64 { return (h ^ uint64(v)) * 1099511628211 } // inlined

func spin(t *tree, h uint64) uint64 {
	if t == nil {
		return h
	}
	return spin(t.right, spin(t.left, mix(h, t.v)))
}

// cpu writes a CPU profile of about a second of tree walks (os.Args[2]).
func cpu(path string) {
	f, err := os.Create(path)
	if err != nil {
		panic(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		panic(err)
	}
	t := build(12)
	for start := time.Now(); time.Since(start) < time.Second; {
		hsink = spin(t, hsink)
	}
	pprof.StopCPUProfile()
	f.Close()
}

func main() {
	runtime.MemProfileRate = 1
	s := &store{}
	for i := 0; i < 200; i++ {
		sink = append(sink, build(6), mapOf(i, "x"), mapOf("k", i))
		s.add(64 + i)
		func() { sink = append(sink, make([]int, i+1)) }()
	}
	sink = append(sink, s)
	runtime.GC()
	f, err := os.Create(os.Args[1])
	if err != nil {
		panic(err)
	}
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		panic(err)
	}
	f.Close()
	if len(os.Args) > 2 {
		cpu(os.Args[2])
	}
}
