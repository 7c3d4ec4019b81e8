package nb_test

import (
	"fmt"

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
