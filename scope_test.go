package burrow_test

import (
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/apptest"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/scope"
)

// The reference topology of the encapsulation model: the root context with three root
// plugins; two child contexts, each with two child plugins and one
// grandchild context; each grandchild context with three child plugins.
//
// Every context declares a request decorator named after itself
// ("ctx:<name>"), and so does every plugin ("plugin:<name>"). Each
// context and each plugin serves GET /<name>, which reports what it sees.

type ctxSpec struct {
	name    string
	plugins []string
	kids    []ctxSpec
}

var topology = ctxSpec{
	name:    "root",
	plugins: []string{"r1", "r2", "r3"},
	kids: []ctxSpec{
		{name: "c1", plugins: []string{"c1p1", "c1p2"}, kids: []ctxSpec{
			{name: "g1", plugins: []string{"g1p1", "g1p2", "g1p3"}},
		}},
		{name: "c2", plugins: []string{"c2p1", "c2p2"}, kids: []ctxSpec{
			{name: "g2", plugins: []string{"g2p1", "g2p2", "g2p3"}},
		}},
	},
}

// allNames lists every context and plugin name of the topology.
func allNames(c ctxSpec) []string {
	out := append([]string{c.name}, c.plugins...)
	for _, k := range c.kids {
		out = append(out, allNames(k)...)
	}
	return out
}

// report is the handler of every route: the decorators its route can see,
// and which plugin names are registered from its context.
func report(s *app.Server, names []string) func(req *httpx.Request, rep *httpx.Reply) error {
	return func(req *httpx.Request, rep *httpx.Reply) error {
		seen := []string{}
		for _, n := range names {
			for _, kind := range []string{"ctx:", "plugin:"} {
				if v, ok := req.Decorator(kind + n); ok {
					if v != kind+n {
						return fmt.Errorf("decorator %s holds %v", kind+n, v)
					}
					seen = append(seen, kind+n)
				}
			}
		}
		return rep.Send(seen)
	}
}

// buildTopology registers spec under s. wrapped says how the leaf plugins
// are registered; extra, when it has an entry for a context's name, runs
// in that context after the rest.
func buildTopology(t *testing.T, s *app.Server, spec ctxSpec, names []string, wrapped bool, extra map[string]func(*app.Server)) {
	require.NoError(t, s.DecorateRequest("ctx:"+spec.name, "ctx:"+spec.name))
	require.NoError(t, s.Get("/"+spec.name, report(s, names)))
	for _, p := range spec.plugins {
		body := func(ps *app.Server) error {
			if err := ps.DecorateRequest("plugin:"+p, "plugin:"+p); err != nil {
				return err
			}
			if wrapped {
				// A wrapped plugin has no context, hence no route of its
				// own: its parent's route shows what it declared.
				return nil
			}
			return ps.Get("/"+p, report(ps, names))
		}
		if wrapped {
			require.NoError(t, s.Register(app.Wrap(body, app.Name(p))))
		} else {
			require.NoError(t, s.Register(body, app.Name(p)))
		}
	}
	for _, k := range spec.kids {
		require.NoError(t, s.Register(func(cs *app.Server) error {
			buildTopology(t, cs, k, names, wrapped, extra)
			return nil
		}, app.Name(k.name)))
	}
	if f := extra[spec.name]; f != nil {
		f(s)
	}
}

// expected computes, from the rules of encapsulation alone, what the route of each context
// or plain plugin sees: the "ctx:" decorator of itself and every ancestor
// context, plus the "plugin:" decorator of every wrapped plugin registered
// in one of those contexts, plus its own when it is a plain plugin.
func expected(spec ctxSpec, wrapped bool) map[string][]string {
	out := map[string][]string{}
	var visit func(c ctxSpec, inherited []string)
	visit = func(c ctxSpec, inherited []string) {
		own := append(slices.Clone(inherited), "ctx:"+c.name)
		if wrapped {
			for _, p := range c.plugins {
				own = append(own, "plugin:"+p)
			}
		}
		out[c.name] = own
		if !wrapped {
			for _, p := range c.plugins {
				out[p] = append(slices.Clone(own), "plugin:"+p)
			}
		}
		for _, k := range c.kids {
			visit(k, own)
		}
	}
	visit(spec, nil)
	for k := range out {
		slices.Sort(out[k])
	}
	return out
}

func TestVisibilityMatrix(t *testing.T) {
	t.Parallel()
	names := allNames(topology)
	for _, wrapped := range []bool{false, true} {
		t.Run(fmt.Sprintf("wrapped=%v", wrapped), func(t *testing.T) {
			s := app.New()
			buildTopology(t, s, topology, names, wrapped, nil)
			require.NoError(t, s.Ready())
			want := expected(topology, wrapped)
			for route, vis := range want {
				res := apptest.Get(t, s, "/"+route)
				require.Equal(t, http.StatusOK, res.StatusCode, route)
				var got []string
				res.JSON(t, &got)
				slices.Sort(got)
				assert.Equal(t, vis, got, "what GET /%s sees", route)
			}
		})
	}
}

