package bench

import (
	"os"
	"testing"

	"github.com/gojit/gojit"
)

// TestMain keeps these tests from writing compiled kernels into the user's
// disk cache.
func TestMain(m *testing.M) {
	os.Setenv(gojit.EnvCache, "off")
	os.Exit(m.Run())
}
