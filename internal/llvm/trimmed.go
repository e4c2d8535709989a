package llvm

import (
	"bytes"
	"crypto/sha256"
	"debug/elf"
	_ "embed" // the table of LLVM-C functions, for the trimmed library's exports
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// The trimmed libLLVM (doc.go, "A trimmed libLLVM"): a shared object linked
// from the distribution's static LLVM component libraries that exports only
// the C functions dl.c resolves. It is optional and built on request
// (BuildTrimmed; `gojit setup`); when a valid one is in the cache directory,
// the first operation that needs LLVM loads it instead of the distribution's
// libLLVM.

// EnvLibrary names the environment variable that chooses the library:
// "system" skips the trimmed library and loads the distribution's; a path
// loads that file first (falling back as usual when it is unusable). Unset
// or empty, a valid trimmed library in the cache directory is preferred.
// It is read once, when the library is loaded; it exists for tests and
// diagnosis.
const EnvLibrary = "GOJIT_LLVM_LIBRARY"

// trimmedRecipe changes whenever the way the trimmed library is linked
// changes, so an older build is never taken for a current one.
const trimmedRecipe = "2"

//go:embed llvm_table.h
var tableHeader string

// targetNames maps GOARCH to LLVM's name for the native target, as in
// LLVMInitialize<Name>Target, and its llvm-config component.
var targetNames = map[string][2]string{
	"amd64": {"X86", "x86"},
	"arm64": {"AArch64", "aarch64"},
}

// trimmedComponents are the llvm-config components the C functions in
// the table need besides the native target's.
var trimmedComponents = []string{"passes", "orcjit", "irreader", "asmparser"}

// trimmedExports returns the C functions the trimmed library must export:
// those of the table and the native target's initializers, sorted as in
// the table.
func trimmedExports() ([]string, error) {
	t, ok := targetNames[runtime.GOARCH]
	if !ok {
		return nil, fmt.Errorf("llvm: no trimmed library for GOARCH %s", runtime.GOARCH)
	}
	// The entries of GOJIT_LLVM_FUNCS: X(LLVMName). A plain scan, not a
	// regexp, since every first load of the library runs this.
	var names []string
	for rest := tableHeader; ; {
		i := strings.Index(rest, "X(LLVM")
		if i < 0 {
			break
		}
		rest = rest[i+2:]
		j := strings.IndexByte(rest, ')')
		if j < 0 {
			break
		}
		names = append(names, rest[:j])
		rest = rest[j:]
	}
	if len(names) == 0 {
		return nil, errors.New("llvm: llvm_table.h lists no functions")
	}
	for _, s := range []string{"TargetInfo", "Target", "TargetMC", "AsmPrinter", "AsmParser"} {
		names = append(names, "LLVMInitialize"+t[0]+s)
	}
	return names, nil
}

// TrimmedLibrary returns the path at which BuildTrimmed puts the trimmed
// libLLVM for this build and where loading looks for it, whether or not
// it exists: a file under os.UserCacheDir()/gojit/llvm whose name holds
// the LLVM version of the headers and a hash of the exported functions
// and the link recipe, so a changed table or LLVM upgrade never picks up
// a stale library.
func TrimmedLibrary() (string, error) {
	if Version() == "" {
		return "", fmt.Errorf("llvm: trimmed library: %w", ErrUnavailable)
	}
	names, err := trimmedExports()
	if err != nil {
		return "", err
	}
	root, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("llvm: trimmed library: %w", err)
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%s\n%s\n", trimmedRecipe, runtime.GOARCH, strings.Join(names, "\n"))
	key := hex.EncodeToString(h.Sum(nil))[:12]
	return filepath.Join(root, "gojit", "llvm", fmt.Sprintf("libLLVM-gojit-%s-%s.so", Version(), key)), nil
}

// BuildTrimmed links the trimmed libLLVM into TrimmedLibrary's path and
// returns that path. It needs the distribution's static LLVM libraries of
// the headers' version (Debian's llvm-N-dev installs them with
// llvm-config-N) and a C++ compiler driver ($CXX, or c++); the link takes
// a few seconds. The file appears atomically (a temporary file renamed
// into place), so concurrent builds and loads never see a partial one.
// The commands run are written to log when it is not nil. Other trimmed
// libraries in the same directory (older builds) are removed.
func BuildTrimmed(log io.Writer) (string, error) {
	out, err := TrimmedLibrary()
	if err != nil {
		return "", err
	}
	if err := buildTrimmedAt(out, log); err != nil {
		return "", err
	}
	// Older builds (another LLVM version, table or recipe) are 50 MB
	// each and never loaded by this build; processes that mapped one
	// keep their mapping.
	old, _ := filepath.Glob(filepath.Join(filepath.Dir(out), "libLLVM-gojit-*.so"))
	for _, p := range old {
		if p != out {
			os.Remove(p)
		}
	}
	return out, nil
}

// buildTrimmedAt links the trimmed library into out (tests use their own
// directory).
func buildTrimmedAt(out string, log io.Writer) error {
	if log == nil {
		log = io.Discard
	}
	names, err := trimmedExports()
	if err != nil {
		return err
	}
	major, _, _ := strings.Cut(Version(), ".")
	config, err := findLLVMConfig(major)
	if err != nil {
		return err
	}
	if v, err := runOut(config, "--version"); err != nil || v != Version() {
		return fmt.Errorf("llvm: trimmed library: %s reports LLVM %q, want %s (the headers' version)%s", config, v, Version(), errSuffix(err))
	}
	comps := append([]string{targetNames[runtime.GOARCH][1]}, trimmedComponents...)
	libs, err := runOut(config, append([]string{"--libs", "--link-static"}, comps...)...)
	if err != nil {
		return fmt.Errorf("llvm: trimmed library: %s --libs: %w (are the static libraries installed? Debian: llvm-%s-dev)", config, err, major)
	}
	libdir, err := runOut(config, "--libdir")
	if err != nil {
		return fmt.Errorf("llvm: trimmed library: %s --libdir: %w", config, err)
	}
	syslibs, err := runOut(config, "--system-libs", "--link-static")
	if err != nil {
		return fmt.Errorf("llvm: trimmed library: %s --system-libs: %w", config, err)
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o700); err != nil {
		return fmt.Errorf("llvm: trimmed library: %w", err)
	}
	work, err := os.MkdirTemp(filepath.Dir(out), ".build-")
	if err != nil {
		return fmt.Errorf("llvm: trimmed library: %w", err)
	}
	defer os.RemoveAll(work)
	script := filepath.Join(work, "exports.map")
	var vs strings.Builder
	vs.WriteString("{\n  global:\n")
	for _, n := range names {
		fmt.Fprintf(&vs, "    %s;\n", n)
	}
	vs.WriteString("  local: *;\n};\n")
	if err := os.WriteFile(script, []byte(vs.String()), 0o600); err != nil {
		return fmt.Errorf("llvm: trimmed library: %w", err)
	}
	tmp := filepath.Join(work, "lib.so")
	cxx := os.Getenv("CXX")
	if cxx == "" {
		cxx = "c++"
	}
	args := []string{"-shared", "-o", tmp,
		"-Wl,-soname," + filepath.Base(out),
		"-Wl,--version-script=" + script,
		// Only what the exports reach: 50 MB instead of 130, and a
		// third of the relocations.
		"-Wl,--gc-sections",
		"-Wl,-z,pack-relative-relocs",
		// dl.c never unloads a library it used; a failed candidate
		// stays mapped rather than running LLVM's destructors.
		"-Wl,-z,nodelete",
		"-Wl,-O1",
		"-Wl,--no-undefined",
		// LLVM's own copy of the C++ runtime, hidden by the version
		// script: no libstdc++.so and libgcc_s to load, and none of
		// the 3,700 symbol lookups binding LLVM to them (a fifth of
		// the load, measured).
		"-static-libstdc++",
		"-static-libgcc",
	}
	for _, n := range names {
		args = append(args, "-Wl,-u,"+n)
	}
	args = append(args, "-L"+libdir, "-Wl,--start-group")
	args = append(args, strings.Fields(libs)...)
	args = append(args, "-Wl,--end-group", "-Wl,--as-needed")
	args = append(args, systemLibs(syslibs)...)
	fmt.Fprintf(log, "%s %s\n", cxx, strings.Join(args, " "))
	cmd := exec.Command(cxx, args...)
	var msg bytes.Buffer
	cmd.Stdout, cmd.Stderr = &msg, &msg
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("llvm: trimmed library: link: %v\n%s", err, tail(msg.String(), 40))
	}
	if err := checkExports(tmp, names); err != nil {
		return fmt.Errorf("llvm: trimmed library: %w", err)
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return fmt.Errorf("llvm: trimmed library: %w", err)
	}
	if err := os.Rename(tmp, out); err != nil {
		return fmt.Errorf("llvm: trimmed library: %w", err)
	}
	return nil
}

