package recovery

import (
	"fmt"
	"math"

	"headlab/numerics/internal/bigmath"
)

// Limits on the options a run accepts (Options.validate). A run costs
// about H²d³ (the fits of the d columns); H = 4, d = 16 takes a few seconds
// natively, and float64 resolves few runs beyond H = 5 (see cmd/accuracy):
// extended precision (Options.Precision, in bits of the big.Float
// mantissa) goes to MaxHeadsExtended.
const (
	MaxWidth         = 32 // largest token width d
	MaxHeads         = 8  // largest number of heads H (or bound H0) in float64
	MaxHeadsExtended = 12 // largest H (or H0) when Options.Precision > 0
	MinPrecision     = 64
	MaxPrecision     = bigmath.MaxPrecision
	MaxSpread        = 1024 // largest Spread κ
)

// Mode selects the query schedule. The modes are a closed set: Modes
// lists them, String names them and ParseMode reads a name back.
type Mode int

const (
	// Paper is the paper's schedule (MATH.md §3.3): d² measurement RFs and
	// d²−1 link RFs, exactly 4Hd²−2H+1 queries of length at most 2H+1.
	Paper Mode = iota
	// Economy labels heads by their value fingerprints instead of links
	// wherever the fingerprints separate (MATH.md §3.4):
	// 2H(d²+d−1)+1 queries, plus 2H for every link it falls back to where
	// they do not, or where a measurement locates a head only roughly (two
	// nearly coincident poles, or a head too weak in it).
	Economy
	// Frugal makes column one as economy does, then gives every later
	// measurement only H+1 samples: its residues r_h = c·v_h·u_i and its
	// constant are known from column one, so only its H poles are unknown
	// (FrugalQueries: 2H(2d−1)+1+(H+1)(d²−d)). Where the samples leave
	// the poles undecided, or locate a head only roughly, the measurement
	// falls back along the ladder of MATH.md §3.4 towards economy's
	// samples and links, counted in Result.Fallbacks: never a guess.
	Frugal
)

// Modes returns every mode, in the order a menu lists them.
func Modes() []Mode { return []Mode{Paper, Economy, Frugal} }

// ModeNames returns the names of Modes, in the same order.
func ModeNames() []string {
	var out []string
	for _, m := range Modes() {
		out = append(out, m.String())
	}
	return out
}

// String returns "paper", "economy" or "frugal".
func (m Mode) String() string {
	switch m {
	case Paper:
		return "paper"
	case Economy:
		return "economy"
	case Frugal:
		return "frugal"
	}
	return fmt.Sprintf("mode(%d)", int(m))
}

// ParseMode returns the mode String names s.
func ParseMode(s string) (Mode, error) {
	for _, m := range Modes() {
		if m.String() == s {
			return m, nil
		}
	}
	return Paper, fmt.Errorf("recovery: unknown mode %q (want one of %v)", s, ModeNames())
}

// Valid reports whether m is one of Modes.
func (m Mode) Valid() bool { return m >= Paper && m <= Frugal }

// Queries returns the mode's query count for H heads (or the bound H0) of
// width d when nothing falls back: PaperQueries, EconomyQueries or
// FrugalQueries.
func (m Mode) Queries(H, d int) int {
	switch m {
	case Economy:
		return EconomyQueries(H, d)
	case Frugal:
		return FrugalQueries(H, d)
	}
	return PaperQueries(H, d)
}

// Options configures Learn. Use DefaultOptions and change what differs.
type Options struct {
	// Width is the token width d, 1…MaxWidth.
	Width int
	// Heads is the number of heads H, or the bound H0 when UpperBound is
	// set, 1…MaxHeads. Every query count uses it. The canonical layer may
	// have fewer heads (merged or cancelling heads); Learn finds how many.
	Heads int
	// UpperBound says Heads is only an upper bound H0 on the number of
	// canonical heads (MATH.md §3.5). Learn detects the number either way;
	// the flag records what the caller knows.
	UpperBound bool
	// Mode is the query schedule: Paper, Economy or Frugal.
	Mode Mode
	// Seed draws the learner's random bases.
	Seed uint64
	// Tolerance is the oracle's relative accuracy ε: each answer F is taken
	// to be accurate to ε·(|F| + s), s the RMS of the answers of the RFs
	// on z_1 (the same queries in every mode). Zero means an exact float64
	// oracle (ε = 1e-16).
	Tolerance float64
	// Spread is κ in the scale c = κ√d of the copied token a = z − c·u, so
	// that the log-poles p_h have spread about κ for weights of size 1/√d
	// (MATH.md §4). Zero means 1.7 (2.5 when d = 1), or, with Calibrate,
	// the spread Calibrate reads off the layer.
	Spread float64
	// TokenScale multiplies every token the learner sends
	// (z and c, so a = z − c·u too): the log-poles scale with its square,
	// every answer with it, so a layer whose weights are 4^k times the
	// reference's has, at TokenScale 2^−k, the rational functions of the
	// reference layer, times 2^−k (MATH.md §3.8). Zero means 1; Calibrate
	// chooses it.
	TokenScale float64
	// Biases says the layer may have biases beyond the paper's model: a
	// query bias c_h per head and a constant C, F(X) = C + Σ_h Σ_i
	// softmax_i(x_iᵀ(W_h x_N + c_h)) (v_h·x_i), as PyTorch's
	// nn.MultiheadAttention with bias=True (numerics/layerfile). Learn
	// then asks F of the zero token alone (C) and one more column of
	// measurements, on the query token z = 0 (the c_h), BiasQueries more
	// queries, and returns them in Result.QueryBias and Result.Const.
	Biases bool
	// Calibrate makes Recover read the layer's scale first (Calibrate)
	// and run at the token scale it finds, for layers whose weights are
	// not of size 1/√d (a framework's initialisation, a trained layer).
	// Its probes are counted in Result.Calibration. A TokenScale set
	// overrides it.
	Calibrate bool
	// MaxError is the largest estimated relative error of the result that
	// Learn returns as a success; above it Learn reports the run as
	// unresolvable. Zero means 1e-4.
	MaxError float64
	// Precision is 0 for float64 (the fast default), else the big.Float
	// mantissa bits of the whole pipeline, MinPrecision…MaxPrecision: the
	// oracle's answers, the rational fits, the matching, the solves for
	// W_h and v_h and the self-check (LearnBig). Heads may then go up to
	// MaxHeadsExtended.
	Precision uint
}