// TestVisibilityFacts spells out the rules the matrix is built from, so a
// bug in expected() cannot hide one.
func TestVisibilityFacts(t *testing.T) {
	t.Parallel()
	names := allNames(topology)
	s := app.New()
	buildTopology(t, s, topology, names, false, nil)
	require.NoError(t, s.Ready())
	sees := func(route, decorator string) bool {
		var got []string
		apptest.Get(t, s, "/"+route).JSON(t, &got)
		return slices.Contains(got, decorator)
	}
	tests := []struct {
		route, decorator string
		visible          bool
		why              string
	}{
		{"c1", "ctx:root", true, "a child sees the root"},
		{"g1", "ctx:root", true, "a grandchild sees the root"},
		{"g1", "ctx:c1", true, "a grandchild sees its parent"},
		{"c1", "ctx:g1", false, "a parent never sees its child"},
		{"root", "ctx:c1", false, "the root never sees a child"},
		{"c1", "ctx:c2", false, "siblings see nothing of each other"},
		{"g1", "ctx:c2", false, "nor do their descendants"},
		{"g2", "ctx:g1", false, "cousins see nothing of each other"},
		{"c1", "plugin:r1", false, "a plain plugin's decorator stays in its own context"},
		{"r1", "plugin:r1", true, "a plain plugin sees its own decorator"},
		{"r1", "plugin:r2", false, "sibling plugins see nothing of each other"},
		{"g1p1", "ctx:c1", true, "a plugin sees its context's ancestors"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.visible, sees(tt.route, tt.decorator), "%s: GET /%s and %s", tt.why, tt.route, tt.decorator)
	}
}

func TestHasPluginFollowsRegistration(t *testing.T) {
	t.Parallel()
	names := allNames(topology)
	// Plugin registrations are recorded in the registering context, so
	// they follow rule 4 the same way for plain and wrapped plugins.
	want := map[string][]string{
		"root": {"r1", "r2", "r3", "c1", "c2"},
		"c1":   {"r1", "r2", "r3", "c1", "c2", "c1p1", "c1p2", "g1"},
		"g1":   {"r1", "r2", "r3", "c1", "c2", "c1p1", "c1p2", "g1", "g1p1", "g1p2", "g1p3"},
		"c2":   {"r1", "r2", "r3", "c1", "c2", "c2p1", "c2p2", "g2"},
	}
	for _, wrapped := range []bool{false, true} {
		t.Run(fmt.Sprintf("wrapped=%v", wrapped), func(t *testing.T) {
			handles := map[string]*app.Server{}
			extra := map[string]func(*app.Server){}
			for ctx := range want {
				extra[ctx] = func(s *app.Server) { handles[ctx] = s }
			}
			s := app.New()
			buildTopology(t, s, topology, names, wrapped, extra)
			require.NoError(t, s.Ready())
			for ctx, plugins := range want {
				h := handles[ctx]
				require.NotNil(t, h, ctx)
				for _, p := range allNames(topology) {
					if p == "root" {
						continue
					}
					assert.Equal(t, slices.Contains(plugins, p), h.HasPlugin(p), "HasPlugin(%q) from %s", p, h.Path())
				}
			}
		})
	}
}

// TestInvisibleDependencyFailsReady asks, from each context, for every
// decorator that context cannot see, and checks that Ready refuses to
// start with an error naming the route, the value and where it is.
func TestInvisibleDependencyFailsReady(t *testing.T) {
	t.Parallel()
	names := allNames(topology)
	want := expected(topology, false)
	all := []string{"ctx:root", "ctx:c1", "ctx:g1", "ctx:c2", "ctx:g2"}
	for _, ctx := range []string{"root", "c1", "g1", "c2", "g2"} {
		for _, dec := range all {
			if slices.Contains(want[ctx], dec) {
				continue
			}
			t.Run(ctx+"/"+dec, func(t *testing.T) {
				s := app.New()
				buildTopology(t, s, topology, names, false, map[string]func(*app.Server){
					ctx: func(s *app.Server) { require.NoError(t, s.Get("/needs", needing(dec))) },
				})
				err := s.Ready()
				require.Error(t, err)
				require.ErrorIs(t, err, scope.ErrNotVisible)
				var re *app.RouteError
				require.ErrorAs(t, err, &re)
				assert.Equal(t, "/needs", re.Path)
				assert.Contains(t, err.Error(), "GET /needs")
				assert.Contains(t, err.Error(), fmt.Sprintf("%q", dec))
				where := strings.TrimPrefix(dec, "ctx:")
				assert.Contains(t, err.Error(), where, "the message names the context providing it")
			})
		}
	}
}

// needing returns a handler whose only parameter is an In struct with one
// required field for the request decorator called name.
func needing(name string) any {
	in := reflect.StructOf([]reflect.StructField{
		{Name: "In", Type: reflect.TypeFor[app.In](), Anonymous: true},
		{Name: "V", Type: reflect.TypeFor[string](), Tag: reflect.StructTag(fmt.Sprintf("name:%q", name))},
	})
	fn := reflect.MakeFunc(reflect.FuncOf([]reflect.Type{in}, []reflect.Type{reflect.TypeFor[error]()}, false),
		func([]reflect.Value) []reflect.Value { return []reflect.Value{reflect.Zero(reflect.TypeFor[error]())} })
	return fn.Interface()
}
