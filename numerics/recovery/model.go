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
// errors in (P, r) are errors in (W, v) times c. With a token scale s
// (Options.TokenScale) the query token is s·z and c includes s, so
// P_h = c·s·Uᵀ W_h Z and W_h = U P_h Zᵀ/(c·s).

// With biases (Options.Biases) a head's scores are x_iᵀ(W_h x_N + c_h),
// so a measurement on z_b shows P̃_h[a][b] = P_h[a][b] + Q_h[a] with
// Q_h = c·Uᵀc_h, and an RF's log-pole is
//
//	p_h = Σ_{a∈α} (Σ_{b∈β} P̃_h[a][b] + (1 − |β|) Q_h[a]).
//
// P̃_h has a column more, b = d, on the query token z = −z_1:
// P̃_h[a][d] = 2Q_h[a] − P̃_h[a][0], so Q_h[a] = (P̃_h[a][d] + P̃_h[a][0])/2.
// The learner learns P̃ column by column as it learns P without biases
// (only the paper's links on z_1 + z_j need the correction), and
// W_h = U (P̃_h − Q_h 1ᵀ) Zᵀ/c, c_h = U Q_h/c (MATH.md §3.8). The token
// −z_1 rather than 0: on z = 0 the heads' poles are e^{Q_h[a]}, all 1 for
// a layer whose biases are 0, which no labelling can tell apart.

// theta holds the parameters of H heads: P flattened as P[h][a][b] at
// index h·d·cols + a·cols + b (cols = d, or d + 1 with biases), then
// r[h][k] at H·d·cols + h·d + k.
type theta struct {
	H, d, cols int
	x          []float64
}

func newTheta(H, d, cols int) theta {
	return theta{H: H, d: d, cols: cols, x: make([]float64, H*(d*cols+d))}
}

func (t theta) clone() theta {
	return theta{H: t.H, d: t.d, cols: t.cols, x: append([]float64(nil), t.x...)}
}

// biased reports whether t has the column Q of the query biases.
func (t theta) biased() bool { return t.cols > t.d }

func (t theta) pIndex(h, a, b int) int { return h*t.d*t.cols + a*t.cols + b }
func (t theta) rIndex(h, k int) int    { return t.H*t.d*t.cols + h*t.d + k }
func (t theta) P(h, a, b int) float64  { return t.x[t.pIndex(h, a, b)] }

// Q returns Q_h[a] = c·u_aᵀc_h (0 without biases).
func (t theta) Q(h, a int) float64 {
	if !t.biased() {
		return 0
	}
	return float64(t.P(h, a, t.d)+t.P(h, a, 0)) / 2
}
func (t theta) R(h, k int) float64 { return t.x[t.rIndex(h, k)] }

// spec is the geometry of one RF: the basis vectors summed into u and z,
// and Uᵀz.
type spec struct {
	alpha, beta []int
	uz          []float64
}

// qWeight is the factor 1 − |β| of Q_h in the RF's log-poles (0 without
// biases, and for the RFs on −z_1, whose β is the column d itself).
func (s *spec) qWeight(t theta) float64 {
	if !t.biased() || (len(s.beta) == 1 && s.beta[0] == t.d) {
		return 0
	}
	return float64(1 - len(s.beta))
}

// headTerms returns, for head h of the RF s, p_h, r_h(u) and v_h·z, under
// the token scale c.
func (s *spec) headTerms(t theta, h int, c float64) (p, rr, vz float64) {
	q := s.qWeight(t)
	for _, a := range s.alpha {
		for _, b := range s.beta {
			p += t.P(h, a, b)
		}
		if q != 0 {
			p += float64(q * t.Q(h, a))
		}
		rr += t.R(h, a)
	}
	for k := 0; k < t.d; k++ {
		vz += float64(t.R(h, k) * s.uz[k])
	}
	return p, rr, vz / c
}

// predict returns the model's F(n) for the RF s under the token scale c.
func (s *spec) predict(n float64, t theta, c float64) float64 {
	var y float64
	for h := 0; h < t.H; h++ {
		p, rr, vz := s.headTerms(t, h, c)
		y += vz - rr*n/(n+xmath.Exp(p))
	}
	return y
}

// gradient calls fn(index, ∂F/∂x_index) for every parameter F(n) of the
// RF s depends on, and returns F(n), under the token scale c.
func (s *spec) gradient(n float64, t theta, c float64, fn func(idx int, g float64)) float64 {
	var y float64
	for h := 0; h < t.H; h++ {
		p, rr, vz := s.headTerms(t, h, c)
		rho := xmath.Exp(p)
		den := n + rho
		y += vz - rr*n/den
		gp := rr * n * rho / (den * den)
		if gp != 0 {
			q := s.qWeight(t)
			for _, a := range s.alpha {
				for _, b := range s.beta {
					fn(t.pIndex(h, a, b), gp)
				}
				if q != 0 {
					fn(t.pIndex(h, a, t.d), q*gp/2)
					fn(t.pIndex(h, a, 0), q*gp/2)
				}
			}
		}
		gr := n / den
		for k := 0; k < t.d; k++ {
			g := s.uz[k] / c
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
