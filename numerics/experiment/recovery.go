package experiment

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"

	"headlab/numerics/attention"
	"headlab/numerics/recovery"
)

// Recovery is the set-up of a recovery run: the true layer (random from
// the seed, or given; heads duplicated; a cancelling pair), what the
// learner is told (H, or an upper bound H0; the schedule) and the oracle's
// relative accuracy. Its fields are the share link's (web/link), so a link
// names a run; new fields (a precision, say) are added with their zero
// value meaning today's behaviour, so older jobs keep their meaning.
type Recovery struct {
	H, D   int
	Seed   uint64
	Src    Source        // RandomLayer (also the zero Source) or GivenLayer
	W, Val []float64     // the layer for Src = GivenLayer, row by row
	Dup    int           // the first Dup heads split into two halves
	Cancel bool          // a pair of heads with one W and opposite v added
	H0     int           // upper bound on H given to the learner (0: H known)
	Mode   recovery.Mode // the learner's schedule (the zero Mode is Paper)
	Noise  float64       // the oracle's relative accuracy ε
	// Prec is the run's precision in bits: 0 for float64, else extended
	// precision throughout (the oracle exact at Prec bits, see
	// recovery.LearnBig).
	Prec int
	// Biases gives the layer a query bias c_h per head and a constant C
	// (attention.Biased), QueryBias holding the H heads' c_h (H·D numbers,
	// head by head) and Const C, and the learner learns them
	// (recovery.Options.Biases), in float64 and in extended precision.
	Biases    bool
	QueryBias []float64
	Const     float64
	// Log, when set, is a recorded run replayed instead (its own options;
	// no true layer): the page holds it beside the link, never in it.
	Log *RunLog
}

// Source is where a recovery run's true layer comes from. The sources are
// a closed set, Sources, each named as the share link's src key names it.
type Source string

// The sources of a true layer.
const (
	// RandomLayer draws the layer from the seed; the zero Source is read
	// as RandomLayer.
	RandomLayer Source = "random"
	// GivenLayer takes the layer from W and Val: the Attention scene's,
	// or a file's.
	GivenLayer Source = "attention"
)

// Sources returns every source, in the order a menu lists them.
func Sources() []Source { return []Source{RandomLayer, GivenLayer} }

// prec is the precision the run is made at: Prec, or 0 for float64.
func (r Recovery) prec() int { return max(r.Prec, 0) }

// CanonicalTol is the tolerance within which two heads' W count as equal
// when a layer is put in canonical form, for the learner's H and for the
// error of a run.
const CanonicalTol = 1e-9

// cancelStream is the seed offset of the cancelling pair's head.
const cancelStream = 0x63616e63656c // "cancel"

// TrueLayer returns the run's true layer: the given layer (Src
// GivenLayer) or a random one from the seed; then the first Dup heads each
// split into two heads with the same W and half the v; and with Cancel a
// pair of heads with one W and opposite v. Its canonical form is what
// recovery should find.
func (r Recovery) TrueLayer() attention.Layer { return r.TrueModel().Layer }

// TrueModel returns the run's true layer with its biases: TrueLayer, and
// with Biases the c_h of QueryBias (a duplicated head keeps its c_h, the
// cancelling pair has none) and Const.
func (r Recovery) TrueModel() attention.Biased {
	var l attention.Layer
	if r.Src == GivenLayer && len(r.W) == r.H*r.D*r.D && len(r.Val) == r.H*r.D {
		l = make(attention.Layer, r.H)
		for h := range l {
			l[h] = attention.Head{
				W: mat.NewDense(r.D, r.D, append([]float64(nil), r.W[h*r.D*r.D:(h+1)*r.D*r.D]...)),
				V: mat.NewVecDense(r.D, append([]float64(nil), r.Val[h*r.D:(h+1)*r.D]...)),
			}
		}
	} else {
		l = attention.Random(r.H, r.D, r.Seed)
	}
	for h := 0; h < r.Dup && h < len(l); h++ {
		half := mat.NewVecDense(r.D, nil)
		half.ScaleVec(0.5, l[h].V)
		l[h].V = half
		l = append(l, attention.Head{W: l[h].W, V: mat.VecDenseCopyOf(half)})
	}
	if r.Cancel {
		extra := attention.Random(1, r.D, r.Seed^cancelStream)
		neg := mat.NewVecDense(r.D, nil)
		neg.ScaleVec(-1, extra[0].V)
		l = append(l, extra[0], attention.Head{W: extra[0].W, V: neg})
	}
	b := attention.Biased{Layer: l}
	if !r.Biases {
		return b
	}
	b.Const = r.Const
	b.QueryBias = make([][]float64, len(l))
	for h := range b.QueryBias {
		b.QueryBias[h] = make([]float64, r.D)
		src := h
		if h >= r.H && h < r.H+r.Dup {
			src = h - r.H // the duplicate of head h − H
		}
		if src < r.H && len(r.QueryBias) == r.H*r.D {
			copy(b.QueryBias[h], r.QueryBias[src*r.D:(src+1)*r.D])
		}
	}
	return b
}

// Options returns the learner's options for the layer l (usually
// TrueLayer): H is the number of canonical heads of l, or the upper bound
// H0 when given; the schedule, the seed and the noise model are the
// set-up's.
func (r Recovery) Options(l attention.Layer) recovery.Options {
	return r.OptionsFor(attention.Biased{Layer: l})
}

