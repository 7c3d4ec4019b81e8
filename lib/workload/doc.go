// Package workload generates the flows a scenario runs: Meta's data-center
// workloads as Parsimon and m3 describe them (§5 of both papers), built
// from published facts only.
//
// A Spec has one or more components, each a traffic matrix (Meta's
// rack-level matrices A, B and C, uniform, or explicit host pairs), a size
// distribution (the WebServer, CacheFollower and Hadoop CDFs, log-normal,
// Pareto, or a CDF file), an arrival process (Poisson or log-normal
// inter-arrivals with a burstiness sigma) and a target load of the busiest
// channel. Generate turns a Spec and a seed into flows sorted by start
// time, for a number of flows or a duration; the same spec and seed always
// give the same flows. Flow is the flow record every estimator consumes.
package workload
