package app

import (
	"fmt"
	"net/http"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/burrow-go/burrow/app/internal/inputfields"
	"github.com/burrow-go/burrow/app/internal/routepath"
	"github.com/burrow-go/burrow/app/internal/validate"
	"github.com/burrow-go/burrow/internal/errkind"
)

// RouteInfo describes a route as Ready compiled it, for documentation:
// what it reads, what it answers, what it says about itself and which
// security schemes guard it. [Server.Routes] lists them; package
// app/openapi builds an OpenAPI document from them.
type RouteInfo struct {
	Method  string
	Path    string // Burrow's syntax, prefix included: "/todos/:id", "/files/*"
	Context string // the route's context path, "root > api"

	// Params are the values the route decodes from the path, the query,
	// headers and cookies, for its handler or for hooks that take them
	// (its own and its context's), path parameters first, then those of
	// its Params, Query and In struct in the order of their fields. Every
	// parameter of the path is listed, typed or not.
	Params []ParamInfo
	// Body is the type the body is decoded into (for the handler or a
	// hook), nil when the route decodes none.
	Body reflect.Type
	// BodyField is the In struct field (tagged body) that holds rules
	// of the body itself, as validate:"required,min=1,max=50" on a body
	// that is an array; zero when none does.
	BodyField reflect.StructField
	// BodyRequired says a request without a body is refused (400).
	BodyRequired bool
	// Form are the values the route reads from a form body (the form
	// fields of its In struct), in the order of their fields, each with
	// Source "form"; nil when it reads none. A field whose Type is
	// *File or []*File is a file, and the body must then be
	// multipart/form-data; otherwise it may be that,
	// application/x-www-form-urlencoded or an application/json object of
	// the values.
	Form []ParamInfo
	// TypedInput says the route decodes typed input (Body, Query, Params
	// or tagged In fields, for the handler or a hook), so Burrow may
	// answer 400 with the validation array before the handler runs.
	TypedInput bool
	// Responses are the replies the route is known to send, by status:
	// from its handler's signature, then as declared with Responds.
	Responses []ResponseInfo

	OperationID  string // given with OperationID, or derived from method and path
	Summary      string
	Description  string
	Tags         []string
	Deprecated   bool
	Undocumented bool

	// Security are the schemes declared (DeclareSecurity) in the route's
	// context and its ancestors, root first: the route can see each one's
	// guard, so a request must satisfy them all — but for the schemes of
	// one AnyOf group, of which it must satisfy one.
	Security []SecurityScheme
	// Scopes are the scopes a scheme of Security requires of the route,
	// by the scheme's name, as its route config says (ScopedSecurity);
	// a scheme without an entry requires none.
	Scopes map[string][]string

	// Upgrade is the protocol the route switches to, declared with
	// Upgrades (a WebSocket route's); nil for none.
	Upgrade *UpgradeInfo
	// Guards are what guards the route, as the plugins of its contexts
	// declared it (DeclareGuard), less what its OnRoute hooks took it out
	// of (Unguard).
	Guards RouteGuards
	// Public says the route is marked open to anyone (Public).
	Public bool

	// ProblemDetails says the framework answers the route's errors with
	// problem details (httpx.Problem, WithProblemDetails) rather than
	// httpx.ErrorBody.
	ProblemDetails bool
}

// ParamInfo is one value a route reads outside the body.
type ParamInfo struct {
	Source   string       // "path", "query", "header", "cookie"; "form" in RouteInfo.Form
	Name     string       // as the client writes it; header names canonical
	Type     reflect.Type // the field's Go type; string for an untyped path parameter
	Required bool         // path parameters, and values tagged validate:"required" without a default (a default makes one optional)
	Default  string       // the default tag's text
	// HasDefault says a default tag is present (its text may be empty).
	HasDefault bool
	// Field is the Go field the value lands in, with its validate and
	// pattern tags; zero for a path parameter the handler does not decode.
	Field reflect.StructField
}

// ResponseInfo is one reply a route may send.
type ResponseInfo struct {
	Status  int
	Type    reflect.Type // the body's type; nil for an empty body, or one of MediaType alone
	Headers []string     // headers the reply sets, canonical
	// MediaType is the body's media type as declared with RespondsAs
	// ("text/event-stream"); empty when the body's type tells it.
	MediaType string
	// Item is the type of each item of a stream (MediaType is one
	// IsSequential accepts): the JSON of an event's data for
	// text/event-stream, a record for application/jsonl. Events declares
	// it, RespondsAs too; nil when not declared.
	Item reflect.Type
}

