// Package linalg holds the dense linear algebra of headlab's numerics, in
// float64 and in big.Float: Gaussian elimination (partial and complete
// pivoting), Householder QR and least squares, Cholesky, the singular
// values and eigenvalues of small matrices, random orthonormal bases, dot
// products. The rational fits, recovery, the transformer learner, fusion
// and the pole solver (internal/poles) call these kernels; none keeps a
// copy of its own.
//
// Why not gonum. headlab promises the same bits natively (amd64, arm64)
// and in the browser (GOOS=js), and the golden digests check it. gonum's
// BLAS runs amd64 assembly that sums in a different order from its
// portable Go, and LAPACK's blocked algorithms choose block sizes and
// orders of their own, so its results differ in the last bits from one
// platform to the next. The Go specification also lets a compiler fuse
// x*y + z into one FMA instruction (arm64 does by default, amd64 with
// GOAMD64=v3), one rounding where the portable code has two. Every float
// product that feeds a sum in this package is therefore written
// float64(x*y), which forbids the fusion, and the vet check
// numerics/internal/fusable verifies it; the check cannot see inside
// gonum. The matrices here are small (tens of rows and columns at most),
// where blocking and assembly would gain little anyway.
//
// The order of every operation is part of each kernel's contract: a
// change of loop order, pivoting rule or tolerance changes results in the
// last bits, and with them the digests. The big.Float kernels round every
// operation to the precision they are given, so they too give the same
// bits everywhere.
package linalg
