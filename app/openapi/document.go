// Package openapi describes a Burrow server as an OpenAPI 3.1 document,
// with a 3.2 rendition that says what 3.1 cannot (QUERY operations, the
// items of a stream) and a 3.0.3 rendition for tools that do not read
// 3.1 yet, and serves them with a docs page that works offline.
//
// The document is built from what the server knows once Ready has
// compiled its routes ([app.Server.Routes]): each route's path, the
// parameters and body it decodes for its handler and hooks, with their
// validation rules (a form body as application/x-www-form-urlencoded,
// multipart/form-data and application/json, or multipart alone when it
// holds a file, whose schema is a string of format binary), the replies
// its signature or app.Responds declare, its metadata (app.OperationID,
// app.Summary, app.Tags, …), Burrow's own answers (400, 413, 415, 404)
// and the security schemes its context can see. Any context can serve
// the document of its own subtree; the root's covers the whole server.
//
//	s.Register(openapi.Plugin(openapi.Info{Title: "Todos", Version: "1.0.0"}))
//	// GET /openapi.json, GET /openapi-3.2.json, GET /openapi-3.0.json, GET /docs
//
// The 3.2 rendition holds every route: a QUERY route (app.QueryRoute) as
// its path's query operation, a route of any other method OpenAPI names
// no field for (PURGE) under additionalOperations, and a stream's items
// (app.Events, app.RespondsAs on text/event-stream or application/jsonl)
// as its media type's itemSchema. 3.1 and 3.0.3 have none of these: those
// operations are left out of them (with the components only they use),
// and a stream is a string there.
package openapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/internal/routepath"
	"github.com/burrow-go/burrow/app/internal/validate"
	"github.com/burrow-go/burrow/httpx"
)

// Info is the document's info object.
type Info struct {
	Title       string // default "API"
	Version     string // of the API; default "0.0.0"
	Description string // Markdown
}

// Document is a built OpenAPI document, in its three renditions.
type Document struct {
	v31, v32, v30 []byte
}

// JSON is the OpenAPI 3.1 document.
func (d *Document) JSON() []byte { return d.v31 }

// JSON32 is its OpenAPI 3.2 rendition: the 3.1 document, with QUERY
// operations and those of other methods 3.1 has no field for, and the
// itemSchema of streams.
func (d *Document) JSON32() []byte { return d.v32 }

// JSON30 is its OpenAPI 3.0.3 rendition: the same operations and
// schemas, with 3.1's type arrays written as nullable, and so on.
func (d *Document) JSON30() []byte { return d.v30 }

// ErrDocument is matched by every error Build returns: routes that one
// document cannot describe together.
var ErrDocument = errors.New("cannot build the OpenAPI document")

// methods are the methods an OpenAPI 3.1 path item holds, as fields
// named in lower case; 3.2 adds QUERY. A 3.2 path item holds any other
// method under additionalOperations, by its name.
var methods = []string{"GET", "PUT", "POST", "DELETE", "OPTIONS", "HEAD", "PATCH", "TRACE"}

// The renditions, by their openapi field.
const (
	v31 = "3.1.0"
	v32 = "3.2.0"
	v30 = "3.0.3"
)

// Build makes the document of routes (from app.Server.Routes), leaving
// out those marked app.Undocumented and those answering any method
// (httpx.AnyMethod), which no operation describes. The output is
// deterministic: the same routes give the same bytes.
func Build(routes []app.RouteInfo, info Info) (*Document, error) {
	b := &builder{schemas: newSchemas(), paths: obj{}, security: map[string]app.SecurityScheme{},
		ids: map[string]string{}, responses: obj{}}
	for _, r := range routes {
		if r.Undocumented || r.Method == httpx.AnyMethod {
			continue
		}
		if err := b.route(r); err != nil {
			return nil, err
		}
	}
	names := b.finish()
	d := &Document{}
	for _, r := range []struct {
		version string
		out     *[]byte
	}{{v31, &d.v31}, {v32, &d.v32}, {v30, &d.v30}} {
		var err error
		if *r.out, err = encode(b.document(info, names, r.version)); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// top is the document's root, written in the order people read it;
// encoding/json sorts the keys of every other object.
type top struct {
	OpenAPI    string `json:"openapi"`
	Info       obj    `json:"info"`
	Servers    []any  `json:"servers"`
	Tags       []any  `json:"tags,omitempty"`
	Paths      obj    `json:"paths"`
	Components obj    `json:"components,omitempty"`
}

// encode writes v indented, with references resolved.
func encode(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrDocument, err)
	}
	return buf.Bytes(), nil
}

