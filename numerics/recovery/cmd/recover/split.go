package main

import (
	"errors"
	"strings"
)

// splitArgs splits a command line as a shell splits simple quoting:
// words are separated by blanks; '…' is literal; "…" is literal but for
// \" and \\; a backslash outside quotes escapes the next character. No
// variables, globs or operators.
func splitArgs(s string) ([]string, error) {
	var out []string
	var w strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				out = append(out, w.String())
				w.Reset()
				inWord = false
			}
		case c == '\'':
			inWord = true
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, errors.New("unclosed ' in the command line")
			}
			w.WriteString(s[i+1 : i+1+j])
			i += j + 1
		case c == '"':
			inWord = true
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\') {
					i++
				}
				w.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, errors.New(`unclosed " in the command line`)
			}
		case c == '\\':
			inWord = true
			if i+1 < len(s) {
				i++
				w.WriteByte(s[i])
			}
		default:
			inWord = true
			w.WriteByte(c)
		}
	}
	if inWord {
		out = append(out, w.String())
	}
	if len(out) == 0 {
		return nil, errors.New("an empty command line")
	}
	return out, nil
}
