package host

import (
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// The identity must not depend on the core a thread runs on (CPUID leaf 1
// also reports the core's APIC ID, which must stay out of it) nor change
// between reads.
func TestCPUStable(t *testing.T) {
	want := HostCPU()
	if runtime.GOARCH == "amd64" && !want.Known() {
		t.Fatal("HostCPU read nothing on amd64")
	}
	var wg sync.WaitGroup
	got := make([]CPU, 4*runtime.NumCPU())
	for i := range got {
		wg.Go(func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			got[i] = readCPU()
		})
	}
	wg.Wait()
	for i, c := range got {
		if c != want || c.String() != want.String() {
			t.Fatalf("read %d: %s, want %s", i, c, want)
		}
	}
}

// cpuinfo is an independent reference: the kernel's own CPUID decoding.
func TestCPUMatchesProcCpuinfo(t *testing.T) {
	if runtime.GOARCH != "amd64" || runtime.GOOS != "linux" {
		t.Skipf("reads x86 /proc/cpuinfo; GOOS/GOARCH %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		t.Fatal(err)
	}
	info := map[string]string{}
	for line := range strings.Lines(string(b)) {
		if strings.TrimSpace(line) == "" {
			break // first processor only
		}
		k, v, _ := strings.Cut(line, ":")
		info[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	c := HostCPU()
	num := func(k string) int {
		n, err := strconv.Atoi(info[k])
		if err != nil {
			t.Fatalf("/proc/cpuinfo %q: %v", k, err)
		}
		return n
	}
	if c.Vendor != info["vendor_id"] || c.Family != num("cpu family") || c.Model != num("model") || c.Stepping != num("stepping") {
		t.Errorf("cpuid says %s family %d model %d stepping %d; /proc/cpuinfo says %s family %s model %s stepping %s",
			c.Vendor, c.Family, c.Model, c.Stepping, info["vendor_id"], info["cpu family"], info["model"], info["stepping"])
	}
	// Linux names most of these flags as LLVM does; the kernel also
	// hides features the OS does not support, as Has does.
	flags := strings.Fields(info["flags"])
	linuxName := map[string]string{"sse3": "pni", "pclmul": "pclmulqdq", "sse4.1": "sse4_1", "sse4.2": "sse4_2",
		"cx16": "cx16", "cx8": "cx8", "sahf": "lahf_lm", "lzcnt": "abm", "prfchw": "3dnowprefetch", "64bit": "lm",
		"rdrnd": "rdrand", "avx512vpopcntdq": "avx512_vpopcntdq", "avx512bitalg": "avx512_bitalg",
		"avx512vbmi2": "avx512_vbmi2", "avx512vnni": "avx512_vnni", "avx512bf16": "avx512_bf16",
		"avx512fp16": "avx512_fp16", "avx512vp2intersect": "avx512_vp2intersect", "avxvnni": "avx_vnni",
		"amx-bf16": "amx_bf16", "amx-tile": "amx_tile", "amx-int8": "amx_int8", "bmi": "bmi1", "sha": "sha_ni"}
	checked := 0
	for _, f := range []string{"sse3", "ssse3", "sse4.1", "sse4.2", "popcnt", "aes", "pclmul", "avx", "avx2", "fma", "f16c",
		"bmi", "bmi2", "adx", "avx512f", "avx512vl", "avx512bw", "avx512dq", "avx512cd", "avx512ifma", "avx512vbmi",
		"avx512vbmi2", "avx512vnni", "avx512bitalg", "avx512vpopcntdq", "avx512bf16", "avx512fp16", "gfni", "vaes",
		"vpclmulqdq", "sha", "movbe", "cx16", "lzcnt", "64bit", "rdrnd", "rdseed", "clwb", "clflushopt"} {
		name := cmpOr(linuxName[f], f)
		got, want := c.Has(f), slices.Contains(flags, name)
		if got && !want && kernelHides[f] != "" {
			t.Logf("%s: cpuid %t, /proc/cpuinfo flag %q %t: %s", f, got, name, want, kernelHides[f])
			continue
		}
		if got != want {
			t.Errorf("%s: cpuid %t, /proc/cpuinfo flag %q %t", f, got, name, want)
		}
		checked++
	}
	t.Logf("%s (%d features compared with /proc/cpuinfo)", c, checked)
}

// kernelHides names the features Linux may clear from /proc/cpuinfo
// although cpuid reports them, because of a hardware erratum; cpuid's
// view is the one LLVM's host detection (and so the signature) sees, and
// gojit's code uses none of them.
var kernelHides = map[string]string{
	"rdseed": "Linux hides RDSEED on AMD Zen 5 parts whose microcode lacks the fix for its erratum (AMD-SB-7055)",
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func TestCPUHasUnknown(t *testing.T) {
	if HostCPU().Has("no-such-feature") {
		t.Error("Has(unknown) = true")
	}
	var zero CPU
	if zero.Known() || zero.String() != "unknown cpu" || len(zero.Features()) != 0 {
		t.Errorf("zero CPU: known %t, %q, %v", zero.Known(), zero, zero.Features())
	}
}

// CPUID's cache leaves must give what Linux's sysfs (an independent
// decoding of them, by the kernel) shows for CPU 0.
func TestCPUIDCachesMatchSysfs(t *testing.T) {
	got, ok := cpuidCaches()
	if runtime.GOARCH != "amd64" {
		if ok {
			t.Fatal("cpuidCaches reported sizes off amd64")
		}
		return
	}
	want := readCaches("/sys/devices/system/cpu/cpu0/cache")
	if (want == Caches{}) {
		t.Skip("no sysfs cache information to compare with")
	}
	if !ok || got != want {
		t.Fatalf("CPUID caches %+v (ok %t), sysfs %+v", got, ok, want)
	}
	if CacheSizes() != want {
		t.Fatalf("CacheSizes = %+v, want %+v", CacheSizes(), want)
	}
	t.Logf("%+v", got)
}
