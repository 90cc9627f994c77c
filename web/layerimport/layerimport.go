// Package layerimport turns a layer file that a person opens in the page
// into the page's state: numerics/layerfile reads it (a torch
// nn.MultiheadAttention state dict with readout.weight, or headlab's
// canonical file) and link.FromLayer puts its heads and biases into the
// share link. It runs in the figures worker (wasm/figures), which the page
// loads on first use only, so that the canvas's first download never
// carries the file readers.
package layerimport

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"

	"headlab/numerics/layerfile"
	"headlab/web/link"
)

// MaxName bounds the file name kept for messages.
const MaxName = 80

// Imported is a layer read from a file and the state that shows it.
type Imported struct {
	State  link.State
	Heads  int    // H of the file
	Width  int    // d
	Biased bool   // the layer has a nonzero c_h or C
	Source string // what the file held (layerfile.Model.Source)
}

// ErrNoHeads is the error of a file that does not say its number of
// heads, read without one: the page then asks for H.
var ErrNoHeads = layerfile.ErrNoHeads

// Import reads the file's bytes (name giving its format by extension;
// heads its H, or 0 to take it from the file) into base's state. It fails,
// and base is to be kept, on a file that is malformed, not an attention
// layer, or more than a link can carry.
func Import(base link.State, name string, data []byte, heads int) (Imported, error) {
	name = clipName(name)
	if heads < 0 || heads > layerfile.MaxHeads {
		return Imported{}, fmt.Errorf("%s: H = %d is outside 1…%d", name, heads, layerfile.MaxHeads)
	}
	m, err := layerfile.Read(bytes.NewReader(data), name, heads)
	if err != nil {
		return Imported{}, err
	}
	if m.Network != nil {
		return Imported{}, fmt.Errorf("%s holds the Transformer scene's network (attention, then a ReLU layer); the page imports an attention layer with a scalar readout (readout.weight)", name)
	}
	s, err := link.FromLayer(base, m.Full())
	if err != nil {
		return Imported{}, fmt.Errorf("%s: %w", name, err)
	}
	return Imported{State: s, Heads: m.Heads(), Width: m.Width(), Biased: m.Biased(), Source: m.Source}, nil
}

// IsNoHeads reports whether err is a file's missing number of heads.
func IsNoHeads(err error) bool { return errors.Is(err, ErrNoHeads) }

// clipName shortens a file name for messages, keeping its extension, and
// replaces control characters.
func clipName(name string) string {
	r := []rune(name)
	for i, c := range r {
		if c < 0x20 || c == 0x7f {
			r[i] = '·'
		}
	}
	if len(r) > MaxName {
		ext := []rune(filepath.Ext(string(r)))
		if len(ext) > 16 {
			ext = nil
		}
		r = append(append(r[:MaxName-len(ext)-1:MaxName-len(ext)-1], '…'), ext...)
	}
	return string(r)
}
