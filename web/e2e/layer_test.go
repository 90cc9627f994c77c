package e2e

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"headlab/web/link"
)

// TestBiases opens layers with biases (bias=1): the Attention scene's
// output includes C and its table shows c_h and C; the Recovery scene's
// steps show F(0) and the column on −z_1, and its result the recovered
// biases against the true ones. Screenshots in light and dark (with
// HEADLAB_SHOTS).
func TestBiases(t *testing.T) {
	tb := newTab(t)
	const frag = "#v=1&scene=attention&H=2&d=2&seed=4&bias=1"
	s, _ := link.Parse(frag)
	want := s.Model().Output(s.Sequence())
	for _, theme := range []string{"light", "dark"} {
		tb.load(h.base + frag + "&theme=" + theme)
		tb.waitSettled("attention with biases")
		var f struct {
			Output    float64     `json:"output"`
			Const     float64     `json:"const"`
			QueryBias [][]float64 `json:"queryBias"`
		}
		if err := json.Unmarshal(eval[json.RawMessage](tb, "headlab.facts()"), &f); err != nil {
			t.Fatal(err)
		}
		if math.Abs(f.Output-want) > 1e-12 || f.Const != s.Const[0] || len(f.QueryBias) != 2 || f.QueryBias[1][1] != s.QBias[3] {
			t.Errorf("facts output %v (want %v), C %v, c %v", f.Output, want, f.Const, f.QueryBias)
		}
		n := eval[int](tb, `document.querySelectorAll('#heads [data-list="c"]').length + document.querySelectorAll('#heads [data-list="C"]').length`)
		if n != 5 {
			t.Errorf("the heads table has %d bias fields, want 2·2 + 1", n)
		}
		eval[bool](tb, `(document.getElementById("heads-details").open = true)`)
		tb.frames(2)
		tb.shoot("biases-attention-" + theme)
		eval[bool](tb, `(document.getElementById("heads-details").scrollIntoView(), true)`)
		tb.frames(2)
		tb.shoot("biases-attention-table-" + theme)
		eval[bool](tb, `(scrollTo(0, 0), true)`)

		rec := "#v=1&scene=recovery&H=2&d=2&seed=4&bias=1&theme=" + theme
		f0 := recoveryOpen(tb, rec+"&step=1")
		names := map[string]bool{}
		var shotBias bool
		for step := 1; step <= f0.Steps; step++ {
			recoveryOpen(tb, fmt.Sprintf("%s&step=%d", rec, step))
			var g struct {
				RF struct {
					Name string `json:"name"`
					Kind string `json:"kind"`
				} `json:"rf"`
			}
			json.Unmarshal(eval[json.RawMessage](tb, "headlab.facts()"), &g)
			names[g.RF.Name] = true
			if g.RF.Kind == "constant" {
				tb.frames(2)
				tb.shoot("biases-recovery-constant-" + theme)
				if d := eval[string](tb, "document.getElementById('canvas-alt').textContent"); !strings.Contains(d, "zero token alone") {
					t.Errorf("F(0)'s step is described as %q", d)
				}
			}
			if strings.Contains(g.RF.Name, "−z_1") && !shotBias {
				shotBias = true
				tb.frames(2)
				tb.shoot("biases-recovery-bias-column-" + theme)
			}
		}
		if !names["F(0)"] || !names["RF(−z_1, u_1)"] {
			t.Errorf("the steps show %v, without F(0) or RF(−z_1, u_1)", names)
		}
		recoveryOpen(tb, rec+"&view=result")
		var r struct {
			Biases struct {
				C              float64     `json:"C"`
				RecoveredConst *float64    `json:"recoveredConst"`
				Error          *float64    `json:"error"`
				RecoveredC     [][]float64 `json:"recoveredC"`
			} `json:"biases"`
		}
		json.Unmarshal(eval[json.RawMessage](tb, "headlab.facts()"), &r)
		b := r.Biases
		if b.RecoveredConst == nil || math.Abs(*b.RecoveredConst-s.Const[0]) > 1e-8 || b.Error == nil || *b.Error > 1e-7 || len(b.RecoveredC) != 2 {
			t.Errorf("result view biases %+v", b)
		}
		tb.frames(2)
		tb.shoot("biases-recovery-result-" + theme)
	}
	tb.noProblems("biases")
}
