// Package runlog is the format of a recovery run's log, without any file
// or network: the header and answer lines, reading a whole log from its
// bytes, the key of a query (its tokens as on the wire, bit for bit), an
// answer's y read into a recovery.Answer, and Box, a recovery.BlackBox that
// answers from a log, so that a recorded run can be replayed. Package
// remote writes and resumes logs on disk with it; the page replays them.
//
// A log is a file of JSON lines, the first a header with the run's
// configuration,
//
//	{"log": "headlab recover", "version": 1, "config": {…}, "oracle": "…"}
//
// then one line an answer, appended as it arrived:
//
//	{"n": 12, "tokens": [[…], …], "y": -0.123}
//	{"n": 13, "tokens": [[…], …], "error": "…"}
//
// tokens as on the wire and y as the oracle sent it (a JSON number, or a
// string of decimal digits), so that a resumed or replayed run reads the
// same bits. Error answers are recorded but never served again.
package runlog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"headlab/numerics/recovery"
)

// Kind is the header's "log" value, naming the format.
const Kind = "headlab recover"

// Version is the format's version.
const Version = 1

// MaxDigits is the most significant digits an answer's decimal string may
// carry (about 13 600 bits, far above recovery.MaxPrecision).
const MaxDigits = 4096

// A Header is a log's first line.
type Header struct {
	Log     string         `json:"log"`
	Version int            `json:"version"`
	Config  map[string]any `json:"config"`
	Oracle  string         `json:"oracle,omitempty"`
}

// A Line is one answer of a log: Y (a JSON number or string) or Error.
type Line struct {
	N      int             `json:"n"`
	Tokens json.RawMessage `json:"tokens"`
	Y      json.RawMessage `json:"y,omitempty"`
	Error  *string         `json:"error,omitempty"`
}

// Config is what a header records of a run: everything that changes its
// queries. H is the number of heads or 0 when H0, an upper bound, is given.
type Config struct {
	H      int     `json:"H"`
	H0     int     `json:"H0"`
	D      int     `json:"d"`
	Mode   string  `json:"mode"`
	Prec   uint    `json:"prec"`
	Seed   uint64  `json:"seed"`
	Spread float64 `json:"spread"`
	Biases bool    `json:"biases"`
}

// Map returns c as a header's config.
func (c Config) Map() map[string]any {
	return map[string]any{"H": c.H, "H0": c.H0, "d": c.D, "mode": c.Mode, "prec": c.Prec, "seed": c.Seed, "spread": c.Spread, "biases": c.Biases}
}

// Options returns the learner's options of a run of c: the library's
// defaults with c's sizes, schedule, precision, seed and spread; a spread
// of 0 calibrates (recovery.Calibrate).
func (c Config) Options() (recovery.Options, error) {
	if (c.H > 0) == (c.H0 > 0) || c.D <= 0 {
		return recovery.Options{}, fmt.Errorf("runlog: config H %d, H0 %d, d %d: want one of H and H0 positive, and d", c.H, c.H0, c.D)
	}
	m, err := recovery.ParseMode(c.Mode)
	if err != nil {
		return recovery.Options{}, err
	}
	h := c.H
	if c.H0 > 0 {
		h = c.H0
	}
	opt := recovery.DefaultOptions(h, c.D)
	opt.UpperBound = c.H0 > 0
	opt.Mode, opt.Seed, opt.Precision, opt.Spread = m, c.Seed, c.Prec, c.Spread
	opt.Calibrate, opt.Biases = c.Spread == 0, c.Biases
	return opt, nil
}

// A Log is a log read whole: its header, its answers by key, and how much
// of it was read.
type Log struct {
	Header Header
	// Config is the header's config, read strictly.
	Config Config
	// Answers maps a query's key (Key) to its first logged y.
	Answers map[string]json.RawMessage
	// Lines counts the answer lines read, error answers included.
	Lines int
	// Good is the number of bytes of complete, valid lines.
	Good int
	// Warning is set when a last line cut short was dropped.
	Warning string
}

