package source

import (
	"errors"
	"strings"
	"testing"
)

func TestLoadFunc(t *testing.T) {
	c := newConfig(nil)
	u, err := loadFunc(normK, c)
	if err != nil {
		t.Fatal(err)
	}
	if u.fn.Name() != "normK" || u.decl.Name.Name != "normK" {
		t.Fatalf("fn %s decl %s", u.fn.Name(), u.decl.Name.Name)
	}
	var names []string
	for _, fd := range u.funcs {
		names = append(names, fd.Name.Name)
	}
	if got := strings.Join(names, ","); got != "normK,sq" {
		t.Errorf("funcs = %s, want normK,sq", got)
	}
	if err := check(u); err != nil {
		t.Errorf("check: %v", err)
	}
	if u.pkg.Func("unrelatedK") != nil {
		t.Errorf("unrelatedK was built, though normK does not call it")
	}
	t.Logf("%s", u.fn)
}

func TestLoadFuncErrors(t *testing.T) {
	c := newConfig(nil)
	tests := []struct {
		fn   any
		want string
	}{
		{func(x float64) float64 { return x }, "function literal (closure)"},
		{(&strings.Builder{}).Len, "method value"},
		{(*strings.Builder).Len, "is a method"},
		{nil, "needs a function"},
		{3, "needs a function"},
		{(func())(nil), "non-nil"},
	}
	for _, tt := range tests {
		_, err := loadFunc(tt.fn, c)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("loadFunc(%T): %v, want %q", tt.fn, err, tt.want)
		}
	}
	_, err := loadFunc(strings.ToUpper, c)
	if err != nil {
		t.Logf("std function: %v", err)
	}
	var e *Error
	if errors.As(err, &e) {
		t.Logf("std: %v", e)
	}
}
