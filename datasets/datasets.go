// Package datasets embeds tailscope's own input data: flow-size CDFs and
// rack-to-rack traffic matrices, each derived from published facts (every
// file's header names its source) or written by our own commands. Embedding
// makes the default scenarios work from a bare binary or notebook kernel.
package datasets

import "embed"

// FS holds sizes/*.csv and matrices/*.csv.
//
//go:embed sizes matrices
var FS embed.FS
