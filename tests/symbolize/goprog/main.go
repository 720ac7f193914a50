// Symbolization test program: a heap profile whose stacks go through inlined functions,
// generics, methods and closures, written by runtime/pprof.
package main

import (
	"os"
	"runtime"
	"runtime/pprof"
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
}
