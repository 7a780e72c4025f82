package app_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
)

type playgroundTagged struct {
	Email string   `json:"email" validate:"omitempty,email"`
	ID    string   `json:"id" validate:"uuid"`
	Site  string   `json:"site" validate:"url"`
	Home  string   `json:"home" validate:"uri"`
	Addr  string   `json:"addr" validate:"ipv4"`
	Role  string   `json:"role" validate:"oneof=admin member"`
	Age   int      `json:"age" validate:"gte=18,lte=130"`
	Nick  string   `json:"nick" validate:"gte=2,lte=4"`
	Tags  []string `json:"tags" validate:"lte=2"`
	Score *int     `json:"score" validate:"omitempty,gte=1"`
}

// go-playground/validator's spellings of rules Burrow has mean Burrow's
// rules, and a failing field reports Burrow's rule name.
func TestValidatorAcceptsPlaygroundSpellings(t *testing.T) {
	t.Parallel()
	// with is a valid body with one field changed.
	with := func(key string, v any) string {
		body := map[string]any{"email": "a@b.co", "id": "123e4567-e89b-12d3-a456-426614174000", "site": "https://x.io/a",
			"home": "urn:isbn:1", "addr": "10.0.0.1", "role": "member", "age": 18, "nick": "ab", "tags": []string{"a", "b"}, "score": 1}
		body[key] = v
		b, err := json.Marshal(body)
		require.NoError(t, err)
		return string(b)
	}
	tests := []struct {
		name, body string
		status     int
		want       string
	}{
		{"all valid", with("email", "a@b.co"), 200, "ok"},
		{"omitempty string empty", with("email", ""), 200, "ok"},
		{"omitempty pointer null", with("score", nil), 200, "ok"},
		{"email", with("email", "nope"), 400, `[{"path":"body/email","rule":"format","message":"must match format \"email\""}]`},
		{"uuid", with("id", "123"), 400, `[{"path":"body/id","rule":"format","message":"must match format \"uuid\""}]`},
		{"url", with("site", "x.io"), 400, `[{"path":"body/site","rule":"format","message":"must match format \"uri\""}]`},
		{"uri", with("home", "/a"), 400, `[{"path":"body/home","rule":"format","message":"must match format \"uri\""}]`},
		{"ipv4", with("addr", "::1"), 400, `[{"path":"body/addr","rule":"format","message":"must match format \"ipv4\""}]`},
		{"oneof", with("role", "root"), 400,
			`[{"path":"body/role","rule":"enum","message":"must be equal to one of the allowed values: admin, member"}]`},
		{"gte on a number", with("age", 17), 400, `[{"path":"body/age","rule":"min","message":"must be \u003e= 18"}]`},
		{"lte on a number", with("age", 131), 400, `[{"path":"body/age","rule":"max","message":"must be \u003c= 130"}]`},
		{"gte on a string counts characters", with("nick", "é"), 400,
			`[{"path":"body/nick","rule":"min","message":"must NOT have fewer than 2 characters"}]`},
		{"lte on a string counts characters", with("nick", "ééééé"), 400,
			`[{"path":"body/nick","rule":"max","message":"must NOT have more than 4 characters"}]`},
		{"lte on a slice counts items", with("tags", []string{"a", "b", "c"}), 400,
			`[{"path":"body/tags","rule":"max","message":"must NOT have more than 2 items"}]`},
		{"omitempty pointer set", with("score", 0), 400, `[{"path":"body/score","rule":"min","message":"must be \u003e= 1"}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			status, body := validate[playgroundTagged](t, tt.body)
			assert.Equal(t, tt.status, status)
			if tt.status == 200 {
				assert.Contains(t, body, tt.want)
				return
			}
			assert.JSONEq(t, tt.want, body)
		})
	}
}

// A rule Burrow does not have fails Ready with an error that names
// Burrow's way to say it.
func TestValidatorNamesBurrowSpelling(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		build func(s *app.Server)
		msg   string
	}{
		{"gt", func(s *app.Server) {
			s.Post("/", func(app.Body[struct {
				N int `json:"n" validate:"gt=1"`
			}]) {
			})
		}, `unknown rule "gt": Burrow's bounds include the bound: use min=`},
		{"datetime", func(s *app.Server) {
			s.Post("/", func(app.Body[struct {
				D string `json:"d" validate:"datetime=2006-01-02"`
			}]) {
			})
		}, `unknown rule "datetime": use format=date-time (RFC 3339) or format=date`},
		{"dive", func(s *app.Server) {
			s.Post("/", func(app.Body[struct {
				L []string `json:"l" validate:"dive,required"`
			}]) {
			})
		}, `unknown rule "dive": validation descends into slices and maps of structs by itself`},
		{"anything else", func(s *app.Server) {
			s.Post("/", func(app.Body[struct {
				S string `json:"s" validate:"excludesall=!"`
			}]) {
			})
		}, `unknown rule "excludesall": Burrow's rules are required, min, max, len, enum, format and the pattern tag`},
		{"omitempty on a number", func(s *app.Server) {
			s.Post("/", func(app.Body[struct {
				N int `json:"n" validate:"omitempty,min=1"`
			}]) {
			})
		}, "omitempty on int: Burrow checks a number even when it is zero; make the field a pointer to make it optional"},
		{"oneof without values", func(s *app.Server) {
			s.Post("/", func(app.Body[struct {
				S string `json:"s" validate:"oneof= "`
			}]) {
			})
		}, "oneof needs values, as enum=a|b or oneof=a b"},
		{"oneof on a bool", func(s *app.Server) {
			s.Post("/", func(app.Body[struct {
				B bool `json:"b" validate:"oneof=true"`
			}]) {
			})
		}, "oneof on bool: Burrow's enum and oneof take strings and numbers"},
		{"oneof value that is no number, on a number", func(s *app.Server) {
			s.Post("/", func(app.Body[struct {
				N int `json:"n" validate:"oneof=1 two"`
			}]) {
			})
		}, `oneof value "two" is not an integer, as int needs`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := app.New()
			tt.build(s)
			err := s.Ready()
			require.ErrorIs(t, err, app.ErrInvalidConstraint)
			assert.Contains(t, err.Error(), tt.msg)
		})
	}
}
