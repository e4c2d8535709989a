//go:build cgo && !nollvm

// The C half of package llvm. See doc.go for the design; comments here cover
// only the LLVM ownership rules that are easy to get wrong.

#define GOJIT_LLVM_RENAME
#include "shim.h"
#include "llvm_table.h"

#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

// Taking these addresses makes the final binary link libm directly, so the
// process symbol generator can always find them even if LLVM's own libm
// dependency were to change.
void *gojit_libm_anchor[] = {(void *)expf, (void *)tanhf, (void *)powf,
			     (void *)logf, (void *)exp,   (void *)tanh,
			     (void *)pow,  (void *)log};

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static char *host_cpu;
static char *host_features;
static char *host_triple;

// init_llvm runs after gojit_llvm_open has succeeded: every entry point
// that reaches it is called from Go only once llvm.open returned nil.
static void init_llvm(void) {
	// What LLVMInitializeNativeTarget, ...AsmPrinter and ...AsmParser
	// do, through the table (they are static inline in Target.h).
	gojit_llvm.native_target_info();
	gojit_llvm.native_target();
	gojit_llvm.native_target_mc();
	gojit_llvm.native_asm_printer();
	gojit_llvm.native_asm_parser();
	// Cached for the process lifetime: the host does not change, and the
	// strings are read from many threads without locking.
	host_cpu = LLVMGetHostCPUName();
	host_features = LLVMGetHostCPUFeatures();
	host_triple = LLVMGetDefaultTargetTriple();
}

static void ensure_init(void) { pthread_once(&init_once, init_llvm); }

void gojit_version(unsigned *maj, unsigned *min, unsigned *patch) {
	LLVMGetVersion(maj, min, patch);
}

const char *gojit_host_cpu_name(void) {
	ensure_init();
	return host_cpu;
}

const char *gojit_host_cpu_features(void) {
	ensure_init();
	return host_features;
}

// xprintf returns a malloc'd string; the result is only ever an error
// message, so allocation failure degrades to a fixed text rather than NULL,
// which Go would read as success.
static char *xprintf(const char *fmt, ...) {
	va_list ap;
	char *s = NULL;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = strdup("out of memory formatting LLVM error");
	va_end(ap);
	return s;
}

// take_error consumes an LLVMErrorRef and returns "stage: message".
static char *take_error(const char *stage, LLVMErrorRef e) {
	char *m = LLVMGetErrorMessage(e);
	char *s = xprintf("%s: %s", stage, m);
	LLVMDisposeErrorMessage(m);
	return s;
}

// take_message consumes an LLVM-allocated message (LLVMDisposeMessage).
static char *take_message(const char *stage, char *m) {
	char *s = xprintf("%s: %s", stage, m ? m : "(no message)");
	if (m)
		LLVMDisposeMessage(m);
	return s;
}

// Without a handler, LLVMContext prints error diagnostics and calls exit(1);
// recording them instead turns backend complaints into Go errors.
typedef struct {
	char *first_error;
} diag_state;

static void diag_handler(LLVMDiagnosticInfoRef di, void *ctx) {
	diag_state *st = ctx;
	if (LLVMGetDiagInfoSeverity(di) != LLVMDSError || st->first_error)
		return;
	char *m = LLVMGetDiagInfoDescription(di);
	st->first_error = strdup(m ? m : "unknown error");
	LLVMDisposeMessage(m);
}

static int diag_failed(diag_state *st, const char *stage, gojit_result *res) {
	if (!st->first_error)
		return 0;
	res->err = xprintf("%s: %s", stage, st->first_error);
	return 1;
}

// backend_level is the TargetMachine's level for an optimization level
// and the quick flag, which is also the index of its pool below.
static int backend_level(int opt, int quick) {
	if (quick || opt <= 0)
		return 0;
	return opt == 1 ? 1 : 2;
}

static LLVMCodeGenOptLevel codegen_level(int lv) {
	switch (lv) {
	case 0:
		return LLVMCodeGenLevelNone;
	case 1:
		return LLVMCodeGenLevelLess;
	default:
		return LLVMCodeGenLevelAggressive;
	}
}

