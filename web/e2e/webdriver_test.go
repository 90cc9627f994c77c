package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The Firefox and WebKit suites drive the browsers through the W3C
// WebDriver commands, with two small clients on the standard library:
//
//   - WebKitGTK: WebKitWebDriver (Debian's webkit2gtk-driver) serves W3C
//     WebDriver over HTTP and drives MiniBrowser.
//   - Firefox: Debian has no geckodriver, the usual W3C server for Firefox.
//     Firefox itself serves Marionette (started with --marionette), the
//     protocol geckodriver translates W3C WebDriver into: the same commands
//     under names such as WebDriver:Navigate, as length-prefixed JSON on a
//     TCP socket. (Its WebDriver BiDi would need a WebSocket client, a
//     dependency more.)
//
// Both run under Xvfb: headless Firefox has no WebGL 2, and WebKitGTK
// needs a display.

// driver is one browser session.
type driver interface {
	// call runs a W3C WebDriver command by its Marionette name
	// ("WebDriver:Navigate") with its parameters and decodes the value.
	call(cmd string, params any, out any) error
	close()
}

// w3cPaths maps the commands the suites use to the W3C HTTP endpoints.
var w3cPaths = map[string]string{
	"WebDriver:Navigate":            "/url",
	"WebDriver:ExecuteAsyncScript":  "/execute/async",
	"WebDriver:PerformActions":      "/actions",
	"WebDriver:ReleaseActions":      "/actions", // DELETE
	"WebDriver:SetTimeouts":         "/timeouts",
	"WebDriver:SetWindowRect":       "/window/rect",
	"WebDriver:SwitchToFrame":       "/frame",
	"WebDriver:SwitchToParentFrame": "/frame/parent",
}

// httpDriver is a W3C WebDriver session over HTTP (WebKitWebDriver).
type httpDriver struct {
	base, session string
	proc          []*exec.Cmd
}

