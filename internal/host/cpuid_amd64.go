package host

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