type builder struct {
	schemas   *schemas
	paths     obj
	security  map[string]app.SecurityScheme
	ids       map[string]string // operationId → the route that has it
	responses obj               // Burrow's own answers, as used
	tags      []string
}

// route adds one route's operation.
func (b *builder) route(r app.RouteInfo) error {
	where := r.Method + " " + r.Path + " (" + r.Context + ")"
	path, err := template(r.Path)
	if err != nil {
		return fmt.Errorf("%w: route %s: %w", ErrDocument, where, err)
	}
	item, _ := b.paths[path].(obj)
	if item == nil {
		item = obj{}
		b.paths[path] = item
	}
	// A method of 3.2's fields is a field of the path item, by its name
	// in lower case; any other is a member of additionalOperations.
	ops, method := item, strings.ToLower(r.Method)
	if !slices.Contains(methods, r.Method) && r.Method != httpx.MethodQuery {
		ops, _ = item["additionalOperations"].(obj)
		if ops == nil {
			ops = obj{}
			item["additionalOperations"] = ops
		}
		method = r.Method
	}
	if _, dup := ops[method]; dup {
		return fmt.Errorf("%w: route %s: another route is documented at %s %s", ErrDocument, where, r.Method, path)
	}
	id := r.OperationID
	if prev, dup := b.ids[id]; dup {
		return fmt.Errorf("%w: route %s: operation id %q is also %s's; give one of them app.OperationID", ErrDocument, where, id, prev)
	}
	b.ids[id] = where
	op := obj{"operationId": id, "responses": b.responsesOf(r)}
	op["summary"] = r.Summary
	if r.Summary == "" {
		op["summary"] = r.Method + " " + path
	}
	if r.Description != "" {
		op["description"] = r.Description
	}
	if len(r.Tags) > 0 {
		op["tags"] = r.Tags
		for _, t := range r.Tags {
			if !slices.Contains(b.tags, t) {
				b.tags = append(b.tags, t)
			}
		}
	}
	if r.Deprecated {
		op["deprecated"] = true
	}
	op["x-burrow-context"] = r.Context
	params := b.params(r)
	if r.Upgrade != nil {
		params = append(params, b.upgrade(r.Upgrade, op)...)
	}
	if len(params) > 0 {
		op["parameters"] = params
	}
	switch {
	case r.Body != nil:
		op["requestBody"] = b.requestBody(r)
	case len(r.Form) > 0:
		op["requestBody"] = b.formBody(r)
	}
	if len(r.Security) > 0 {
		// One requirement object per way of satisfying them: every
		// scheme outside a group, and one scheme of each AnyOf group.
		reqs := []obj{{}}
		groups := map[string]int{} // AnyOf group → index of its first scheme's alternatives
		var alts [][]app.SecurityScheme
		for _, sc := range r.Security {
			if prev, ok := b.security[sc.Name]; ok && prev != sc {
				return fmt.Errorf("%w: route %s: security scheme %q differs from another of that name the document holds", ErrDocument, where, sc.Name)
			}
			b.security[sc.Name] = sc
			if i, ok := groups[sc.AnyOf]; ok && sc.AnyOf != "" {
				alts[i] = append(alts[i], sc)
				continue
			}
			groups[sc.AnyOf] = len(alts)
			alts = append(alts, []app.SecurityScheme{sc})
		}
		for _, choice := range alts {
			var next []obj
			for _, req := range reqs {
				for _, sc := range choice {
					scopes := []any{}
					for _, s := range r.Scopes[sc.Name] {
						scopes = append(scopes, s)
					}
					o := maps.Clone(req)
					o[sc.Name] = scopes
					next = append(next, o)
				}
			}
			reqs = next
		}
		list := make([]any, len(reqs))
		for i, req := range reqs {
			list[i] = req
		}
		op["security"] = list
	} else {
		op["security"] = []any{} // says "none", where a missing list could mean "forgotten"
	}
	ops[method] = op
	return nil
}

