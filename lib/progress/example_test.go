package progress_test

import (
	"fmt"
	"os"

	"github.com/tailscope/tailscope/lib/progress"
)

// A resumed run of four tasks, two of them done before, reported as plain
// lines (a terminal would get a bar redrawn in place).
func ExampleLine() {
	l := progress.NewLine(os.Stdout, "sweep")
	l.Progress(2, 4, "2 already done") // the first report starts the ETA clock
	l.Progress(3, 4, "")               // within Interval of the last line: not written
	l.Progress(4, 4, "1 failed")       // the last is always written
	// Output:
	// sweep 2/4 done, 2 already done, ETA ?
	// sweep 4/4 done, 1 failed, ETA 0s
}

// Any function can receive reports, for example to draw a notebook widget.
func ExampleFunc() {
	var r progress.Reporter = progress.Func(func(done, total int, what string) {
		fmt.Printf("%s: %d of %d\n", what, done, total)
	})
	progress.Report(r, 1, 3, "link sims")
	progress.Report(nil, 2, 3, "link sims") // no reporter: nothing
	// Output:
	// link sims: 1 of 3
}
