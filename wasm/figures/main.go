//go:build js && wasm

// Command figures is headlab's second browser program: it renders figures
// in a Web Worker (static/figures-worker.js), off the page's main thread,
// without ebiten. It defines one function on the worker's global object,
//
//	headlabFiguresRender(request) → result
//
// where request is {link, format, dpi, size, font, csv} (csv: also return
// the figure's data) and result is {ok, name, title, link, bytes (a
// Uint8Array of the file), csv, notices, ms, error}. The figure is
// plots.ForLink of the parsed link, so its SVG is byte for byte what
// `go run ./plots/cmd/figures -link …` writes. PDF works here because
// plots writes it through plots/internal/pdfcanvas, which needs no files.
package main

import (
	"bytes"
	"fmt"
	"syscall/js"
	"time"

	"headlab/numerics/experiment"
	"headlab/plots"
	"headlab/web/link"
)

func main() {
	render := js.FuncOf(func(this js.Value, args []js.Value) any {
		if len(args) != 1 {
			return failure(fmt.Errorf("figures: render takes one request object"))
		}
		return handle(args[0])
	})
	js.Global().Set("headlabFiguresRender", render)
	if ready := js.Global().Get("headlabFiguresReady"); ready.Type() == js.TypeFunction {
		ready.Invoke()
	}
	select {}
}

func failure(err error) js.Value {
	r := js.Global().Get("Object").New()
	r.Set("ok", false)
	r.Set("error", err.Error())
	return r
}

// handle renders one request, turning a panic into an error result: a
// figure must never take the worker down.
func handle(req js.Value) (out js.Value) {
	defer func() {
		if p := recover(); p != nil {
			out = failure(fmt.Errorf("figures: %v", p))
		}
	}()
	start := time.Now()
	str := func(key, def string) string {
		if v := req.Get(key); v.Type() == js.TypeString {
			return v.String()
		}
		return def
	}
	num := func(key string, def float64) float64 {
		if v := req.Get(key); v.Type() == js.TypeNumber {
			return v.Float()
		}
		return def
	}
	o := plots.DefaultOptions()
	o.Format = plots.Format(str("format", string(o.Format)))
	o.Size = plots.Size(str("size", string(o.Size)))
	o.DPI = int(num("dpi", float64(o.DPI)))
	o.FontSize = num("font", o.FontSize)
	if err := o.Validate(); err != nil {
		return failure(err)
	}
	s, notes := link.Parse(str("link", ""))
	runs, err := experiment.RunFigure(experiment.Pacer{}, plots.Needs(s))
	if err != nil {
		return failure(err)
	}
	f, err := plots.ForLink(s, runs, o)
	if err != nil {
		return failure(err)
	}
	b, err := plots.Render(f, o)
	if err != nil {
		return failure(err)
	}
	r := js.Global().Get("Object").New()
	r.Set("ok", true)
	r.Set("name", f.Name)
	r.Set("title", f.Title)
	r.Set("link", f.Link)
	arr := js.Global().Get("Uint8Array").New(len(b))
	js.CopyBytesToJS(arr, b)
	r.Set("bytes", arr)
	if v := req.Get("csv"); v.Truthy() {
		var csv bytes.Buffer
		if err := f.WriteCSV(&csv); err != nil {
			return failure(err)
		}
		r.Set("csv", csv.String())
	}
	ns := make([]any, len(notes))
	for i, n := range notes {
		ns[i] = n.String()
	}
	r.Set("notices", js.ValueOf(ns))
	r.Set("ms", float64(time.Since(start).Microseconds())/1000)
	return r
}
