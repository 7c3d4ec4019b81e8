// Package doccheck has no API: its tests hold the repository to the house
// style's documentation rules (STYLE.md), so that a lapse fails the tests
// rather than waiting for a review: every package of the module (lib/,
// cmd/, tools/, scripts/, kernel/) has a package doc comment, and every
// exported identifier a doc comment; and what a user reads (Markdown files,
// the manual, notebooks, Go documentation, the command's output and error
// messages) speaks of the software, never of how its work was organized.
package doccheck
