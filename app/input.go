package app

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"reflect"
	"slices"
	"time"

	"github.com/burrow-go/burrow/app/internal/textdecode"
	"github.com/burrow-go/burrow/app/internal/validate"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/internal/errkind"
)

// Body is a handler or hook parameter holding the request body decoded
// into T by the parser of its media type (JSON and text by default), then
// validated against T's tags. The body is read only for routes that ask
// for it, after onRequest and preParsing hooks, and checked before
// preValidation hooks see it. JSON keys name T's fields exactly: a key
// that names one only when case is folded is refused, so the body cannot
// mean one thing to Burrow and another to a proxy:
//
//	type newUser struct {
//		Name  string `json:"name" validate:"required,max=64"`
//		Email string `json:"email" validate:"required,format=email"`
//	}
//	s.Post("/users", func(b app.Body[newUser]) (user, error) { … b.Value.Name … })
type Body[T any] struct{ Value T }

// Query is a handler or hook parameter holding the query string decoded
// into the struct T: a field takes the values of the key in its query
// tag (default: the field's name); slices take repeated keys. A value
// that does not convert is a 400 naming the field.
type Query[T any] struct{ Value T }

// Params is a handler or hook parameter holding the path parameters
// decoded into the struct T, a field per param tag (default: the field's
// name).
type Params[T any] struct{ Value T }

type inputKind int

const (
	inputBody inputKind = iota
	inputQuery
	inputParams
	inputFields // the path, query, header and cookie fields of an In struct
)

var inputNames = [...]string{"body", "querystring", "params", "input struct"}

func (Body[T]) input() inputKind   { return inputBody }
func (Query[T]) input() inputKind  { return inputQuery }
func (Params[T]) input() inputKind { return inputParams }

type inputParam interface{ input() inputKind }

var typeInputParam = reflect.TypeFor[inputParam]()

// inputNeeds collects what a route's handler and hooks ask for; they must
// agree on each type.
type inputNeeds struct {
	types [4]reflect.Type
	// body is the In struct field that declares the body's own rules
	// (validate:"required,min=1"), with the struct it is in; nil when
	// no field does.
	body   *reflect.StructField
	bodyIn reflect.Type
}

// needBodyRules records the rules of f, the body field of In struct t.
// Every In struct of a route that declares the body's rules must
// declare the same.
func (in *inputNeeds) needBodyRules(t reflect.Type, f reflect.StructField) error {
	if f.Tag.Get("validate") == "" && f.Tag.Get("pattern") == "" {
		return nil
	}
	if prev := in.body; prev != nil && (prev.Tag.Get("validate") != f.Tag.Get("validate") || prev.Tag.Get("pattern") != f.Tag.Get("pattern")) {
		return errkind.New(ErrInvalidInput, "the body's rules are declared by %v.%s and, differently, by %v.%s", in.bodyIn, prev.Name, t, f.Name)
	}
	in.body, in.bodyIn = &f, t
	return nil
}

func (in *inputNeeds) need(k inputKind, t reflect.Type) error {
	if prev := in.types[k]; prev != nil && prev != t {
		return errkind.New(ErrInvalidInput, "%s asked for as %v and as %v", inputNames[k], prev, t)
	}
	in.types[k] = t
	return nil
}

// inputPlan decodes and validates a route's input.
type inputPlan struct {
	types      [4]reflect.Type
	bodyField  *reflect.StructField // the In struct field with the body's own rules; nil for none
	bodyNeeded bool                 // validate:"required" on the body: an absent one is a 400
	validators [3]*validate.Validator
	fields     *fieldsInput // nil when no In struct has text fields
	query      *textdecode.Decoder
	params     *textdecode.Decoder
	parsers    []parserDef
	limit      int64
	multipart  MultipartLimits // with the defaults filled in
	timeout    time.Duration
}

