package nb_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/go-gota/gota/dataframe"

	"github.com/tailscope/tailscope/kernel/nb"
	"github.com/tailscope/tailscope/lib/frame"
)

func ExampleDataFrame() {
	t := &frame.Table{Columns: []frame.Column{
		frame.StringColumn("estimator", []string{"packetsim", "parsimon", "parsimon"}),
		frame.Float64Column("slowdown", []float64{1.5, 2, 4}),
	}}
	df, err := nb.DataFrame(t)
	if err != nil {
		panic(err)
	}
	mean := df.GroupBy("estimator").Aggregation([]dataframe.AggregationType{dataframe.Aggregation_MEAN}, []string{"slowdown"})
	mean = mean.Arrange(dataframe.Sort("estimator"))
	for i := 0; i < mean.Nrow(); i++ {
		fmt.Println(mean.Col("estimator").Elem(i), mean.Col("slowdown_MEAN").Elem(i))
	}
	// Output:
	// packetsim 1.500000
	// parsimon 3.000000
}

// A notebook's first cell: its scale (TAILSCOPE_SCALE) picks the sizes,
// and its frames and figures go under TAILSCOPE_OUT.
func ExampleOpen() {
	out, err := os.MkdirTemp("", "nb-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(out)
	os.Setenv("TAILSCOPE_SCALE", "ci")
	os.Setenv("TAILSCOPE_OUT", out)
	book := nb.Open("01-quickstart")
	rel, _ := filepath.Rel(out, book.Dir)
	fmt.Println(book.Scale, book.Pick(3000, 20000, 200000), rel)
	// Output: ci 3000 notebooks/01-quickstart
}
