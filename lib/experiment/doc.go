// Package experiment runs sweeps: it samples scenarios from a sample space
// (Parsimon's Table 3 by default, or any space given as JSON), crosses them
// with estimators into tasks, and runs the tasks whose results are missing
// through an Executor, either a local goroutine pool or Slurm job arrays.
//
// Every (scenario, estimator, options) task writes its own record frame,
// named by the scenario's spec hash and an options hash, through a
// temporary file and a rename. A result that exists is therefore complete,
// and a sweep killed at any moment and started again finishes with the
// same results without redoing finished tasks.
package experiment