// Parse reads a log from its bytes. With want set, the header's config
// must equal it (a resumed run's); without, it must be a config Options
// accepts. A last line cut short (no newline and not valid) is dropped,
// Warning saying so; a malformed line elsewhere is an error naming it.
func Parse(data []byte, want map[string]any) (*Log, error) {
	l := &Log{Answers: map[string]json.RawMessage{}}
	for no := 1; l.Good < len(data); no++ {
		end := bytes.IndexByte(data[l.Good:], '\n')
		last := end < 0
		if last {
			end = len(data) - l.Good
		}
		line := data[l.Good : l.Good+end]
		if no == 1 {
			if err := l.header(line, want); err != nil {
				return nil, err
			}
		} else if err := l.line(line); err != nil {
			if last {
				l.Warning = fmt.Sprintf("dropped its last line %d, cut short (%v)", no, err)
				break
			}
			return nil, fmt.Errorf("line %d: %v", no, err)
		}
		l.Good += end
		if !last {
			l.Good++
		}
	}
	if l.Good == 0 {
		return nil, fmt.Errorf("no complete header line")
	}
	return l, nil
}

// header reads and checks the first line.
func (l *Log) header(line []byte, want map[string]any) error {
	if err := json.Unmarshal(line, &l.Header); err != nil || l.Header.Log != Kind {
		return fmt.Errorf("not a run log of the recover command (its first line is %s)", Clip(line))
	}
	if l.Header.Version != Version {
		return fmt.Errorf("log format version %d, this program reads %d", l.Header.Version, Version)
	}
	if want != nil {
		return CheckConfig(l.Header.Config, want)
	}
	var h struct{ Config Config }
	dec := json.NewDecoder(bytes.NewReader(line))
	if err := dec.Decode(&h); err != nil {
		return fmt.Errorf("the header's config: %v", err)
	}
	l.Config = h.Config
	_, err := h.Config.Options()
	return err
}

// CheckConfig compares a log's config with a run's, naming every
// difference.
func CheckConfig(got, want map[string]any) error {
	want, err := normalize(want)
	if err != nil {
		return fmt.Errorf("config: %v", err)
	}
	var diff []string
	keys := map[string]bool{}
	for k := range want {
		keys[k] = true
	}
	for k := range got {
		keys[k] = true
	}
	for k := range keys {
		if !reflect.DeepEqual(want[k], got[k]) {
			diff = append(diff, fmt.Sprintf("%s %v in the log, %v in this run", k, show(got[k]), show(want[k])))
		}
	}
	if len(diff) > 0 {
		sort.Strings(diff)
		return fmt.Errorf("written by another configuration: %s", strings.Join(diff, "; "))
	}
	return nil
}

// normalize passes a config through JSON, so that it compares with one
// read back from a file.
func normalize(c map[string]any) (map[string]any, error) {
	b, err := json.Marshal(c)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	err = json.Unmarshal(b, &out)
	return out, err
}