// OptionsFor is Options for a layer with biases (TrueModel): heads merge
// only where their c_h agree too, and with Biases the learner learns the
// biases.
func (r Recovery) OptionsFor(b attention.Biased) recovery.Options {
	heads := len(b.Canonical(CanonicalTol).Layer)
	opt := recovery.DefaultOptions(max(heads, 1), r.D)
	if r.H0 > 0 {
		opt.Heads, opt.UpperBound = max(r.H0, heads), true
	}
	opt.Mode = r.Mode
	opt.Seed = r.Seed
	opt.Tolerance = r.Noise
	opt.Precision = uint(r.prec())
	opt.Biases = r.Biases
	return opt
}

// Heads is the number of heads the learner is told: H, or the bound H0.
func (r Recovery) Heads() int { return max(r.H, r.H0) }

// Key is what a run depends on, as a string: equal keys give equal runs.
func (r Recovery) Key() string {
	if r.Log != nil {
		return "replay sha256=" + r.Log.Hash
	}
	var b strings.Builder
	src := r.Src
	if src == "" {
		src = RandomLayer
	}
	fmt.Fprintf(&b, "H=%d d=%d seed=%d src=%s dup=%d cancel=%v H0=%d mode=%s noise=%s",
		r.H, r.D, r.Seed, src, r.Dup, r.Cancel, r.H0, r.Mode, strconv.FormatFloat(r.Noise, 'g', -1, 64))
	if r.Prec > 0 {
		fmt.Fprintf(&b, " prec=%d", r.Prec)
	}
	if src == GivenLayer {
		for _, x := range r.W {
			b.WriteString(",")
			b.WriteString(strconv.FormatFloat(x, 'g', -1, 64))
		}
		for _, x := range r.Val {
			b.WriteString(";")
			b.WriteString(strconv.FormatFloat(x, 'g', -1, 64))
		}
	}
	if r.Biases {
		fmt.Fprintf(&b, " bias C=%s", strconv.FormatFloat(r.Const, 'g', -1, 64))
		for _, x := range r.QueryBias {
			b.WriteString(":")
			b.WriteString(strconv.FormatFloat(x, 'g', -1, 64))
		}
	}
	return b.String()
}

// RecoveryRun is a finished run: what recovery.Learn returned, and how
// long it took where it ran (a measurement, not part of the result).
type RecoveryRun struct {
	Result recovery.Result
	// Err is Learn's error: a *recovery.Error for a run float64 cannot
	// resolve (Result then holds the trace so far), or nil.
	Err error
	Dur time.Duration
}

// ErrCancelled is the error of an experiment whose Pacer asked it to
// stop.
var ErrCancelled = errors.New("experiment: cancelled")

// Learn runs the recovery r sets up, paced by pace (recovery.LearnPaused),
// with the oracle's noise drawn from the seed. Its numbers are
// recovery.Learn's, bit for bit, however it is paced. The error is
// ErrCancelled when pace stopped it, or a bad set-up's; a run that cannot
// be resolved is not an error here but the run's Err.
func Learn(pace Pacer, r Recovery) (RecoveryRun, error) {
	if r.Log != nil {
		return replayLearn(pace, r)
	}
	layer, err := trueModel(r)
	if err != nil {
		return RecoveryRun{}, err
	}
	return learnLayer(pace, r, layer, func(p recovery.Progress) Progress {
		return Progress{Fraction: p.Fraction, Recovery: &p}
	})
}

func learnLayer(pace Pacer, r Recovery, layer attention.Biased, prog func(recovery.Progress) Progress) (RecoveryRun, error) {
	start := time.Now()
	timer := pace.timer()
	pause := func(p recovery.Progress) bool {
		if !timer.over() {
			return true
		}
		ok := pace.pause(prog(p))
		timer = pace.timer()
		return ok
	}
	var res recovery.Result
	var err error
	if r.Src == GivenLayer && r.Noise == 0 {
		// A layer of the user's (the Attention scene's, or a file's) may be
		// at any scale: the learner reads it first (recovery.Calibrate).
		opt := r.OptionsFor(layer)
		opt.Calibrate = true
		res, err = recovery.RecoverPaused(context.Background(), recovery.BiasedLayer(layer), opt, pause)
	} else if p := r.prec(); p > 0 {
		if r.Noise > 0 {
			return RecoveryRun{}, fmt.Errorf("experiment: a noisy oracle is simulated in float64 only (noise %g with %d bits)", r.Noise, r.Prec)
		}
		res, err = recovery.LearnBigPaused(recovery.BigBiasedOracle(layer, uint(p)), r.OptionsFor(layer), pause)
	} else {
		res, err = recovery.LearnPaused(recovery.BiasedOracle(layer, r.Noise, r.Seed), r.OptionsFor(layer), pause)
	}
	if errors.Is(err, recovery.ErrStopped) {
		return RecoveryRun{}, ErrCancelled
	}
	return RecoveryRun{Result: res, Err: err, Dur: time.Since(start)}, nil
}

// trueModel is r.TrueModel with a panic (a set-up outside the schema)
// turned into an error.
func trueModel(r Recovery) (l attention.Biased, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("experiment: the true layer of H = %d, d = %d: %v", r.H, r.D, p)
		}
	}()
	if r.H < 1 || r.D < 1 {
		return attention.Biased{}, fmt.Errorf("experiment: a recovery run needs H ≥ 1 and d ≥ 1, not H = %d, d = %d", r.H, r.D)
	}
	return r.TrueModel(), nil
}

// RunError is the largest relative error of a run against the canonical
// form of its true layer (attention.RelativeError), NaN when the run
// failed or the errors are not finite.
func RunError(run RecoveryRun, canonical attention.Layer) float64 {
	if run.Err != nil {
		return nan
	}
	e, err := attention.RelativeError(run.Result.Layer, canonical)
	if err != nil || !finite(e) {
		return nan
	}
	return e
}
