// The LLVM-C entry points package llvm uses, called through a table of
// function pointers that dl.c fills from libLLVM when the first compile
// (or JIT load) needs it, so that linking gojit links no LLVM library and
// a program that never compiles never loads one (doc.go, "Loading
// LLVM"). The headers still declare every function, so each pointer has
// exactly the type of the function it stands for.
//
// shim.c defines GOJIT_LLVM_RENAME before including this file: every call
// it makes, LLVMFoo(...), then reads (gojit_llvm.LLVMFoo)(...). A function
// added to shim.c but not listed here is a direct reference to a symbol
// nothing links, which fails the build rather than the program.

#ifndef GOJIT_LLVM_TABLE_H
#define GOJIT_LLVM_TABLE_H

#include <llvm-c/Analysis.h>
#include <llvm-c/Core.h>
#include <llvm-c/Error.h>
#include <llvm-c/IRReader.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Orc.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <llvm/Config/llvm-config.h>

#define GOJIT_LLVM_FUNCS(X) \
	X(LLVMGetVersion) \
	X(LLVMAddAttributeAtIndex) \
	X(LLVMConsumeError) \
	X(LLVMContextCreate) \
	X(LLVMContextDispose) \
	X(LLVMContextSetDiagnosticHandler) \
	X(LLVMCreateEnumAttribute) \
	X(LLVMCreateMemoryBufferWithMemoryRangeCopy) \
	X(LLVMCreatePassBuilderOptions) \
	X(LLVMCreateTargetDataLayout) \
	X(LLVMCreateTargetMachine) \
	X(LLVMDeleteGlobal) \
	X(LLVMDisposeErrorMessage) \
	X(LLVMDisposeMemoryBuffer) \
	X(LLVMDisposeMessage) \
	X(LLVMDisposeModule) \
	X(LLVMDisposePassBuilderOptions) \
	X(LLVMDisposeTargetData) \
	X(LLVMDisposeTargetMachine) \
	X(LLVMGetBufferSize) \
	X(LLVMGetBufferStart) \
	X(LLVMGetDefaultTargetTriple) \
	X(LLVMGetDiagInfoDescription) \
	X(LLVMGetDiagInfoSeverity) \
	X(LLVMGetEnumAttributeKindForName) \
	X(LLVMGetErrorMessage) \
	X(LLVMGetFirstFunction) \
	X(LLVMGetHostCPUFeatures) \
	X(LLVMGetHostCPUName) \
	X(LLVMGetModuleContext) \
	X(LLVMGetNamedGlobal) \
	X(LLVMGetNextFunction) \
	X(LLVMGetStringAttributeAtIndex) \
	X(LLVMGetTargetFromTriple) \
	X(LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess) \
	X(LLVMOrcCreateLLJIT) \
	X(LLVMOrcDisposeLLJIT) \
	X(LLVMOrcExecutionSessionSetErrorReporter) \
	X(LLVMOrcJITDylibAddGenerator) \
	X(LLVMOrcJITDylibCreateResourceTracker) \
	X(LLVMOrcLLJITAddObjectFileWithRT) \
	X(LLVMOrcLLJITGetExecutionSession) \
	X(LLVMOrcLLJITGetGlobalPrefix) \
	X(LLVMOrcLLJITGetMainJITDylib) \
	X(LLVMOrcLLJITLookup) \
	X(LLVMOrcReleaseResourceTracker) \
	X(LLVMOrcResourceTrackerRemove) \
	X(LLVMParseIRInContext) \
	X(LLVMPassBuilderOptionsSetLoopInterleaving) \
	X(LLVMPassBuilderOptionsSetLoopUnrolling) \
	X(LLVMPassBuilderOptionsSetLoopVectorization) \
	X(LLVMPassBuilderOptionsSetSLPVectorization) \
	X(LLVMPrintModuleToString) \
	X(LLVMRemoveEnumAttributeAtIndex) \
	X(LLVMRunPasses) \
	X(LLVMSetLinkage) \
	X(LLVMSetModuleDataLayout) \
	X(LLVMSetTarget) \
	X(LLVMTargetMachineEmitToMemoryBuffer) \
	X(LLVMVerifyModule) \

