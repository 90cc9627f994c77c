package plots_test

import (
	"bytes"
	"fmt"

	"headlab/numerics/experiment"
	"headlab/plots"
	"headlab/web/link"
)

// A figure from a share link, as the figures command and the page make it.
func Example() {
	s, _ := link.Parse("#v=1&scene=attention&H=2&d=2&seed=3&N=5")
	o := plots.DefaultOptions() // SVG, one column, 8 pt
	// The experiments the figure draws (none for this one), run as the
	// page's compute worker runs them; the figure only draws them.
	runs, err := experiment.RunFigure(experiment.Pacer{}, plots.Needs(s))
	if err != nil {
		fmt.Println(err)
		return
	}
	f, err := plots.ForLink(s, runs, o)
	if err != nil {
		fmt.Println(err)
		return
	}
	svg, err := plots.Render(f, o)
	if err != nil {
		fmt.Println(err)
		return
	}
	w, h := f.Size(o.Size)
	fmt.Println(f.Name, bytes.HasPrefix(svg, []byte("<?xml")), w.Points(), h.Points())
	fmt.Println(f.Link)
	// Output:
	// attention-weights true 234 160
	// #v=1&scene=attention&H=2&d=2&seed=3&N=5
}
