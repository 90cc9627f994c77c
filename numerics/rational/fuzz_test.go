package rational

import (
	"encoding/binary"
	"math"
	"testing"
)

// FuzzFit feeds Fit arbitrary samples and options: it must return an error
// or a finite fit with positive poles, and never panic. The input's first
// byte picks the options; the rest are float64 pairs (n, f).
func FuzzFit(f *testing.F) {
	enc := func(opt byte, xs ...float64) []byte {
		b := []byte{opt}
		for _, x := range xs {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
		}
		return b
	}
	f.Add(enc(1, 0, 1, 1, 0.5, 2, 0.4))
	f.Add(enc(2, 0, 3, 1, 2, 2, 1.7, 3, 1.5, 4, 1.4))
	f.Add(enc(1, 0, math.NaN(), 1, 2, 2, 3))
	f.Add(enc(1, 0, math.Inf(1), 1, 2, 2, 3))
	f.Add(enc(1, 0, 1e308, 1, -1e308, 2, 1e308))
	f.Add(enc(1))
	f.Add(enc(1, 0, 1, 1))
	f.Add(enc(0x81, 1, 2, 2, 3))
	f.Add(enc(0x43, 0, 1, 1, 1, 2, 1, 3, 1, 4, 1, 5, 1, 6, 1))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		opt := Options{Poles: int(data[0] & 0x0f), UpperBound: data[0]&0x40 != 0, KnownC: data[0]&0x80 != 0, C: 0.5}
		var n, v []float64
		rest := data[1:]
		for len(rest) >= 8 {
			x := math.Float64frombits(binary.LittleEndian.Uint64(rest))
			rest = rest[8:]
			if len(n) == len(v) {
				n = append(n, x)
			} else {
				v = append(v, x)
			}
		}
		if len(n) > 64 {
			n, v = n[:64], v[:min(64, len(v))]
		}
		got, err := Fit(n, v, opt)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		if !finiteResult(got) {
			t.Fatalf("Fit(%v, %v, %+v) = %+v: not finite", n, v, opt, got)
		}
		if !opt.UpperBound && len(got.Poles) != opt.Poles {
			t.Fatalf("asked %d poles, got %d", opt.Poles, len(got.Poles))
		}
	})
}
