package headlabir

import (
	"reflect"
	"testing"

	"github.com/hajimehoshi/ebiten/v2/internal/builtinshader"
	"github.com/hajimehoshi/ebiten/v2/internal/legacyshader"
)

// TestPrograms checks the generated programs against the shader compiler:
// each decodes to exactly what compiling its source gives now, and a
// program cut short or with a byte changed is refused or differs.
func TestPrograms(t *testing.T) {
	nearest, linear, clear, err := Programs()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		src  []byte
		got  any
		enc  string
	}{
		{"nearest", builtinshader.ShaderSource(builtinshader.FilterNearest, builtinshader.AddressUnsafe), nearest, nearestProgram},
		{"linear", builtinshader.ShaderSource(builtinshader.FilterLinear, builtinshader.AddressUnsafe), linear, linearProgram},
		{"clear", []byte(builtinshader.ClearShaderSource), clear, clearProgram},
	} {
		want, _, err := legacyshader.CompileShader(c.src)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(c.got, want) {
			t.Errorf("%s: the generated program differs from the compiler's", c.name)
		}
		if _, err := Decode([]byte(c.enc[:len(c.enc)/2])); err == nil {
			t.Errorf("%s: half the program decodes", c.name)
		}
		if _, err := Decode([]byte(c.enc + "x")); err == nil {
			t.Errorf("%s: a program with a byte after it decodes", c.name)
		}
		// A changed FragmentSource byte (the program's last bytes)
		// decodes, to a program DeepEqual tells apart.
		b := []byte(c.enc)
		b[len(b)-1] ^= 1
		if p, err := Decode(b); err != nil || reflect.DeepEqual(p, want) {
			t.Errorf("%s: a changed byte: err %v, equal %v", c.name, err, err == nil)
		}
	}
}
