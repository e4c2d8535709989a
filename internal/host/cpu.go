package host

import (
	"fmt"
	"strings"
	"sync"
)

// CPU is the processor's identity as CPUID reports it: what the kernel
// signature needs to tell apart hosts for which LLVM would generate
// different code, read without LLVM (LLVM's own host CPU name and feature
// string are functions of the same CPUID leaves). On architectures other
// than amd64 it is empty and Known reports false.
type CPU struct {
	// Vendor is the 12-byte vendor string, e.g. "GenuineIntel" or
	// "AuthenticAMD".
	Vendor string
	// Family, Model and Stepping are the display values (extended
	// family and model folded in as the vendors' manuals specify).
	Family, Model, Stepping int

	regs [nregs]uint32
}

// The CPUID output registers (and XCR0) that features are read from.
const (
	leaf1ECX = iota
	leaf1EDX
	leaf7EBX
	leaf7ECX
	leaf7EDX
	leaf71EAX
	extECX // leaf 0x80000001
	extEDX
	xcr0
	nregs
)

// Which register state the operating system must save for a feature to
// be usable (XCR0 bits), as LLVM's host feature detection requires.
const (
	saveNone = iota
	saveAVX
	saveAVX512
	saveAMX
)

// feature is one CPUID bit under LLVM's name for it.
type feature struct {
	name string
	reg  int
	bit  uint
	save int
}

// features lists the bits read, under the names LLVM's host feature
// string uses. Every one is compared with LLVM's string by the tests.
var features = []feature{
	{"sse3", leaf1ECX, 0, saveNone},
	{"pclmul", leaf1ECX, 1, saveNone},
	{"ssse3", leaf1ECX, 9, saveNone},
	{"fma", leaf1ECX, 12, saveAVX},
	{"cx16", leaf1ECX, 13, saveNone},
	{"sse4.1", leaf1ECX, 19, saveNone},
	{"sse4.2", leaf1ECX, 20, saveNone},
	{"movbe", leaf1ECX, 22, saveNone},
	{"popcnt", leaf1ECX, 23, saveNone},
	{"aes", leaf1ECX, 25, saveNone},
	{"xsave", leaf1ECX, 26, saveAVX},
	{"avx", leaf1ECX, 28, saveAVX},
	{"f16c", leaf1ECX, 29, saveAVX},
	{"rdrnd", leaf1ECX, 30, saveNone},
	{"cx8", leaf1EDX, 8, saveNone},
	{"cmov", leaf1EDX, 15, saveNone},
	{"mmx", leaf1EDX, 23, saveNone},
	{"fxsr", leaf1EDX, 24, saveNone},
	{"sse", leaf1EDX, 25, saveNone},
	{"sse2", leaf1EDX, 26, saveNone},
	{"fsgsbase", leaf7EBX, 0, saveNone},
	{"bmi", leaf7EBX, 3, saveNone},
	{"avx2", leaf7EBX, 5, saveAVX},
	{"bmi2", leaf7EBX, 8, saveNone},
	{"invpcid", leaf7EBX, 10, saveNone},
	{"avx512f", leaf7EBX, 16, saveAVX512},
	{"avx512dq", leaf7EBX, 17, saveAVX512},
	{"rdseed", leaf7EBX, 18, saveNone},
	{"adx", leaf7EBX, 19, saveNone},
	{"avx512ifma", leaf7EBX, 21, saveAVX512},
	{"clflushopt", leaf7EBX, 23, saveNone},
	{"clwb", leaf7EBX, 24, saveNone},
	{"avx512cd", leaf7EBX, 28, saveAVX512},
	{"sha", leaf7EBX, 29, saveNone},
	{"avx512bw", leaf7EBX, 30, saveAVX512},
	{"avx512vl", leaf7EBX, 31, saveAVX512},
	{"avx512vbmi", leaf7ECX, 1, saveAVX512},
	{"pku", leaf7ECX, 4, saveNone},
	{"avx512vbmi2", leaf7ECX, 6, saveAVX512},
	{"gfni", leaf7ECX, 8, saveNone},
	{"vaes", leaf7ECX, 9, saveAVX},
	{"vpclmulqdq", leaf7ECX, 10, saveAVX},
	{"avx512vnni", leaf7ECX, 11, saveAVX512},
	{"avx512bitalg", leaf7ECX, 12, saveAVX512},
	{"avx512vpopcntdq", leaf7ECX, 14, saveAVX512},
	{"rdpid", leaf7ECX, 22, saveNone},
	{"movdiri", leaf7ECX, 27, saveNone},
	{"movdir64b", leaf7ECX, 28, saveNone},
	{"avx512vp2intersect", leaf7EDX, 8, saveAVX512},
	{"serialize", leaf7EDX, 14, saveNone},
	{"amx-bf16", leaf7EDX, 22, saveAMX},
	{"avx512fp16", leaf7EDX, 23, saveAVX512},
	{"amx-tile", leaf7EDX, 24, saveAMX},
	{"amx-int8", leaf7EDX, 25, saveAMX},
	{"avxvnni", leaf71EAX, 4, saveAVX},
	{"avx512bf16", leaf71EAX, 5, saveAVX512},
	{"sahf", extECX, 0, saveNone},
	{"lzcnt", extECX, 5, saveNone},
	{"sse4a", extECX, 6, saveNone},
	{"prfchw", extECX, 8, saveNone},
	{"xop", extECX, 11, saveAVX},
	{"fma4", extECX, 16, saveAVX},
	{"tbm", extECX, 21, saveNone},
	{"64bit", extEDX, 29, saveNone},
}

