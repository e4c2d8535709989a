// Declarations shared by llvm.go's cgo preamble and shim.c. Keeping the LLVM
// work in C means one cgo crossing per Compile or Load, and lets every LLVM
// error string be freed by the allocator that made it.

#ifndef GOJIT_LLVM_SHIM_H
#define GOJIT_LLVM_SHIM_H

#include <stddef.h>
#include <stdint.h>

#include <llvm-c/LLJIT.h>
#include <llvm-c/Orc.h>

// What gojit_compile hands back.
enum {
	GOJIT_EMIT_OBJECT = 0,
	GOJIT_EMIT_ASM = 1,
	GOJIT_EMIT_IR = 2,
};

// gojit_result owns malloc'd memory that Go releases with free().
// The *_ns fields are the calling thread's CPU time in each stage of a
// compile (parse and verify, the optimization pipeline, emission).
typedef struct {
	char *data;
	size_t len;
	char *err;
	int64_t parse_ns, opt_ns, emit_ns;
} gojit_result;

// Every function below needs libLLVM loaded: call it only after
// gojit_llvm_open (llvm_table.h) has returned NULL.

// The loaded library's version.
void gojit_version(unsigned *maj, unsigned *min, unsigned *patch);

const char *gojit_host_cpu_name(void);
const char *gojit_host_cpu_features(void);

// Returns 0 on success; on failure res->err holds "stage: message".
// flat asks for the short pipeline of flat elementwise modules (at opt 2
// and 3; see Options.Flat); quick for the backend at its O0 level (see
// Options.QuickBackend).
int gojit_compile(const char *name, const char *ir, size_t irlen, int opt,
		  int flat, int quick, int kind, gojit_result *res);

// Creates the process-wide JIT; on failure returns NULL and sets *err.
LLVMOrcLLJITRef gojit_jit_create(char **err);

// Adds obj under a fresh tracker in the main JITDylib and resolves sym.
// On failure nothing stays in the JIT and *err is set.
int gojit_load(LLVMOrcLLJITRef jit, const char *obj, size_t objlen,
	       const char *sym, LLVMOrcResourceTrackerRef *rt, uint64_t *addr,
	       char **err);

// Resolves another symbol of an already loaded object.
int gojit_lookup(LLVMOrcLLJITRef jit, const char *sym, uint64_t *addr, char **err);

// Removes and releases rt; returns nonzero and sets *err if removal failed
// (the tracker is released either way).
int gojit_free(LLVMOrcResourceTrackerRef rt, char **err);

#endif
