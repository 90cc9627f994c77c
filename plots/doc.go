// Package plots builds headlab's static figures with gonum/plot: one builder
// per figure kind (attention weights per head, the atom explosion curve, the
// fused head's mass by |S|, a fitted rational function with its poles,
// recovery error against ε and against H, queries against d), each a
// function of a typed input and the numerics' results, in one paper-ready
// house style (Style), rendered to SVG, PDF or PNG by Render.
//
// ForLink maps a share link (link.State) to the figure of its scene, so the
// page and the figures command produce the same bytes from the same link;
// the link is written into every file (SVG metadata, PDF Subject and
// Keywords, a PNG tEXt chunk), so a figure can always be regenerated. Each
// figure carries the numbers it draws as a Table for CSV export.
//
// The maths behind the figures is in numerics/MATH.md: §1 (attention),
// §2 (atoms, W_d, counts), §3 (rational functions and recovery). PDF is
// written by package plots/internal/pdfcanvas, which embeds the fonts from
// memory so that it works under GOOS=js, where gonum's vgpdf needs a
// temporary directory that the browser does not have.
package plots
