// Package digest fingerprints sequences of float64 bit for bit, so that
// tests can check that the numerics give the same numbers natively and under
// GOOS=js: each package's golden test compares its digest against one file
// that both runs must match.
package digest

import (
	"crypto/sha256"
	"math/big"
	"encoding/binary"
	"encoding/hex"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// update rewrites the golden files instead of comparing against them.
var update = flag.Bool("update-golden", false, "rewrite the numerics' golden digests")

// Digest accumulates float64 values bit for bit.
type Digest struct {
	buf []byte
	n   int
}

// Add appends values to the digest.
func (d *Digest) Add(xs ...float64) {
	for _, x := range xs {
		d.buf = binary.LittleEndian.AppendUint64(d.buf, math.Float64bits(x))
		d.n++
	}
}

// AddBig appends extended-precision values to the digest, every bit of
// each (its exact hexadecimal form, with the precision).
func (d *Digest) AddBig(xs ...*big.Float) {
	for _, x := range xs {
		if x == nil {
			d.buf = append(d.buf, "nil;"...)
		} else {
			d.buf = x.Append(d.buf, 'p', 0)
			d.buf = append(d.buf, fmt.Sprintf("/%d;", x.Prec())...)
		}
		d.n++
	}
}

// Sum returns the hex SHA-256 of everything added, with the count.
func (d *Digest) Sum() string {
	s := sha256.Sum256(d.buf)
	return hex.EncodeToString(s[:])
}

// Check compares the digest with the golden file testdata/<name>.golden,
// or writes it when the tests run with -update-golden (natively).
func Check(t testing.TB, name string, d *Digest) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	got := d.Sum()
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("digest: %v (run the native tests once with -update-golden)", err)
	}
	if w := strings.TrimSpace(string(want)); got != w {
		t.Fatalf("digest of %d numbers is %s, golden %s: this platform computes different numbers", d.n, got, w)
	}
}