func show(v any) string {
	if v == nil {
		return "(none)"
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// line reads one answer line.
func (l *Log) line(line []byte) error {
	var a Line
	if err := json.Unmarshal(line, &a); err != nil {
		return fmt.Errorf("malformed (%v): %s", err, Clip(line))
	}
	if len(a.Tokens) == 0 || a.Tokens[0] != '[' {
		return fmt.Errorf("no tokens: %s", Clip(line))
	}
	l.Lines++
	if a.Error != nil {
		return nil
	}
	if len(a.Y) == 0 {
		return fmt.Errorf("neither y nor error: %s", Clip(line))
	}
	if _, _, err := ParseY(a.Y); err != nil {
		return err
	}
	var key bytes.Buffer
	if err := json.Compact(&key, a.Tokens); err != nil {
		return err
	}
	if _, ok := l.Answers[key.String()]; !ok {
		l.Answers[key.String()] = append(json.RawMessage(nil), a.Y...)
	}
	return nil
}

// Lookup returns the logged answer to q, and false when the log has none.
func (l *Log) Lookup(q recovery.Request) (recovery.Answer, bool, error) {
	y, ok := l.Answers[Key(q)]
	if !ok {
		return recovery.Answer{}, false, nil
	}
	_, a, err := ParseY(y)
	return a, true, err
}

// Key returns the key of q in a log: its tokens as on the wire.
func Key(q recovery.Request) string { return string(AppendTokens(nil, q)) }

// AppendTokens appends the tokens of q as a JSON array of rows: the
// shortest decimals of its float64s, or exact decimal strings when q
// carries Big tokens.
func AppendTokens(b []byte, q recovery.Request) []byte {
	if q.Big != nil {
		return appendRows(b, q.Big, func(b []byte, x *big.Float) []byte {
			b = append(b, '"')
			b = append(b, ExactDecimal(x)...)
			return append(b, '"')
		})
	}
	return appendRows(b, q.Tokens, func(b []byte, x float64) []byte {
		return strconv.AppendFloat(b, x, 'g', -1, 64)
	})
}

// appendRows appends rows as a JSON array of arrays, each element written
// by one.
func appendRows[T any](b []byte, rows [][]T, one func([]byte, T) []byte) []byte {
	b = append(b, '[')
	for i, row := range rows {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		for j, x := range row {
			if j > 0 {
				b = append(b, ',')
			}
			b = one(b, x)
		}
		b = append(b, ']')
	}
	return append(b, ']')
}

// ExactDecimal returns the exact decimal value of the finite x: a binary
// fraction m/2^k has exactly k decimals.
func ExactDecimal(x *big.Float) string {
	r, _ := x.Rat(nil)
	k := r.Denom().BitLen() - 1
	s := r.FloatString(k)
	if k > 0 {
		s = strings.TrimRight(s, "0")
		s = strings.TrimSuffix(s, ".")
	}
	if s == "-0" {
		s = "0"
	}
	return s
}

// ParseY reads y, a JSON number or a decimal string, returning its JSON
// text and the answer: Y its float64 rounding and, for a string, Big
// holding every digit.
func ParseY(y json.RawMessage) (string, recovery.Answer, error) {
	if len(y) == 0 {
		return "", recovery.Answer{}, fmt.Errorf("no y")
	}
	if y[0] == '"' {
		var s string
		if err := json.Unmarshal(y, &s); err != nil {
			return "", recovery.Answer{}, fmt.Errorf("y %s is not a JSON string", Clip(y))
		}
		a, err := ParseDecimal(s)
		return string(y), a, err
	}
	a, err := ParseDecimal(string(y))
	if err == nil {
		a.Big = nil // a JSON number is a float64
	}
	return string(y), a, err
}

// ParseDecimal reads a decimal number: sign, digits with at most one
// point, an optional exponent. The result keeps every digit in Big and
// its correctly rounded float64 in Y; NaN, infinities and numbers outside
// float64's range are refused.
func ParseDecimal(s string) (recovery.Answer, error) {
	digits, ok := decimalSyntax(s)
	switch {
	case !ok && (s == "NaN" || s == "nan" || s == "Infinity" || s == "-Infinity" || s == "inf" || s == "-inf" || s == "Inf" || s == "+Inf" || s == "-Inf"):
		return recovery.Answer{}, fmt.Errorf("y is %s, not a finite number", s)
	case !ok:
		return recovery.Answer{}, fmt.Errorf("y %s is not a decimal number", Clip([]byte(s)))
	case digits > MaxDigits:
		return recovery.Answer{}, fmt.Errorf("y has %d digits, more than the %d accepted", digits, MaxDigits)
	}
	prec := uint(math.Ceil(float64(digits)*math.Log2(10))) + 16
	if prec < 64 {
		prec = 64
	}
	f, _, err := new(big.Float).SetPrec(prec).Parse(s, 10)
	if err != nil {
		return recovery.Answer{}, fmt.Errorf("y %s: %v", Clip([]byte(s)), err)
	}
	y, _ := strconv.ParseFloat(s, 64) // correctly rounded, unlike f.Float64 of a rounded f
	if math.IsInf(y, 0) || math.IsNaN(y) {
		return recovery.Answer{}, fmt.Errorf("y %s is outside float64's range", Clip([]byte(s)))
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
	mantissa := func() { // a run of digits of the mantissa
		for i < n && s[i] >= '0' && s[i] <= '9' {
			if s[i] != '0' || !lead {
				lead = false
				digits++
			}
			mant++
			i++
		}
	}
	mantissa()
	if i < n && s[i] == '.' {
		i++
		mantissa()
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

// Clip quotes at most 80 bytes of b for an error message.
func Clip(b []byte) string {
	b = bytes.TrimRight(b, "\r\n")
	if len(b) > 80 {
		return strconv.Quote(string(b[:80])) + fmt.Sprintf("… (%d bytes)", len(b))
	}
	return strconv.Quote(string(b))
}
