#!/usr/bin/env bash
# headlab's one entry point: build | serve | test | bench | dist | figures.
# It installs what it needs on a fresh Debian machine (Go modules through the
# module proxy; Debian's chromium and nodejs when the tests need them), and
# every command can be run again safely.
set -euo pipefail

cd "$(dirname "$0")"
ROOT=$(pwd)
OUT="$ROOT/build"
SITE="$OUT/site"
GO=${GO:-go}
WASM_FLAGS=(-trimpath -ldflags=-s\ -w)

say() { printf '\033[1mheadlab:\033[0m %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

usage() {
  cat >&2 <<'USAGE'
usage: ./build.sh COMMAND [flags]

  build              compile the page into build/site
  serve [-port N] [-addr A]
                     build, then serve build/site (default http://127.0.0.1:8080/)
  test               vet, native tests, numerics tests under GOOS=js (node),
                     and the browser tests in headless Chromium
  bench              benchmarks, natively and under GOOS=js, with the ratio
  dist [DIR [URL]]   a self-contained static folder (default dist/) for any static host,
                     the same bytes build/site serves; with URL, the address it will be
                     served at, also oembed.json
  figures            regenerate the README figures in plots/figures (SVG, PDF, PNG)
                     and the test article's page (plots/FIGURES.md)
  screenshots        regenerate the landing's previews (web/static/previews) and
                     the README screenshots (web/screenshots)
USAGE
  exit 2
}

need_go() {
  command -v "$GO" >/dev/null 2>&1 || die "Go is not installed (https://go.dev/dl/); this project needs Go 1.26"
  # go.mod's modules (the workspace's patched ebiten requires the same)
  GOWORK=off "$GO" mod download || die "could not download the Go modules (is the module proxy reachable?)"
}

apt_install() { # apt_install PACKAGE...: install Debian packages, once
  local sudo=""
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null 2>&1 || die "need root (or sudo) to install: $*"
    sudo="sudo"
  fi
  say "installing $* (Debian packages)"
  if [ ! -f "$OUT/.apt-updated" ]; then
    $sudo apt-get update -qq || die "apt-get update failed"
    mkdir -p "$OUT" && touch "$OUT/.apt-updated"
  fi
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "$@" >/dev/null ||
    die "apt-get install $* failed"
}

need_node() { command -v node >/dev/null 2>&1 || apt_install nodejs; }

# need_npm_packages installs, at pinned versions into build/node_modules,
# axe-core (the accessibility rules Lighthouse runs too) for TestAxe, and
# reveal.js, the slide deck TestEmbed frames the page in. They are installed
# in one npm command: npm removes from node_modules what a later
# "npm install --no-save" does not name.
AXE_VERSION=4.14.1
REVEAL_VERSION=6.0.2
need_npm_packages() {
  command -v npm >/dev/null 2>&1 || apt_install npm
  local axe="$OUT/node_modules/axe-core" reveal="$OUT/node_modules/reveal.js"
  if [ "$(node -p "require('$axe/package.json').version" 2>/dev/null)" != "$AXE_VERSION" ] ||
    [ "$(node -p "require('$reveal/package.json').version" 2>/dev/null)" != "$REVEAL_VERSION" ]; then
    say "installing axe-core $AXE_VERSION and reveal.js $REVEAL_VERSION (npm) for the accessibility and embedding tests"
    npm install --prefix "$OUT" --no-save --no-audit --no-fund "axe-core@$AXE_VERSION" "reveal.js@$REVEAL_VERSION" >/dev/null ||
      die "npm install axe-core@$AXE_VERSION reveal.js@$REVEAL_VERSION failed (is the npm registry reachable?)"
  fi
  export HEADLAB_AXE="$axe/axe.min.js" HEADLAB_REVEAL="$reveal/dist"
}

need_qemu() { command -v qemu-aarch64 >/dev/null 2>&1 || apt_install qemu-user; }

# need_figure_tools installs what a journal's production system checks a
# figure with (plots/FIGURES.md): pdflatex with pgf, the venues' classes
# the presets are measured from (IEEEtran, llncs and acmart, whose packages
# are in texlive-latex-extra; its fonts, texlive-fonts-extra, 1.4 GB, are
# not installed: it falls back to Computer Modern, widths unchanged),
# Times for IEEEtran, poppler's pdffonts, pdfimages and pdftoppm, librsvg's
# rsvg-convert, and Python's csv.
need_figure_tools() {
  local missing=()
  command -v pdflatex >/dev/null 2>&1 || missing+=(texlive-latex-base)
  kpsewhich pgf.sty >/dev/null 2>&1 || missing+=(texlive-pictures)
  kpsewhich IEEEtran.cls >/dev/null 2>&1 || missing+=(texlive-publishers)
  kpsewhich xstring.sty >/dev/null 2>&1 || missing+=(texlive-latex-extra)
  kpsewhich ptmr8t.tfm >/dev/null 2>&1 || missing+=(texlive-fonts-recommended)
  command -v pdffonts >/dev/null 2>&1 || missing+=(poppler-utils)
  command -v rsvg-convert >/dev/null 2>&1 || missing+=(librsvg2-bin)
  command -v python3 >/dev/null 2>&1 || missing+=(python3)
  [ ${#missing[@]} -eq 0 ] || apt_install "${missing[@]}"
}

need_chromium() {
  if [ -z "${HEADLAB_CHROME:-}" ]; then
    command -v chromium >/dev/null 2>&1 || apt_install chromium fonts-liberation
    export HEADLAB_CHROME
    HEADLAB_CHROME=$(command -v chromium)
  fi
}

wasm_exec() { echo "$("$GO" env GOROOT)/lib/wasm/go_js_wasm_exec"; }

build() {
  need_go
  mkdir -p "$OUT"
  # The canvas builds against a copy of ebiten whose shaders are written
  # without text/template (wasm/ebitenpatch, wasm/README.md "Size") and whose
  # initialisation finishes in a Web Worker (the canvas's wasm is the compute
  # worker too). prepare writes it where go.work points every Go tool
  # (wasm/ebitenpatch/ebiten), and refuses an ebiten version the patch was
  # not checked against.
  say "patching ebiten (wasm/ebitenpatch): its shader sources, and its init for Web Workers"
  "$GO" run ./wasm/ebitenpatch/cmd/prepare -go "$GO" >/dev/null ||
    die "could not patch ebiten for the canvas (see wasm/ebitenpatch)"
  # Two builds of the canvas (wasm/README.md, "Two builds of the canvas"):
  # the full one, which is the compute worker's program too, for a page that
  # opens on a scene that computes at once; and one without the compute
  # loop (the nocompute tag) for the chooser and Attention, whose compute
  # worker, if they want one later, runs wasm/computeworker.
  say "compiling the canvas (GOOS=js GOARCH=wasm)"
  GOOS=js GOARCH=wasm "$GO" build "${WASM_FLAGS[@]}" -o "$OUT/canvas.wasm" ./wasm/canvas
  say "compiling the canvas without the compute loop (-tags nocompute)"
  GOOS=js GOARCH=wasm "$GO" build "${WASM_FLAGS[@]}" -tags nocompute -o "$OUT/canvas-lean.wasm" ./wasm/canvas
  say "compiling the compute worker for it (wasm/computeworker)"
  GOOS=js GOARCH=wasm "$GO" build "${WASM_FLAGS[@]}" -o "$OUT/computeworker.wasm" ./wasm/computeworker
  say "compiling the figures worker (GOOS=js GOARCH=wasm)"
  GOOS=js GOARCH=wasm "$GO" build "${WASM_FLAGS[@]}" -o "$OUT/figures.wasm" ./wasm/figures
  say "assembling $SITE"
  # The offline copy keeps the full canvas only: offline, the page boots it
  # in the lean one's place, and the compute worker runs it too.
  "$GO" run ./web/cmd/site -out "$SITE" -wasm "canvas=$OUT/canvas.wasm" -wasm "canvas-lean=$OUT/canvas-lean.wasm" \
    -wasm "computeworker=$OUT/computeworker.wasm" -wasm "figures=$OUT/figures.wasm" \
    -online canvas-lean -online computeworker "$@"
}

serve() {
  local args=()
  while [ $# -gt 0 ]; do
    case "$1" in
      -port|--port) args+=(-port "$2"); shift 2 ;;
      -addr|--addr) args+=(-addr "$2"); shift 2 ;;
      *) die "serve: unknown flag $1 (flags: -port N, -addr A)" ;;
    esac
  done
  build
  "$GO" build -o "$OUT/serve" ./web/cmd/serve
  exec "$OUT/serve" -dir "$SITE" "${args[@]}"
}

test_all() {
  need_go
  need_node
  need_qemu
  need_chromium
  need_npm_packages
  # The lecture-hall tests: Firefox ESR and WebKitGTK (Safari's engine)
  # under Xvfb (TestEngines), zbarimg to read the QR code (TestQR); the
  # figure tests' pdflatex, poppler, librsvg and python3 (need_figure_tools).
  # With HEADLAB_REQUIRE_TOOLS set those tests fail, not skip, without them.
  command -v firefox-esr >/dev/null 2>&1 || apt_install firefox-esr
  command -v WebKitWebDriver >/dev/null 2>&1 || apt_install webkit2gtk-driver
  command -v Xvfb >/dev/null 2>&1 || apt_install xvfb
  command -v zbarimg >/dev/null 2>&1 || apt_install zbar-tools
  # The recover command's tests serve a torch layer from Python (cmd/recover).
  /usr/bin/python3 -c 'import torch, numpy' >/dev/null 2>&1 || apt_install python3-torch python3-numpy
  export HEADLAB_REQUIRE_TOOLS=1
  need_figure_tools
  build
  # go.work gives every Go tool the ebiten the canvas ships: after the build,
  # the canvas's packages must resolve to the patched copy, whose
  # internal/headlabir upstream has not. The list is read whole before it is
  # searched: grep -q stops at its match, and with pipefail the SIGPIPE go
  # list then takes would fail the check at random.
  local deps
  deps=$(GOOS=js GOARCH=wasm "$GO" list -deps ./wasm/canvas) ||
    die "go list could not resolve the canvas's packages"
  grep -qx 'github.com/hajimehoshi/ebiten/v2/internal/headlabir' <<<"$deps" ||
    die "go.work does not give the Go tools the patched ebiten (wasm/ebitenpatch)"
  say "go vet (native, and GOOS=js for the browser programs)"
  "$GO" vet ./...
  GOOS=js GOARCH=wasm "$GO" vet ./wasm/... ./numerics/... ./web/link/...
  GOOS=js GOARCH=wasm "$GO" vet -tags nocompute ./wasm/canvas
  # A float product that feeds a sum must be written float64(a*b) in the
  # numerics, or a compiler may fuse it into an FMA (numerics/MATH.md §4).
  "$GO" build -o "$OUT/fusable" ./numerics/internal/fusable/cmd/fusable
  "$GO" vet -vettool="$OUT/fusable" ./numerics/...
  local unformatted
  # wasm/ebitenpatch/ebiten is upstream's code, as the patch leaves it.
  unformatted=$(find numerics plots wasm web -name '*.go' -not -path '*/testdata/*' -not -path 'wasm/ebitenpatch/ebiten/*' -exec gofmt -l {} + 2>/dev/null || true)
  [ -z "$unformatted" ] || die "gofmt would change: $unformatted"
  say "native tests (the figure tests with pdflatex, poppler, librsvg and python3)"
  # shellcheck disable=SC2046 # the package list is one word per package
  "$GO" test -count=1 -timeout 40m $("$GO" list ./... | grep -v '/web/e2e$')
  say "numerics, link, scene and ebiten-patch tests under GOOS=js GOARCH=wasm (node $(node --version))"
  GOOS=js GOARCH=wasm "$GO" test -count=1 -timeout 40m -exec "$(wasm_exec)" ./numerics/... ./web/link/... ./wasm/scene/... ./wasm/ebitenpatch/internal/atlas
  # The golden digests hold every package's numbers bit for bit; they must
  # not change where the compiler may fuse a*b+c into one FMA (numerics/MATH.md §4).
  say "golden digests with GOAMD64=v3 (FMA available to the compiler)"
  GOAMD64=v3 "$GO" test -count=1 -run Golden ./numerics/...
  say "golden digests on arm64 (qemu-aarch64), where Go fuses by default"
  GOARCH=arm64 "$GO" test -count=1 -run Golden -exec qemu-aarch64 ./numerics/...
  say "browser tests (headless $("$HEADLAB_CHROME" --version 2>/dev/null | head -n1))"
  # Each browser test waits for the state it needs with its own deadline;
  # the whole suite takes 7–9 minutes on a quiet two-core machine and over
  # ten on a busy one, so go test's default 10-minute limit is lifted.
  HEADLAB_SITE="$SITE" "$GO" test -count=1 -timeout 60m -v -run . ./web/e2e/ 2>&1 | tee "$OUT/e2e.log" | grep -E '^(=== RUN|--- |PASS|FAIL|ok|\s+\S+_test\.go)' || true
  grep -q '^ok' "$OUT/e2e.log" || die "browser tests failed (full log: $OUT/e2e.log)"
  say "all tests passed"
}

bench() {
  need_go
  need_node
  local pkgs=(./numerics/...)
  say "benchmarks, native"
  "$GO" test -run '^$' -bench . -benchtime "${BENCHTIME:-1s}" "${pkgs[@]}" | tee "$OUT/bench-native.txt"
  say "benchmarks, GOOS=js GOARCH=wasm under node"
  GOOS=js GOARCH=wasm "$GO" test -run '^$' -bench . -benchtime "${BENCHTIME:-1s}" -exec "$(wasm_exec)" "${pkgs[@]}" | tee "$OUT/bench-wasm.txt"
  say "wasm / native time per op"
  awk '/^Benchmark/ { name=$1; sub(/-[0-9]+$/, "", name); for (i = 2; i <= NF; i++) if ($(i+1) == "ns/op") t[FILENAME, name] = $i; names[name] = 1 }
       END { for (n in names) if (t[ARGV[1], n] && t[ARGV[2], n]) printf "%-50s %8.2fx\n", n, t[ARGV[2], n] / t[ARGV[1], n] }' \
    "$OUT/bench-native.txt" "$OUT/bench-wasm.txt" | sort
}

screenshots() {
  need_go
  need_chromium
  build
  say "the landing's previews of every scene at its default, light and dark, into web/static/previews"
  mkdir -p web/static/previews web/screenshots
  HEADLAB_SITE="$SITE" HEADLAB_PREVIEWS="$ROOT/web/static/previews" "$GO" test -count=1 -run 'TestPreviews$' ./web/e2e/
  build # the site with the new previews
  say "screenshots of every scene, light and dark, phone, laptop and projector, into web/screenshots"
  HEADLAB_SITE="$SITE" HEADLAB_SHOTS="$ROOT/web/screenshots" "$GO" test -count=1 -run 'TestScreenshots$' ./web/e2e/
}

figures() {
  need_go
  need_figure_tools
  say "rendering the standard figures into plots/figures"
  "$GO" run ./plots/cmd/figures -all plots/figures
  say "the two-column test article's second page into plots/figures/article.png"
  HEADLAB_REQUIRE_TOOLS=1 HEADLAB_ARTICLE_OUT="$ROOT/plots/figures" "$GO" test -count=1 -run '^TestArticle$' ./plots
  rm -f plots/figures/article.pdf
}

dist() {
  local dir=${1:-dist} url=${2:-}
  # With the address the folder will be served at, the site gets its
  # oEmbed JSON and discovery link (web/cmd/site -url).
  if [ -n "$url" ]; then build -url "$url"; else build; fi
  rm -rf "$dir"
  mkdir -p "$dir"
  cp -Rp "$SITE/." "$dir/" # -p: the server takes a .br older than its file for stale
  say "wrote $dir: serve it from any static host (the .br/.gz files are optional)"
}

mkdir -p "$OUT"
cmd=${1:-}
[ -n "$cmd" ] || usage
shift
case "$cmd" in
  build) build "$@" ;;
  serve) serve "$@" ;;
  test) test_all "$@" ;;
  bench) bench "$@" ;;
  dist) dist "$@" ;;
  figures) figures "$@" ;;
  screenshots) screenshots "$@" ;;
  -h|--help|help) usage ;;
  *) say "unknown command $cmd"; usage ;;
esac
