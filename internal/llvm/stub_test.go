//go:build !cgo || nollvm

package llvm

import (
	"errors"
	"testing"
)

func TestStubUnavailable(t *testing.T) {
	if Available() {
		t.Fatal("Available() = true in a build without LLVM")
	}
	if _, err := Compile("k", "", Options{OptLevel: 3}); !errors.Is(err, ErrUnavailable) {
		t.Errorf("Compile: %v", err)
	}
	if _, err := OptimizedIR("k", "", Options{}); !errors.Is(err, ErrUnavailable) {
		t.Errorf("OptimizedIR: %v", err)
	}
	if _, err := Assembly("k", "", Options{}); !errors.Is(err, ErrUnavailable) {
		t.Errorf("Assembly: %v", err)
	}
	if _, err := Load([]byte{1}, "k"); !errors.Is(err, ErrUnavailable) {
		t.Errorf("Load: %v", err)
	}
}
