package lazy

import (
	"math/rand/v2"
	"runtime"
	"testing"
)

func TestZZProbe(t *testing.T) {
	c, _ := NewContext()
	r := rand.New(rand.NewPCG(5, 6))
	a, b := randData(r, 100*100), randData(r, 100*100)
	gt2(c, a, b, 100).Item()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	n0, h0 := hostMem.n, hostMem.hits
	for range 20000 {
		gt2(c, a, b, 100).Item()
	}
	runtime.ReadMemStats(&m1)
	t.Logf("gc %d, host n %d hits %d chunks %d, heap %d MB, alloc/iter %d B", m1.NumGC-m0.NumGC, hostMem.n-n0, hostMem.hits-h0, len(hostMem.chunks), m1.HeapAlloc>>20, (m1.TotalAlloc-m0.TotalAlloc)/20000)
}
