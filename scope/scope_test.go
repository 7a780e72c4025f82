package scope

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/dig"
)

func req(name string) Decl {
	return Decl{Key: Key{Kind: Request, Name: name}, ValueType: reflect.TypeFor[string]()}
}

func svc(t reflect.Type) Decl {
	return Decl{Key: Key{Kind: Service, Type: t}}
}

func TestTreeAndPaths(t *testing.T) {
	root := New("root")
	a := root.Child("a")
	a1 := a.Child("a1")
	b := root.Child("b")
	assert.Equal(t, "root > a > a1", a1.Path())
	assert.Equal(t, 2, a1.depth)
	assert.Same(t, root, a1.root())
	assert.True(t, a.isAncestorOf(a1))
	assert.True(t, a.isAncestorOf(a))
	assert.False(t, a1.isAncestorOf(a))
	assert.False(t, b.isAncestorOf(a1))
	var order []string
	root.Walk(func(c *Context) bool { order = append(order, c.Name()); return true })
	assert.Equal(t, []string{"root", "a", "a1", "b"}, order)
}

func TestDeclareAndLookup(t *testing.T) {
	root := New("root")
	a := root.Child("a")
	a1 := a.Child("a1")
	b := root.Child("b")

	d, err := a.declare(req("foo"))
	require.NoError(t, err)
	_, err = a1.declare(req("foo"))
	require.ErrorIs(t, err, ErrDuplicate)
	assert.EqualError(t, err, `request decorator "foo" is already declared in ancestor context root > a and visible from root > a > a1`)
	_, err = b.declare(req("foo"))
	require.NoError(t, err, "siblings may reuse a name")
	assert.Equal(t, 2, root.Slots())

	assert.Same(t, d, a1.Lookup(d.Key))
	assert.Nil(t, root.Lookup(d.Key))

	tp := reflect.TypeFor[*int]()
	_, err = root.declare(svc(tp))
	require.NoError(t, err)
	_, err = a.declare(svc(tp))
	require.NoError(t, err, "a child may shadow a service")
	_, err = a.declare(svc(tp))
	require.ErrorIs(t, err, ErrDuplicate)
	assert.Equal(t, a, a1.Lookup(Key{Kind: Service, Type: tp}).Context, "nearest first")
	assert.Len(t, a1.Visible(Service), 1, "shadowed services are listed once")
}

func TestRequireSaysWhere(t *testing.T) {
	root := New("root")
	a := root.Child("a")
	a1 := a.Child("a1")
	a11 := a1.Child("a11")
	b := root.Child("b")
	_, err := a11.declare(Decl{Key: Key{Kind: Request, Name: "deep"}, ValueType: reflect.TypeFor[int](), Plugin: "plug"})
	require.NoError(t, err)
	_, err = a1.declare(req("mid"))
	require.NoError(t, err)

	tests := []struct {
		from *Context
		name string
		msg  string
	}{
		{b, "mid", `request decorator "mid", which is only provided in context root > a > a1`},
		{a, "mid", `request decorator "mid", which is only provided in child context root > a > a1`},
		{a, "deep", `request decorator "deep", which is only provided in descendant context root > a > a1 > a11 (by wrapped plugin plug)`},
		{root, "none", `request decorator "none", which no context provides`},
	}
	for _, tt := range tests {
		_, err := tt.from.Require(Key{Kind: Request, Name: tt.name})
		require.ErrorIs(t, err, ErrNotVisible)
		var nv *NotVisibleError
		require.ErrorAs(t, err, &nv)
		assert.EqualError(t, err, tt.msg)
	}
	c := root.Child("c")
	c2 := root.Child("c2")
	_, err = c2.declare(req("sib"))
	require.NoError(t, err)
	_, err = c.Require(Key{Kind: Request, Name: "sib"})
	assert.EqualError(t, err, `request decorator "sib", which is only provided in sibling context root > c2`)
}

