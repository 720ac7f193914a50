// The program tests/report/go-list.sh profiles: allocations on known lines (a heap profile with
// every allocation sampled is the same on every run), spread over two files, with an inlined
// helper and a closure, and a short CPU profile.
package main

import (
	"os"
	"runtime"
	"runtime/pprof"
	"time"
)

var keep [][]byte

func small(n int) {
	for i := 0; i < n; i++ {
		keep = append(keep, make([]byte, 64))
	}
}

func large(n int) {
	for i := 0; i < n; i++ {
		keep = append(keep, make([]byte, 4096))
		keep = append(keep, make([]byte, 8192))
	}
}

func main() {
	runtime.MemProfileRate = 1
	small(100)
	large(10)
	nested(5)
	f := func(k int) { keep = append(keep, make([]byte, k)) }
	f(1000)
	h, err := os.Create(os.Args[1])
	if err != nil {
		panic(err)
	}
	runtime.GC()
	if err := pprof.Lookup("allocs").WriteTo(h, 0); err != nil {
		panic(err)
	}
	h.Close()
	c, err := os.Create(os.Args[2])
	if err != nil {
		panic(err)
	}
	pprof.StartCPUProfile(c)
	for end := time.Now().Add(300 * time.Millisecond); time.Now().Before(end); {
		spin(100000)
	}
	pprof.StopCPUProfile()
	c.Close()
}
