package recovery

import "headlab/numerics/internal/xmath"

// The learner works in the coordinates of its own bases (MATH.md §3.3):
//
//	P_h = c·Uᵀ W_h Z   (d×d),    r_h = c·Uᵀ v_h   (d),
//
// so that an RF(z, u) with z = Σ_{b∈β} z_b and u = Σ_{a∈α} u_a has
//
//	p_h = Σ_{a∈α, b∈β} P_h[a][b],   r_h(u) = Σ_{a∈α} r_h[a],
//	F(n) = Σ_h ( v_h·z − r_h(u)·n/(n + exp p_h) ),   v_h·z = r_hᵀ(Uᵀz)/c.
//
// U and Z are orthonormal, so W_h = U P_h Zᵀ/c and v_h = U r_h/c, and
// errors in (P, r) are errors in (W, v) times c.

// theta holds the parameters of H heads: P flattened as P[h][a][b] at
// index h·d² + a·d + b, then r[h][k] at H·d² + h·d + k.
type theta struct {
	H, d int
	x    []float64
}

func newTheta(H, d int) theta {
	return theta{H: H, d: d, x: make([]float64, H*(d*d+d))}
}

func (t theta) clone() theta {
	return theta{H: t.H, d: t.d, x: append([]float64(nil), t.x...)}
}

func (t theta) pIndex(h, a, b int) int { return h*t.d*t.d + a*t.d + b }
func (t theta) rIndex(h, k int) int    { return t.H*t.d*t.d + h*t.d + k }
func (t theta) P(h, a, b int) float64  { return t.x[t.pIndex(h, a, b)] }
func (t theta) R(h, k int) float64     { return t.x[t.rIndex(h, k)] }

// spec is the geometry of one RF: the basis vectors summed into u and z,
// and Uᵀz.
type spec struct {
	alpha, beta []int
	uz          []float64
}

// headTerms returns, for head h of the RF s, p_h, r_h(u) and v_h·z.
func (l *learner) headTerms(s *spec, t theta, h int) (p, rr, vz float64) {
	for _, a := range s.alpha {
		for _, b := range s.beta {
			p += t.P(h, a, b)
		}
		rr += t.R(h, a)
	}
	for k := 0; k < t.d; k++ {
		vz += float64(t.R(h, k) * s.uz[k])
	}
	return p, rr, vz / l.c
}

// predict returns the model's F(n) for the RF s.
func (l *learner) predict(s *spec, n float64, t theta) float64 {
	var y float64
	for h := 0; h < t.H; h++ {
		p, rr, vz := l.headTerms(s, t, h)
		y += vz - rr*n/(n+xmath.Exp(p))
	}
	return y
}

// gradient calls fn(index, ∂F/∂x_index) for every parameter F(n) of the
// RF s depends on, and returns F(n).
func (l *learner) gradient(s *spec, n float64, t theta, fn func(idx int, g float64)) float64 {
	var y float64
	for h := 0; h < t.H; h++ {
		p, rr, vz := l.headTerms(s, t, h)
		rho := xmath.Exp(p)
		den := n + rho
		y += vz - rr*n/den
		gp := rr * n * rho / (den * den)
		if gp != 0 {
			for _, a := range s.alpha {
				for _, b := range s.beta {
					fn(t.pIndex(h, a, b), gp)
				}
			}
		}
		gr := n / den
		for k := 0; k < t.d; k++ {
			g := s.uz[k] / l.c
			for _, a := range s.alpha {
				if a == k {
					g -= gr
				}
			}
			fn(t.rIndex(h, k), g)
		}
	}
	return y
}
