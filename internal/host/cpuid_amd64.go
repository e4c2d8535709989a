package host

import "runtime"

// cpuid executes the CPUID instruction for leaf and sub-leaf sub.
func cpuid(leaf, sub uint32) (a, b, c, d uint32)

// xgetbv reads XCR0, the register in which the operating system says
// which register states it saves on a context switch. Call it only when
// CPUID leaf 1 reports OSXSAVE.
func xgetbv() (lo, hi uint32)

// readCPU reads the processor's identity with CPUID.
func readCPU() CPU {
	var c CPU
	max, b, cx, d := cpuid(0, 0)
	c.Vendor = string(le32(b)) + string(le32(d)) + string(le32(cx))
	if max >= 1 {
		a, _, cx, d := cpuid(1, 0)
		c.Stepping = int(a & 0xf)
		c.Family = int(a>>8) & 0xf
		c.Model = int(a>>4) & 0xf
		// The extended fields count only for the families whose
		// model numbers overflowed, as the vendors' manuals say.
		if c.Family == 0xf {
			c.Family += int(a>>20) & 0xff
		}
		if c.Family == 0x6 || c.Family >= 0xf {
			c.Model += int(a>>16) & 0xf << 4
		}
		c.regs[leaf1ECX], c.regs[leaf1EDX] = cx, d
		if cx&(1<<27) != 0 { // OSXSAVE
			lo, _ := xgetbv()
			c.regs[xcr0] = lo
		}
	}
	if max >= 7 {
		a, b, cx, d := cpuid(7, 0)
		c.regs[leaf7EBX], c.regs[leaf7ECX], c.regs[leaf7EDX] = b, cx, d
		if a >= 1 {
			a1, _, _, _ := cpuid(7, 1)
			c.regs[leaf71EAX] = a1
		}
	}
	if maxExt, _, _, _ := cpuid(0x80000000, 0); maxExt >= 0x80000001 {
		_, _, cx, d := cpuid(0x80000001, 0)
		c.regs[extECX], c.regs[extEDX] = cx, d
	}
	return c
}

func le32(v uint32) []byte { return []byte{byte(v), byte(v >> 8), byte(v >> 16), byte(v >> 24)} }

// cpuidCaches reads the data cache sizes from CPUID's deterministic cache
// parameters (leaf 4 on Intel, 0x8000001D on AMD and Hygon), the source
// Linux itself derives sysfs's cache directories from, without the dozen
// file reads sysfs costs (about 0.25 ms, on the path of a process's first
// kernel). It reports false when the processor has no such leaf.
func cpuidCaches() (Caches, bool) {
	max, b, cx, d := cpuid(0, 0)
	vendor := string(le32(b)) + string(le32(d)) + string(le32(cx))
	leaf := uint32(4)
	switch vendor {
	case "GenuineIntel":
		if max < 4 {
			return Caches{}, false
		}
	case "AuthenticAMD", "HygonGenuine":
		maxExt, _, _, _ := cpuid(0x80000000, 0)
		if maxExt < 0x8000001d {
			return Caches{}, false
		}
		if _, _, ecx, _ := cpuid(0x80000001, 0); ecx&(1<<22) == 0 { // TOPOEXT
			return Caches{}, false
		}
		leaf = 0x8000001d
	default:
		return Caches{}, false
	}
	var c Caches
	for sub := uint32(0); sub < 16; sub++ {
		a, b, cx, _ := cpuid(leaf, sub)
		typ := a & 0x1f // 1 data, 2 instruction, 3 unified, 0 no more
		if typ == 0 {
			break
		}
		if typ == 2 {
			continue
		}
		ways := int64(b>>22&0x3ff) + 1
		parts := int64(b>>12&0x3ff) + 1
		line := int64(b&0xfff) + 1
		sets := int64(cx) + 1
		size := ways * parts * line * sets
		switch a >> 5 & 7 {
		case 1:
			c.L1D = size
		case 2:
			c.L2 = size
		case 3:
			c.L3 = size
			// The IDs the cache is shared among, capped by the CPUs
			// there are (a virtual machine shows fewer).
			c.L3Shared = min(int(a>>14&0xfff)+1, runtime.NumCPU())
		}
	}
	return c, c.L1D > 0 || c.L2 > 0 || c.L3 > 0
}
