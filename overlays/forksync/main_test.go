package forksync

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"
	"time"
)

// childEnv makes the test binary a syncing child process (see runChild):
// the kill -9 tests need a whole process to kill in the middle of a swap.
const childEnv = "MLXBUILD_FORKSYNC_TEST_CHILD"

func TestMain(m *testing.M) {
	if opts := os.Getenv(childEnv); opts != "" {
		os.Exit(runChild(opts))
	}
	os.Exit(m.Run())
}

// runChild runs Sync with the JSON syncOptions opts. It blocks forever
// after the swap step CHILD_BLOCK_AT, having said "ready" on stdout, and
// swaps with two renames when CHILD_NO_EXCHANGE is set.
func runChild(opts string) int {
	var o syncOptions
	if err := json.Unmarshal([]byte(opts), &o); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	if os.Getenv("CHILD_NO_EXCHANGE") != "" {
		exchangeDirs = func(a, b string) error { return errNoExchange }
	}
	at := os.Getenv("CHILD_BLOCK_AT")
	swapStep = func(step string) error {
		if step == at {
			fmt.Println("ready")
			time.Sleep(time.Hour)
		}
		return nil
	}
	if _, err := Sync(context.Background(), o); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}
