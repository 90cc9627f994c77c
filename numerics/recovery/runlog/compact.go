package runlog

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"unicode/utf8"

	"headlab/numerics/recovery"
)

// A Compact is a run log small enough for a link: the header's config and
// oracle, the log file's name and SHA-256, and every answer keyed by an
// ID of its query (QueryID) instead of the query's tokens, which the
// learner makes again from the config. Its text (Encode) is base64url
// without padding, so a link carries it unescaped:
//
//	version 1 (a byte)
//	H, H0, d                          uvarints
//	mode                              uvarint length, bytes
//	prec, seed                        uvarints
//	spread                            8 bytes, float64 bits, little-endian
//	biases                            a byte, 0 or 1
//	name, oracle                      uvarint length, UTF-8 bytes (≤ MaxCompactText)
//	SHA-256 of the log file           32 bytes
//	answers                           uvarint count, then each:
//	  query ID                        IDBytes bytes
//	  y                               uvarint 0 and 8 bytes of float64 bits (a JSON number),
//	                                  or uvarint n and n bytes of decimal digits (a string)
//
// Answers come in the order of their IDs, so that one log has one text.
// A replay from a Compact serves the same answers as one from its log,
// and so ends with the same bits.
type Compact struct {
	Config Config
	// Name and Hash are the log file's name and its SHA-256 in hex, as
	// the text says (text from a link: shown as text, never as markup).
	Name, Hash string
	// Oracle is the header's oracle.
	Oracle  string
	answers map[QueryID]answer
}

// answer is one of a Compact's answers, with the decimal string it was
// read from (an oracle's string y), "" for a JSON number.
type answer struct {
	recovery.Answer
	dec string
}

// CompactVersion is the version byte of a Compact's text.
const CompactVersion = 1

// MaxCompact is the longest text of a Compact a link carries, in bytes:
// (4, 8) in the paper's schedule, 1,017 float64 answers, takes 20 kB.
const MaxCompact = 32 << 10

// MaxCompactText bounds a Compact's name and oracle, in bytes; longer
// ones are cut at a character's end.
const MaxCompactText = 200

// IDBytes is the length of a QueryID: 48 bits, so that two of a run's few
// thousand queries share one with a chance below 1e-7.
const IDBytes = 6

// A QueryID names a query in a Compact: the first IDBytes bytes of the
// SHA-256 of its key (Key).
type QueryID [IDBytes]byte

// IDOf returns the QueryID of the query whose key is key.
func IDOf(key string) QueryID {
	sum := sha256.Sum256([]byte(key))
	return QueryID(sum[:IDBytes])
}

// ErrTooLarge is the error of a Compact whose text would exceed
// MaxCompact.
var ErrTooLarge = errors.New("too large for a link")

// NewCompact returns the Compact of the log l, whose file is called name
// and has the SHA-256 hash (hex).
func NewCompact(l *Log, name, hash string) (*Compact, error) {
	c := &Compact{Config: l.Config, Name: clipText(name), Hash: hash, Oracle: clipText(l.Header.Oracle),
		answers: make(map[QueryID]answer, len(l.Answers))}
	for key, y := range l.Answers {
		_, ya, err := ParseY(y)
		if err != nil {
			return nil, err
		}
		a := answer{Answer: ya}
		if ya.Big != nil {
			if err := json.Unmarshal(y, &a.dec); err != nil {
				return nil, err
			}
		}
		id := IDOf(key)
		if _, dup := c.answers[id]; dup {
			return nil, fmt.Errorf("two queries of the log share the ID %x", id)
		}
		c.answers[id] = a
	}
	return c, nil
}

