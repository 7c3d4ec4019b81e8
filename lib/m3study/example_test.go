package m3study_test

import (
	"fmt"
	"os"

	"github.com/tailscope/tailscope/lib/m3study"
)

// A data set's manifest grows with its task count and refuses tasks of
// another seed, which would differ from their index's.
func ExampleWriteManifest() {
	dir, err := os.MkdirTemp("", "m3data")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	fmt.Println(m3study.WriteManifest(dir, m3study.Manifest{Tasks: 100, Flows: 4000, Seed: 1}))
	fmt.Println(m3study.WriteManifest(dir, m3study.Manifest{Tasks: 200, Flows: 4000, Seed: 1}))
	m, _ := m3study.ReadManifest(dir)
	fmt.Println(m.Tasks, "tasks")
	fmt.Println(m3study.WriteManifest(dir, m3study.Manifest{Tasks: 200, Flows: 4000, Seed: 2}) != nil)
	// Output:
	// <nil>
	// <nil>
	// 200 tasks
	// true
}
