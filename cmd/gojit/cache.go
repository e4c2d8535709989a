package main

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/gojit/gojit"
	"github.com/gojit/gojit/internal/diskcache"
	"github.com/gojit/gojit/internal/runtime"
)

// cacheFlags is `gojit cache [flags] stats|list|clear|bench`: it inspects
// or empties the disk cache of compiled kernels, or benchmarks the cache.
func cacheFlags(fs *flag.FlagSet, stdout, stderr io.Writer) func() int {
	dir := fs.String("dir", "", "cache directory (default $GOJIT_CACHE_DIR or the user cache directory's gojit folder)")
	asJSON := fs.Bool("json", false, "print machine-readable JSON")
	rounds := fs.Int("rounds", 3, "bench: fresh processes per measurement (the best counts)")
	churn := fs.Int("churn", 10000, "bench: distinct compiles for the memory test (0 skips it)")
	return func() int {
		args := fs.Args()
		if len(args) == 0 {
			fmt.Fprintln(stderr, "gojit cache: missing action: stats, list, clear or bench")
			fs.Usage()
			return exitUsage
		}
		action := args[0]
		// Flags may also follow the action: gojit cache list -json.
		if err := fs.Parse(args[1:]); err != nil {
			return exitUsage
		}
		if fs.NArg() > 0 {
			fmt.Fprintf(stderr, "gojit cache: unexpected argument %q\n", fs.Arg(0))
			return exitUsage
		}
		d := *dir
		if d == "" {
			var err error
			if d, err = gojit.DefaultCacheDir(); err != nil {
				return fail(stderr, "cache", err)
			}
		}
		switch action {
		case "stats":
			return cacheStats(d, *asJSON, stdout, stderr)
		case "list":
			return cacheList(d, *asJSON, stdout, stderr)
		case "clear":
			return cacheClear(d, stdout, stderr)
		case "bench":
			if *rounds < 1 || *churn < 0 {
				fmt.Fprintln(stderr, "gojit cache bench: -rounds must be at least 1 and -churn at least 0")
				return exitUsage
			}
			return cacheBench(context.Background(), *rounds, *churn, stdout, stderr)
		case childAction:
			return cacheChild(d, stdout, stderr)
		}
		fmt.Fprintf(stderr, "gojit cache: unknown action %q: want stats, list, clear or bench\n", action)
		return exitUsage
	}
}

// openCache opens the store in dir without creating it: a missing
// directory is an empty cache (nil store, nil error).
func openCache(dir string) (*diskcache.Store, error) {
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return diskcache.Open(dir, 0)
}

type cacheSummary struct {
	Dir      string `json:"dir"`
	Exists   bool   `json:"exists"`
	Entries  int    `json:"entries"`
	Bytes    int64  `json:"bytes"`
	Corrupt  int    `json:"corrupt"`
	Limit    int64  `json:"limit_bytes"`
	Disabled bool   `json:"disabled_by_env"`
}

func cacheStats(dir string, asJSON bool, stdout, stderr io.Writer) int {
	s, err := openCache(dir)
	if err != nil {
		return fail(stderr, "cache", err)
	}
	sum := cacheSummary{Dir: dir, Exists: s != nil, Limit: runtime.DefaultDiskMaxBytes, Disabled: strings.EqualFold(os.Getenv(gojit.EnvCache), "off")}
	if s != nil {
		infos, err := s.List()
		if err != nil {
			return fail(stderr, "cache", err)
		}
		for _, in := range infos {
			sum.Entries++
			sum.Bytes += in.Size
			if in.Err != nil {
				sum.Corrupt++
			}
		}
	}
	if asJSON {
		return writeJSON(stdout, stderr, sum)
	}
	fmt.Fprintf(stdout, "directory  %s\n", sum.Dir)
	if !sum.Exists {
		fmt.Fprintln(stdout, "entries    0 (the directory does not exist yet)")
	} else {
		fmt.Fprintf(stdout, "entries    %d (%d unusable)\n", sum.Entries, sum.Corrupt)
	}
	fmt.Fprintf(stdout, "size       %s of %s\n", fmtBytes(sum.Bytes), fmtBytes(sum.Limit))
	if sum.Disabled {
		fmt.Fprintf(stdout, "note       %s=off: programs do not use this cache\n", gojit.EnvCache)
	}
	return exitOK
}

type cacheEntryJSON struct {
	Key      string    `json:"key"`
	Name     string    `json:"name,omitempty"`
	Symbol   string    `json:"symbol,omitempty"`
	Version  string    `json:"version,omitempty"`
	Bytes    int64     `json:"bytes"`
	LastUsed time.Time `json:"last_used"`
	Error    string    `json:"error,omitempty"`
}

func cacheList(dir string, asJSON bool, stdout, stderr io.Writer) int {
	s, err := openCache(dir)
	if err != nil {
		return fail(stderr, "cache", err)
	}
	var infos []diskcache.Info
	if s != nil {
		if infos, err = s.List(); err != nil {
			return fail(stderr, "cache", err)
		}
	}
	entries := make([]cacheEntryJSON, 0, len(infos))
	for _, in := range infos {
		e := cacheEntryJSON{Key: hex.EncodeToString(in.Key[:]), Name: in.Meta.Name, Symbol: in.Meta.Symbol,
			Version: in.Meta.Version, Bytes: in.Size, LastUsed: in.LastUsed}
		if in.Err != nil {
			e.Error = in.Err.Error()
		}
		entries = append(entries, e)
	}
	if asJSON {
		return writeJSON(stdout, stderr, entries)
	}
	if len(entries) == 0 {
		fmt.Fprintf(stdout, "no entries in %s\n", dir)
		return exitOK
	}
	tw := tabwriter.NewWriter(stdout, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "KEY\tSIZE\tLAST USED\tFUNCTION\tSTATUS")
	for _, e := range entries {
		status := "ok"
		if e.Error != "" {
			status = "unusable: " + e.Error
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", e.Key[:16], fmtBytes(e.Bytes), e.LastUsed.Local().Format(time.DateTime), e.Name, status)
	}
	tw.Flush()
	return exitOK
}

func cacheClear(dir string, stdout, stderr io.Writer) int {
	s, err := openCache(dir)
	if err != nil {
		return fail(stderr, "cache", err)
	}
	n := 0
	if s != nil {
		if n, err = s.Clear(); err != nil {
			return fail(stderr, "cache", err)
		}
	}
	fmt.Fprintf(stdout, "removed %d entries from %s\n", n, dir)
	return exitOK
}

func writeJSON(stdout, stderr io.Writer, v any) int {
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fail(stderr, "cache", err)
	}
	return exitOK
}

// fmtBytes formats n as B, KiB, MiB or GiB.
func fmtBytes(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	case n < 1<<30:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
}
