//go:build !linux

package dataset

import (
	"errors"
	"os"
)

// canGather is false where pwritev is not used: every page is assembled
// in a page buffer and written with one WriteAt.
const canGather = false

func pwritevAll(*os.File, [][]byte, int64) error {
	return errors.New("dataset: pwritev is not supported on this system")
}
