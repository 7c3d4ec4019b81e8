// Package datasets embeds tailscope's own input data: flow-size CDFs and
// rack-to-rack traffic matrices, each derived from published facts (every
// file's header names its source) or written by our own commands, and the
// m3 estimator's trained model (models/, with its provenance). Embedding
// makes the default scenarios work from a bare binary or notebook kernel.
package datasets

import "embed"

// FS holds sizes/*.csv, matrices/*.csv and the m3 models, models/m3.model
// (the default), models/m3-table4pfc.model and models/m3-table4fork.model
// (models/*.json say how each was trained), and the accuracy atlas's
// summary, accuracy/atlas.json (lib/atlas).
//
//go:embed sizes matrices models accuracy
var FS embed.FS