typedef struct {
#define GOJIT_LLVM_FIELD(f) __typeof__(f) *f;
	GOJIT_LLVM_FUNCS(GOJIT_LLVM_FIELD)
#undef GOJIT_LLVM_FIELD
	// The native target's initializers, named by llvm-config.h
	// (LLVMInitializeX86Target and so on on x86-64).
	void (*native_target_info)(void);
	void (*native_target)(void);
	void (*native_target_mc)(void);
	void (*native_asm_printer)(void);
	void (*native_asm_parser)(void);
} gojit_llvm_table;

// gojit_llvm is filled once by gojit_llvm_open and read-only afterwards.
extern gojit_llvm_table gojit_llvm;

// gojit_llvm_open loads libLLVM and resolves every entry point, once per
// process; later calls return the first call's result. It returns NULL on
// success, or a message (never freed) naming what was tried.
const char *gojit_llvm_open(void);

// gojit_llvm_set_candidates replaces the file names gojit_llvm_open tries
// (paths must outlive the process); call it before gojit_llvm_open.
void gojit_llvm_set_candidates(const char *const *paths, int n);

// gojit_llvm_prefer names a library to try before the candidates (the
// trimmed libLLVM, trimmed.go); path must outlive the process's load.
void gojit_llvm_prefer(const char *path);

// gojit_llvm_path is the file the library was loaded from, or NULL.
const char *gojit_llvm_path(void);

