package app_test

import (
	"fmt"
	"io"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/bearer"
	"github.com/burrow-go/burrow/httpx"
)

type session struct{ user string }

type withMap struct {
	Name  string
	Roles map[string]bool
}

type deepShare struct {
	Tags  [2][]string
	Inner struct{ Any any }
}

// A request decorator's value is where every request starts, so a value
// that holds a reference would be one object shared by all of them.
func TestDecoratorValuesThatShareAreRefused(t *testing.T) {
	t.Parallel()
	refused := []struct {
		name  string
		value any
		what  string
	}{
		{"pointer", &session{}, "its *app_test.session value"},
		{"map", map[string]int{}, "its map[string]int value"},
		{"slice", []string{}, "its []string value"},
		{"channel", make(chan int), "its chan int value"},
		{"function", func() {}, "its func() value"},
		{"struct holding a map", withMap{Roles: map[string]bool{}}, "its app_test.withMap value (at .Roles, a map)"},
		{"array in a struct holding a slice", deepShare{Tags: [2][]string{nil, {"x"}}}, "its app_test.deepShare value (at .Tags[1], a slice)"},
		{"interface in a struct holding a pointer", deepShare{Inner: struct{ Any any }{&session{}}}, "its app_test.deepShare value (at .Inner.Any, a pointer)"},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := app.New()
			err := s.DecorateRequest("x", tt.value)
			require.ErrorIs(t, err, app.ErrInvalidDecorator)
			assert.Contains(t, err.Error(), tt.what)
			assert.ErrorIs(t, s.Ready(), app.ErrInvalidDecorator, "Ready reports it too")
		})
	}

	s := app.New()
	err := s.DecorateRequest("session", &session{})
	assert.EqualError(t, err, `invalid request decorator "session" in root: it would share `+
		`its *app_test.session value with every request; declare it with a typed nil, DecorateRequest("session", (*app_test.session)(nil)), `+
		`and set a fresh value per request with req.SetDecorator in a hook (or provide a service with Decorate to share one on purpose)`)

	accepted := []any{
		(*session)(nil), map[string]int(nil), []string(nil), (chan int)(nil), (func())(nil),
		42, "text", session{user: "anonymous"}, withMap{Name: "x"}, deepShare{}, [3]int{1, 2, 3},
		time.Now(), bearer.Identity{Index: -1},
	}
	for i, v := range accepted {
		assert.NoError(t, app.New().DecorateRequest("x", v), "%d: %#v", i, v)
	}
}

// A typed nil declares the decorator; a hook gives each request its own
// value. Run with -race: nothing is shared between requests.
func TestTypedNilDecoratorGivesEachRequestItsOwnValue(t *testing.T) {
	t.Parallel()
	s := app.New()
	require.NoError(t, s.DecorateRequest("session", (*session)(nil)))
	s.AddHook(app.OnRequest, func(req *httpx.Request) error {
		return req.SetDecorator("session", &session{user: req.Header("X-User")})
	})
	type deps struct {
		app.In
		Session *session `name:"session"`
	}
	s.AddHook(app.PreHandler, func(d deps) { d.Session.user += "!" })
	s.Get("/", func(d deps) (string, error) { return d.Session.user, nil })
	require.NoError(t, s.Ready())

	const n = 500
	got := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := httptest.NewRequest("GET", "/", nil)
			req.Header.Set("X-User", fmt.Sprint("user", i))
			res, err := s.Inject(req)
			if err != nil {
				got[i] = err.Error()
				return
			}
			b, _ := io.ReadAll(res.Body)
			got[i] = string(b)
		}()
	}
	wg.Wait()
	for i, body := range got {
		assert.Equal(t, fmt.Sprint("user", i, "!"), body)
	}
}