func TestSlotsThroughDig(t *testing.T) {
	root := New("root")
	a := root.Child("a")
	a1 := a.Child("a1") // created before a provides: dig still propagates
	b := root.Child("b")
	d, err := a.DeclareRequest("foo", reflect.TypeFor[string](), "")
	require.NoError(t, err)

	s, err := a1.ResolveSlot("foo")
	require.NoError(t, err)
	assert.Equal(t, d.Slot, s)
	_, err = b.ResolveSlot("foo")
	assert.Error(t, err, "a sibling cannot resolve it")
	_, err = root.ResolveSlot("foo")
	assert.Error(t, err, "nor can the parent")

	v, err := b.Resolve(reflect.TypeFor[string](), "missing", true)
	require.NoError(t, err)
	assert.True(t, v.IsZero(), "optional and missing is the zero value")
}

func TestValueGroupsAccumulate(t *testing.T) {
	root := New("root")
	a := root.Child("a")
	tp := reflect.TypeFor[*int]()
	group := Decl{Key: Key{Kind: Service, Type: tp, Group: "g"}}
	d1, err := root.declare(group)
	require.NoError(t, err)
	d2, err := root.declare(group)
	require.NoError(t, err, "a group takes many values")
	assert.Same(t, d1, d2, "and is declared once per context")
	_, err = a.declare(group)
	require.NoError(t, err)
	_, err = a.declare(svc(tp))
	require.NoError(t, err, "the plain service of the same type is another key")
	assert.Len(t, a.Visible(Service), 3, "a's group, root's group, a's plain service")
	assert.Equal(t, `service *int in group "g"`, group.Key.String())
	assert.Nil(t, root.Lookup(Key{Kind: Service, Type: tp}), "a group value is not the plain service")
}

func TestProvideKeepsDigAndRegistryInStep(t *testing.T) {
	t.Parallel()
	type out struct {
		dig.Out
		Port  int    `name:"port"`
		Tags  string `group:"tags"`
		Other string `group:"tags"`
	}
	root := New("root")
	a := root.Child("a")
	b := root.Child("b")
	require.NoError(t, a.Provide(func() (out, error) { return out{Port: 8080, Tags: "x", Other: "y"}, nil }, "", nil, "plug"))
	require.NoError(t, a.Provide(3.5, "ratio", nil, ""))

	tests := []struct {
		key   Key
		typ   reflect.Type
		name  string
		value any
	}{
		{Key{Kind: Service, Type: reflect.TypeFor[int](), Name: "port"}, reflect.TypeFor[int](), "port", 8080},
		{Key{Kind: Service, Type: reflect.TypeFor[float64](), Name: "ratio"}, reflect.TypeFor[float64](), "ratio", 3.5},
	}
	for _, tt := range tests {
		d, err := a.Require(tt.key)
		require.NoError(t, err, "the registry sees %v", tt.key)
		v, err := a.Resolve(tt.typ, tt.name, false)
		require.NoError(t, err, "and so does dig")
		assert.Equal(t, tt.value, v.Interface())
		_, err = b.Require(tt.key)
		require.ErrorIs(t, err, ErrNotVisible, "a sibling sees it in neither")
		_, err = b.Resolve(tt.typ, tt.name, false)
		assert.Error(t, err)
		if tt.name == "port" {
			assert.Equal(t, "plug", d.Plugin, "the wrapped plugin is recorded")
		}
	}
	group := Key{Kind: Service, Type: reflect.TypeFor[string](), Group: "tags"}
	assert.Len(t, a.Providers(group), 1, "one group declaration per context, whatever the fields")

	err := a.Provide(func() int { return 1 }, "port", nil, "")
	require.ErrorIs(t, err, ErrDuplicate)
	assert.EqualError(t, err, `service int named "port" is already declared in root > a (by wrapped plugin plug)`)
	require.NoError(t, root.Provide(func() int { return 2 }, "", nil, ""))
	err = root.Provide(7, "", nil, "")
	require.ErrorIs(t, err, ErrDuplicate, "a value is a service like a constructor's result")
	require.Error(t, root.Provide(nil, "", nil, ""))
}

