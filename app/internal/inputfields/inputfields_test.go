package inputfields

import (
	"encoding/json"
	"fmt"
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
	// Names and options that Go 1.26's encoding/json and Go 1.27's
	// (backed by encoding/json/v2) read differently: each side's List
	// must agree with its own encoding/json.
	extra    map[string]int
	v2Naming struct {
		// a name Go 1.26 does not take, Go 1.27 does
		Sym int `json:"ü€"`
		// Go 1.27 promotes its fields; Go 1.26 ignores the option
		Page inner `json:",embed"`
		// an option Go 1.26 ignores
		Strict int `json:"user_name,case:strict"`
		extra
		//lint:ignore SA5008 malformed: Go 1.27 keeps the identifier it starts with
		Q int `json:"q'x"`
	}
	conflict struct {
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
	for _, v := range []any{conflict{ptrInner: &ptrInner{}}, hidden{}, skipped{}, oddTag{}, unexpEmbd{}, v2Naming{extra: extra{}}} {
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

type (
	pageGroup struct {
		Limit int `query:"limit"`
		Sort  string
		Skip  int `query:"-"`
		//lint:ignore U1000 unexported: never a value, which is what is tested
		priv int
	}
	embeddedQuery struct {
		Tag string `query:"tag"`
	}
	composed struct {
		Untagged int
		embeddedQuery
		Page  pageGroup `query:""`
		Named int       `query:"n"`
		Other string    `header:"x"`
		*ptrInner
		When textish `query:""` // decodes itself: a value, not a group
	}
	textish struct{ s string }
)

func (t *textish) UnmarshalText(b []byte) error { t.s = string(b); return nil }

// TestOnlyReadsGroupsAndEmbeddedStructs: for an input struct's source,
// List reads a group's fields (all of them, by tag or Go name) and an
// embedded struct's tagged fields, in field order, each with its path.
func TestOnlyReadsGroupsAndEmbeddedStructs(t *testing.T) {
	var got []string
	for _, f := range List(reflect.TypeFor[composed](), Only("query")) {
		got = append(got, fmt.Sprintf("%s%v", f.Key, f.Path))
	}
	assert.Equal(t, []string{"tag[1 0]", "limit[2 0]", "Sort[2 1]", "n[3]", "When[6]"}, got)
}