static int emit(LLVMTargetMachineRef tm, LLVMModuleRef mod, int kind,
		gojit_result *res) {
	if (kind == GOJIT_EMIT_IR) {
		char *s = LLVMPrintModuleToString(mod);
		res->len = strlen(s);
		res->data = malloc(res->len + 1);
		if (res->data)
			memcpy(res->data, s, res->len + 1);
		LLVMDisposeMessage(s);
		if (!res->data) {
			res->err = xprintf("print: out of memory");
			return 1;
		}
		return 0;
	}
	LLVMCodeGenFileType ft =
	    kind == GOJIT_EMIT_ASM ? LLVMAssemblyFile : LLVMObjectFile;
	char *msg = NULL;
	LLVMMemoryBufferRef buf = NULL;
	if (LLVMTargetMachineEmitToMemoryBuffer(tm, mod, ft, &msg, &buf)) {
		res->err = take_message("emit", msg);
		return 1;
	}
	if (msg)
		LLVMDisposeMessage(msg);
	size_t n = LLVMGetBufferSize(buf);
	res->data = malloc(n ? n : 1);
	if (res->data) {
		memcpy(res->data, LLVMGetBufferStart(buf), n);
		res->len = n;
	}
	LLVMDisposeMemoryBuffer(buf);
	if (!res->data) {
		res->err = xprintf("emit: out of memory");
		return 1;
	}
	return 0;
}

// late_inline turns every function marked "gojit-late-inline" from
// noinline into alwaysinline and reports whether there was one. Such
// functions (the float32 exp of internal/codegen/vecmath_avx512.go, the
// division of divide.go) must stay calls until the loop vectorizer has
// replaced them by their vector variants; inlining them afterwards leaves
// the loops without calls. They are linkonce_odr so that no pass changes
// their signature (which their vector variants must match) and listed in
// @llvm.compiler.used so that the variants no call names yet survive;
// here they become internal and the list goes, so once inlined they are
// dropped.
static int late_inline(LLVMModuleRef mod) {
	static const char marker[] = "gojit-late-inline";
	unsigned noinline = LLVMGetEnumAttributeKindForName("noinline", 8);
	unsigned always = LLVMGetEnumAttributeKindForName("alwaysinline", 12);
	unsigned optnone = LLVMGetEnumAttributeKindForName("optnone", 7);
	LLVMContextRef ctx = LLVMGetModuleContext(mod);
	int found = 0;
	for (LLVMValueRef fn = LLVMGetFirstFunction(mod); fn;
	     fn = LLVMGetNextFunction(fn)) {
		if (!LLVMGetStringAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
						   marker, sizeof marker - 1))
			continue;
		LLVMRemoveEnumAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
					       noinline);
		LLVMRemoveEnumAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
					       optnone);
		LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
					LLVMCreateEnumAttribute(ctx, always, 0));
		LLVMSetLinkage(fn, LLVMInternalLinkage);
		found = 1;
	}
	LLVMValueRef used = LLVMGetNamedGlobal(mod, "llvm.compiler.used");
	if (found && used)
		LLVMDeleteGlobal(used);
	return found;
}

// A TargetMachine costs about 0.9 ms to build with its X86 subtarget, more
// than a small kernel's whole optimization. It is not thread-safe, but one
// compile at a time may use it, and it keeps no state from one module to
// the next that changes the code (the subtarget it caches is a function of
// the CPU and features, which are the host's for every module). So
// compiles borrow one from a small pool per optimization level and give it
// back; at most tm_pool_max idle ones are kept per backend level (one per
// thread that compiles at once, in practice).
enum { tm_levels = 3, tm_pool_max = 8 };
static pthread_mutex_t tm_mu = PTHREAD_MUTEX_INITIALIZER;
static LLVMTargetMachineRef tm_pool[tm_levels][tm_pool_max];
static int tm_idle[tm_levels];

static LLVMTargetMachineRef take_tm(LLVMTargetRef target, int lv) {
	LLVMTargetMachineRef tm = NULL;
	pthread_mutex_lock(&tm_mu);
	if (tm_idle[lv] > 0)
		tm = tm_pool[lv][--tm_idle[lv]];
	pthread_mutex_unlock(&tm_mu);
	if (tm)
		return tm;
	return LLVMCreateTargetMachine(target, host_triple, host_cpu,
				       host_features, codegen_level(lv),
				       LLVMRelocPIC, LLVMCodeModelSmall);
}

