//go:build js && wasm

package main

import (
	"github.com/hajimehoshi/ebiten/v2"

	"headlab/wasm/scene"
	"headlab/wasm/shapes"
)

// renderer draws one kind of scene and turns the pointer into changes of
// its state. The app calls every method with its lock held.
type renderer interface {
	// reset forgets what belonged to the previous scene (a drag, a hover).
	reset(a *app)
	// rebuild recomputes cached images after the scene or the view changed.
	rebuild(a *app, th scene.Theme)
	// draw draws the current scene.
	draw(screen *ebiten.Image, a *app, th scene.Theme)
	// pointer handles the pointer and returns the next scene, or nil when
	// the state did not change.
	pointer(a *app, p pointerState) scene.Scene
}

// rendererFor returns a fresh renderer for the scene's kind.
func rendererFor(sc scene.Scene) renderer {
	switch sc.(type) {
	case *scene.Atoms:
		return &atomsRenderer{hover: -1}
	case *scene.Recovery:
		return &recoveryRenderer{}
	case *scene.Transformer:
		return &transformerRenderer{hoverMark: -1}
	default:
		return &attentionRenderer{hover: -1, shapes: shapes.Batch{Feather: true}}
	}
}
