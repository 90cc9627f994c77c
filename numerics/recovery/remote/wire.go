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
	"headlab/numerics/recovery/runlog"
)

// Limits of the wire format.
const (
	// MaxLine is the longest answer line (or HTTP answer) in bytes.
	MaxLine = 1 << 16
	// MaxDigits is the most significant digits an answer's decimal
	// string may carry (runlog's).
	MaxDigits = runlog.MaxDigits
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

// appendTokens appends the tokens of q as a JSON array of rows
// (runlog.AppendTokens: the log's key is the wire's form).
func appendTokens(b []byte, q recovery.Request) []byte { return runlog.AppendTokens(b, q) }

// exactDecimal returns the exact decimal value of the finite x.
func exactDecimal(x *big.Float) string { return runlog.ExactDecimal(x) }

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

// parseY reads y, a JSON number or a decimal string (runlog.ParseY).
func parseY(y json.RawMessage) (string, recovery.Answer, error) { return runlog.ParseY(y) }

// parseDecimal reads a decimal number (runlog.ParseDecimal).
func parseDecimal(s string) (recovery.Answer, error) { return runlog.ParseDecimal(s) }

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
func clip(b []byte) string { return runlog.Clip(b) }

// errFailed marks a Proc or HTTP box that failed earlier.
var errFailed = errors.New("the oracle failed earlier")