// newInputPlan compiles what the route's parameters need, or returns nil
// when they need nothing.
func (a *instance) newInputPlan(n *node, path string, routeLimit int64, multipart MultipartLimits, needs *inputNeeds) (*inputPlan, error) {
	if needs.types == [4]reflect.Type{} {
		return nil, nil
	}
	p := &inputPlan{types: needs.types, limit: a.cfg.maxBodyBytes, timeout: a.cfg.bodyTimeout, bodyField: needs.body}
	if needs.body != nil {
		p.bodyNeeded = validate.Required(needs.body.Tag.Get("validate"))
	}
	limitSet := false
	p.multipart = multipart
	for _, c := range slices.Backward(a.lineage(n)) {
		p.multipart = p.multipart.under(c.multipart) // the nearest context's, field by field
		p.parsers = append(p.parsers, c.parsers...)
		if c.bodyLimit > 0 && !limitSet {
			p.limit, limitSet = c.bodyLimit, true // the nearest context's
		}
	}
	p.multipart = p.multipart.under(defaultMultipartLimits)
	p.parsers = append(p.parsers, defaultParsers(needs.types[inputBody])...)
	if routeLimit > 0 {
		p.limit = routeLimit
	}
	tags := [3]string{"json", "query", "param"}
	if t := p.types[inputFields]; t != nil {
		fi, err := compileFields(t, path)
		if err != nil {
			return nil, err
		}
		if b := p.types[inputBody]; b != nil && fi.hasForm() {
			return nil, fmt.Errorf("has an invalid input struct: %w", errkind.New(ErrInvalidInput,
				"%v has form fields and the route also decodes a body into %v: the body is a form or it is %v, not both", t, b, b))
		}
		p.fields = fi
	}
	for k, t := range p.types[:inputFields] {
		if t == nil {
			continue
		}
		if k != int(inputBody) {
			d, err := textdecode.Compile(t, tags[k])
			if err != nil {
				return nil, errkind.New(ErrInvalidInput, "%w", err)
			}
			if k == int(inputQuery) {
				p.query = d
			} else {
				p.params = d
			}
		}
		var v *validate.Validator
		var err error
		if k == int(inputBody) && p.bodyField != nil {
			v, err = validate.CompileValue(*p.bodyField, tags[k])
			if err != nil {
				err = fmt.Errorf("%v.%s: %w", needs.bodyIn, p.bodyField.Name, err)
			}
		} else {
			v, err = validate.Compile(t, tags[k])
		}
		if err != nil {
			return nil, fmt.Errorf("has an invalid %s type: %w", inputNames[k], errkind.New(ErrInvalidConstraint, "%w", err))
		}
		p.validators[k] = v
	}
	return p, nil
}

// decode runs after the preParsing hooks: it decodes the query, the
// params and the body the route asked for.
func (p *inputPlan) decode(x *httpx.Exchange) error {
	req, rep := x.Request(), x.Reply()
	in := x.Input()
	var bad []httpx.FieldError
	if t := p.types[inputQuery]; t != nil {
		v := reflect.New(t)
		q := req.QueryValues()
		if err := req.QueryErr(); err != nil {
			return httpx.NewError(http.StatusBadRequest, codeBadQuery, "querystring is malformed: "+err.Error())
		}
		bad = p.query.Decode(v.Elem(), "querystring", func(name string) []string { return q[name] }, bad)
		in[inputQuery] = v.Interface()
	}
	if t := p.types[inputParams]; t != nil {
		v := reflect.New(t)
		bad = p.params.DecodeOne(v.Elem(), "params", func(name string) (string, bool) { s := req.Param(name); return s, s != "" }, bad)
		in[inputParams] = v.Interface()
	}
	if p.fields != nil {
		var err error
		if bad, err = p.fields.decode(x, bad); err != nil {
			return err
		}
	}
	if len(bad) > 0 {
		return validationError(bad)
	}
	if p.fields != nil && p.fields.hasForm() {
		form, err := p.readForm(x)
		if err != nil {
			return err
		}
		if bad = p.fields.decodeForm(x, form, bad); len(bad) > 0 {
			return validationError(bad)
		}
	}
	if t := p.types[inputBody]; t != nil {
		if p.bodyNeeded && absentBody(req.Raw()) {
			return errBodyRequired()
		}
		v := reflect.New(t)
		if err := p.parseBody(x, req, rep, v.Interface()); err != nil {
			return err
		}
		in[inputBody] = v.Interface()
	}
	return nil
}

