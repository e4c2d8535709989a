// Package host describes the machine gojit runs on, as code generation
// and the runtime need it: the sizes of its data caches, and the
// processor's identity and features. It reads the sizes from Linux's sysfs
// (pure Go, so it works without cgo); on other systems, or when sysfs is
// unreadable, the sizes are zero and callers use their defaults. The
// identity comes from the CPUID instruction (Go assembly, amd64 only), so
// the runtime can name the host in a kernel's signature without loading
// LLVM.
package host

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// Caches holds the data (or unified) cache sizes seen by CPU 0, in bytes;
// zero when unknown.
type Caches struct {
	L1D, L2, L3 int64
	// L3Shared is the number of logical CPUs that share the L3 (as far
	// as this system can see: a virtual machine shows only its own; from
	// CPUID, capped at runtime.NumCPU).
	L3Shared int
}

var (
	once   sync.Once
	caches Caches
)

// CacheSizes returns this machine's cache sizes, read once per process:
// from CPUID where it describes them (amd64), else from Linux's sysfs.
func CacheSizes() Caches {
	once.Do(func() {
		var ok bool
		if caches, ok = cpuidCaches(); !ok {
			caches = readCaches("/sys/devices/system/cpu/cpu0/cache")
		}
	})
	return caches
}

// readCaches reads the index* directories under dir (the layout of
// /sys/devices/system/cpu/cpuN/cache). Entries it cannot parse are skipped.
func readCaches(dir string) Caches {
	var c Caches
	entries, _ := filepath.Glob(filepath.Join(dir, "index*"))
	for _, e := range entries {
		typ := readString(filepath.Join(e, "type"))
		if typ != "Data" && typ != "Unified" {
			continue
		}
		level, err := strconv.Atoi(readString(filepath.Join(e, "level")))
		if err != nil {
			continue
		}
		size := parseSize(readString(filepath.Join(e, "size")))
		if size <= 0 {
			continue
		}
		switch level {
		case 1:
			c.L1D = size
		case 2:
			c.L2 = size
		case 3:
			c.L3 = size
			c.L3Shared = countCPUs(readString(filepath.Join(e, "shared_cpu_list")))
		}
	}
	return c
}

func readString(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// parseSize parses sysfs cache sizes such as "48K", "2048K" or "32M";
// it returns -1 for anything else.
func parseSize(s string) int64 {
	mult := int64(1)
	switch {
	case strings.HasSuffix(s, "K"):
		mult, s = 1<<10, s[:len(s)-1]
	case strings.HasSuffix(s, "M"):
		mult, s = 1<<20, s[:len(s)-1]
	case strings.HasSuffix(s, "G"):
		mult, s = 1<<30, s[:len(s)-1]
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 || n > 1<<40/mult {
		return -1
	}
	return n * mult
}

// countCPUs counts the CPUs of a sysfs list such as "0-3,8,10-11"; 0 when
// the list does not parse.
func countCPUs(list string) int {
	n := 0
	for _, part := range strings.Split(list, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return 0
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return 0
			}
		}
		n += b - a + 1
	}
	return n
}