static void give_tm(LLVMTargetMachineRef tm, int lv) {
	pthread_mutex_lock(&tm_mu);
	if (tm_idle[lv] < tm_pool_max) {
		tm_pool[lv][tm_idle[lv]++] = tm;
		tm = NULL;
	}
	pthread_mutex_unlock(&tm_mu);
	if (tm)
		LLVMDisposeTargetMachine(tm);
}

// flat_pipeline replaces default<O2> and <O3> for modules whose every nest
// is one flat loop of elementwise arithmetic (the flat argument; see
// codegen.Module.Flat). What the full pipeline does to such a loop comes
// down to these passes: ipsccp gives the group function the constant
// bounds its caller passes (without them the vectorizer adds run-time
// checks and remainder loops, which doubled emission), deadargelim and
// tailcallelim reduce the entry to a jump, the loop passes put the loop in
// the form the vectorizer wants and hoist invariants, loop-unroll honours
// the loop metadata the generator wrote, and instcombine and simplifycfg
// clean up. On the 6-op function over 1,024 elements it takes 2.0 ms of
// CPU instead of 3.8 ms and yields the same machine code but for operand
// order. instcombine must be told no-verify-fixpoint, as the default
// pipelines do: by its bare name it checks that one iteration reached a
// fixpoint and otherwise aborts the process (report_fatal_error), which
// the fuzz target hit. always-inline, last, inlines the group functions
// a module marks alwaysinline (those of a module without a range entry:
// codegen) into the entry once their loops are vectorized; the
// late-inline helpers are still noinline then. ipsccp runs without
// function specialization:
// the group functions have one caller each, whose constants ipsccp
// propagates anyway, and the specializer's search cost 0.2-0.3 ms.
static const char flat_pipeline[] =
    "ipsccp<no-func-spec>,deadargelim,"
    "function(instcombine<no-verify-fixpoint>,simplifycfg,loop-simplify,"
    "lcssa,loop-mssa(loop-rotate,licm),loop-vectorize,loop-unroll<O3>,"
    "instcombine<no-verify-fixpoint>,simplifycfg,tailcallelim),"
    "always-inline";

