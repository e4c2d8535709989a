package main

import (
	"flag"
	"io"
)

func dumpFlags(fs *flag.FlagSet, stdout, stderr io.Writer) func() int    { return nil }
func benchFlags(fs *flag.FlagSet, stdout, stderr io.Writer) func() int   { return nil }
func versionFlags(fs *flag.FlagSet, stdout, stderr io.Writer) func() int { return nil }
