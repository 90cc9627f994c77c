// Package plots builds headlab's static figures with gonum/plot: one builder
// per figure kind (attention weights per head, the atom explosion curve, the
// fused head's mass by |S|, a fitted rational function with its poles,
// recovery error against ε and against H, queries against d), each a
// function of a typed input and the numerics' results, in one paper-ready
// house style (Style), rendered to SVG, PDF, PNG or TeX (PGF) by Render, at
// the width of a venue's column or text (Presets).
//
// ForLink maps a share link (link.State) to the figure of its scene, so the
// page and the figures command produce the same bytes from the same link;
// the link is written into every file (SVG metadata, PDF Subject and
// Keywords, a PNG iTXt chunk, a TeX comment, the CSV zip's README), so a
// figure can always be regenerated. Each figure carries the numbers it
// draws as tidy Tables for CSV export. FIGURES.md says what each format
// carries and how the figures are checked against what journals ask.
//
// SVG draws text as the outlines of the glyphs (package
// plots/internal/outline), from the same fonts the PDF embeds, so that an
// SVG reads the same in every renderer with no font installed.
//
// The maths behind the figures is in numerics/MATH.md: §1 (attention),
// §2 (atoms, W_d, counts), §3 (rational functions and recovery). PDF is
// written by package plots/internal/pdfcanvas, which embeds the fonts from
// memory so that it works under GOOS=js, where gonum's vgpdf needs a
// temporary directory that the browser does not have.
package plots