// thread_ns is the calling thread's CPU time: a compile's stages are
// timed with it so that other processes holding the CPU do not count.
static int64_t thread_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int compile_module(LLVMContextRef ctx, diag_state *diag,
			  const char *name, const char *ir, size_t irlen,
			  int opt, int flat, int quick, int kind,
			  gojit_result *res) {
	char *msg = NULL;
	int64_t t0 = thread_ns();

	// The copy is NUL-terminated, which the IR lexer relies on; Go
	// strings are not.
	LLVMMemoryBufferRef buf =
	    LLVMCreateMemoryBufferWithMemoryRangeCopy(ir, irlen, name);
	LLVMModuleRef mod = NULL;
	// Takes ownership of buf whether or not parsing succeeds.
	if (LLVMParseIRInContext(ctx, buf, &mod, &msg)) {
		res->err = take_message("parse", msg);
		return 1;
	}
	if (msg)
		LLVMDisposeMessage(msg);

	int rc = 1;
	LLVMTargetMachineRef tm = NULL;
	int lv = backend_level(opt, quick);
	LLVMPassBuilderOptionsRef pbo = NULL;

	// Optimization passes and the backend assume valid IR and hit
	// assertions or report_fatal_error (process abort) otherwise, so
	// nothing runs before the verifier has accepted the module.
	msg = NULL;
	if (LLVMVerifyModule(mod, LLVMReturnStatusAction, &msg)) {
		res->err = take_message("verify", msg);
		goto out;
	}
	if (msg)
		LLVMDisposeMessage(msg);
	if (diag_failed(diag, "parse", res))
		goto out;

	LLVMTargetRef target;
	msg = NULL;
	if (LLVMGetTargetFromTriple(host_triple, &target, &msg)) {
		res->err = take_message("target", msg);
		goto out;
	}
	if (msg)
		LLVMDisposeMessage(msg);
	tm = take_tm(target, lv);
	if (!tm) {
		res->err = xprintf("target: cannot create target machine for "
				   "%s (%s)",
				   host_triple, host_cpu);
		goto out;
	}
	// Whatever the text said, the code runs here: the layout must match
	// the machine so the optimizer's size and alignment facts hold.
	LLVMSetTarget(mod, host_triple);
	LLVMTargetDataRef td = LLVMCreateTargetDataLayout(tm);
	LLVMSetModuleDataLayout(mod, td);
	LLVMDisposeTargetData(td);

	int64_t t1 = thread_ns();
	res->parse_ns = t1 - t0;
	pbo = LLVMCreatePassBuilderOptions();
	// The C API's defaults leave SLP vectorization off; match what clang
	// does at -O2 and above so straight-line float code uses SIMD too.
	LLVMBool vec = opt >= 2;
	LLVMPassBuilderOptionsSetLoopVectorization(pbo, vec);
	LLVMPassBuilderOptionsSetSLPVectorization(pbo, vec);
	LLVMPassBuilderOptionsSetLoopInterleaving(pbo, vec);
	LLVMPassBuilderOptionsSetLoopUnrolling(pbo, vec);
	char pipeline[32];
	snprintf(pipeline, sizeof pipeline, "default<O%d>", opt);
	LLVMErrorRef e = LLVMRunPasses(mod, vec && flat ? flat_pipeline : pipeline, tm, pbo);
	if (e) {
		res->err = take_error("optimize", e);
		goto out;
	}
	if (diag_failed(diag, "optimize", res))
		goto out;
	if (late_inline(mod)) {
		e = LLVMRunPasses(mod, "always-inline,globaldce", tm, pbo);
		if (e) {
			res->err = take_error("optimize", e);
			goto out;
		}
		if (diag_failed(diag, "optimize", res))
			goto out;
	}

	int64_t t2 = thread_ns();
	res->opt_ns = t2 - t1;
	int bad = emit(tm, mod, kind, res);
	res->emit_ns = thread_ns() - t2;
	if (bad)
		goto out;
	if (diag_failed(diag, "emit", res)) {
		free(res->data);
		res->data = NULL;
		res->len = 0;
		goto out;
	}
	rc = 0;
out:
	if (pbo)
		LLVMDisposePassBuilderOptions(pbo);
	LLVMDisposeModule(mod);
	if (tm)
		give_tm(tm, lv);
	return rc;
}

int gojit_compile(const char *name, const char *ir, size_t irlen, int opt,
		  int flat, int quick, int kind, gojit_result *res) {
	ensure_init();
	memset(res, 0, sizeof *res);
	if (!ir)
		ir = "";

	// A context per call: LLVMContext is not thread-safe, and disposing
	// it frees every type and constant the module interned.
	diag_state diag = {0};
	LLVMContextRef ctx = LLVMContextCreate();
	LLVMContextSetDiagnosticHandler(ctx, diag_handler, &diag);
	int rc = compile_module(ctx, &diag, name, ir, irlen, opt, flat, quick,
				kind, res);
	LLVMContextDispose(ctx);
	free(diag.first_error);
	return rc;
}

// ORC reports link failures (most importantly unresolved symbols) only to
// the session's error reporter; the lookup itself just says materialization
// failed. Materialization runs on the thread that performs the lookup, so a
// thread-local buffer ties the reporter's messages to the Load that caused
// them.
static __thread int capturing;
static __thread char *captured;

static void report_error(void *ctx, LLVMErrorRef e) {
	(void)ctx;
	char *m = LLVMGetErrorMessage(e);
	if (capturing) {
		char *s = captured ? xprintf("%s; %s", captured, m) : strdup(m);
		free(captured);
		captured = s;
	} else {
		fprintf(stderr, "gojit/llvm: JIT session error: %s\n", m);
	}
	LLVMDisposeErrorMessage(m);
}

static void begin_capture(void) {
	free(captured);
	captured = NULL;
	capturing = 1;
}

// end_capture returns what was reported since begin_capture (caller frees).
static char *end_capture(void) {
	char *s = captured;
	captured = NULL;
	capturing = 0;
	return s;
}

// join_reported frees m and r and returns "m (r)", or m alone when nothing
// was reported.
static char *join_reported(char *m, char *r) {
	if (!r)
		return m;
	char *s = xprintf("%s (%s)", m, r);
	free(m);
	free(r);
	return s;
}

