package remote

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"

	"headlab/numerics/recovery"
)

// Limits of the wire format.
const (
	// MaxLine is the longest answer line (or HTTP answer) in bytes.
	MaxLine = 1 << 16
	// MaxDigits is the most significant digits an answer's decimal
	// string may carry (about 13 600 bits, far above
	// recovery.MaxPrecision).
	MaxDigits = 4096
)

// appendRequest appends the wire form of query q with the given id (no
// newline).
func appendRequest(b []byte, id int64, q recovery.Request) []byte {
	b = append(b, `{"id":`...)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, `,"tokens":`...)
	b = appendTokens(b, q)
	return append(b, '}')
}

// appendTokens appends the tokens of q as a JSON array of rows: numbers in
// float64, exact decimal strings when q carries Big tokens.
func appendTokens(b []byte, q recovery.Request) []byte {
	b = append(b, '[')
	if q.Big != nil {
		for i, row := range q.Big {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, '[')
			for j, x := range row {
				if j > 0 {
					b = append(b, ',')
				}
				b = append(b, '"')
				b = append(b, exactDecimal(x)...)
				b = append(b, '"')
			}
			b = append(b, ']')
		}
		return append(b, ']')
	}
	for i, row := range q.Tokens {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		for j, x := range row {
			if j > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendFloat(b, x, 'g', -1, 64)
		}
		b = append(b, ']')
	}
	return append(b, ']')
}

// exactDecimal returns the exact decimal value of the finite x: a binary
// fraction m/2^k has exactly k decimals.
func exactDecimal(x *big.Float) string {
	r, _ := x.Rat(nil)
	k := r.Denom().BitLen() - 1
	s := r.FloatString(k)
	if k > 0 {
		s = string(bytes.TrimRight([]byte(s), "0"))
		s = string(bytes.TrimSuffix([]byte(s), []byte(".")))
	}
	if s == "-0" {
		s = "0"
	}
	return s
}

// wireAnswer is an answer as it arrives: its id, the answer, and y's JSON
// text exactly as received (empty for an error answer), which the run log
// stores.
type wireAnswer struct {
	id  int64
	a   recovery.Answer
	raw string
}

// An OracleError is an oracle's refusal of one query ({"id": …, "error":
// …}), the query's recovery.Answer.Err.
type OracleError struct {
	ID      int64
	Message string
}

func (e *OracleError) Error() string {
	return fmt.Sprintf("the oracle refused query id %d: %s", e.ID, e.Message)
}