#ifdef GOJIT_LLVM_RENAME
#define LLVMGetVersion (gojit_llvm.LLVMGetVersion)
#define LLVMAddAttributeAtIndex (gojit_llvm.LLVMAddAttributeAtIndex)
#define LLVMConsumeError (gojit_llvm.LLVMConsumeError)
#define LLVMContextCreate (gojit_llvm.LLVMContextCreate)
#define LLVMContextDispose (gojit_llvm.LLVMContextDispose)
#define LLVMContextSetDiagnosticHandler (gojit_llvm.LLVMContextSetDiagnosticHandler)
#define LLVMCreateEnumAttribute (gojit_llvm.LLVMCreateEnumAttribute)
#define LLVMCreateMemoryBufferWithMemoryRangeCopy (gojit_llvm.LLVMCreateMemoryBufferWithMemoryRangeCopy)
#define LLVMCreatePassBuilderOptions (gojit_llvm.LLVMCreatePassBuilderOptions)
#define LLVMCreateTargetDataLayout (gojit_llvm.LLVMCreateTargetDataLayout)
#define LLVMCreateTargetMachine (gojit_llvm.LLVMCreateTargetMachine)
#define LLVMDeleteGlobal (gojit_llvm.LLVMDeleteGlobal)
#define LLVMDisposeErrorMessage (gojit_llvm.LLVMDisposeErrorMessage)
#define LLVMDisposeMemoryBuffer (gojit_llvm.LLVMDisposeMemoryBuffer)
#define LLVMDisposeMessage (gojit_llvm.LLVMDisposeMessage)
#define LLVMDisposeModule (gojit_llvm.LLVMDisposeModule)
#define LLVMDisposePassBuilderOptions (gojit_llvm.LLVMDisposePassBuilderOptions)
#define LLVMDisposeTargetData (gojit_llvm.LLVMDisposeTargetData)
#define LLVMDisposeTargetMachine (gojit_llvm.LLVMDisposeTargetMachine)
#define LLVMGetBufferSize (gojit_llvm.LLVMGetBufferSize)
#define LLVMGetBufferStart (gojit_llvm.LLVMGetBufferStart)
#define LLVMGetDefaultTargetTriple (gojit_llvm.LLVMGetDefaultTargetTriple)
#define LLVMGetDiagInfoDescription (gojit_llvm.LLVMGetDiagInfoDescription)
#define LLVMGetDiagInfoSeverity (gojit_llvm.LLVMGetDiagInfoSeverity)
#define LLVMGetEnumAttributeKindForName (gojit_llvm.LLVMGetEnumAttributeKindForName)
#define LLVMGetErrorMessage (gojit_llvm.LLVMGetErrorMessage)
#define LLVMGetFirstFunction (gojit_llvm.LLVMGetFirstFunction)
#define LLVMGetHostCPUFeatures (gojit_llvm.LLVMGetHostCPUFeatures)
#define LLVMGetHostCPUName (gojit_llvm.LLVMGetHostCPUName)
#define LLVMGetModuleContext (gojit_llvm.LLVMGetModuleContext)
#define LLVMGetNamedGlobal (gojit_llvm.LLVMGetNamedGlobal)
#define LLVMGetNextFunction (gojit_llvm.LLVMGetNextFunction)
#define LLVMGetStringAttributeAtIndex (gojit_llvm.LLVMGetStringAttributeAtIndex)
#define LLVMGetTargetFromTriple (gojit_llvm.LLVMGetTargetFromTriple)
#define LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess (gojit_llvm.LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess)
#define LLVMOrcCreateLLJIT (gojit_llvm.LLVMOrcCreateLLJIT)
#define LLVMOrcDisposeLLJIT (gojit_llvm.LLVMOrcDisposeLLJIT)
#define LLVMOrcExecutionSessionSetErrorReporter (gojit_llvm.LLVMOrcExecutionSessionSetErrorReporter)
#define LLVMOrcJITDylibAddGenerator (gojit_llvm.LLVMOrcJITDylibAddGenerator)
#define LLVMOrcJITDylibCreateResourceTracker (gojit_llvm.LLVMOrcJITDylibCreateResourceTracker)
#define LLVMOrcLLJITAddObjectFileWithRT (gojit_llvm.LLVMOrcLLJITAddObjectFileWithRT)
#define LLVMOrcLLJITGetExecutionSession (gojit_llvm.LLVMOrcLLJITGetExecutionSession)
#define LLVMOrcLLJITGetGlobalPrefix (gojit_llvm.LLVMOrcLLJITGetGlobalPrefix)
#define LLVMOrcLLJITGetMainJITDylib (gojit_llvm.LLVMOrcLLJITGetMainJITDylib)
#define LLVMOrcLLJITLookup (gojit_llvm.LLVMOrcLLJITLookup)
#define LLVMOrcReleaseResourceTracker (gojit_llvm.LLVMOrcReleaseResourceTracker)
#define LLVMOrcResourceTrackerRemove (gojit_llvm.LLVMOrcResourceTrackerRemove)
#define LLVMParseIRInContext (gojit_llvm.LLVMParseIRInContext)
#define LLVMPassBuilderOptionsSetLoopInterleaving (gojit_llvm.LLVMPassBuilderOptionsSetLoopInterleaving)
#define LLVMPassBuilderOptionsSetLoopUnrolling (gojit_llvm.LLVMPassBuilderOptionsSetLoopUnrolling)
#define LLVMPassBuilderOptionsSetLoopVectorization (gojit_llvm.LLVMPassBuilderOptionsSetLoopVectorization)
#define LLVMPassBuilderOptionsSetSLPVectorization (gojit_llvm.LLVMPassBuilderOptionsSetSLPVectorization)
#define LLVMPrintModuleToString (gojit_llvm.LLVMPrintModuleToString)
#define LLVMRemoveEnumAttributeAtIndex (gojit_llvm.LLVMRemoveEnumAttributeAtIndex)
#define LLVMRunPasses (gojit_llvm.LLVMRunPasses)
#define LLVMSetLinkage (gojit_llvm.LLVMSetLinkage)
#define LLVMSetModuleDataLayout (gojit_llvm.LLVMSetModuleDataLayout)
#define LLVMSetTarget (gojit_llvm.LLVMSetTarget)
#define LLVMTargetMachineEmitToMemoryBuffer (gojit_llvm.LLVMTargetMachineEmitToMemoryBuffer)
#define LLVMVerifyModule (gojit_llvm.LLVMVerifyModule)
#endif

#endif
