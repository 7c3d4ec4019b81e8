package metrics

// Params are the scenario parameters a sensitivity analysis facets by
// (Parsimon Table 3): empty or zero where a scenario does not have them.
type Params struct {
	Topology   string  // network name, e.g. "fabric-2x16x8-2to1"
	Oversub    float64 // core oversubscription, e.g. 2 for 2-to-1
	Matrix     string  // traffic matrix, e.g. "A"
	Sizes      string  // flow-size distribution, e.g. "webserver"
	Sigma      float64 // log-normal burstiness
	TargetLoad float64 // the spec's max-load target, in (0, 1)
}

// Summary is one row of a sweep's result: one estimator on one scenario
// set against the baseline's records for the same scenario.
type Summary struct {
	ScenarioID string
	// Name is the scenario's name and key parameters, for a reader beside
	// the ID: "default, meta32-2:1, dctcp, load 50%" (summary.ScenarioName).
	Name      string
	Estimator string
	Baseline  string // the baseline estimator, e.g. "ns3" or "packetsim"
	Params    Params
	Flows     int     // the scenario's flow count
	MaxLoad   float64 // measured load of the most loaded channel
	Top10Load float64 // measured mean load of the 10% most loaded channels
	// Wall-clock seconds of the estimator and of the baseline.
	WallSeconds, BaseWallSeconds float64
	// P99 holds the slowdown percentiles (normally the 99th) per size bin
	// and overall, and their errors against the baseline.
	P99 Comparison
	// Family is the scenario's spec ID with the seed cleared: the rows of
	// one scenario run with several seeds share it.
	Family string
	// BaseFamily is the family of the baseline's scenario when it differs
	// from the estimator's: the same workload under another network
	// configuration (a counterfactual). Empty when both ran one scenario.
	BaseFamily string
	// Seeds is the number of seeds a combined row averages (0 for a row
	// of one run). P99 then holds the means over the seeds, Half the
	// half-widths of their confidence intervals at Level (NaN where fewer
	// than two seeds have a value), and the other numbers are means.
	Seeds int
	Level float64
	Half  Comparison
}
