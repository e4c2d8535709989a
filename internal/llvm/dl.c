//go:build cgo && !nollvm

// Loading libLLVM at run time. See doc.go, "Loading LLVM".

#include "llvm_table.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

gojit_llvm_table gojit_llvm;

#define GOJIT_STR2(x) #x
#define GOJIT_STR(x) GOJIT_STR2(x)
#define GOJIT_MAJOR GOJIT_STR(LLVM_VERSION_MAJOR)
#define GOJIT_MINOR GOJIT_STR(LLVM_VERSION_MINOR)

// Debian's llvm-N packages install under /usr/lib/llvm-N; the plain
// names after them go through the dynamic loader's own search
// (LD_LIBRARY_PATH, the ld.so cache), which finds other layouts.
static const char *const candidates[] = {
    "/usr/lib/llvm-" GOJIT_MAJOR "/lib/libLLVM.so." GOJIT_MAJOR "." GOJIT_MINOR,
    "/usr/lib/llvm-" GOJIT_MAJOR "/lib/libLLVM-" GOJIT_MAJOR ".so",
    "libLLVM.so." GOJIT_MAJOR "." GOJIT_MINOR,
    "libLLVM-" GOJIT_MAJOR ".so",
};

// Where do_open looks; tests replace the list (gojit_llvm_set_candidates)
// to exercise a missing library.
static const char *const *cand = candidates;
static int ncand = sizeof candidates / sizeof candidates[0];

void gojit_llvm_set_candidates(const char *const *paths, int n) {
	cand = paths;
	ncand = n;
}

// A library tried before the candidates, or NULL (gojit_llvm_prefer).
static const char *preferred;

void gojit_llvm_prefer(const char *path) { preferred = path; }

static pthread_once_t open_once = PTHREAD_ONCE_INIT;
static const char *open_err;
static const char *open_path;

// fail records a formatted message; allocation failure leaves a fixed one.
static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...) {
	va_list ap;
	char *s = NULL;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	open_err = s ? s : "cannot load libLLVM (out of memory)";
}

// sym resolves name in h, or records why not (in why) and returns NULL.
static void *sym(void *h, const char *name, const char *path, char **why) {
	dlerror();
	void *p = dlsym(h, name);
	if (!p && asprintf(why, "%s (LLVM %d.%d) has no symbol %s", path,
			   LLVM_VERSION_MAJOR, LLVM_VERSION_MINOR, name) < 0)
		*why = NULL;
	return p;
}

// try_one loads path and fills t, or returns why it cannot be used
// (malloc'd; NULL with t filled on success).
static char *try_one(const char *path, gojit_llvm_table *t) {
	char *why = NULL;
	// RTLD_NOW: a library whose own dependencies are missing fails
	// here, not in the middle of a compile. RTLD_LOCAL: LLVM's symbols
	// stay out of the global namespace, so kernels' external references
	// (expf, memset) cannot bind to them.
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *e = dlerror();
		return strdup(e ? e : path);
	}
#define GOJIT_LLVM_RESOLVE(field, name)                                     \
	if (!(t->field = (__typeof__(t->field))sym(h, name, path, &why))) { \
		dlclose(h);                                                 \
		return why ? why : strdup(name);                            \
	}
#define GOJIT_LLVM_RESOLVE_FN(f) GOJIT_LLVM_RESOLVE(f, #f)
	GOJIT_LLVM_FUNCS(GOJIT_LLVM_RESOLVE_FN)
	GOJIT_LLVM_RESOLVE(native_target_info, GOJIT_STR(LLVM_NATIVE_TARGETINFO))
	GOJIT_LLVM_RESOLVE(native_target, GOJIT_STR(LLVM_NATIVE_TARGET))
	GOJIT_LLVM_RESOLVE(native_target_mc, GOJIT_STR(LLVM_NATIVE_TARGETMC))
	GOJIT_LLVM_RESOLVE(native_asm_printer, GOJIT_STR(LLVM_NATIVE_ASMPRINTER))
	GOJIT_LLVM_RESOLVE(native_asm_parser, GOJIT_STR(LLVM_NATIVE_ASMPARSER))
#undef GOJIT_LLVM_RESOLVE_FN
#undef GOJIT_LLVM_RESOLVE
	// The headers this package was built with fix the C API's types and
	// enums; a library of another major.minor may differ in them.
	unsigned maj = 0, min = 0, patch = 0;
	t->LLVMGetVersion(&maj, &min, &patch);
	if (maj != LLVM_VERSION_MAJOR || min != LLVM_VERSION_MINOR) {
		if (asprintf(&why, "%s is LLVM %u.%u.%u, but gojit was built with "
			     "the headers of %s", path, maj, min, patch,
			     LLVM_VERSION_STRING) < 0)
			why = NULL;
		dlclose(h);
		return why ? why : strdup(path);
	}
	return NULL;
}

// do_open takes the first candidate that loads, has every function and
// the headers' version: a trimmed library (trimmed.go) that is unusable
// thus falls back to the distribution's.
static void do_open(void) {
	char tried[4096];
	size_t used = 0;
	tried[0] = 0;
	for (int i = preferred ? -1 : 0; i < ncand; i++) {
		const char *path = i < 0 ? preferred : cand[i];
		gojit_llvm_table t;
		char *why = try_one(path, &t);
		if (!why) {
			gojit_llvm = t;
			open_path = path;
			return;
		}
		int k = snprintf(tried + used, sizeof tried - used, "%s%s",
				 used ? "; " : "", why);
		if (k > 0 && (size_t)k < sizeof tried - used)
			used += k;
		free(why);
	}
	fail("cannot load libLLVM %s.%s (install llvm-%s, or put its "
	     "libLLVM on LD_LIBRARY_PATH); tried: %s",
	     GOJIT_MAJOR, GOJIT_MINOR, GOJIT_MAJOR, tried);
}

const char *gojit_llvm_open(void) {
	pthread_once(&open_once, do_open);
	return open_err;
}

const char *gojit_llvm_path(void) { return open_path; }
