// Package e2e holds headlab's browser tests and measurements. It has no
// code of its own: its tests serve a built site (./build.sh build, or the
// folder named by HEADLAB_SITE) with package web/server, drive it in one
// headless Chromium (HEADLAB_CHROME, or chromium found in PATH) through the
// page's test contract window.headlab (README.md, "Links"), and send real mouse and
// keyboard and touch events through the DevTools protocol: the chooser of
// scenes and its tours, each scene, hostile links, figures, keyboard-only
// use, contrast, presentation links and screenshots at phone, laptop and
// projector sizes.
//
// The benchmarks measure what a visitor feels: the time from navigation to
// the first frame, against a minimal ebiten program (wasm/minimal) built on
// the fly; the bytes a first visit downloads before that frame; and the
// frame rate while a token is dragged on the largest scene (wasm/README.md).
//
//	./build.sh build
//	go test -v ./web/e2e/
//	go test -run '^$' -bench . ./web/e2e/
package e2e
