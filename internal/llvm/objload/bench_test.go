//go:build linux

package objload

import "testing"

// BenchmarkLoad splits a kernel's linking into validating and planning
// (parse) and the whole Load + Free (mapping, relocating, protecting,
// unmapping).
func BenchmarkLoad(b *testing.B) {
	obj := readObj(b, "rodata.o")
	b.Run("parse", func(b *testing.B) {
		for b.Loop() {
			if _, err := parse(obj); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("load+free", func(b *testing.B) {
		for b.Loop() {
			im, err := Load(obj, fake)
			if err != nil {
				b.Fatal(err)
			}
			im.Free()
		}
	})
}