// parseAnswer reads one answer object. Its error names the id when the
// line shows one.
func parseAnswer(line []byte) (wireAnswer, error) {
	var w struct {
		ID    *json.Number    `json:"id"`
		Y     json.RawMessage `json:"y"`
		Error *string         `json:"error"`
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	if err := dec.Decode(&w); err != nil {
		return wireAnswer{}, fmt.Errorf("%s: malformed JSON (%v)%s", whose(line), err, nonFinite(line))
	}
	if dec.More() {
		return wireAnswer{}, fmt.Errorf("%s: more than one JSON value on the line", whose(line))
	}
	if w.ID == nil {
		return wireAnswer{}, fmt.Errorf("answer %s has no id", clip(line))
	}
	id, err := strconv.ParseInt(string(*w.ID), 10, 64)
	if err != nil || id < 0 {
		return wireAnswer{}, fmt.Errorf("answer %s: id %s is not a non-negative integer", clip(line), *w.ID)
	}
	if w.Error != nil {
		return wireAnswer{id: id, a: recovery.Answer{Y: math.NaN(), Err: &OracleError{ID: id, Message: *w.Error}}}, nil
	}
	if len(w.Y) == 0 || string(w.Y) == "null" {
		return wireAnswer{}, fmt.Errorf("query id %d: the answer has neither y nor error", id)
	}
	raw, a, err := parseY(w.Y)
	if err != nil {
		return wireAnswer{}, fmt.Errorf("query id %d: %w", id, err)
	}
	return wireAnswer{id: id, a: a, raw: raw}, nil
}

// parseY reads y, a JSON number or a decimal string, returning its JSON
// text.
func parseY(y json.RawMessage) (string, recovery.Answer, error) {
	if y[0] == '"' {
		var s string
		if err := json.Unmarshal(y, &s); err != nil {
			return "", recovery.Answer{}, fmt.Errorf("y %s is not a JSON string", clip(y))
		}
		a, err := parseDecimal(s)
		return string(y), a, err
	}
	a, err := parseDecimal(string(y))
	if err == nil {
		a.Big = nil // a JSON number is a float64
	}
	return string(y), a, err
}

// parseDecimal reads a decimal number: sign, digits with at most one
// point, an optional exponent. The result keeps every digit in Big (nil
// when float64 holds the number exactly as written, at most 17 digits
// being no guarantee) and its rounding in Y.
func parseDecimal(s string) (recovery.Answer, error) {
	digits, ok := decimalSyntax(s)
	switch {
	case !ok && (s == "NaN" || s == "nan" || s == "Infinity" || s == "-Infinity" || s == "inf" || s == "-inf" || s == "Inf" || s == "+Inf" || s == "-Inf"):
		return recovery.Answer{}, fmt.Errorf("y is %s, not a finite number", s)
	case !ok:
		return recovery.Answer{}, fmt.Errorf("y %s is not a decimal number", clip([]byte(s)))
	case digits > MaxDigits:
		return recovery.Answer{}, fmt.Errorf("y has %d digits, more than the %d accepted", digits, MaxDigits)
	}
	prec := uint(math.Ceil(float64(digits)*math.Log2(10))) + 16
	if prec < 64 {
		prec = 64
	}
	f, _, err := new(big.Float).SetPrec(prec).Parse(s, 10)
	if err != nil {
		return recovery.Answer{}, fmt.Errorf("y %s: %v", clip([]byte(s)), err)
	}
	y, _ := strconv.ParseFloat(s, 64) // correctly rounded, unlike f.Float64 of a rounded f
	if math.IsInf(y, 0) || math.IsNaN(y) {
		return recovery.Answer{}, fmt.Errorf("y %s is outside float64's range", clip([]byte(s)))
	}
	return recovery.Answer{Y: y, Big: f}, nil
}

// decimalSyntax checks s against [+-]?(d+(.d*)?|.d+)([eE][+-]?d{1,6})? and
// counts its significant digits (leading zeros not counted).
func decimalSyntax(s string) (digits int, ok bool) {
	i, n := 0, len(s)
	if i < n && (s[i] == '+' || s[i] == '-') {
		i++
	}
	mant, lead := 0, true
	for i < n && s[i] >= '0' && s[i] <= '9' {
		if s[i] != '0' || !lead {
			lead = false
			digits++
		}
		mant++
		i++
	}
	if i < n && s[i] == '.' {
		i++
		for i < n && s[i] >= '0' && s[i] <= '9' {
			if s[i] != '0' || !lead {
				lead = false
				digits++
			}
			mant++
			i++
		}
	}
	if mant == 0 {
		return 0, false
	}
	if i < n && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < n && (s[i] == '+' || s[i] == '-') {
			i++
		}
		e := 0
		for i < n && s[i] >= '0' && s[i] <= '9' {
			e++
			i++
		}
		if e == 0 || e > 6 {
			return 0, false
		}
	}
	return digits, i == n
}

// whose names the answer a malformed line was meant to be, if its start
// shows an id.
func whose(line []byte) string {
	if id, ok := sniffID(line); ok {
		return fmt.Sprintf("query id %d: answer %s", id, clip(line))
	}
	return fmt.Sprintf("answer %s", clip(line))
}

// sniffID finds `"id": N` near the start of a line that may not parse.
func sniffID(line []byte) (int64, bool) {
	if len(line) > 256 {
		line = line[:256]
	}
	k := bytes.Index(line, []byte(`"id"`))
	if k < 0 {
		return 0, false
	}
	rest := bytes.TrimLeft(line[k+4:], " \t")
	if len(rest) == 0 || rest[0] != ':' {
		return 0, false
	}
	rest = bytes.TrimLeft(rest[1:], " \t")
	end := 0
	for end < len(rest) && rest[end] >= '0' && rest[end] <= '9' {
		end++
	}
	id, err := strconv.ParseInt(string(rest[:end]), 10, 64)
	return id, err == nil
}

// nonFinite explains the usual cause of a malformed answer: Python's json
// writes NaN and infinities as bare words JSON does not have.
func nonFinite(line []byte) string {
	for _, w := range []string{"NaN", "Infinity"} {
		if bytes.Contains(line, []byte(w)) {
			return "; y is " + w + ", not a finite number"
		}
	}
	return ""
}

// clip quotes at most 80 bytes of b for an error message.
func clip(b []byte) string {
	b = bytes.TrimRight(b, "\r\n")
	if len(b) > 80 {
		return strconv.Quote(string(b[:80])) + fmt.Sprintf("… (%d bytes)", len(b))
	}
	return strconv.Quote(string(b))
}

// errFailed marks a Proc or HTTP box that failed earlier.
var errFailed = errors.New("the oracle failed earlier")