LLVMOrcLLJITRef gojit_jit_create(char **err) {
	ensure_init();
	*err = NULL;
	LLVMOrcLLJITRef jit = NULL;
	LLVMErrorRef e = LLVMOrcCreateLLJIT(&jit, NULL);
	if (e) {
		*err = take_error("create LLJIT", e);
		return NULL;
	}
	LLVMOrcExecutionSessionSetErrorReporter(
	    LLVMOrcLLJITGetExecutionSession(jit), report_error, NULL);

	LLVMOrcDefinitionGeneratorRef gen = NULL;
	e = LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(
	    &gen, LLVMOrcLLJITGetGlobalPrefix(jit), NULL, NULL);
	if (e) {
		*err = take_error("process symbol generator", e);
		LLVMConsumeError(LLVMOrcDisposeLLJIT(jit));
		return NULL;
	}
	// The JITDylib takes ownership of the generator.
	LLVMOrcJITDylibAddGenerator(LLVMOrcLLJITGetMainJITDylib(jit), gen);
	return jit;
}

// drop_tracker removes whatever rt holds and releases our reference; used on
// failed loads so a half-linked object cannot block the symbol name.
static void drop_tracker(LLVMOrcResourceTrackerRef rt) {
	LLVMErrorRef e = LLVMOrcResourceTrackerRemove(rt);
	if (e)
		LLVMConsumeError(e);
	LLVMOrcReleaseResourceTracker(rt);
}

int gojit_load(LLVMOrcLLJITRef jit, const char *obj, size_t objlen,
	       const char *sym, LLVMOrcResourceTrackerRef *rtp, uint64_t *addr,
	       char **err) {
	*err = NULL;
	*rtp = NULL;
	*addr = 0;
	LLVMOrcResourceTrackerRef rt = LLVMOrcJITDylibCreateResourceTracker(
	    LLVMOrcLLJITGetMainJITDylib(jit));
	LLVMMemoryBufferRef buf =
	    LLVMCreateMemoryBufferWithMemoryRangeCopy(obj, objlen, sym);

	begin_capture();
	// Takes ownership of buf even on error. Symbol-table conflicts
	// (duplicate definitions) are detected here, when the object's
	// interface is added to the JITDylib.
	LLVMErrorRef e = LLVMOrcLLJITAddObjectFileWithRT(jit, rt, buf);
	if (e) {
		*err = join_reported(take_error("add object", e), end_capture());
		drop_tracker(rt);
		return 1;
	}
	// Linking happens lazily, at first lookup: relocation and
	// unresolved-symbol failures surface here, not at add.
	LLVMOrcExecutorAddress a = 0;
	e = LLVMOrcLLJITLookup(jit, &a, sym);
	char *r = end_capture();
	if (e) {
		*err = join_reported(take_error("lookup", e), r);
		drop_tracker(rt);
		return 1;
	}
	free(r);
	if (a == 0) {
		*err = xprintf("lookup: symbol %s resolved to address 0", sym);
		drop_tracker(rt);
		return 1;
	}
	*rtp = rt;
	*addr = a;
	return 0;
}

int gojit_free(LLVMOrcResourceTrackerRef rt, char **err) {
	*err = NULL;
	begin_capture();
	LLVMErrorRef e = LLVMOrcResourceTrackerRemove(rt);
	char *r = end_capture();
	LLVMOrcReleaseResourceTracker(rt);
	if (e) {
		*err = join_reported(take_error("remove", e), r);
		return 1;
	}
	free(r);
	return 0;
}

int gojit_lookup(LLVMOrcLLJITRef jit, const char *sym, uint64_t *addr, char **err) {
	*err = NULL;
	*addr = 0;
	begin_capture();
	LLVMOrcExecutorAddress a = 0;
	LLVMErrorRef e = LLVMOrcLLJITLookup(jit, &a, sym);
	char *r = end_capture();
	if (e) {
		*err = join_reported(take_error("lookup", e), r);
		return 1;
	}
	free(r);
	if (a == 0) {
		*err = xprintf("lookup: symbol %s resolved to address 0", sym);
		return 1;
	}
	*addr = a;
	return 0;
}
