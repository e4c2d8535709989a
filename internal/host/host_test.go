package host

import (
	"os"
	"path/filepath"
	"testing"
)

func TestParseSize(t *testing.T) {
	for s, want := range map[string]int64{"48K": 48 << 10, "2048K": 2 << 20, "32M": 32 << 20, "1G": 1 << 30, "512": 512, "": -1, "K": -1, "-4K": -1, "12X": -1} {
		if got := parseSize(s); got != want {
			t.Errorf("parseSize(%q) = %d, want %d", s, got, want)
		}
	}
}

func TestCountCPUs(t *testing.T) {
	for s, want := range map[string]int{"0": 1, "0-1": 2, "0-3,8,10-11": 7, "": 0, "3-1": 0, "a": 0} {
		if got := countCPUs(s); got != want {
			t.Errorf("countCPUs(%q) = %d, want %d", s, got, want)
		}
	}
}

// A fake sysfs tree with the layout of a Zen 4 core.
func TestReadCaches(t *testing.T) {
	dir := t.TempDir()
	for i, c := range []struct{ level, typ, size, shared string }{
		{"1", "Data", "32K", "0"}, {"1", "Instruction", "32K", "0"},
		{"2", "Unified", "1024K", "0"}, {"3", "Unified", "32768K", "0-7"},
	} {
		d := filepath.Join(dir, "index"+string(rune('0'+i)))
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, v := range map[string]string{"level": c.level, "type": c.typ, "size": c.size, "shared_cpu_list": c.shared} {
			if err := os.WriteFile(filepath.Join(d, name), []byte(v+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	got := readCaches(dir)
	want := Caches{L1D: 32 << 10, L2: 1 << 20, L3: 32 << 20, L3Shared: 8}
	if got != want {
		t.Fatalf("readCaches = %+v, want %+v", got, want)
	}
	if (readCaches(filepath.Join(dir, "missing")) != Caches{}) {
		t.Fatal("a missing directory gives nonzero sizes")
	}
}