// template writes a Burrow path as an OpenAPI path template:
// "/todos/:id" is "/todos/{id}", a trailing "*" is "{wildcard}".
func template(path string) (string, error) {
	for s := range strings.SplitSeq(path, "/") {
		if !strings.HasPrefix(s, ":") && strings.ContainsAny(s, "{}") {
			return "", fmt.Errorf("its path segment %q holds a brace, which OpenAPI reads as a template", s)
		}
	}
	return routepath.Braced(path, "wildcard"), nil
}

// ignoredHeaders are header parameters OpenAPI says to leave out: other
// fields of the document describe them.
var ignoredHeaders = []string{"Accept", "Content-Type", "Authorization"}

var (
	typeFile  = reflect.TypeFor[*app.File]()
	typeFiles = reflect.TypeFor[[]*app.File]()
)

// requestBody is the body of route r, which decodes r.Body. The text
// parser fills a string or a []byte, those types exactly; any other
// type, one of the user's made of them included, is read as JSON.
// Rules declared on the body field itself (an array's minItems) go on
// the body's schema, unless that is a reference to a named type, whose
// schema other routes share.
func (b *builder) requestBody(r app.RouteInfo) obj {
	t := r.Body
	mt := "application/json"
	if t == typeString || t == typeBytes {
		mt = "text/plain"
	}
	sc := b.bodySchema(t, mt)
	if _, ref := sc["$ref"]; r.BodyField.Name != "" && !ref {
		applyRules(sc, r.BodyField)
	}
	rb := obj{"content": obj{mt: obj{"schema": sc}}}
	if r.BodyRequired || hasRequired(t) {
		rb["required"] = true
	}
	return rb
}

func (b *builder) bodySchema(t reflect.Type, mt string) obj {
	if mt == "text/plain" {
		return obj{"type": "string"}
	}
	return b.schemas.of(t, in)
}

// hasRequired reports whether the server refuses a request without a
// body of type t: the body is then t's zero value, which is validated
// as any body is. The validator answers, so the document cannot
// disagree with it (a required field promoted from an embedded struct,
// a nested struct value with one, a number whose zero is out of bounds).
func hasRequired(t reflect.Type) bool {
	vd, err := validate.Compile(t, "json")
	if vd == nil || err != nil {
		return false // no rule; or, for an error, the route would not have passed Ready
	}
	return len(vd.Validate(reflect.New(t).Elem(), "body", nil)) > 0
}

// responsesOf is the operation's responses: the route's own, then
// Burrow's answers where they apply and the route declares no other.
func (b *builder) responsesOf(r app.RouteInfo) obj {
	res := obj{}
	for _, x := range r.Responses {
		res[strconv.Itoa(x.Status)] = b.response(x)
	}
	if len(r.Responses) == 0 {
		res["200"] = obj{"description": "OK"} // the signature does not say what
	}
	add := func(status int, name string) {
		key := strconv.Itoa(status)
		if _, ok := res[key]; !ok {
			res[key] = obj{"$ref": "#/components/responses/" + name}
			b.responses[name] = burrowResponse(name, r.ProblemDetails)
		}
	}
	if r.TypedInput {
		add(http.StatusBadRequest, "BadRequest")
	}
	if len(r.Security) > 0 {
		add(http.StatusUnauthorized, "Unauthorized")
	}
	for _, scopes := range r.Scopes {
		if len(scopes) > 0 && len(r.Security) > 0 {
			add(http.StatusForbidden, "Forbidden")
			break
		}
	}
	if slices.ContainsFunc(r.Params, func(p app.ParamInfo) bool { return p.Source == "path" }) {
		add(http.StatusNotFound, "NotFound")
	}
	if r.Body != nil || len(r.Form) > 0 {
		add(http.StatusRequestEntityTooLarge, "PayloadTooLarge")
		add(http.StatusUnsupportedMediaType, "UnsupportedMediaType")
	}
	return res
}

