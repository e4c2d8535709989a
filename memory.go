package gojit

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/gojit/gojit/internal/ir"
	"github.com/gojit/gojit/internal/runtime"
)

// A shape can be valid and still far larger than the machine: a
// BroadcastTo(1<<20, 1<<20) of float32 is 4 TiB. Allocating it would end
// the process (Go's out-of-memory error cannot be recovered), so a Func
// checks the buffers it will allocate against the machine's memory and
// returns an error naming the op instead.

// machineMemory is the memory this process may use, in bytes: the
// smaller of MemTotal and the cgroup's memory.max, or 0 when unknown (then
// nothing is checked).
var machineMemory = sync.OnceValue(func() int64 {
	mem := int64(0)
	if f, err := os.Open("/proc/meminfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
				kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
				if err == nil {
					mem = kb << 10
				}
			}
		}
		f.Close()
	}
	if b, err := os.ReadFile("/sys/fs/cgroup/memory.max"); err == nil {
		if limit, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && limit > 0 && (mem == 0 || limit < mem) {
			mem = limit
		}
	}
	return mem
})

// alwaysFits is a size of results and intermediates every machine gojit
// runs on has: calls needing no more are not checked against
// machineMemory, which reads two files the first time.
const alwaysFits = 64 << 20

// checkMemory fails when the buffers exe allocates for one call cannot fit
// in the machine's memory: its results (at dynamic size b) and, compiled,
// its arena of intermediates (at size b), or, interpreted, its largest
// value.
func checkMemory(exe *runtime.Executable, outs []outSpec, b int) error {
	var results int64
	var node *ir.Node // the op making the largest buffer, of shape bigShape
	var bigShape ir.Shape
	var bigBytes int64
	for j, o := range outs {
		shape := ir.Shape(o.at(b))
		n := int64(shape.Size()) * int64(o.dtype.Size())
		results += n
		if n > bigBytes {
			node, bigShape, bigBytes = exe.Graph.Node(exe.Graph.Outputs[j]), shape, n
		}
	}
	var temps int64
	if exe.Interpreted() {
		// The interpreter keeps whole values; at least the largest one
		// is alive at once.
		for i := range exe.Graph.Nodes {
			n := &exe.Graph.Nodes[i]
			if nb := int64(n.Shape.Size()) * int64(n.DType.Size()); nb > bigBytes {
				node, bigShape, bigBytes = n, n.Shape, nb
			}
		}
		temps = bigBytes
	} else {
		temps = int64(exe.ArenaBytesAt(b))
	}
	total := results + temps
	if total <= alwaysFits {
		return nil // no need to read the machine's memory (a fresh process's first call)
	}
	limit := machineMemory()
	if limit == 0 || total <= limit {
		return nil
	}
	msg := fmt.Sprintf("needs %s of memory for one call (%s of results, %s of intermediate values), more than this machine's %s",
		byteSize(total), byteSize(results), byteSize(temps), byteSize(limit))
	if node != nil && bigBytes > 0 {
		what := fmt.Sprintf("%s%s (%s)", node.DType, bigShape, byteSize(bigBytes))
		if node.Call != "" {
			what = node.Call + " makes " + what
		}
		if node.Pos != "" {
			what = node.Pos + ": " + what
		}
		msg += "; the largest value: " + what
	}
	return errors.New(msg)
}

// byteSize formats n bytes as "4.0 TiB".
func byteSize(n int64) string {
	const units = "KMGTPE"
	if n < 1024 {
		return fmt.Sprintf("%d B", n)
	}
	f, u := float64(n)/1024, 0
	for f >= 1024 && u < len(units)-1 {
		f /= 1024
		u++
	}
	return fmt.Sprintf("%.1f %ciB", f, units[u])
}
