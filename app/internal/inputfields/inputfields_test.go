package inputfields

import (
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type (
	inner    struct{ A, B int }
	innerToo struct{ A, C int }
	tagged   struct {
		B int `json:"B"`
	}
	hidden   struct{ inner }
	ptrInner struct{ D int }
	named    struct {
		inner `json:"named"`
	}
	skipped struct {
		X int `json:"-"`
		//lint:ignore SA5008 "-," names the member "-": encoding/json's reading is what is compared
		Y int `json:"-,"`
	}
	oddTag struct {
		//lint:ignore SA5008 a name encoding/json does not take: the field keeps its Go name
		Z int `json:"a\"b"`
	}
	unexpEmbd struct{ inner }
	conflict  struct {
		inner
		innerToo      // A collides at depth 1: nobody gets it
		tagged        // B: the tagged one wins at depth 1
		hidden        // hidden.inner's A and B are deeper: hidden
		*ptrInner     // promoted through a pointer
		C         int // shallower than innerToo.C
		named         // a tag makes an embedded struct a field
		skipped
		oddTag
		unexpEmbd `json:"u"`
	}
)

// TestInputFieldsAgreeWithEncodingJSON compares the JSON members Burrow
// resolves with the ones encoding/json writes for the same type, which
// it finds by the same rules it decodes with.
func TestInputFieldsAgreeWithEncodingJSON(t *testing.T) {
	for _, v := range []any{conflict{ptrInner: &ptrInner{}}, hidden{}, skipped{}, oddTag{}, unexpEmbd{}} {
		b, err := json.Marshal(v)
		require.NoError(t, err)
		var members map[string]any
		require.NoError(t, json.Unmarshal(b, &members))
		var names []string
		for _, f := range List(reflect.TypeOf(v), "json") {
			names = append(names, f.Key)
		}
		assert.Equal(t, slices.Sorted(maps.Keys(members)), slices.Sorted(slices.Values(names)), "%T", v)
	}
}
