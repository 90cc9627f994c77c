package experiment

import (
	"headlab/numerics/fusion"
)

// The fewer-atoms fit of the Atom explosion scene: single heads of
// k = 1…K atoms fitted to W_d, labelled a numerical experiment and not a
// proof (fusion.FitNote).

// Fit is the set-up of a fewer-atoms fit: the width, the largest k (the
// link's k, capped at 2^d − 1 by FitWidths) and the seed.
type Fit struct {
	D, K int
	Seed uint64
}

// FitOptions are the fit's settings: smaller than fusion's defaults so that
// a whole curve (k = 1…15 at d = 4) takes seconds in the browser, with the
// set-up's seed.
func FitOptions(seed uint64) fusion.FitOptions {
	return fusion.FitOptions{Train: 256, Test: 1024, Radius: 4, Restarts: 3, Iterations: 250,
		Tolerance: 1e-10, Memory: 10, Seed: seed}
}

// FitWidths returns the ks a fit of width d up to k atoms fits: 1…k,
// capped at 2^d − 1; nil when d is over fusion.MaxFitDim.
func FitWidths(d, k int) []int {
	if d < 1 || d > fusion.MaxFitDim {
		return nil
	}
	K := min(k, 1<<d-1)
	ks := make([]int, max(K, 0))
	for i := range ks {
		ks[i] = i + 1
	}
	return ks
}

// FitPoint is the best fit of K atoms: its held-out RMS and largest
// error, and the RMS of the best constant, for scale.
type FitPoint struct {
	K                          int
	TestRMS, TestMax, Constant float64
}

// FitCurve is a fit, finished or as far as it has got: one point per k
// fitted, in order of k.
type FitCurve struct {
	D      int
	Seed   uint64
	Points []FitPoint
	// Done reports whether every k of FitWidths is fitted.
	Done bool
}

// FitFewer fits k = 1…K (FitWidths) atoms to W_d one fusion.Fitter step
// (one L-BFGS iteration) at a time, reporting the curve so far to pace
// between slices. Points the caller already has (known, by k) are not
// fitted again.
func FitFewer(pace Pacer, f Fit, known []FitPoint) (FitCurve, error) {
	c := FitCurve{D: f.D, Seed: f.Seed}
	ks := FitWidths(f.D, f.K)
	have := map[int]FitPoint{}
	for _, p := range known {
		have[p.K] = p
	}
	total := 0.0
	for _, k := range ks {
		total += float64(k) // work grows with k
	}
	done := 0.0
	for _, k := range ks {
		if p, ok := have[k]; ok {
			c.Points = append(c.Points, p)
			done += float64(k)
			continue
		}
		fit, err := fusion.NewFitter(f.D, k, FitOptions(f.Seed))
		if err != nil {
			return FitCurve{}, err
		}
		for {
			finished := false
			for t := pace.timer(); !t.over(); {
				if finished = fit.Step(); finished {
					break
				}
			}
			if finished {
				break
			}
			snap := c
			snap.Points = append([]FitPoint(nil), c.Points...)
			if !pace.pause(Progress{Fraction: (done + float64(float64(k)*fit.Progress())) / total, Fit: &snap}) {
				return FitCurve{}, ErrCancelled
			}
		}
		res := fit.Result()
		c.Points = append(c.Points, FitPoint{K: k, TestRMS: res.TestRMS, TestMax: res.TestMax, Constant: res.ConstantRMS})
		done += float64(k)
	}
	c.Done = true
	return c, nil
}