// clipText cuts s to MaxCompactText bytes at a character's end.
func clipText(s string) string {
	if len(s) <= MaxCompactText {
		return s
	}
	n := MaxCompactText
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Answers returns the number of answers c holds.
func (c *Compact) Answers() int { return len(c.answers) }

// Lookup returns the answer to q, and false when c has none.
func (c *Compact) Lookup(q recovery.Request) (recovery.Answer, bool, error) {
	a, ok := c.answers[IDOf(Key(q))]
	return a.Answer, ok, nil
}

// Encode returns c's text, or ErrTooLarge when it would be longer than
// MaxCompact.
func (c *Compact) Encode() (string, error) {
	cf := c.Config
	b := []byte{CompactVersion}
	for _, n := range []uint64{uint64(cf.H), uint64(cf.H0), uint64(cf.D)} {
		b = binary.AppendUvarint(b, n)
	}
	b = appendString(b, cf.Mode)
	b = binary.AppendUvarint(b, uint64(cf.Prec))
	b = binary.AppendUvarint(b, cf.Seed)
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(cf.Spread))
	b = append(b, boolByte(cf.Biases))
	b = appendString(b, c.Name)
	b = appendString(b, c.Oracle)
	hash, err := hex.DecodeString(c.Hash)
	if err != nil || len(hash) != sha256.Size {
		return "", fmt.Errorf("runlog: the log's hash %q is not a SHA-256 in hex", c.Hash)
	}
	b = append(b, hash...)
	ids := make([]QueryID, 0, len(c.answers))
	for id := range c.answers {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(x, y QueryID) int { return bytes.Compare(x[:], y[:]) })
	b = binary.AppendUvarint(b, uint64(len(ids)))
	for _, id := range ids {
		if base64.RawURLEncoding.EncodedLen(len(b)) > MaxCompact {
			return "", ErrTooLarge
		}
		b = append(b, id[:]...)
		a := c.answers[id]
		if a.dec == "" {
			b = binary.AppendUvarint(b, 0)
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(a.Y))
			continue
		}
		b = appendString(b, a.dec)
	}
	if base64.RawURLEncoding.EncodedLen(len(b)) > MaxCompact {
		return "", ErrTooLarge
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func boolByte(v bool) byte {
	if v {
		return 1
	}
	return 0
}

// DecodeCompact reads a Compact's text. Hostile text — too long, not
// base64url, another version, a config Options refuses, a count or a
// length beyond the bytes left, an answer that is not a finite number, a
// repeated ID, bytes after the last answer — is an error saying which.
func DecodeCompact(text string) (*Compact, error) {
	if len(text) > MaxCompact {
		return nil, fmt.Errorf("%d bytes, more than the %d a link's run may have", len(text), MaxCompact)
	}
	data, err := base64.RawURLEncoding.DecodeString(text)
	if err != nil {
		return nil, fmt.Errorf("not base64url: %v", err)
	}
	r := &reader{b: data}
	if v := r.byte(); r.err == nil && v != CompactVersion {
		return nil, fmt.Errorf("version %d, this page reads version %d", v, CompactVersion)
	}
	c := &Compact{}
	cf := &c.Config
	cf.H, cf.H0, cf.D = r.int(), r.int(), r.int()
	cf.Mode = r.string(MaxCompactText)
	cf.Prec = uint(r.int())
	cf.Seed = r.uvarint()
	cf.Spread = math.Float64frombits(r.uint64())
	switch r.byte() {
	case 0:
	case 1:
		cf.Biases = true
	default:
		r.fail("biases is neither 0 nor 1")
	}
	c.Name = r.string(MaxCompactText)
	c.Oracle = r.string(MaxCompactText)
	c.Hash = hex.EncodeToString(r.bytes(sha256.Size))
	if r.err != nil {
		return nil, r.err
	}
	if cf.H > recovery.MaxHeadsExtended || cf.H0 > recovery.MaxHeadsExtended || cf.D > 64 ||
		cf.Prec > recovery.MaxPrecision || math.IsNaN(cf.Spread) || math.IsInf(cf.Spread, 0) || cf.Spread < 0 {
		return nil, fmt.Errorf("config %+v is beyond what any run has", *cf)
	}
	if _, err := cf.Options(); err != nil {
		return nil, err
	}
	n := r.uvarint()
	if n > uint64(len(data))/(IDBytes+2) {
		return nil, fmt.Errorf("%d answers in %d bytes", n, len(data))
	}
	c.answers = make(map[QueryID]answer, n)
	for i := uint64(0); i < n && r.err == nil; i++ {
		var id QueryID
		copy(id[:], r.bytes(IDBytes))
		var a answer
		if k := r.uvarint(); k == 0 {
			a.Y = math.Float64frombits(r.uint64())
			if math.IsNaN(a.Y) || math.IsInf(a.Y, 0) {
				r.fail(fmt.Sprintf("answer %d is %v, not a finite number", i+1, a.Y))
			}
		} else if k > MaxDigits+16 {
			r.fail(fmt.Sprintf("answer %d has %d bytes", i+1, k))
		} else {
			a.dec = string(r.bytes(int(k)))
			if r.err == nil {
				if a.Answer, err = ParseDecimal(a.dec); err != nil {
					r.fail(fmt.Sprintf("answer %d: %v", i+1, err))
				}
			}
		}
		if _, dup := c.answers[id]; dup && r.err == nil {
			r.fail(fmt.Sprintf("answer %d repeats the query ID %x", i+1, id))
		}
		c.answers[id] = a
	}
	if r.err == nil && len(r.b) > 0 {
		r.fail(fmt.Sprintf("%d bytes after the last answer", len(r.b)))
	}
	if r.err != nil {
		return nil, r.err
	}
	return c, nil
}

// reader reads a Compact's bytes, keeping the first error.
type reader struct {
	b   []byte
	err error
}

func (r *reader) fail(why string) {
	if r.err == nil {
		r.err = errors.New(why)
	}
	r.b = nil
}

func (r *reader) bytes(n int) []byte {
	if r.err != nil || n > len(r.b) {
		r.fail("cut short")
		return make([]byte, n)
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}

func (r *reader) byte() byte { return r.bytes(1)[0] }

func (r *reader) uint64() uint64 { return binary.LittleEndian.Uint64(r.bytes(8)) }

func (r *reader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	x, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail("a number is cut short or too long")
		return 0
	}
	r.b = r.b[n:]
	return x
}

// int reads a uvarint that must be a small count.
func (r *reader) int() int {
	x := r.uvarint()
	if x > 1<<20 {
		r.fail(fmt.Sprintf("a count of %d", x))
		return 0
	}
	return int(x)
}

func (r *reader) string(max int) string {
	n := r.int()
	if n > max {
		r.fail(fmt.Sprintf("a text of %d bytes, more than %d", n, max))
		return ""
	}
	s := r.bytes(n)
	if r.err == nil && !utf8.Valid(s) {
		r.fail("a text that is not UTF-8")
	}
	return string(s)
}