func (b *builder) response(x app.ResponseInfo) obj {
	desc := http.StatusText(x.Status)
	if desc == "" {
		desc = "Status " + strconv.Itoa(x.Status)
	}
	res := obj{"description": desc}
	if x.MediaType != "" {
		media := obj{"schema": b.mediaSchema(x)}
		if app.IsSequential(x.MediaType) {
			media["itemSchema"] = b.itemSchema(x) // 3.2's; document drops it from the others
		}
		res["content"] = obj{x.MediaType: media}
	} else if x.Type != nil && x.Status != http.StatusNoContent && x.Status != http.StatusNotModified {
		// Send writes a string as text and a []byte as bytes, those
		// types exactly; anything else, named strings included, as JSON.
		mt, sc := "application/json", obj(nil)
		switch x.Type {
		case typeProblem:
			mt, sc = httpx.ContentTypeProblem, b.schemas.of(x.Type, out)
		case typeString:
			mt, sc = "text/plain", obj{"type": "string"}
		case typeBytes:
			mt, sc = "application/octet-stream", obj{}
		default:
			sc = b.schemas.of(x.Type, out)
		}
		res["content"] = obj{mt: obj{"schema": sc}}
	}
	if len(x.Headers) > 0 {
		h := obj{}
		for _, name := range x.Headers {
			h[name] = obj{"schema": obj{"type": "string"}}
		}
		res["headers"] = h
	}
	return res
}

// mediaSchema is the schema of a reply declared with a media type: its
// body type's, if it is JSON; else a string for text, and anything (the
// media type says what) for bytes.
func (b *builder) mediaSchema(x app.ResponseInfo) obj {
	json := x.MediaType == "application/json" || strings.HasSuffix(x.MediaType, "+json")
	switch {
	case x.Type != nil && x.Type != typeString && x.Type != typeBytes && json:
		return b.schemas.of(x.Type, out)
	case strings.HasPrefix(x.MediaType, "text/") || x.Type == typeString:
		return obj{"type": "string"}
	}
	return obj{}
}

var (
	// typeErrorBody is the body of Burrow's error answers; typeProblem
	// their body on a server that answers with problem details.
	typeErrorBody = reflect.TypeFor[httpx.ErrorBody]()
	typeProblem   = reflect.TypeFor[httpx.Problem]()
	typeString    = reflect.TypeFor[string]()
	typeBytes     = reflect.TypeFor[[]byte]()
)

// burrowResponse is one of Burrow's own answers, by name, as a
// component. Its body is the default error handler's (an error handler
// of the server's own may answer otherwise): an ErrorBody, or with
// problems, a Problem.
func burrowResponse(name string, problems bool) obj {
	switch name {
	case "BadRequest":
		return errorResponse("The input is invalid. On a validation failure (code FST_ERR_VALIDATION), "+
			"validation lists the failing fields (the first 100: past them, the "+detail(problems)+" says more were left out), "+
			"with their path (body/…, querystring/…, params/…, headers/…, cookies/…), the rule and a message; "+
			"a body that does not parse has no validation array.", problems)
	case "Unauthorized":
		return obj{"description": "The credentials are missing or invalid; the body is the authentication plugin's. " +
			"bearer-auth answers a request with several Authorization headers 400 instead (code FST_BEARER_AUTH_MULTIPLE_AUTHORIZATION_HEADERS)."}
	case "Forbidden":
		return obj{"description": "The credentials lack a scope the route requires (its security requirement lists them); " +
			"the body is the authentication plugin's."}
	case "NotFound":
		body := "{\"message\":\"Route <method>:<target> not found\",\"error\":\"Not Found\",\"statusCode\":404}, " +
			"with the request's method and target (its first 1 KiB)."
		if problems {
			body = "problem details whose detail is \"Route <method>:<target> not found\", " +
				"with the request's method and target (its first 1 KiB)."
		}
		return errorResponse("No route matches: for instance, a path parameter longer than the limit (100 bytes by default). "+
			"The body is "+body, problems)
	case "PayloadTooLarge":
		return errorResponse("The body is larger than the limit (1 MiB by default): code FST_ERR_CTP_BODY_TOO_LARGE.", problems)
	case "UnsupportedMediaType":
		return errorResponse("No parser reads the body's media type: code FST_ERR_CTP_INVALID_MEDIA_TYPE.", problems)
	}
	panic("openapi: no response " + name) // a typo in this package
}

// detail is the name of an error body's message.
func detail(problems bool) string {
	if problems {
		return "detail"
	}
	return "message"
}

func errorResponse(desc string, problems bool) obj {
	mt, schema := "application/json", "Error"
	if problems {
		mt, schema = httpx.ContentTypeProblem, "Problem"
	}
	return obj{"description": desc, "content": obj{mt: obj{"schema": obj{"$ref": "#/components/schemas/" + schema}}}}
}

