// Package remote connects the learner of package recovery to an oracle in
// another process or behind an HTTP API: Proc and HTTP implement
// recovery.BlackBox over the wire format below, Log records a run's
// queries and answers and serves them again when the run is resumed
// (Cached), and Budget stops a run cleanly after a number of queries.
//
// # Wire format
//
// A request is one value query, a JSON object
//
//	{"id": 7, "tokens": [[x, …], …]}
//
// whose rows are the tokens of the sequence, the last row the query token.
// The id is a non-negative integer, unique within a connection. In a
// float64 run (recovery.Request.Big nil) every x is a JSON number, the
// shortest decimal that parses back to the same float64. In an
// extended-precision run every x is a string holding the exact decimal
// value of the learner's number at the working precision (a binary
// fraction has a finite decimal expansion), so that an oracle parsing it
// at that precision or above reads the learner's number exactly.
//
// An answer is a JSON object
//
//	{"id": 7, "y": -0.123}
//
// where y is a JSON number, or a string holding a decimal number with as
// many digits as the oracle has (at most MaxDigits significant digits);
// it is read at a precision that keeps every digit (recovery.Answer.Big)
// and rounded to float64 (Answer.Y). NaN and infinities are refused. An
// oracle that cannot answer a query says why:
//
//	{"id": 7, "error": "…"}
//
// which becomes that query's recovery.Answer.Err.
//
// Over a subprocess (Proc) the learner writes one request a line on the
// oracle's standard input and reads one answer a line from its standard
// output, in any order: requests are pipelined, up to a limit of requests
// in flight. A line is at most MaxLine bytes. The oracle's standard error
// is passed on (its last lines are quoted when it fails).
//
// Over HTTP (HTTP) the learner POSTs a JSON array of requests (a chunk of
// a batch, at most a bounded number) to the URL with Content-Type
// application/json and reads back a JSON array of as many answers, in any
// order. Status 429 and 5xx are retried with exponential backoff, honouring
// Retry-After up to a bound; any other status but 200 fails.
//
// Any violation (malformed JSON, an unknown or repeated id, a number that
// is not finite, a string that is not a decimal number, an overlong line,
// a missing answer, an array of the wrong length, a dead process) fails
// the batch with an error naming the query's id and the cause; a Proc that
// has failed stays failed (its process is killed).
package remote
