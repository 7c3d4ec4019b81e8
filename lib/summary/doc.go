// Package summary is tailscope's analysis of results: it sets an
// estimator's records against a baseline's and builds the summary rows
// (metrics.Summary) of a run or sweep (Summarize, SummarizeDir), combines
// the rows of scenarios run with several seeds into means with confidence
// intervals (CombineSeeds), stores rows as a summary frame and reads them
// back (Table, Rows), and computes the error statistics and tables the
// papers quote (ErrorStats, TopErrors, ComparisonTable), rendered with
// Markdown.
//
// It computes and never draws: lib/plot draws figures from the rows and
// frames it returns. The API is non-generic so that the gophernotes
// interpreter can call it.
package summary