func TestDeclareRequestRefusesAVisibleName(t *testing.T) {
	t.Parallel()
	root := New("root")
	a := root.Child("a")
	_, err := root.DeclareRequest("user", reflect.TypeFor[string](), "")
	require.NoError(t, err)
	_, err = a.DeclareRequest("user", reflect.TypeFor[int](), "")
	require.ErrorIs(t, err, ErrDuplicate)
	slot, err := a.ResolveSlot("user")
	require.NoError(t, err)
	assert.Equal(t, 0, slot, "dig still holds the ancestor's slot")
	assert.Equal(t, 1, root.Slots(), "the refused one took no slot")
}

type stringer interface{ String() string }

type named struct{}

func (named) String() string { return "n" }

func TestDeclareValue(t *testing.T) {
	root := New("root")
	a := root.Child("a")
	ds, err := root.DeclareValue(reflect.TypeFor[named](), []reflect.Type{reflect.TypeFor[stringer]()}, "", "plug")
	require.NoError(t, err)
	require.Len(t, ds, 2)
	assert.Equal(t, ds[0].Slot, ds[1].Slot, "one value, one slot, whatever type it is asked as")
	assert.Equal(t, reflect.TypeFor[named](), ds[1].ValueType)
	assert.Equal(t, 1, root.Slots())
	assert.Same(t, ds[1], a.Lookup(Key{Kind: Value, Type: reflect.TypeFor[stringer]()}))
	assert.Equal(t, "request value scope.stringer", ds[1].Key.String())

	_, err = root.DeclareValue(reflect.TypeFor[named](), nil, "", "")
	require.ErrorIs(t, err, ErrDuplicate)
	_, err = a.DeclareValue(reflect.TypeFor[named](), nil, "", "")
	require.NoError(t, err, "a child may shadow a request value")
	_, err = a.DeclareValue(reflect.TypeFor[int](), []reflect.Type{reflect.TypeFor[stringer]()}, "", "")
	assert.EqualError(t, err, "int cannot be provided as scope.stringer: int does not implement it")
	_, err = a.DeclareValue(reflect.TypeFor[int](), []reflect.Type{reflect.TypeFor[int64]()}, "", "")
	assert.EqualError(t, err, "int cannot be provided as int64: int64 is not an interface")

	// An interface named twice is one declaration; a refusal declares none.
	b := root.Child("b")
	ds, err = b.DeclareValue(reflect.TypeFor[named](), []reflect.Type{reflect.TypeFor[stringer](), reflect.TypeFor[stringer]()}, "n", "")
	require.NoError(t, err)
	assert.Len(t, ds, 2)
	slots := root.Slots()
	_, err = b.DeclareValue(reflect.TypeFor[*named](), []reflect.Type{reflect.TypeFor[stringer]()}, "n", "")
	require.ErrorIs(t, err, ErrDuplicate, "b already provides a stringer named n")
	assert.Equal(t, ds, b.Decls(), "nothing of the refused declaration is kept")
	assert.Equal(t, slots, root.Slots(), "and it took no slot")
}

func TestNotVisibleInterfaceNamesImplementers(t *testing.T) {
	root := New("root")
	require.NoError(t, root.Provide(named{}, "", nil, ""))
	_, err := root.Require(Key{Kind: Service, Type: reflect.TypeFor[stringer]()})
	assert.EqualError(t, err, "service scope.stringer, which no context provides; "+
		"service scope.named, provided in root, implements it: provide it with app.As[scope.stringer]()")

	require.NoError(t, root.Child("b").Provide(named{}, "", []reflect.Type{reflect.TypeFor[stringer]()}, ""))
	_, err = root.Resolve(reflect.TypeFor[stringer](), "", false)
	require.Error(t, err, "provided as the interface in a child only")
}
