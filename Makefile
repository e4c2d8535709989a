# gojit build entry points. `make demo` and `make test` install what a fresh
# Debian machine lacks (LLVM 19's and libjpeg-turbo's development packages)
# before running.

export PATH := /usr/local/go/bin:$(PATH)
GO ?= go
# Fuzz by execution count, not time: with a time limit, Go's fuzzing
# coordinator reports "context deadline exceeded" as a failure when the
# deadline lands while a worker is inside one input, and every input here
# includes an LLVM compile. 4000 runs take about 20-30 s.
FUZZTIME ?= 4000x
# Pinned by semver (the proxy refuses tag-name queries such as 2025.1.1 for a
# module it has not cached); v0.8.2 supports Go 1.26. `go run` builds it on first use.
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: deps demo test bench bench-peers bench-formula fuzz clean

deps:
	@command -v $(GO) >/dev/null || { echo "Go 1.26 is required (expected at /usr/local/go)"; exit 1; }
	@command -v llvm-config-19 >/dev/null 2>&1 || { \
		echo "llvm-config-19 not found: installing llvm-19-dev"; \
		$(SUDO) apt-get update -q && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -q llvm-19-dev; }
	@[ -f /usr/include/turbojpeg.h ] && [ -f /usr/include/jpeglib.h ] || { \
		echo "turbojpeg.h or jpeglib.h not found: installing libturbojpeg0-dev and libjpeg62-turbo-dev (internal/jpeg uses both APIs)"; \
		$(SUDO) apt-get update -q && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -q libturbojpeg0-dev libjpeg62-turbo-dev; }

demo: deps
	$(GO) run ./cmd/gojit demo

test: deps
	$(GO) vet ./...
	$(GO) vet -tags nollvm ./...
	$(GO) run $(STATICCHECK) ./...
	CGO_ENABLED=0 $(GO) run $(STATICCHECK) ./...
	CGO_ENABLED=0 $(GO) build ./...
	$(GO) test -count=1 ./...
	CGO_ENABLED=0 $(GO) test -count=1 ./...
	$(GO) test -count=1 -race -run 'Concurrent|Race' . ./internal/llvm ./internal/runtime ./internal/diskcache
	$(GO) test -count=1 -race -short ./lazy ./pipeline ./dataset
	$(GO) test -count=1 -run '^$$' -fuzz '^FuzzCompiledVsInterpreter$$' -fuzztime $(FUZZTIME) .
	# package source against go/ssa/interp: 300 runs take 10-20 s (each an LLVM compile).
	$(GO) test -count=1 -run '^$$' -fuzz '^FuzzCompileVsSSAInterp$$' -fuzztime 300x -fuzzminimizetime 10x ./source

bench: deps
	$(GO) run ./cmd/gojit bench

# Peers run under Debian's /usr/bin/python3, which is where python3-numpy,
# python3-numba, python3-numexpr and python3-torch install (a python3 earlier on PATH usually lacks them);
# OpenBLAS so that NumPy's matmul uses an optimized BLAS, as it would anywhere.
bench-peers: deps
	@/usr/bin/python3 -c 'import numba, numpy, numexpr, torch' 2>/dev/null && ls /usr/lib/*/libopenblas*.so* >/dev/null 2>&1 || { \
		echo "installing python3-numba, python3-numpy, python3-numexpr, python3-torch and OpenBLAS for /usr/bin/python3"; \
		$(SUDO) apt-get update -q && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -q python3-numba python3-numpy python3-numexpr python3-torch libopenblas0-pthread; }
	$(GO) run ./cmd/gojit bench -peers -plot docs/benchmarks.png -doc docs/benchmarks.md

# source.Formula against github.com/expr-lang/expr on a 6-operation formula
# over 1e6 float64 rows, ns/row and the ratio from one run. The peer is a
# module of its own (expr is not a gojit dependency), so the first run
# downloads expr; `make test` never enters it.
bench-formula: deps
	cd internal/bench/exprpeer && $(GO) test -count=1 -run TestAgree . && \
		$(GO) test -count=1 -run '^$$' -bench FormulaVsExpr -benchtime 5x -benchmem .

fuzz: deps
	$(GO) test -run '^$$' -fuzz '^FuzzCompiledVsInterpreter$$' -fuzztime 100000x .

clean:
	$(GO) clean -testcache
