// Package doccheck has no API: its test holds the repository to the house
// style's documentation rules (STYLE.md), so that a lapse fails the tests
// rather than waiting for a review: every package of the module (lib/,
// cmd/, tools/, scripts/, kernel/) has a package doc comment, and every
// exported identifier a doc comment.
package doccheck