// DefaultOptions returns the options for H heads of width d: paper mode,
// H known, seed 1, an exact oracle and the default scale.
func DefaultOptions(H, d int) Options {
	return Options{Width: d, Heads: H, Mode: Paper, Seed: 1}
}

// maxHeads is the largest H the options' precision accepts.
func (o Options) maxHeads() int {
	if o.Precision > 0 {
		return MaxHeadsExtended
	}
	return MaxHeads
}

func (o Options) validate() error {
	switch {
	case o.Width < 1 || o.Width > MaxWidth:
		return fmt.Errorf("recovery: width %d outside 1…%d", o.Width, MaxWidth)
	case o.Precision != 0 && (o.Precision < MinPrecision || o.Precision > MaxPrecision):
		return fmt.Errorf("recovery: precision %d bits outside %d…%d (or 0 for float64)", o.Precision, MinPrecision, MaxPrecision)
	case o.Heads < 1 || o.Heads > o.maxHeads():
		if o.Precision == 0 && o.Heads > MaxHeads && o.Heads <= MaxHeadsExtended {
			return fmt.Errorf("recovery: %d heads outside 1…%d in float64; extended precision (Options.Precision > 0) goes to %d", o.Heads, MaxHeads, MaxHeadsExtended)
		}
		return fmt.Errorf("recovery: %d heads outside 1…%d", o.Heads, o.maxHeads())
	case !o.Mode.Valid():
		return fmt.Errorf("recovery: unknown mode %d", int(o.Mode))
	case math.IsNaN(o.Tolerance) || o.Tolerance < 0 || o.Tolerance >= 0.1:
		return fmt.Errorf("recovery: tolerance %v outside [0, 0.1)", o.Tolerance)
	case math.IsNaN(o.TokenScale) || o.TokenScale < 0 || (o.TokenScale != 0 && (o.TokenScale < 0x1p-40 || o.TokenScale > 0x1p40)):
		return fmt.Errorf("recovery: token scale %v outside 2^±40 (or 0)", o.TokenScale)
	case math.IsNaN(o.Spread) || o.Spread < 0 || o.Spread > MaxSpread:
		return fmt.Errorf("recovery: spread %v outside [0, %v]", o.Spread, MaxSpread)
	case math.IsNaN(o.MaxError) || o.MaxError < 0:
		return fmt.Errorf("recovery: max error %v is negative", o.MaxError)
	}
	return nil
}

func (o Options) spread() float64 {
	switch {
	case o.Spread > 0:
		return o.Spread
	case o.Width == 1:
		return 2.5
	}
	return 1.7
}

func (o Options) maxError() float64 {
	if o.MaxError > 0 {
		return o.MaxError
	}
	return 1e-4
}

// tokenScale is TokenScale, or 1.
func (o Options) tokenScale() float64 {
	if o.TokenScale == 0 {
		return 1
	}
	return o.TokenScale
}

func (o Options) epsilon() float64 {
	if o.Tolerance > 0 {
		return o.Tolerance
	}
	return 1e-16
}

// PaperQueries returns the paper's query count 4Hd² − 2H + 1 for H heads
// (or the bound H0) of width d.
func PaperQueries(H, d int) int { return 4*H*d*d - 2*H + 1 }

// EconomyQueries returns economy mode's count 2H(d² + d − 1) + 1 when it
// needs no fallback link (each adds 2H).
func EconomyQueries(H, d int) int { return 2*H*(d*d+d-1) + 1 }

// FrugalQueries returns frugal mode's count 2H(2d − 1) + 1 + (H + 1)(d² −
// d) when no measurement falls back: column one and its links as in
// economy, then H + 1 samples for each of the other d² − d measurements.
// With H an upper bound H0, the later measurements take H_c + 1 samples
// for the H_c heads column one shows, so the count is at most this.
func FrugalQueries(H, d int) int { return 2*H*(2*d-1) + 1 + (H+1)*(d*d-d) }

// BiasQueries returns the queries that learning the biases adds to mode
// m's count (Options.Biases): 1 for C, F of the zero token alone, and a
// column of d measurements on z = 0 with 2H samples each (H + 1 in frugal
// mode), labelled by their values, which column one has learned.
func BiasQueries(m Mode, H, d int) int {
	if m == Frugal {
		return 1 + (H+1)*d
	}
	return 1 + 2*H*d
}

// InformationBound returns H(d² + d), the number of real degrees of freedom
// of H canonical heads of width d: no method can use fewer real-valued
// queries.
func InformationBound(H, d int) int { return H * (d*d + d) }
