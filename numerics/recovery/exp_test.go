package recovery

import (
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"

	"headlab/numerics/attention"
)

func envInt(k string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(k)); err == nil {
		return v
	}
	return def
}

func envList(k, def string) []int {
	v := os.Getenv(k)
	if v == "" {
		v = def
	}
	var out []int
	for _, f := range strings.Split(v, ",") {
		n, _ := strconv.Atoi(f)
		out = append(out, n)
	}
	return out
}

func TestExperiment(t *testing.T) {
	if os.Getenv("EXP") == "" {
		t.Skip()
	}
	Hs := envList("H", "2")
	ds := envList("D", "4")
	seeds := envInt("SEEDS", 20)
	noise, _ := strconv.ParseFloat(os.Getenv("NOISE"), 64)
	mode := Paper
	if os.Getenv("MODE") == "economy" {
		mode = Economy
	}
	var chis []float64
	chiHook = func(c float64) { chis = append(chis, c) }
	defer func() {
		chiHook = nil
		sort.Float64s(chis)
		n := len(chis)
		if n > 0 {
			fmt.Println("chi2/row quantiles: 50%", chis[n/2], "90%", chis[n*9/10], "99%", chis[n*99/100], "99.9%", chis[n*999/1000], "max", chis[n-1], "n", n)
		}
	}()
	for _, H := range Hs {
		for _, d := range ds {
			var errs []float64
			cats := map[string]int{}
			flagged := 0
			bad := 0
			for s := 0; s < seeds; s++ {
				l := attention.Random(H, d, uint64(envInt("BASE", 1000)+s))
				want := attention.Canonical(l, 0)
				opt := DefaultOptions(H+envInt("UB", 0), d)
				opt.UpperBound = envInt("UB", 0) > 0
				opt.Tolerance = noise
				opt.Mode = mode
				opt.Seed = uint64(s)
				res, err := Learn(LayerOracle(l, noise, 1), opt)
				if err != nil {
					flagged++
					if os.Getenv("V") != "" {
						fmt.Println("seed", s, err, "resid", res.Residual, "est", res.Estimate)
					}
					msg := err.Error()
					for _, key := range []string{"cannot fit", "does not show", "cannot label", "not determined", "no RF on", "self-check", "estimated relative", "fallback"} {
						if strings.Contains(msg, key) {
							cats[key]++
						}
					}
					continue
				}
				if len(res.Layer) != len(want) {
					fmt.Println("seed", s, "found", len(res.Layer), "heads, want", len(want))
					bad++
					continue
				}
				e, _ := attention.RelativeError(res.Layer, want)
				if e > 1e-3 {
					bad++
				}
				if os.Getenv("V") != "" {
					fmt.Printf("seed %d err %.2e resid %.3g est %.2e cond %.2e q %d\n", s, e, res.Residual, res.Estimate, res.Cond, res.Queries)
				}
				errs = append(errs, e)
			}
			sort.Float64s(errs)
			med := math.NaN()
			p90 := math.NaN()
			if len(errs) > 0 {
				med = errs[len(errs)/2]
				p90 = errs[len(errs)*9/10]
			}
			fmt.Printf("H=%d d=%d mode=%v ok=%d flagged=%d bad=%d med=%.2e p90=%.2e %v\n", H, d, mode, len(errs), flagged, bad, med, p90, cats)
		}
	}
}
