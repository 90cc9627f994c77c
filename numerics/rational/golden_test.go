package rational

import (
	"testing"

	"headlab/numerics/internal/digest"
)

// TestGolden checks that fits give bit-identical numbers natively and under
// GOOS=js: both runs compare with one golden digest.
func TestGolden(t *testing.T) {
	var d digest.Digest
	add := func(r Result, err error) {
		if err != nil {
			d.Add(-1, float64(len(err.(*Error).Poles)))
			for _, p := range err.(*Error).Poles {
				d.Add(real(p), imag(p))
			}
			return
		}
		d.Add(r.C, r.Cond, r.Residual, r.Misfit, r.CError)
		d.Add(r.Poles...)
		d.Add(r.Residues...)
		d.Add(r.PoleErrors...)
		d.Add(r.ResidueErrors...)
	}
	for H := 1; H <= 5; H++ {
		for seed := uint64(0); seed < 4; seed++ {
			rho, res, c := family(H, 300+seed)
			n, f := samples(rho, res, c, 0, 2*H)
			add(Fit(n, f, Options{Poles: H}))
			n, f = samples(rho, res, c, 1, 2*H)
			add(Fit(n, f, Options{Poles: H, KnownC: true, C: c}))
			n, f = samples(rho, res, c, 0, 2*H+4)
			add(Fit(n, f, Options{Poles: H + 2, UpperBound: true}))
		}
	}
	// Outside the family: a complex pair.
	var n, f []float64
	for k := 0.0; k <= 4; k++ {
		n = append(n, k)
		f = append(f, 1/(float64((k+1)*(k+1))+4))
	}
	add(Fit(n, f, Options{Poles: 2}))
	digest.Check(t, "fits", &d)
}