// UpgradeInfo describes the protocol a route switches the connection to
// with 101 Switching Protocols, and the messages it then exchanges, each
// one JSON value.
type UpgradeInfo struct {
	Protocol string       // the Upgrade header's token: "websocket"
	Receive  reflect.Type // a message the client sends; nil when not declared
	Send     reflect.Type // a message the server sends; nil when not declared
}

// SecurityScheme is a way of authenticating that a plugin enforces,
// described for documentation (OpenAPI's security scheme object). Name
// is the key routes refer to it by; the other fields are OpenAPI's.
type SecurityScheme struct {
	Name             string // "bearerAuth"
	Type             string // "http", "apiKey" or "openIdConnect" (oauth2 and mutualTLS are refused)
	Scheme           string // for http: "bearer", "basic", …
	BearerFormat     string // for http bearer: a hint such as "JWT"
	In               string // for apiKey: "header", "query" or "cookie"
	ParamName        string // for apiKey: the header, query or cookie name
	OpenIDConnectURL string // for openIdConnect
	Description      string
	// AnyOf names a group of alternatives: of the schemes a route
	// carries, those of one group are satisfied by satisfying any one
	// of them (a guard taking a cookie or a token: auth.AnyOf), while
	// every other scheme and group is required. Empty: required.
	AnyOf string
}

// ScopedSecurity is a route config value (WithConfig, SetRouteConfig)
// that says which scopes a security scheme requires of the route: the
// plugin enforcing them per route gives its config this method, and the
// route's description lists them with the scheme (RouteInfo.Scopes).
type ScopedSecurity interface {
	SecurityScopes() (scheme string, scopes []string)
}

var schemeName = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)

// check reports what makes sc unusable in a description, declared in
// the context at path.
func (sc SecurityScheme) check(path string) error {
	if !schemeName.MatchString(sc.Name) {
		return errkind.New(ErrInvalidSecurity, "invalid security scheme name %q in %s: use letters, digits, ., _ or -", sc.Name, path)
	}
	var why string
	switch sc.Type {
	case "http":
		if sc.Scheme == "" {
			why = "type http needs a Scheme (bearer, basic, …)"
		}
	case "apiKey":
		if sc.ParamName == "" || (sc.In != "header" && sc.In != "query" && sc.In != "cookie") {
			why = "type apiKey needs ParamName and In (header, query or cookie)"
		}
	case "openIdConnect":
		if sc.OpenIDConnectURL == "" {
			why = "type openIdConnect needs OpenIDConnectURL"
		}
	case "oauth2":
		why = "type oauth2 needs flows, which a SecurityScheme cannot describe yet"
	case "mutualTLS":
		why = "type mutualTLS is OpenAPI 3.1's alone, and the document's 3.0.3 rendition could not hold it"
	default:
		why = fmt.Sprintf("it has type %q; OpenAPI's are http, apiKey, oauth2, openIdConnect and mutualTLS", sc.Type)
	}
	if why != "" {
		return errkind.New(ErrInvalidSecurity, "invalid security scheme %q in %s: %s", sc.Name, path, why)
	}
	return nil
}

// DeclareSecurity says that every route of this context and its
// descendants is guarded by sc: a plugin that authenticates declares its
// scheme where its hook lands (bearer.Plugin does), so descriptions of
// the routes it guards carry the requirement and no other route does.
// Declaring a scheme whose name an ancestor or this context already
// declares differently is an error; the same declaration again is
// nothing.
func (s *Server) DeclareSecurity(sc SecurityScheme) error {
	return s.mutate(fmt.Sprintf("security scheme %q", sc.Name), func() error {
		if err := sc.check(s.Path()); err != nil {
			return err
		}
		for _, n := range s.a.lineage(s.n) {
			for _, prev := range n.security {
				if prev.Name == sc.Name && prev != sc {
					return errkind.New(ErrInvalidSecurity, "security scheme %q declared in %s differs from the one of that name in %s",
						sc.Name, s.Path(), n.ctx.Path())
				}
				if prev.Name == sc.Name {
					return nil // here or in an ancestor: these routes already carry it
				}
			}
		}
		s.n.security = append(s.n.security, sc)
		return nil
	})
}

// Routes describes the routes of this context and its descendants, in
// registration order (a context's own before its children's), once Ready
// has compiled them: OnReady hooks may call it. Before that it is nil.
// HEAD twins of GET routes are not listed.
func (s *Server) Routes() []RouteInfo {
	a := s.a
	a.mu.Lock()
	compiled := a.compiled
	a.mu.Unlock()
	if !compiled {
		return nil
	}
	var out []RouteInfo
	for _, rt := range a.routes {
		if rt.desc != nil && a.within(rt.node, s.n) {
			out = append(out, rt.desc.clone())
		}
	}
	return out
}

