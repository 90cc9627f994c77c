// Package fusable is a vet check for numerics/: it reports a float product
// that feeds a sum or a difference, a*b + c, which the Go specification
// lets a compiler fuse into one FMA instruction (one rounding instead of
// two: amd64 does with GOAMD64=v3, arm64 by default). headlab's numerics
// must give the same bits on every platform, so such a product is written
// float64(a*b), an explicit conversion that forbids the fusion
// (numerics/MATH.md §4). The check finds a missing conversion in seconds,
// where the golden digests find it only when run on an FMA platform.
//
//	go build -o build/fusable ./numerics/internal/fusable/cmd/fusable
//	go vet -vettool=build/fusable ./numerics/...
package fusable

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"math"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"
)

// Analyzer reports a*b ± c and c ± a*b, and x += a*b, x -= a*b, on
// floating-point operands whose product is not converted explicitly.
var Analyzer = &analysis.Analyzer{
	Name:     "fusable",
	Doc:      "report float products a*b that feed a sum, which a compiler may fuse into an FMA; write float64(a*b)",
	Requires: []*analysis.Analyzer{inspect.Analyzer},
	Run:      run,
}

func run(pass *analysis.Pass) (any, error) {
	in := pass.ResultOf[inspect.Analyzer].(*inspector.Inspector)
	nodes := []ast.Node{(*ast.BinaryExpr)(nil), (*ast.AssignStmt)(nil)}
	in.Preorder(nodes, func(n ast.Node) {
		// Tests compute expectations, not the numerics' results.
		if strings.HasSuffix(pass.Fset.File(n.Pos()).Name(), "_test.go") {
			return
		}
		switch n := n.(type) {
		case *ast.BinaryExpr:
			if (n.Op == token.ADD || n.Op == token.SUB) && isFloat(pass, n) {
				for _, x := range []ast.Expr{n.X, n.Y} {
					if p, ok := product(pass, x); ok {
						report(pass, p)
					}
				}
			}
		case *ast.AssignStmt:
			if (n.Tok == token.ADD_ASSIGN || n.Tok == token.SUB_ASSIGN) && len(n.Rhs) == 1 {
				if p, ok := product(pass, n.Rhs[0]); ok {
					report(pass, p)
				}
			}
		}
	})
	return nil, nil
}

// product returns e, parentheses removed, when it is a float product.
func product(pass *analysis.Pass, e ast.Expr) (*ast.BinaryExpr, bool) {
	for {
		p, ok := e.(*ast.ParenExpr)
		if !ok {
			break
		}
		e = p.X
	}
	b, ok := e.(*ast.BinaryExpr)
	if !ok || b.Op != token.MUL || !isFloat(pass, b) {
		return nil, false
	}
	// A product of constants is computed exactly at compile time, and a
	// product by a power of two is exact, fused or not.
	if tv, ok := pass.TypesInfo.Types[b]; ok && tv.Value != nil {
		return nil, false
	}
	if powerOfTwo(pass, b.X) || powerOfTwo(pass, b.Y) {
		return nil, false
	}
	return b, true
}

// powerOfTwo reports whether e is a constant ±2^k.
func powerOfTwo(pass *analysis.Pass, e ast.Expr) bool {
	tv, ok := pass.TypesInfo.Types[e]
	if !ok || tv.Value == nil {
		return false
	}
	f, ok := constant.Float64Val(constant.ToFloat(tv.Value))
	if !ok || f == 0 {
		return false
	}
	frac, _ := math.Frexp(math.Abs(f))
	return frac == 0.5
}

func isFloat(pass *analysis.Pass, e ast.Expr) bool {
	t := pass.TypesInfo.TypeOf(e)
	if t == nil {
		return false
	}
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsFloat != 0
}

func report(pass *analysis.Pass, p *ast.BinaryExpr) {
	pass.ReportRangef(p, "a float product feeding a sum may be fused into an FMA on some platforms: write float64(%s) (numerics/MATH.md §4)", types.ExprString(p))
}
