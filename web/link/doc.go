// Package link is headlab's share link: the whole state of the page in the
// URL fragment, defined once as a schema and used by the page (to restore a
// view) and by the figures command (to regenerate a figure).
//
// A link looks like
//
//	#v=1&scene=attention&H=3&d=2&seed=7&N=6
//
// Parse never fails: values out of range are clamped, unknown keys ignored,
// garbage replaced by defaults, and every adjustment is reported as a Notice
// for the page to show. State.Link writes the keys in schema order and
// omits values equal to their defaults, so Parse(s.Link()) gives s back for
// every valid state. The link keys are part of the public interface
// (README.md, "Links").
package link