// within reports whether n is top or one of its descendants.
func (a *instance) within(n, top *node) bool {
	for c := n.ctx; c != nil; c = c.Parent() {
		if c == top.ctx {
			return true
		}
	}
	return false
}

// clone copies the slices of ri, so a caller cannot change the route's.
func (ri *RouteInfo) clone() RouteInfo {
	c := *ri
	c.Params = slices.Clone(ri.Params)
	c.Form = slices.Clone(ri.Form)
	c.Responses = slices.Clone(ri.Responses)
	for i := range c.Responses {
		c.Responses[i].Headers = slices.Clone(c.Responses[i].Headers)
	}
	c.Tags = slices.Clone(ri.Tags)
	c.Security = slices.Clone(ri.Security)
	if ri.Upgrade != nil {
		u := *ri.Upgrade
		c.Upgrade = &u
	}
	c.Guards = ri.Guards.clone()
	if ri.Scopes != nil {
		c.Scopes = make(map[string][]string, len(ri.Scopes))
		for k, v := range ri.Scopes {
			c.Scopes[k] = slices.Clone(v)
		}
	}
	return c
}

// describeRoute builds the description of a compiled route of n: def as
// registered, method, path, handler and config as the OnRoute hooks left
// them, and in, what the route decodes for its handler and hooks. Standard
// handlers and mounts describe no reply beyond their path.
func (a *instance) describeRoute(n *node, def *routeDef, spec *RouteSpec, in *inputPlan) *RouteInfo {
	method, path, handler, config := spec.Method, spec.Path, spec.Handler, spec.config
	ri := &RouteInfo{Method: method, Path: path, Context: n.ctx.Path(), ProblemDetails: a.cfg.errors.Problems}
	line := a.lineage(n)
	ri.Guards = routeGuards(line, method, spec.unguarded)
	for _, p := range line {
		for _, sc := range p.security {
			if !slices.ContainsFunc(ri.Security, func(x SecurityScheme) bool { return x.Name == sc.Name }) {
				ri.Security = append(ri.Security, sc)
			}
		}
	}
	if config != nil {
		for _, v := range config.values {
			if s, ok := v.(ScopedSecurity); ok {
				name, scopes := s.SecurityScopes()
				if ri.Scopes == nil {
					ri.Scopes = map[string][]string{}
				}
				ri.Scopes[name] = slices.Clone(scopes)
			}
		}
	}
	d := describer{ri: ri}
	if in != nil {
		d.input(in.types)
		if in.bodyField != nil {
			ri.BodyField, ri.BodyRequired = *in.bodyField, in.bodyNeeded
		}
	}
	if _, std := stdHandler(handler); !std {
		d.replies(handler)
	}
	if in != nil {
		d.caching(method, def.caching, in.types[inputFields])
	} else {
		d.caching(method, def.caching, nil)
	}
	ri.Params = withPathParams(path, ri.Params)
	if m := def.meta; m != nil {
		ri.OperationID, ri.Summary, ri.Description = m.operationID, m.summary, m.description
		ri.Tags, ri.Deprecated, ri.Undocumented, ri.Public = slices.Clone(m.tags), m.deprecated, m.undocumented, m.public
		if m.upgrade != nil {
			u := *m.upgrade
			ri.Upgrade = &u
		}
		for _, r := range m.responses {
			ri.Responses = slices.DeleteFunc(ri.Responses, func(x ResponseInfo) bool { return x.Status == r.Status })
			ri.Responses = append(ri.Responses, r)
		}
	}
	slices.SortStableFunc(ri.Responses, func(x, y ResponseInfo) int { return x.Status - y.Status })
	if ri.OperationID == "" {
		ri.OperationID = defaultOperationID(method, path)
	}
	return ri
}

// describer reads what a route decodes and what its handler's signature
// says about its reply.
type describer struct{ ri *RouteInfo }

// input describes what the route decodes: one type of each kind, which
// the handler and every hook that takes input (its own and its
// context's) share, as Ready made them agree. Input a hook takes is
// decoded and validated as the handler's is, so it is described alike.
func (d describer) input(types [4]reflect.Type) {
	if t := types[inputParams]; t != nil {
		d.fields(t, "param", "path")
	}
	if t := types[inputQuery]; t != nil {
		d.fields(t, "query", "query")
	}
	if t := types[inputFields]; t != nil {
		// Every value the struct reads, through groups and embedded
		// structs, in the order of its fields.
		type sourced struct {
			inputfields.Field
			source string
		}
		var all []sourced
		for _, src := range textSources[:srcForm] {
			for _, f := range inputfields.List(t, inputfields.Only(src.tag)) {
				all = append(all, sourced{f, src.tag})
			}
		}
		slices.SortStableFunc(all, func(a, b sourced) int { return slices.Compare(a.Path, b.Path) })
		for _, f := range all {
			d.ri.Params = append(d.ri.Params, paramInfo(f.source, f.Key, f.StructField))
		}
		for _, f := range inputfields.List(t, inputfields.Only("form")) {
			d.ri.Form = append(d.ri.Form, paramInfo("form", f.Key, f.StructField))
		}
	}
	if t := types[inputBody]; t != nil {
		d.ri.Body = t
	}
	d.ri.TypedInput = types != [4]reflect.Type{}
}