// parseBody reads the body with the parser of its media type.
func (p *inputPlan) parseBody(x *httpx.Exchange, req *httpx.Request, rep *httpx.Reply, v any) error {
	raw := req.Raw()
	ct := raw.Header.Get("Content-Type")
	if raw.ContentLength > p.limit {
		rep.Header()["Connection"] = closeHeader // the unread body makes the connection unusable
		return errTooLarge
	}
	if absentBody(raw) && ct == "" {
		return nil // no body: the zero value, which validation judges
	}
	mt := mediaType(ct)
	var parser *parserDef
	for i := range p.parsers {
		if p.parsers[i].matches(mt) {
			parser = &p.parsers[i]
			break
		}
	}
	if parser == nil {
		return errMediaType(mt)
	}
	body := req.BodyReader()
	if body == nil {
		body = http.NoBody
	}
	if p.timeout > 0 && armBodyDeadline(rep.Raw(), raw, p.timeout) {
		defer clearReadDeadline(rep.Raw())
	}
	err := parser.parse(req, body, p.limit, v)
	if err == nil {
		if parser.json != nil {
			// The JSON parser reads to io.EOF before it decodes: the
			// raw body is drained, and needs no deadline after the
			// handler.
			x.Drained()
		}
		return nil
	}
	return bodyError(rep, err)
}

// bodyError is the answer to err, met while reading or parsing a body:
// a time-out (408) or a body past its limit (413) closes the connection,
// whose unread rest would be taken for the next request.
func bodyError(rep *httpx.Reply, err error) error {
	var he *httpx.Error
	var ne net.Error
	switch {
	case errors.As(err, &ne) && ne.Timeout():
		rep.Header()["Connection"] = closeHeader
		return &httpx.Error{StatusCode: http.StatusRequestTimeout, Code: "ERR_BODY_TIMEOUT",
			Message: "Request body was not received in time", Err: err}
	case errors.As(err, &he) && he.StatusCode == http.StatusRequestEntityTooLarge:
		rep.Header()["Connection"] = closeHeader // a limit of its own, a multipart one: its message says which
		return err
	case errors.Is(err, ErrBodyTooLarge):
		rep.Header()["Connection"] = closeHeader
		return errTooLarge
	case errors.As(err, &he):
		return err
	case errors.Is(err, io.ErrUnexpectedEOF):
		return httpx.Errorf(http.StatusBadRequest, "request body ended early: %w", err)
	}
	return &httpx.Error{StatusCode: http.StatusBadRequest, Message: err.Error(), Err: err}
}

// absentBody reports whether r carries no body at all.
func absentBody(r *http.Request) bool {
	return r.ContentLength == 0 || r.Body == nil || r.Body == http.NoBody
}

// errBodyRequired answers a request without the body its route requires,
// whatever the body's type: a struct's zero value could not tell an
// absent body from {}. A new error each time: a hook may change it.
func errBodyRequired() error {
	return validationError([]httpx.FieldError{{Path: "body", Rule: "required", Message: "is required"}})
}

// validate runs after the preValidation hooks.
func (p *inputPlan) validate(x *httpx.Exchange) error {
	in := x.Input()
	scratch := getFieldErrors()
	bad := *scratch
	for k, vd := range p.validators {
		if vd != nil && in[k] != nil {
			bad = vd.Validate(reflect.ValueOf(in[k]).Elem(), inputNames[k], bad)
		}
	}
	if p.fields != nil {
		bad = p.fields.validate(x, bad)
	}
	var err error
	if len(bad) > 0 {
		err = validationError(bad) // a copy: bad goes back to the pool
	}
	putFieldErrors(scratch, bad)
	return err
}

// planInput plans a Body, Query or Params parameter of type t.
func planInput(t reflect.Type, opt planOptions) (argPlan, error) {
	k := reflect.Zero(t).Interface().(inputParam).input()
	target := t.Field(0).Type
	if k != inputBody && target.Kind() != reflect.Struct && opt.inputs != nil {
		return argPlan{}, errkind.New(ErrInvalidInput, "%v: %s must be decoded into a struct", t, inputNames[k])
	}
	if err := needInput(opt, k, target, t.String()); err != nil {
		return argPlan{}, err
	}
	return argPlan{kind: argInput, input: k, wrapper: t}, nil
}

// inputValue builds the Body/Query/Params value for a call.
func inputValue(x *httpx.Exchange, a *argPlan) reflect.Value {
	w := reflect.New(a.wrapper).Elem()
	if v := x.Input()[a.input]; v != nil {
		w.Field(0).Set(reflect.ValueOf(v).Elem())
	}
	return w
}
