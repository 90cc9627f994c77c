package plots

import (
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// LegendEntry is one entry of a figure's legend: a label (in the label
// markup, see markup) and the thumbnails of the series it names.
type LegendEntry struct {
	Label  string
	Thumbs []plot.Thumbnailer
}

// legendLayout places entries left to right in rows no wider than width,
// returning each entry's row and x offset, and the number of rows.
func legendLayout(entries []LegendEntry, st Style, width vg.Length) (rows []int, xs []vg.Length, nrows int) {
	ts := st.textStyle(st.FontSize - 1)
	thumb, gap, sep := legendThumb(st), vg.Points(st.FontSize*0.35), vg.Points(st.FontSize*1.2)
	x, row := vg.Length(0), 0
	for i, e := range entries {
		w := thumb + gap + ts.Width(e.Label)
		if i > 0 && x+w > width {
			row++
			x = 0
		}
		rows = append(rows, row)
		xs = append(xs, x)
		x += w + sep
	}
	if len(entries) > 0 {
		nrows = row + 1
	}
	return rows, xs, nrows
}

func legendThumb(st Style) vg.Length { return vg.Points(st.FontSize * 2.2) }

func legendRowHeight(st Style) vg.Length { return vg.Points(st.FontSize * 1.35) }

// legendHeight is the height of the strip the legend takes above the panels.
func legendHeight(entries []LegendEntry, st Style, width vg.Length) vg.Length {
	_, _, n := legendLayout(entries, st, width)
	if n == 0 {
		return 0
	}
	return vg.Length(n)*legendRowHeight(st) + vg.Points(st.FontSize*0.3)
}

// drawLegend draws the entries in rows across the top of c, centred, so
// the legend never covers data.
func drawLegend(c draw.Canvas, entries []LegendEntry, st Style) {
	width := c.Max.X - c.Min.X
	rows, xs, n := legendLayout(entries, st, width)
	if n == 0 {
		return
	}
	ts := st.textStyle(st.FontSize - 1)
	ts.YAlign = draw.YCenter
	thumb, gap, rh := legendThumb(st), vg.Points(st.FontSize*0.35), legendRowHeight(st)
	// Row widths, to centre each row.
	rowEnd := make([]vg.Length, n)
	for i, e := range entries {
		end := xs[i] + thumb + gap + ts.Width(e.Label)
		if end > rowEnd[rows[i]] {
			rowEnd[rows[i]] = end
		}
	}
	for i, e := range entries {
		left := c.Min.X + (width-rowEnd[rows[i]])/2 + xs[i]
		top := c.Max.Y - vg.Length(rows[i])*rh
		mid := top - rh/2
		h := vg.Points(st.FontSize * 0.7)
		icon := draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
			Min: vg.Point{X: left, Y: mid - h/2}, Max: vg.Point{X: left + thumb, Y: mid + h/2}}}
		for _, t := range e.Thumbs {
			t.Thumbnail(&icon)
		}
		c.FillText(ts, vg.Point{X: left + thumb + gap, Y: mid}, e.Label)
	}
}
