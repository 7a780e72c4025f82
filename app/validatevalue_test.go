package app_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/apptest"
	"github.com/burrow-go/burrow/httpx"
)

type purchaseLine struct {
	SKU string `json:"sku" validate:"required" pattern:"^[A-Z]{3}-[0-9]+$"`
	Qty int    `json:"qty" validate:"min=1,max=99"`
}

type purchase struct {
	Email string         `json:"email" validate:"required,format=email"`
	Lines []purchaseLine `json:"lines" validate:"required,max=3"`
	Note  *string        `json:"note" validate:"max=5"`
}

// TestValidateAgreesWithARequest: Validate of a value under the root
// "body" is the 400 a route answers for the same value sent as its body,
// field for field.
func TestValidateAgreesWithARequest(t *testing.T) {
	t.Parallel()
	long := "too long"
	tests := []struct {
		name string
		v    purchase
	}{
		{"valid", purchase{Email: "a@b.example", Lines: []purchaseLine{{SKU: "ABC-1", Qty: 1}}}},
		{"empty", purchase{}},
		{"nested", purchase{Email: "nope", Lines: []purchaseLine{{SKU: "abc", Qty: 0}, {Qty: 100}}, Note: &long}},
		{"too many lines", purchase{Email: "a@b.example", Lines: make([]purchaseLine, 4)}},
	}
	s := app.New()
	require.NoError(t, s.Post("/orders", func(app.Body[purchase]) (string, error) { return "ok", nil }))
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			body, err := json.Marshal(tc.v)
			require.NoError(t, err)
			res := apptest.Do(t, s, "POST", "/orders", strings.NewReader(string(body)), "Content-Type", "application/json")
			got := app.Validate(tc.v, "body")
			if res.StatusCode == http.StatusOK {
				assert.NoError(t, got)
				return
			}
			require.Equal(t, http.StatusBadRequest, res.StatusCode)
			var sent httpx.ErrorBody
			require.NoError(t, json.Unmarshal([]byte(res.Body), &sent))
			var he *httpx.Error
			require.ErrorAs(t, got, &he)
			assert.Equal(t, sent, httpx.BodyOf(got), "the same body as the route's 400")
			assert.Equal(t, "FST_ERR_VALIDATION", he.Code)
		})
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	t.Run("no root: paths begin with the field", func(t *testing.T) {
		t.Parallel()
		err := app.Validate(purchase{Email: "a@b.example", Lines: []purchaseLine{{SKU: "ABC-1", Qty: 0}}}, "")
		var he *httpx.Error
		require.ErrorAs(t, err, &he)
		assert.Equal(t, []httpx.FieldError{{Path: "lines/0/qty", Rule: "min", Message: "must be >= 1"}}, he.Validation)
		assert.Equal(t, "lines/0/qty must be >= 1", he.Message)
	})
	t.Run("a root names where the value was", func(t *testing.T) {
		t.Parallel()
		err := app.Validate(purchaseLine{SKU: "x", Qty: 1}, "body/file/3")
		var he *httpx.Error
		require.ErrorAs(t, err, &he)
		assert.Equal(t, []httpx.FieldError{{Path: "body/file/3/sku", Rule: "pattern", Message: `must match pattern "^[A-Z]{3}-[0-9]+$"`}}, he.Validation)
	})
	t.Run("pointers, slices and maps", func(t *testing.T) {
		t.Parallel()
		bad := purchaseLine{SKU: "ABC-1", Qty: 0}
		var he *httpx.Error
		require.ErrorAs(t, app.Validate(&bad, ""), &he)
		assert.Equal(t, "qty", he.Validation[0].Path)
		require.ErrorAs(t, app.Validate([]purchaseLine{{SKU: "ABC-1", Qty: 1}, bad}, "rows"), &he)
		assert.Equal(t, "rows/1/qty", he.Validation[0].Path)
		require.ErrorAs(t, app.Validate(map[string]purchaseLine{"b": bad, "a": bad}, ""), &he)
		assert.Equal(t, []string{"a/qty", "b/qty"}, []string{he.Validation[0].Path, he.Validation[1].Path}, "in key purchase")
	})
	t.Run("nothing to check", func(t *testing.T) {
		t.Parallel()
		assert.NoError(t, app.Validate(nil, ""))
		assert.NoError(t, app.Validate((*purchaseLine)(nil), ""), "a nil pointer is a value not given")
		assert.NoError(t, app.Validate(struct{ A string }{}, ""), "a type without rules")
		assert.NoError(t, app.Validate(42, ""))
	})
	t.Run("a rule Burrow cannot apply", func(t *testing.T) {
		t.Parallel()
		type broken struct {
			N int `json:"n" validate:"gt=1"`
		}
		for range 2 { // the second answer comes from the cache
			err := app.Validate(broken{}, "")
			require.ErrorIs(t, err, app.ErrInvalidConstraint)
			var he *httpx.Error
			assert.False(t, errors.As(err, &he), "not a 400: the program is wrong, not the value")
			assert.Contains(t, err.Error(), `unknown rule "gt"`)
		}
	})
	t.Run("at most 100 failures", func(t *testing.T) {
		t.Parallel()
		err := app.Validate(make([]purchaseLine, 500), "")
		var he *httpx.Error
		require.ErrorAs(t, err, &he)
		assert.Len(t, he.Validation, 100)
		assert.Contains(t, he.Message, "more failures were left out")
	})
}

func TestValidateAllocatesNothingForAValidValue(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts mean nothing under the race detector")
	}
	v := []purchaseLine{{SKU: "ABC-1", Qty: 1}, {SKU: "DEF-2", Qty: 99}} // format=email's parser allocates; these rules do not
	require.NoError(t, app.Validate(&v, ""))
	n := testing.AllocsPerRun(100, func() { _ = app.Validate(&v, "") })
	assert.Zero(t, n)
}

// BenchmarkValidate is the cost of judging a valid value and a failing
// one outside a route.
func BenchmarkValidate(b *testing.B) {
	valid := []purchaseLine{{SKU: "ABC-1", Qty: 1}, {SKU: "DEF-2", Qty: 99}}
	failing := []purchaseLine{{SKU: "ABC-1", Qty: 0}}
	b.Run("valid", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = app.Validate(&valid, "")
		}
	})
	b.Run("failing", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = app.Validate(&failing, "rows")
		}
	})
}
