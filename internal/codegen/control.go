package codegen

import (
	"fmt"
	"strings"
)

// Loop driver slots: the layout of the array of 8-byte words the loop
// driver (LoopDriver) takes.
const (
	DriverCond         = iota // the cond region's entry: void (ptr %args)
	DriverBody                // the body region's entry
	DriverCondArgs0           // the cond's argument array when the state is in set 0
	DriverCondArgs1           // ... in set 1
	DriverBodyArgs0           // the body's argument array reading set 0, writing set 1
	DriverBodyArgs1           // ... reading set 1, writing set 0
	DriverFlag                // the byte the cond writes: non-zero to go on
	DriverCondCopies0         // copies after the cond (state in set 0): (dst, src, bytes) triples
	DriverCondNCopies0        // their number
	DriverCondCopies1         // ... state in set 1
	DriverCondNCopies1
	DriverBodyCopies0 // copies after the body reading set 0
	DriverBodyNCopies0
	DriverBodyCopies1
	DriverBodyNCopies1
	DriverFinal      // copies when the body ran an odd number of times (set 1 to set 0)
	DriverNFinal     // their number
	DriverIterations // out: how many times the body ran
	DriverErr        // the run's error slot (see Drivers), or null
	DriverWords      // the number of words
)

// Sequence driver tables (SeqDriver): word 0 is the number of steps, word
// 1 the run's error slot (see Drivers) or null, then SeqStepWords words
// per step at SeqHeader + step*SeqStepWords, laid out by the Seq
// constants. A step calls function A (when not null) and runs A's
// copies; a cond step does so with B instead when the byte at Pred is 0.
const (
	SeqKind     = iota // SeqCall or SeqCond
	SeqPred            // cond: the predicate's byte
	SeqFnA             // void (ptr): a compiled entry, or null for copies only
	SeqArgsA           // its argument
	SeqCopiesA         // (dst, src, bytes) triples to copy after it
	SeqNCopiesA        // their number
	SeqFnB             // the same for the cond's false branch
	SeqArgsB
	SeqCopiesB
	SeqNCopiesB
	SeqStepWords

	SeqCall = 0
	SeqCond = 1

	SeqHeader = 2 // words before the first step
)

