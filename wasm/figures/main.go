//go:build js && wasm

// Command figures is headlab's second browser program: it renders figures
// in a Web Worker (static/figures-worker.js), off the page's main thread,
// without ebiten. It defines one function on the worker's global object,
//
//	headlabFiguresRender(request) → result
//
// where request is {link, format, dpi, size, font, typeface} (format svg,
// pdf, png, tex or csv; size a preset or "4.5in"; font the text size in
// points; typeface serif or lm, default the link's font key) and result is
// {ok, name, title, link, bytes (a Uint8Array of the file), file (its name),
// mime, tables, notices, ms, error}. For csv the file is a zip of the
// figure's tables (one CSV each, and a README with the link) and tables maps
// each table's file name to its CSV text. The figure is plots.ForLink of
// the parsed link, so its SVG is byte for byte what
// `go run ./plots/cmd/figures -link …` writes. PDF works here because
// plots writes it through plots/internal/pdfcanvas, which needs no files.
//
// A request {kind: "layer", name, bytes (a Uint8Array), heads, link}
// imports a layer file instead (web/layerimport, so that the canvas never
// links the file readers): its result is {ok, link (base link with the
// file's layer), heads, width, biased, source} or {ok: false, error,
// needHeads (the file does not say H)}.
package main

import (
	"fmt"
	"syscall/js"
	"time"

	"headlab/numerics/experiment"
	"headlab/numerics/layerfile"
	"headlab/plots"
	"headlab/web/layerimport"
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
	if str("kind", "") == "layer" {
		return importLayer(req, str("name", ""), str("link", ""), num("heads", 0))
	}
	o := plots.DefaultOptions()
	o.Format = plots.Format(str("format", string(o.Format)))
	o.Size = plots.Size(str("size", string(o.Size)))
	o.DPI = int(num("dpi", float64(o.DPI)))
	o.FontSize = num("font", o.FontSize)
	o.Font = plots.Typeface(str("typeface", ""))
	if err := o.Validate(); err != nil {
		return failure(err)
	}
	s, notes := link.Parse(str("link", ""))
	if run := req.Get("run"); run.Type() == js.TypeObject {
		// A figure of a replayed run: computed from its log.
		bytes := run.Get("bytes")
		if !bytes.InstanceOf(js.Global().Get("Uint8Array")) || bytes.Length() > experiment.MaxRunLog {
			return failure(fmt.Errorf("figures: the run log came without its bytes, or too large"))
		}
		data := make([]byte, bytes.Length())
		js.CopyBytesToGo(data, bytes)
		name := ""
		if v := run.Get("name"); v.Type() == js.TypeString {
			name = v.String()
		}
		rl, _, err := experiment.OpenRunLog(name, data)
		if err != nil {
			return failure(err)
		}
		s.Run = rl
	}
	runs, err := experiment.RunFigure(experiment.Pacer{}, plots.Needs(s))
	if err != nil {
		return failure(err)
	}
	f, err := plots.ForLink(s, runs, o)
	if err != nil {
		return failure(err)
	}
	var b []byte
	file := "headlab-" + f.Name + "." + string(o.Format)
	mime := o.Format.MIME()
	tables := js.Global().Get("Object").New()
	if o.Format == plots.CSV {
		b, err = f.CSVZip()
		file, mime = "headlab-"+f.Name+"-data.zip", "application/zip"
		if err == nil {
			var files []plots.File
			files, err = f.CSVFiles()
			for _, fl := range files {
				tables.Set(fl.Name, string(fl.Data))
			}
		}
	} else {
		b, err = plots.Render(f, o)
	}
	if err != nil {
		return failure(err)
	}
	r := js.Global().Get("Object").New()
	r.Set("file", file)
	r.Set("mime", mime)
	r.Set("tables", tables)
	r.Set("ok", true)
	r.Set("name", f.Name)
	r.Set("title", f.Title)
	r.Set("link", f.Link)
	arr := js.Global().Get("Uint8Array").New(len(b))
	js.CopyBytesToJS(arr, b)
	r.Set("bytes", arr)
	ns := make([]any, len(notes))
	for i, n := range notes {
		ns[i] = n.String()
	}
	r.Set("notices", js.ValueOf(ns))
	r.Set("ms", float64(time.Since(start).Microseconds())/1000)
	return r
}

// importLayer answers a {kind: "layer"} request (the package doc).
func importLayer(req js.Value, name, base string, heads float64) js.Value {
	b := req.Get("bytes")
	if b.Type() != js.TypeObject || b.Get("byteLength").Type() != js.TypeNumber {
		return failure(fmt.Errorf("figures: a layer request without the file's bytes"))
	}
	if n := b.Get("byteLength").Int(); n > layerfile.MaxBytes {
		return failure(fmt.Errorf("%s is larger than %d MiB", name, layerfile.MaxBytes>>20))
	}
	data := make([]byte, b.Get("byteLength").Int())
	js.CopyBytesToGo(data, b)
	if heads != float64(int(heads)) {
		heads = -1
	}
	s, _ := link.Parse(base)
	im, err := layerimport.Import(s, name, data, int(heads))
	if err != nil {
		r := failure(err)
		r.Set("needHeads", layerimport.IsNoHeads(err))
		return r
	}
	r := js.Global().Get("Object").New()
	r.Set("ok", true)
	r.Set("link", im.State.Link())
	r.Set("heads", im.Heads)
	r.Set("width", im.Width)
	r.Set("biased", im.Biased)
	r.Set("source", im.Source)
	return r
}
