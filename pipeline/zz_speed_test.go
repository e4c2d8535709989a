package pipeline

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/gojit/gojit"
)

func TestZZSpeed(t *testing.T) {
	path := os.Getenv("SPEED_FILE")
	if path == "" {
		t.Skip()
	}
	for _, nc := range []bool{false, true} {
		l, err := NewLoader(path, Config{BatchSize: 64, Workers: 1, NoCompile: nc, Fields: map[string][]Op{"image": {
			RandomResizedCropJPEG(224, [2]float64{0.08, 1}, [2]float64{3.0 / 4, 4.0 / 3}), RandomHorizontalFlip(0.5), Normalize(imagenetMean, imagenetStd, gojit.Float32), ToCHW()}}})
		if err != nil {
			t.Fatal(err)
		}
		for range l.Epoch(context.Background(), 0) {
		}
		t0 := time.Now()
		n := 0
		for e := 1; e < 3; e++ {
			for b, err := range l.Epoch(context.Background(), e) {
				if err != nil {
					t.Fatal(err)
				}
				n += b.Len()
			}
		}
		el := time.Since(t0)
		tm := l.Timings()
		t.Logf("noCompile %v: %.0f images/s; read %v go %v compiled %v", nc, float64(n)/el.Seconds(), tm.Read, tm.Go, tm.Compiled)
		l.Close()
	}
}