// FeatureNames lists, under LLVM's names, every feature HostCPU reads.
func FeatureNames() []string {
	names := make([]string, len(features))
	for i, f := range features {
		names[i] = f.name
	}
	return names
}

var (
	cpuOnce sync.Once
	cpu     CPU
)

// HostCPU returns this processor's identity, read once per process.
func HostCPU() CPU {
	cpuOnce.Do(func() { cpu = readCPU() })
	return cpu
}

// Known reports whether the identity was read (amd64 only).
func (c CPU) Known() bool { return c.Vendor != "" }

// saved reports whether the operating system saves the register state a
// feature needs: XCR0 bits 1-2 (SSE, AVX), plus 5-7 for AVX-512 and
// 17-18 for AMX.
func (c CPU) saved(s int) bool {
	const avx, avx512, amx = 0x6, 0xe0, 0x60000
	x := c.regs[xcr0]
	switch s {
	case saveAVX:
		return x&avx == avx
	case saveAVX512:
		return x&avx == avx && x&avx512 == avx512
	case saveAMX:
		return x&amx == amx
	}
	return true
}

// Has reports whether the processor has the feature LLVM calls name and
// the operating system lets programs use it. Names not in FeatureNames
// report false.
func (c CPU) Has(name string) bool {
	for _, f := range features {
		if f.name == name {
			return c.regs[f.reg]>>f.bit&1 != 0 && c.saved(f.save)
		}
	}
	return false
}

// Features returns the usable features among FeatureNames, in its order.
func (c CPU) Features() []string {
	var have []string
	for _, f := range features {
		if c.regs[f.reg]>>f.bit&1 != 0 && c.saved(f.save) {
			have = append(have, f.name)
		}
	}
	return have
}

// String is the identity in one line, e.g. "GenuineIntel family 6 model
// 167 stepping 8: sse3,pclmul,...": what the kernel signature hashes in
// place of LLVM's host CPU name and feature string.
func (c CPU) String() string {
	if !c.Known() {
		return "unknown cpu"
	}
	return fmt.Sprintf("%s family %d model %d stepping %d: %s", c.Vendor, c.Family, c.Model, c.Stepping, strings.Join(c.Features(), ","))
}
