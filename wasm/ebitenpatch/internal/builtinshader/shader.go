// Copyright 2022 The Ebitengine Authors
//
// Licensed under the Apache License, Version 2.0 (the "License");
// you may not use this file except in compliance with the License.
// You may obtain a copy of the License at
//
//     http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing, software
// distributed under the License is distributed on an "AS IS" BASIS,
// WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
// See the License for the specific language governing permissions and
// limitations under the License.

// This file is derived from ebiten's internal/builtinshader/shader.go at the
// version of headlab/wasm/ebitenpatch.Version, and replaces it in headlab's
// canvas build (go build -overlay, see wasm/README.md). It is modified by
// headlab: ShaderSource writes the same Kage sources, byte for byte, with
// plain string code instead of text/template, whose reflection keeps every
// exported method of the program in the linked wasm. The package API is
// upstream's.

// Package builtinshader is headlab's replacement of ebiten's package of the
// same name: the sources of ebiten's built-in shaders.
package builtinshader

import "sync"

// Filter is a sampling filter of a built-in shader.
type Filter int

// The filters, as upstream numbers them.
const (
	FilterNearest Filter = iota
	FilterLinear
	FilterPixelated
)

// FilterCount is the number of filters.
const FilterCount = 3

// Address is an addressing mode of a built-in shader.
type Address int

// The addressing modes, as upstream numbers them.
const (
	AddressUnsafe Address = iota
	AddressClampToZero
	AddressRepeat
)

// AddressCount is the number of addressing modes.
const AddressCount = 3

var (
	shaders  [FilterCount][AddressCount][]byte
	shadersM sync.Mutex
)

// ShaderSource returns the built-in shader source based on the given parameters.
func ShaderSource(filter Filter, address Address) []byte {
	shadersM.Lock()
	defer shadersM.Unlock()

	if s := shaders[filter][address]; s != nil {
		return s
	}

	b := source(filter, address)
	shaders[filter][address] = b
	return b
}

// source writes what upstream's template does: each literal below is the
// template's text between two of its actions, in order, and each if is one
// of its {{if}} actions.
func source(filter Filter, address Address) []byte {
	var b []byte
	w := func(s string) { b = append(b, s...) }
	w("//kage:unit pixels\n\npackage main\n\n")
	if address == AddressRepeat {
		w(`
func adjustSrcPosForAddressRepeat(p vec2) vec2 {
	origin := imageSrc0Origin()
	size := imageSrc0Size()
	return mod(p - origin, size) + origin
}
`)
	}
	w("\n\nfunc Fragment(dstPos vec4, src0Pos vec2, color vec4) vec4 {\n")
	if filter == FilterNearest {
		w("\n")
		if address == AddressUnsafe {
			w("\n\tclr := imageSrc0UnsafeAt(src0Pos)\n")
		} else if address == AddressClampToZero {
			w("\n\tclr := imageSrc0At(src0Pos)\n")
		} else if address == AddressRepeat {
			w("\n\tclr := imageSrc0At(adjustSrcPosForAddressRepeat(src0Pos))\n")
		}
		w("\n")
	} else {
		w("\n")
		if filter == FilterLinear {
			w(`
	p0 := src0Pos - 1/2.0
	p1 := src0Pos + 1/2.0
`)
		} else if filter == FilterPixelated {
			w(`
	// inversedScale is the size of the region on the source image.
	// The size is the inverse of the geometry-matrix scale.
	inversedScale := vec2(abs(dfdx(src0Pos.x)), abs(dfdy(src0Pos.y)))
	// Cap the inversedScale to 1 as dfdx/dfdy is not accurate on some machines (#3182).
	inversedScale = min(inversedScale, vec2(1))
	p0 := src0Pos - inversedScale/2.0
	p1 := src0Pos + inversedScale/2.0
`)
		}
		w("\n\n")
		if address == AddressRepeat {
			w(`
	p0 = adjustSrcPosForAddressRepeat(p0)
	p1 = adjustSrcPosForAddressRepeat(p1)
`)
		}
		w("\n\n")
		if address == AddressUnsafe {
			w(`
	c0 := imageSrc0UnsafeAt(p0)
	c1 := imageSrc0UnsafeAt(vec2(p1.x, p0.y))
	c2 := imageSrc0UnsafeAt(vec2(p0.x, p1.y))
	c3 := imageSrc0UnsafeAt(p1)
`)
		} else {
			w(`
	c0 := imageSrc0At(p0)
	c1 := imageSrc0At(vec2(p1.x, p0.y))
	c2 := imageSrc0At(vec2(p0.x, p1.y))
	c3 := imageSrc0At(p1)
`)
		}
		w("\n\n")
		if filter == FilterLinear {
			w("\n\trate := fract(p1)\n")
		} else if filter == FilterPixelated {
			w("\n\trate := clamp(fract(p1)/inversedScale, 0, 1)\n")
		}
		w("\n\tclr := mix(mix(c0, c1, rate.x), mix(c2, c3, rate.x), rate.y)\n")
	}
	w(`

	// Apply the color scale.
	clr *= color

	return clr
}

`)
	return b
}

// ClearShaderSource is the source of the shader that clears an image.
//
//ebitengine:shadersource
const ClearShaderSource = `//kage:unit pixels

package main

func Fragment() vec4 {
	return vec4(0)
}
`
