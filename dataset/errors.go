package dataset

import (
	"errors"
	"fmt"
)

// Sentinel errors, for errors.Is. Every error from Open, Sample,
// AppendRaw, Verify and the Writer is an *Error wrapping one of these or
// an I/O error.
var (
	// ErrNotDataset: the file does not start with the dataset magic.
	ErrNotDataset = errors.New("not a gojit dataset (bad magic)")
	// ErrVersion: the file's format version is not one this package reads.
	ErrVersion = errors.New("unsupported format version")
	// ErrTruncated: the file is shorter than its header says.
	ErrTruncated = errors.New("truncated file")
	// ErrChecksum: a header, table or page checksum does not match.
	ErrChecksum = errors.New("checksum mismatch")
	// ErrCorrupt: a value in the file is out of range or inconsistent.
	ErrCorrupt = errors.New("corrupt file")
	// ErrSample: a sample given to the Writer does not fit the schema.
	ErrSample = errors.New("bad sample")
	// ErrClosed: the Reader or Writer is closed.
	ErrClosed = errors.New("closed")
)

// Error is an error about one dataset file, optionally about one sample
// and one field of it.
type Error struct {
	Path   string // the dataset file
	Sample int    // the sample index, or -1
	Field  string // the field name, or ""
	Err    error  // what is wrong
}

func (e *Error) Error() string {
	s := "dataset " + e.Path + ": "
	if e.Sample >= 0 {
		s += fmt.Sprintf("sample %d: ", e.Sample)
	}
	if e.Field != "" {
		s += fmt.Sprintf("field %q: ", e.Field)
	}
	return s + e.Err.Error()
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

func fileErr(path string, err error) error {
	return &Error{Path: path, Sample: -1, Err: err}
}

func sampleErr(path string, i int, field string, err error) error {
	return &Error{Path: path, Sample: i, Field: field, Err: err}
}