// systemLibs turns llvm-config's --system-libs into linker arguments.
// Compression libraries are named by their run-time sonames, which every
// system with the distribution's libLLVM has, since their -dev packages
// (the plain .so links) may be missing; --as-needed (given before) drops
// any the trimmed code does not reference, such as libz3 and libxml2.
func systemLibs(s string) []string {
	var args []string
	for _, f := range strings.Fields(s) {
		switch f {
		case "-lz":
			f = "-l:libz.so.1"
		case "-lzstd":
			f = "-l:libzstd.so.1"
		}
		args = append(args, f)
	}
	return args
}

// checkExports verifies that the linked library defines every function
// dl.c resolves.
func checkExports(path string, names []string) error {
	f, err := elf.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	syms, err := f.DynamicSymbols()
	if err != nil {
		return err
	}
	have := make(map[string]bool, len(syms))
	for _, s := range syms {
		if s.Section != elf.SHN_UNDEF && elf.ST_TYPE(s.Info) == elf.STT_FUNC {
			have[s.Name] = true
		}
	}
	for _, n := range names {
		if !have[n] {
			return fmt.Errorf("linked library does not export %s", n)
		}
	}
	return nil
}

// findLLVMConfig returns llvm-config for LLVM major: llvm-config-N on
// PATH, or Debian's /usr/lib/llvm-N/bin/llvm-config.
func findLLVMConfig(major string) (string, error) {
	if p, err := exec.LookPath("llvm-config-" + major); err == nil {
		return p, nil
	}
	p := "/usr/lib/llvm-" + major + "/bin/llvm-config"
	if _, err := os.Stat(p); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("llvm: trimmed library: llvm-config-%s not found (Debian: install llvm-%s-dev)", major, major)
}

// runOut runs a command and returns its trimmed standard output.
func runOut(name string, args ...string) (string, error) {
	var out, errOut bytes.Buffer
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%v: %s", err, strings.TrimSpace(errOut.String()))
	}
	return strings.TrimSpace(out.String()), nil
}

func errSuffix(err error) string {
	if err == nil {
		return ""
	}
	return ": " + err.Error()
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
