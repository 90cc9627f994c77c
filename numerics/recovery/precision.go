package recovery

// neededBits is the measured smallest precision, in bits (0: float64), at
// which all 20 held-out random layers of a cell resolved with relative
// error at most 1e-12, for H = 1…12 heads, by mode and width
// (go run ./numerics/recovery/cmd/accuracy -digits: ACCURACY.md, "The
// precision each size needs", tabulates that run; the figure is
// plots/figures/recovery-digits.svg).
var neededBits = []struct {
	d              int
	paper, economy [MaxHeadsExtended]uint
}{
	{1, [12]uint{0, 96, 96, 128, 128, 128, 160, 160, 160, 192, 224, 256}, [12]uint{0, 96, 96, 128, 128, 128, 160, 160, 160, 192, 224, 256}},
	{2, [12]uint{0, 0, 0, 128, 128, 160, 160, 192, 192, 224, 224, 256}, [12]uint{0, 0, 96, 128, 128, 160, 160, 192, 192, 224, 224, 256}},
	{4, [12]uint{0, 0, 0, 128, 160, 160, 192, 224, 224, 320, 320, 320}, [12]uint{0, 0, 96, 128, 160, 160, 192, 224, 224, 320, 320, 320}},
}

// precisionMargin is added to a measured precision when it is offered:
// the measurement is the worst of 20 layers, and a layer drawn later may
// need a little more.
const precisionMargin = 64

// MeasuredPrecision returns the smallest precision in bits (0: float64)
// at which every one of 20 held-out random layers with H heads of width d
// resolved to a relative error of 1e-12 in mode m, and whether (H, d) was
// measured (d = 1, 2, 4; H = 1…MaxHeadsExtended).
func MeasuredPrecision(H, d int, m Mode) (bits uint, ok bool) {
	if H < 1 || H > MaxHeadsExtended {
		return 0, false
	}
	for _, row := range neededBits {
		if row.d == d {
			if m != Paper {
				// Frugal makes column one as economy does and has no
				// measurement of its own: it takes economy's precision.
				return row.economy[H-1], true
			}
			return row.paper[H-1], true
		}
	}
	return 0, false
}

// NeededPrecision returns the precision a run with H heads (or the bound
// H0) of width d should use in mode m: 0 (float64) only at a measured
// width (1, 2, 4 and the widths below them) where float64 resolved every
// measured layer, else the measured precision plus a margin of 64 bits.
// Widths between the measured ones take the next measured width up;
// beyond the widest (4), its value (at least MinPrecision) plus 32 bits
// per doubling of d, an extrapolation (the chance that two heads nearly
// share a pole in some RF grows with the d² RFs): float64 was not
// measured there, so it is never offered. 0 means float64, with its
// global fit (MATH.md §4); it is not "any precision will do": 64 bits of
// extended precision resolve less than float64 does. H outside
// 1…MaxHeadsExtended gives 0.
func NeededPrecision(H, d int, m Mode) uint {
	if H < 1 || H > MaxHeadsExtended || d < 1 {
		return 0
	}
	last := neededBits[len(neededBits)-1]
	w, extra := last.d, uint(0)
	for _, row := range neededBits {
		if row.d >= d {
			w = row.d
			break
		}
	}
	for dd := last.d; dd < d; dd *= 2 {
		extra += 32
	}
	bits, _ := MeasuredPrecision(H, w, m)
	if bits == 0 && extra == 0 {
		return 0
	}
	return min(max(bits, MinPrecision)+precisionMargin+extra, MaxPrecision)
}
