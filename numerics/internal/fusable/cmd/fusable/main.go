// Command fusable runs the fusable check (headlab/numerics/internal/fusable)
// as a vet tool:
//
//	go build -o build/fusable ./numerics/internal/fusable/cmd/fusable
//	go vet -vettool=build/fusable ./numerics/...
package main

import (
	"golang.org/x/tools/go/analysis/singlechecker"

	"headlab/numerics/internal/fusable"
)

func main() { singlechecker.Main(fusable.Analyzer) }
