package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"headlab/web/server"
)

// syncBuffer is a bytes.Buffer safe for a writer and a reader at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func siteDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "index.html"), []byte("<!doctype html><p>hi"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// start runs the command and returns the URL from its one line of output,
// a function that stops it and returns its exit status, and its log.
func start(t *testing.T, args ...string) (string, func() int, *syncBuffer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	stderr := new(syncBuffer)
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, args, pw, stderr)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		cancel()
		t.Fatalf("no line from serve (%v); stderr:\n%s", err, stderr)
	}
	go io.Copy(io.Discard, pr)
	m := regexp.MustCompile(`^headlab: serving (.+) at (http://127\.0\.0\.1:(\d+)/)\n$`).FindStringSubmatch(line)
	if m == nil {
		cancel()
		t.Fatalf("line %q is not of the form %q", line, "headlab: serving DIR at http://127.0.0.1:PORT/")
	}
	stop := func() int {
		cancel()
		select {
		case code := <-done:
			return code
		case <-time.After(2 * shutdownTimeout):
			t.Fatal("serve did not stop")
			return -1
		}
	}
	return m[2], stop, stderr
}

func TestServe(t *testing.T) {
	dir := siteDir(t)
	url, stop, stderr := start(t, "-dir", dir, "-port", "0", "-v")
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || string(body) != "<!doctype html><p>hi" {
		t.Errorf("GET %s: %d %q", url, res.StatusCode, body)
	}
	if res.Header.Get("Content-Security-Policy") != server.CSP {
		t.Error("no CSP header")
	}
	if code := stop(); code != 0 {
		t.Errorf("exit %d after cancel; stderr:\n%s", code, stderr)
	}
	if !strings.Contains(stderr.String(), "GET / 200") {
		t.Errorf("-v did not log the request:\n%s", stderr)
	}
	if _, err := http.Get(url); err == nil {
		t.Error("server still answers after shutdown")
	}
}

func TestQuiet(t *testing.T) {
	url, stop, stderr := start(t, "-dir", siteDir(t), "-port", "0")
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if code := stop(); code != 0 {
		t.Errorf("exit %d", code)
	}
	if s := stderr.String(); s != "" {
		t.Errorf("logged without -v: %q", s)
	}
}

func TestPortInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"-dir", siteDir(t), "-port", fmt.Sprint(port)}, &stdout, &stderr)
	want := fmt.Sprintf("port %d is in use; try -port 0 or -port N", port)
	if code != 1 || !strings.Contains(stderr.String(), want) || stdout.Len() != 0 {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 1 and %q", code, stdout.String(), stderr.String(), want)
	}
}

func TestBadArgs(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-dir", t.TempDir(), "-port", "0"}, "no index.html"},
		{[]string{"-dir", siteDir(t), "-port", "70000"}, "not a port"},
		{[]string{"-dir", siteDir(t), "-port", "0", "stray"}, "stray"},
		{[]string{"-nope"}, "-nope"},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), tc.args, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want 1 and %q", tc.args, code, stderr.String(), tc.want)
		}
	}
}

func TestSiteURL(t *testing.T) {
	a := &net.TCPAddr{Port: 8080}
	for host, want := range map[string]string{
		"127.0.0.1": "http://127.0.0.1:8080/",
		"0.0.0.0":   "http://127.0.0.1:8080/",
		"":          "http://127.0.0.1:8080/",
		"::":        "http://127.0.0.1:8080/",
		"::1":       "http://[::1]:8080/",
		"localhost": "http://localhost:8080/",
	} {
		if got := siteURL(host, a); got != want {
			t.Errorf("siteURL(%q) = %q, want %q", host, got, want)
		}
	}
}