// errorSchemas are the component names of Burrow's error bodies, which
// burrowResponse refers to by name.
var errorSchemas = map[reflect.Type]string{typeErrorBody: "Error", typeProblem: "Problem"}

// finish adds Burrow's error bodies to the components where a response
// uses them, and names the component schemas. The error bodies' names,
// "Error" and "Problem", are reserved before the user's types are named
// (burrowResponse refers to them by name), so a type of the user's
// called Error gets another.
func (b *builder) finish() map[schemaKey]string {
	for _, r := range b.responses {
		content, ok := r.(obj)["content"].(obj)
		if !ok {
			continue
		}
		if _, ok := content[httpx.ContentTypeProblem]; ok {
			b.schemas.of(typeProblem, out)
		} else {
			b.schemas.of(typeErrorBody, out)
		}
	}
	return b.schemas.names(errorSchemas)
}

// document assembles what the routes added, as the rendition version.
// Every call builds a fresh tree.
func (b *builder) document(info Info, names map[schemaKey]string, version string) top {
	if info.Title == "" {
		info.Title = "API"
	}
	if info.Version == "" {
		info.Version = "0.0.0"
	}
	// Paths hold the whole path, prefix included: the server is the origin
	// the document is read from.
	doc := top{OpenAPI: version, Info: obj{"title": info.Title, "version": info.Version}, Servers: []any{obj{"url": "/"}}}
	if info.Description != "" {
		doc.Info["description"] = info.Description
	}
	comps := obj{}
	schemas := obj{}
	for k, name := range names {
		if _, done := schemas[name]; !done || k.dir == out {
			schemas[name] = b.schemas.defs[k]
		}
	}
	if len(schemas) > 0 {
		comps["schemas"] = schemas
	}
	if len(b.responses) > 0 {
		comps["responses"] = b.responses
	}
	if len(b.security) > 0 {
		sec := obj{}
		for name, sc := range b.security {
			sec[name] = securityScheme(sc)
		}
		comps["securitySchemes"] = sec
	}
	for _, t := range slices.Sorted(slices.Values(b.tags)) {
		doc.Tags = append(doc.Tags, obj{"name": t})
	}
	doc.Paths = resolve(b.paths, names).(obj)
	if len(comps) > 0 {
		doc.Components = resolve(comps, names).(obj)
	}
	if version == v32 {
		streams32(doc.Paths)
		return doc
	}
	before32(doc.Paths)
	prune(&doc)
	if version == v30 {
		downgrade(doc.Paths)
		scopes30(doc.Paths, b.security)
		if schemas, ok := doc.Components["schemas"].(obj); ok {
			for name, sc := range schemas {
				schemas[name] = walk(sc)
			}
		}
		downgrade(doc.Components["responses"])
		if schemas, ok := doc.Components["schemas"].(obj); ok {
			typeRefs(doc.Paths, schemas)
			typeRefs(doc.Components, schemas)
		}
	}
	return doc
}

// scopes30 empties, in the 3.0.3 rendition's paths, the scopes of the
// security requirements of schemes other than oauth2 and openIdConnect:
// 3.1 lets a requirement list roles for any scheme, 3.0 only scopes for
// those two.
func scopes30(paths obj, security map[string]app.SecurityScheme) {
	for _, item := range paths {
		for _, op := range item.(obj) {
			op, ok := op.(obj)
			if !ok {
				continue
			}
			reqs, _ := op["security"].([]any)
			for _, req := range reqs {
				for name := range req.(obj) {
					if t := security[name].Type; t != "oauth2" && t != "openIdConnect" {
						req.(obj)[name] = []any{}
					}
				}
			}
		}
	}
}

func securityScheme(sc app.SecurityScheme) obj {
	o := obj{"type": sc.Type}
	set := func(k, v string) {
		if v != "" {
			o[k] = v
		}
	}
	set("scheme", sc.Scheme)
	set("bearerFormat", sc.BearerFormat)
	set("in", sc.In)
	set("name", sc.ParamName)
	set("openIdConnectUrl", sc.OpenIDConnectURL)
	set("description", sc.Description)
	return o
}

// resolve replaces references by their component paths.
func resolve(v any, names map[schemaKey]string) any {
	return replaceRefs(v, func(r ref) any { return "#/components/schemas/" + names[r.key] })
}
