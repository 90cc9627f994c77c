// Command serve serves a built headlab site (see web/cmd/site) on the local
// machine with the handler of package headlab/web/server.
//
// Usage:
//
//	go run ./web/cmd/serve -dir build/site [-addr 127.0.0.1] [-port 8080] [-v]
//
// Once listening it prints exactly one line to standard output,
//
//	headlab: serving build/site at http://127.0.0.1:8080/
//
// so scripts and tests can read the URL. -port 0 picks a free port. With -v
// it logs each request to standard error. It shuts down gracefully on
// SIGINT or SIGTERM, and exits with status 1 on any error, such as a port
// already in use.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"headlab/web/server"
)

// shutdownTimeout bounds how long open requests may take to finish once a
// signal arrives.
const shutdownTimeout = 5 * time.Second

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run serves until ctx is done and returns the process exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fset := flag.NewFlagSet("serve", flag.ContinueOnError)
	fset.SetOutput(stderr)
	dir := fset.String("dir", "build/site", "folder of the built site")
	addr := fset.String("addr", "127.0.0.1", "address to listen on")
	port := fset.Int("port", 8080, "port to listen on; 0 picks a free one")
	verbose := fset.Bool("v", false, "log every request to standard error")
	if err := fset.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 1
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "headlab: "+format+"\n", a...)
		return 1
	}
	if fset.NArg() > 0 {
		return fail("unexpected arguments: %s", strings.Join(fset.Args(), " "))
	}
	if *port < 0 || *port > 65535 {
		return fail("-port %d is not a port number", *port)
	}
	if _, err := os.Stat(filepath.Join(*dir, "index.html")); err != nil {
		return fail("no index.html in %s; build the site first (./build.sh build)", *dir)
	}
	var opts server.Options
	if *verbose {
		opts.Log = log.New(stderr, "", log.LstdFlags)
	}
	h, err := server.New(*dir, opts)
	if err != nil {
		return fail("%v", err)
	}

	ln, err := net.Listen("tcp", net.JoinHostPort(*addr, strconv.Itoa(*port)))
	if err != nil {
		if inUse(err) {
			return fail("port %d is in use; try -port 0 or -port N", *port)
		}
		return fail("listen: %v", err)
	}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          log.New(stderr, "headlab: ", 0),
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	fmt.Fprintf(stdout, "headlab: serving %s at %s\n", *dir, siteURL(*addr, ln.Addr()))

	select {
	case err := <-served:
		return fail("serve: %v", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return fail("shutdown: %v", err)
	}
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fail("serve: %v", err)
	}
	return 0
}

// inUse reports whether a listen error says the address is taken.
func inUse(err error) bool {
	if errors.Is(err, syscall.EADDRINUSE) {
		return true
	}
	s := err.Error()
	return strings.Contains(s, "address already in use") || strings.Contains(s, "Only one usage of each socket address")
}

// siteURL is the URL a browser on this machine opens for a listener bound
// to the -addr host: an unspecified host (all interfaces) becomes 127.0.0.1.
func siteURL(host string, a net.Addr) string {
	port := "0"
	if ta, ok := a.(*net.TCPAddr); ok {
		port = strconv.Itoa(ta.Port)
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port) + "/"
}
