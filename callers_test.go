package gojit

import (
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// The PCs captured when an op is recorded resolve, later, to the user's
// line and the public call made there: directly and through one public
// method calling another (Mean, Relu).
func TestCapturedSiteIsTheUsersLine(t *testing.T) {
	x := Full(Float32, 1, 3, 4)
	line := func() int { _, _, l, _ := runtime.Caller(1); return l }
	cases := []struct {
		call string
		make func() (*Tensor, int)
	}{
		{"Add", func() (*Tensor, int) { return x.Add(x), line() }},
		{"Relu", func() (*Tensor, int) { return x.Relu(), line() }},
		{"Mean", func() (*Tensor, int) { return x.Mean(), line() }},
		{"Sum", func() (*Tensor, int) { return x.Sum(1), line() }},
		{"MatMul", func() (*Tensor, int) { return x.MatMul(x.Transpose()), line() }},
		{"Where", func() (*Tensor, int) { return Where(x.Greater(Scalar(0)), x, Scalar(2)), line() }},
	}
	for _, c := range cases {
		r, l := c.make()
		if r.v < 0 {
			t.Fatalf("%s: %v", c.call, errorList(r.tr.errs))
		}
		pos, call := userSite(r.tr.pcs[r.v])
		want := "callers_test.go:" + strconv.Itoa(l)
		if !strings.HasSuffix(pos, want) || call != c.call {
			t.Errorf("%s: site = %q, %q; want %q, %q", c.call, pos, call, want, c.call)
		}
	}
}

// When the captured frames do not reach the user's code, an error found
// while recording walks the live stack instead (liveSite's fallback).
func TestLiveSiteWalksTheStack(t *testing.T) {
	pos, _ := liveSite(callStack{}) // nothing captured
	_, _, l, _ := runtime.Caller(0)
	if want := "callers_test.go:" + strconv.Itoa(l-1); !strings.HasSuffix(pos, want) {
		t.Fatalf("liveSite = %q, want %q", pos, want)
	}
}