// replies describes the replies a handler's signature tells.
func (d describer) replies(h any) {
	if th, ok := h.(typedHandler); ok {
		// A typed route knows its reply from Out: NoContent, Created[T],
		// the Status option.
		rt := th.types()
		d.ri.Responses = append(d.ri.Responses, ResponseInfo{Status: rt.Status, Type: rt.Body, Headers: slices.Clone(rt.Headers)})
		return
	}
	if t, ok := h.(Handler); ok {
		h = t.target()
	}
	ft := reflect.TypeOf(h)
	if ft != nil && ft.Kind() == reflect.Func && ft.NumOut() == 2 {
		d.ri.Responses = append(d.ri.Responses, ResponseInfo{Status: http.StatusOK, Type: ft.Out(0)})
	}
}

// fields describes the fields of a Query or Params target, named by tag.
func (d describer) fields(t reflect.Type, tag, source string) {
	if t.Kind() != reflect.Struct {
		return
	}
	for _, f := range inputfields.List(t, tag) {
		d.ri.Params = append(d.ri.Params, paramInfo(source, f.Key, f.StructField))
	}
}

// paramInfo describes field f, read from source as name.
func paramInfo(source, name string, f reflect.StructField) ParamInfo {
	name, _, _ = strings.Cut(name, ",")
	if name == "" {
		name = f.Name
	}
	if source == "header" {
		name = http.CanonicalHeaderKey(name)
	}
	p := ParamInfo{Source: source, Name: name, Type: f.Type, Field: f,
		Required: source == "path" || validate.Required(f.Tag.Get("validate"))}
	p.Default, p.HasDefault = f.Tag.Lookup("default")
	if p.HasDefault && source != "path" {
		p.Required = false
	}
	return p
}

// wildcardParam is the name a description gives the path's "*".
const wildcardParam = "wildcard"

// withPathParams adds to params every parameter of path the handler does
// not decode, as a required string, and puts the path's parameters
// first, in path order.
func withPathParams(path string, params []ParamInfo) []ParamInfo {
	var out []ParamInfo
	for seg := range strings.SplitSeq(path, "/") {
		name, ok := routepath.Param(seg)
		switch {
		case !ok:
			continue
		case name == routepath.Wildcard:
			name = wildcardParam
		}
		i := slices.IndexFunc(params, func(p ParamInfo) bool {
			return p.Source == "path" && (p.Name == name || (name == wildcardParam && p.Name == "*"))
		})
		if i < 0 {
			out = append(out, ParamInfo{Source: "path", Name: name, Type: reflect.TypeFor[string](), Required: true})
			continue
		}
		p := params[i]
		p.Name = name
		out = append(out, p)
		params = slices.Delete(slices.Clone(params), i, i+1)
	}
	for _, p := range params {
		if p.Source != "path" { // a path field naming no parameter of the path reads nothing
			out = append(out, p)
		}
	}
	return out
}

// defaultOperationID derives an operation id from method and path:
// GET /todos/:id is getTodosById, POST /todos/batch postTodosBatch, GET
// /files/* getFilesWildcard, GET / getIndex.
func defaultOperationID(method, path string) string {
	var b strings.Builder
	b.WriteString(strings.ToLower(method))
	words := 0
	for seg := range strings.SplitSeq(path, "/") {
		name, param := routepath.Param(seg)
		switch {
		case seg == "":
			continue
		case name == routepath.Wildcard:
			b.WriteString("Wildcard")
		case param:
			b.WriteString("By")
			writeCamel(&b, name)
		default:
			writeCamel(&b, seg)
		}
		words++
	}
	if words == 0 {
		b.WriteString("Index")
	}
	return b.String()
}

// writeCamel writes s's letters and digits, each run after another
// character capitalised.
func writeCamel(b *strings.Builder, s string) {
	up := true
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) || r > unicode.MaxASCII {
			up = true
			continue
		}
		if up {
			r = unicode.ToUpper(r)
			up = false
		}
		b.WriteRune(r)
	}
}