// Drivers returns the LLVM IR of a module of three functions: CALL, the
// module's entry, which calls x[0] with argument x[1] (so the runtime can
// call the others, and any compiled entry, by address), ENTRY, the loop
// driver, and SEQ, the sequence driver. The function
//
//	void ENTRY(ptr %d)
//
// runs a while loop over two compiled regions, in generated code: it calls
// the cond region's entry, performs the copies the cond's executable
// leaves to its caller (outputs that are parameters returned as they
// are), tests the flag, and while it is set calls the body's entry and its
// copies, alternating between two sets of state buffers so the state is
// never copied; when the body ran an odd number of times it runs the
// final copies, which move the state to set 0, and it stores the number
// of iterations in d[DriverIterations].
// The regions are called through pointers, so one driver, compiled once,
// serves every loop; the layout of d is given by the Driver constants.
//
// The function
//
//	void SEQ(ptr %t)
//
// runs a sequence of steps from a table (the Seq constants): calls of
// compiled entries and their copies, and conds, which test a predicate
// byte and run one of two entries: a region with control flow inside (a
// Cond in a loop body) runs as such a sequence, so the loop driver can
// call it like any compiled region, and the branch is taken in generated
// code too, and a step may call the loop driver, so loops nest.
//
// Both drivers stop as soon as a call leaves an error in the run's error
// slot (word 1 of the four words that kernels checking indices record an
// out-of-range index in, internal/codegen/indexing.go; the runtime points
// every such kernel of the run at the same slot): the loop driver after
// the cond or the body, the sequence driver after any step, so a loop
// whose condition reads a clamped index cannot run on for ever, and the
// runtime, seeing the slot set, runs the call again step by step from Go,
// which reports the error of the kernel that met it.
func Drivers(call, entry, seq string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `; gojit control-flow drivers

define void @%s(ptr %%x) #0 {
entry:
  %%fn = load ptr, ptr %%x, align 8
  %%ap = getelementptr inbounds i64, ptr %%x, i64 1
  %%a = load ptr, ptr %%ap, align 8
  call void %%fn(ptr %%a)
  ret void
}

`, call)
	fmt.Fprintf(&b, "define void @%s(ptr %%d) #0 {\nentry:\n", entry)
	word := func(name string, i int) {
		fmt.Fprintf(&b, "  %%%s.p = getelementptr inbounds i64, ptr %%d, i64 %d\n", name, i)
	}
	load := func(name, typ string, i int) {
		word(name, i)
		fmt.Fprintf(&b, "  %%%s = load %s, ptr %%%s.p, align 8\n", name, typ, name)
	}
	load("cond", "ptr", DriverCond)
	load("body", "ptr", DriverBody)
	load("ca0", "ptr", DriverCondArgs0)
	load("ca1", "ptr", DriverCondArgs1)
	load("ba0", "ptr", DriverBodyArgs0)
	load("ba1", "ptr", DriverBodyArgs1)
	load("flag", "ptr", DriverFlag)
	load("cc0", "ptr", DriverCondCopies0)
	load("nc0", "i64", DriverCondNCopies0)
	load("cc1", "ptr", DriverCondCopies1)
	load("nc1", "i64", DriverCondNCopies1)
	load("bc0", "ptr", DriverBodyCopies0)
	load("nb0", "i64", DriverBodyNCopies0)
	load("bc1", "ptr", DriverBodyCopies1)
	load("nb1", "i64", DriverBodyNCopies1)
	load("fin", "ptr", DriverFinal)
	load("nfin", "i64", DriverNFinal)
	word("iters", DriverIterations)
	load("err", "ptr", DriverErr)
	b.WriteString(`  br label %head

head:
  %odd = phi i1 [ false, %entry ], [ %nodd, %next2 ]
  %n = phi i64 [ 0, %entry ], [ %n1, %next2 ]
  %ca = select i1 %odd, ptr %ca1, ptr %ca0
  call void %cond(ptr %ca)
  %cfail = call i1 @gojit.failed(ptr %err)
  br i1 %cfail, label %fail, label %head2

head2:
  %cc = select i1 %odd, ptr %cc1, ptr %cc0
  %nc = select i1 %odd, i64 %nc1, i64 %nc0
  call void @gojit.copies(ptr %cc, i64 %nc)
  %f = load i8, ptr %flag, align 1
  %go = icmp ne i8 %f, 0
  br i1 %go, label %next, label %done

next:
  %ba = select i1 %odd, ptr %ba1, ptr %ba0
  call void %body(ptr %ba)
  %bfail = call i1 @gojit.failed(ptr %err)
  br i1 %bfail, label %fail, label %next2

next2:
  %bc = select i1 %odd, ptr %bc1, ptr %bc0
  %nb = select i1 %odd, i64 %nb1, i64 %nb0
  call void @gojit.copies(ptr %bc, i64 %nb)
  %nodd = xor i1 %odd, true
  %n1 = add nuw i64 %n, 1
  br label %head

done:
  store i64 %n, ptr %iters.p, align 8
  %fc = select i1 %odd, i64 %nfin, i64 0
  call void @gojit.copies(ptr %fin, i64 %fc)
  ret void

fail:
  store i64 %n, ptr %iters.p, align 8
  ret void
}

; failed reports whether the error slot at %e (if any) holds an error.
define internal i1 @gojit.failed(ptr %e) #0 {
entry:
  %has = icmp ne ptr %e, null
  br i1 %has, label %check, label %no

check:
  %np = getelementptr inbounds i64, ptr %e, i64 1
  %node = load volatile i64, ptr %np, align 8
  %set = icmp ne i64 %node, 0
  ret i1 %set

no:
  ret i1 false
}

; copies runs n copies of a table of (dst, src, bytes) triples.
define internal void @gojit.copies(ptr %t, i64 %n) #0 {
entry:
  %any = icmp sgt i64 %n, 0
  br i1 %any, label %loop, label %done

loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  %k = mul nuw nsw i64 %i, 3
  %dp = getelementptr inbounds i64, ptr %t, i64 %k
  %dst = load ptr, ptr %dp, align 8
  %k1 = add nuw nsw i64 %k, 1
  %sp = getelementptr inbounds i64, ptr %t, i64 %k1
  %src = load ptr, ptr %sp, align 8
  %k2 = add nuw nsw i64 %k, 2
  %np = getelementptr inbounds i64, ptr %t, i64 %k2
  %bytes = load i64, ptr %np, align 8
  call void @llvm.memcpy.p0.p0.i64(ptr %dst, ptr %src, i64 %bytes, i1 false)
  %i1 = add nuw nsw i64 %i, 1
  %more = icmp slt i64 %i1, %n
  br i1 %more, label %loop, label %done

done:
  ret void
}

; SEQ runs the steps of a table.
define void @SEQ(ptr %t) #0 {
entry:
  %n = load i64, ptr %t, align 8
  %ep = getelementptr inbounds i64, ptr %t, i64 1
  %err = load ptr, ptr %ep, align 8
  %any = icmp sgt i64 %n, 0
  br i1 %any, label %loop, label %done

loop:
  %s = phi i64 [ 0, %entry ], [ %s1, %copy ]
  %b0 = mul nuw nsw i64 %s, STEP
  %base = add nuw nsw i64 %b0, HEADER
  %kp = getelementptr inbounds i64, ptr %t, i64 %base
  %kind = load i64, ptr %kp, align 8
  %isc = icmp eq i64 %kind, COND
  br i1 %isc, label %cond, label %pick

cond:
  %pb = add nuw nsw i64 %base, PRED
  %pp = getelementptr inbounds i64, ptr %t, i64 %pb
  %pred = load ptr, ptr %pp, align 8
  %pv = load i8, ptr %pred, align 1
  %taken = icmp ne i8 %pv, 0
  br label %pick

pick:
  %useA = phi i1 [ true, %loop ], [ %taken, %cond ]
  %off = select i1 %useA, i64 FNA, i64 FNB
  %fb = add nuw nsw i64 %base, %off
  %fp = getelementptr inbounds i64, ptr %t, i64 %fb
  %fn = load ptr, ptr %fp, align 8
  %ab = add nuw nsw i64 %fb, 1
  %ap = getelementptr inbounds i64, ptr %t, i64 %ab
  %args = load ptr, ptr %ap, align 8
  %cb = add nuw nsw i64 %fb, 2
  %cp = getelementptr inbounds i64, ptr %t, i64 %cb
  %copies = load ptr, ptr %cp, align 8
  %nb = add nuw nsw i64 %fb, 3
  %np = getelementptr inbounds i64, ptr %t, i64 %nb
  %ncopies = load i64, ptr %np, align 8
  %has = icmp ne ptr %fn, null
  br i1 %has, label %call, label %copy

call:
  call void %fn(ptr %args)
  %failed = call i1 @gojit.failed(ptr %err)
  br i1 %failed, label %done, label %copy

copy:
  call void @gojit.copies(ptr %copies, i64 %ncopies)
  %s1 = add nuw nsw i64 %s, 1
  %more = icmp slt i64 %s1, %n
  br i1 %more, label %loop, label %done

done:
  ret void
}

declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)

attributes #0 = { nounwind }
`)
	r := strings.NewReplacer("@SEQ", "@"+seq, "STEP", fmt.Sprint(SeqStepWords), "COND", fmt.Sprint(SeqCond),
		"PRED", fmt.Sprint(SeqPred), "HEADER", fmt.Sprint(SeqHeader), "FNA", fmt.Sprint(SeqFnA), "FNB", fmt.Sprint(SeqFnB))
	return r.Replace(b.String())
}