func (d *httpDriver) do(method, path string, body any, out any) error {
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, d.base+path, r)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var env struct {
		Value json.RawMessage `json:"value"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil {
		return fmt.Errorf("%s %s: HTTP %d: %v", method, path, resp.StatusCode, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: HTTP %d: %s", method, path, resp.StatusCode, shorten(string(env.Value), 500))
	}
	if out != nil {
		return json.Unmarshal(env.Value, out)
	}
	return nil
}

func (d *httpDriver) call(cmd string, params any, out any) error {
	p, ok := w3cPaths[cmd]
	if !ok {
		return fmt.Errorf("no W3C endpoint for %s", cmd)
	}
	method := http.MethodPost
	if cmd == "WebDriver:ReleaseActions" {
		method = http.MethodDelete
		params = nil
	}
	return d.do(method, "/session/"+d.session+p, params, out)
}

func (d *httpDriver) close() {
	if d.session != "" {
		_ = d.do(http.MethodDelete, "/session/"+d.session, nil, nil)
	}
	stopAll(d.proc)
}

// marionette is a Firefox session over Marionette.
type marionette struct {
	mu   sync.Mutex
	conn net.Conn
	rd   *bufio.Reader
	id   int
	proc []*exec.Cmd
}

func (m *marionette) send(cmd string, params any) (json.RawMessage, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.id++
	if params == nil {
		params = map[string]any{}
	}
	b, err := json.Marshal([]any{0, m.id, cmd, params})
	if err != nil {
		return nil, err
	}
	if _, err := fmt.Fprintf(m.conn, "%d:%s", len(b), b); err != nil {
		return nil, err
	}
	for {
		msg, err := m.read()
		if err != nil {
			return nil, err
		}
		var resp []json.RawMessage
		if err := json.Unmarshal(msg, &resp); err != nil || len(resp) != 4 {
			return nil, fmt.Errorf("marionette: unexpected message %s", shorten(string(msg), 300))
		}
		var id int
		if json.Unmarshal(resp[1], &id) != nil || id != m.id {
			continue // an answer to a command given up on
		}
		if string(resp[2]) != "null" {
			return nil, fmt.Errorf("%s: %s", cmd, shorten(string(resp[2]), 500))
		}
		return resp[3], nil
	}
}

// read reads one "length:json" message.
func (m *marionette) read() ([]byte, error) {
	n, err := m.rd.ReadString(':')
	if err != nil {
		return nil, err
	}
	size, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(n, ":")))
	if err != nil {
		return nil, fmt.Errorf("marionette: bad length %q", n)
	}
	b := make([]byte, size)
	_, err = io.ReadFull(m.rd, b)
	return b, err
}

func (m *marionette) call(cmd string, params any, out any) error {
	v, err := m.send(cmd, params)
	if err != nil {
		return err
	}
	if out == nil {
		return nil
	}
	// Marionette wraps a command's value in {"value": …}.
	var env struct {
		Value json.RawMessage `json:"value"`
	}
	if json.Unmarshal(v, &env) == nil && env.Value != nil {
		v = env.Value
	}
	return json.Unmarshal(v, out)
}

func (m *marionette) close() {
	if m.conn != nil {
		_, _ = m.send("WebDriver:DeleteSession", nil)
		m.conn.Close()
	}
	stopAll(m.proc)
}

func stopAll(procs []*exec.Cmd) {
	for i := len(procs) - 1; i >= 0; i-- {
		if p := procs[i].Process; p != nil {
			_ = p.Kill()
			_ = procs[i].Wait()
		}
	}
}

// startXvfb starts a virtual display and returns its DISPLAY value.
func startXvfb(tb testing.TB) (string, *exec.Cmd) {
	tb.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command("Xvfb", "-displayfd", "3", "-screen", "0", "1280x1024x24", "-nolisten", "tcp")
	cmd.ExtraFiles = []*os.File{w}
	if err := cmd.Start(); err != nil {
		tb.Fatalf("starting Xvfb: %v", err)
	}
	w.Close()
	line, err := bufio.NewReader(r).ReadString('\n')
	r.Close()
	if err != nil {
		_ = cmd.Process.Kill()
		tb.Fatalf("Xvfb gave no display: %v", err)
	}
	return ":" + strings.TrimSpace(line), cmd
}

// freePort returns a TCP port free at the time of asking.
func freePort(tb testing.TB) int {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// startFirefox starts Firefox ESR under Xvfb with Marionette on and opens
// a session.
func startFirefox(tb testing.TB, bin string) driver {
	tb.Helper()
	display, xvfb := startXvfb(tb)
	profile := tb.TempDir()
	port := freePort(tb)
	prefs := fmt.Sprintf(`user_pref("marionette.port", %d);
user_pref("browser.shell.checkDefaultBrowser", false);
user_pref("datareporting.policy.dataSubmissionEnabled", false);
user_pref("toolkit.telemetry.reportingpolicy.firstRun", false);
user_pref("browser.startup.homepage_override.mstone", "ignore");
user_pref("app.update.disabledForTesting", true);
user_pref("network.captive-portal-service.enabled", false);
`, port)
	if err := os.WriteFile(filepath.Join(profile, "user.js"), []byte(prefs), 0o644); err != nil {
		tb.Fatal(err)
	}
	ff := exec.Command(bin, "--marionette", "--no-remote", "--profile", profile, "about:blank")
	ff.Env = append(os.Environ(), "DISPLAY="+display, "MOZ_HEADLESS=", "MOZ_CRASHREPORTER_DISABLE=1")
	if err := ff.Start(); err != nil {
		stopAll([]*exec.Cmd{xvfb})
		tb.Fatalf("starting %s: %v", bin, err)
	}
	m := &marionette{proc: []*exec.Cmd{xvfb, ff}}
	deadline := time.Now().Add(readyTimeout)
	for {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second)
		if err == nil {
			m.conn, m.rd = c, bufio.NewReader(c)
			break
		}
		if time.Now().After(deadline) {
			m.close()
			tb.Fatalf("Firefox's Marionette did not answer on port %d: %v", port, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if _, err := m.read(); err != nil { // the greeting
		m.close()
		tb.Fatalf("marionette: %v", err)
	}
	if _, err := m.send("WebDriver:NewSession", map[string]any{"capabilities": map[string]any{"alwaysMatch": map[string]any{"acceptInsecureCerts": false}}}); err != nil {
		m.close()
		tb.Fatalf("marionette: %v", err)
	}
	return m
}

// startWebKit starts WebKitWebDriver and a MiniBrowser session under Xvfb.
func startWebKit(tb testing.TB, wd, mini string) driver {
	tb.Helper()
	display, xvfb := startXvfb(tb)
	port := freePort(tb)
	cmd := exec.Command(wd, "--port="+strconv.Itoa(port))
	cmd.Env = append(os.Environ(), "DISPLAY="+display)
	if err := cmd.Start(); err != nil {
		stopAll([]*exec.Cmd{xvfb})
		tb.Fatalf("starting %s: %v", wd, err)
	}
	d := &httpDriver{base: fmt.Sprintf("http://127.0.0.1:%d", port), proc: []*exec.Cmd{xvfb, cmd}}
	caps := map[string]any{"capabilities": map[string]any{"alwaysMatch": map[string]any{
		"browserName":              "MiniBrowser",
		"webkitgtk:browserOptions": map[string]any{"binary": mini, "args": []string{"--automation"}},
	}}}
	var sess struct {
		SessionID string `json:"sessionId"`
	}
	deadline := time.Now().Add(readyTimeout)
	for {
		err := d.do(http.MethodPost, "/session", caps, &sess)
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			d.close()
			tb.Fatalf("WebKitWebDriver: no session: %v", err)
		}
		time.Sleep(300 * time.Millisecond)
	}
	d.session = sess.SessionID
	return d
}

// wdEval evaluates a JavaScript expression in the page (awaiting a
// promise) through ExecuteAsyncScript and decodes its JSON into T.
func wdEval[T any](d driver, expr string) (T, error) {
	var zero T
	script := `const done = arguments[arguments.length - 1];
Promise.resolve().then(() => (` + expr + `)).then(
	(v) => done({ ok: JSON.stringify(v === undefined ? null : v) }),
	(e) => done({ err: String(e && e.stack || e) }));`
	var res struct {
		OK  *string `json:"ok"`
		Err string  `json:"err"`
	}
	if err := d.call("WebDriver:ExecuteAsyncScript", map[string]any{"script": script, "args": []any{}}, &res); err != nil {
		return zero, err
	}
	if res.OK == nil {
		return zero, errors.New(res.Err)
	}
	var v T
	err := json.Unmarshal([]byte(*res.OK), &v)
	return v, err
}

// wdWait polls the predicate until it holds, with a generous deadline.
func wdWait(ctx context.Context, d driver, predicate string) error {
	var last error
	for ctx.Err() == nil {
		ok, err := wdEval[bool](d, "!!("+predicate+")")
		if err == nil && ok {
			return nil
		}
		last = err
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("%v (last error: %v)", ctx.Err(), last)
}
